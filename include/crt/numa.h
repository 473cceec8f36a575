/* CPU and NUMA node placement (src/linux/numa.c). */
#ifndef CRT_NUMA_H
#define CRT_NUMA_H

#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

/* linux.memoryPolicy: checked at create, applied in every container
 * process (set_mempolicy survives execve). */
int crt_mempolicy_validate(const crt_memory_policy *m, crt_err **err);
int crt_set_mempolicy(const crt_spec *spec, crt_err **err);
/* sched_setaffinity to a CPU list; NULL: every CPU the cpuset allows. */
int crt_set_cpu_list(const char *list, crt_err **err);

/* The runtime's child kept off the runtime's CPU while both work side by
 * side (create: the init's mounts beside the cgroup and state work).  Seen
 * here: a cloned child waited ~1 ms on its parent's CPU while the other
 * idled.  spread_child pins the child to the runtime's CPUs but this one
 * (nothing with one CPU, best effort); unspread_child, called while the child
 * waits and before anything of the container runs, gives it back the
 * affinity it had, unless its cgroup's cpuset set a new one meanwhile
 * (attaching a task to a cpuset resets its affinity). */
typedef struct {
  bool pinned;
  cpu_set_t before, pinned_to;
} crt_cpu_spread;
void crt_cpu_spread_child(crt_cpu_spread *s, pid_t child);
int crt_cpu_unspread_child(crt_cpu_spread *s, pid_t child, crt_err **err);
/* pthread_create, the thread kept off the caller's CPU where another is
 * usable (a new thread too was seen to start on its creator's CPU and
 * move only ms later).  For short-lived helper threads, which never
 * run anything of a container. */
#include <pthread.h>
int crt_thread_start_beside(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
