/* CPU and NUMA node placement (src/linux/numa.c). */
#ifndef CRT_NUMA_H
#define CRT_NUMA_H

#include <pthread.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

/* linux.memoryPolicy: checked at create, applied in every container
 * process (set_mempolicy survives execve). */
int crt_mempolicy_validate(const crt_memory_policy *m, crt_err **err);
int crt_set_mempolicy(const crt_spec *spec, crt_err **err);
/* sched_setaffinity to a CPU list; NULL: every CPU the cpuset allows. */
int crt_set_cpu_list(const char *list, crt_err **err);

/* Moves a just-cloned child off the caller's CPU, to another of its CPUs,
 * then gives it every CPU (those its cpuset allows), as runc resets its
 * init's: the caller's own affinity (taskset, systemd's CPUAffinity=) is
 * not the container's.  sched_setaffinity moves a queued task right away,
 * and the wider set that follows does not move it again.  Seen here: a
 * cloned init waited ~1 ms on its parent's CPU while the other idled, so
 * what the two do side by side (create: the init's first mounts beside the
 * v1 cgroup and the state files) ran one after the other.  Kept pinned
 * instead (until PRESTART), two creates in parallel were slower: the
 * scheduler could not balance them.  No move with one usable CPU; -1 only
 * if the child's affinity could not be reset (it must not stay pinned). */
int crt_cpu_move_off(pid_t child, crt_err **err);
/* pthread_create, the thread kept off the caller's CPU where another is
 * usable (a new thread too was seen to start on its creator's CPU and
 * move only ms later).  For short-lived helper threads, which never
 * run anything of a container. */
int crt_thread_start_beside(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
