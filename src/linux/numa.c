#define _GNU_SOURCE
/* CPU and NUMA node placement: linux.memoryPolicy (set_mempolicy, inherited
 * across execve) and process.execCPUAffinity (sched_setaffinity for
 * `exec`).  Both take lists in the kernel's format: "0-3,7". */
#include <errno.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "crt/idlist.h"
#include "crt/numa.h"
#include "crt/spec.h"

#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6 /* Linux 6.9 */
#endif

#define LIST_BITS CRT_IDLIST_BITS
#define LONG_BITS (8 * sizeof(unsigned long))

static const struct {
  const char *name;
  int mode;
  bool needs_nodes; /* the kernel wants a non-empty node mask */
} modes[] = {
    {"MPOL_DEFAULT", MPOL_DEFAULT, false},   {"MPOL_PREFERRED", MPOL_PREFERRED, false},
    {"MPOL_BIND", MPOL_BIND, true},          {"MPOL_INTERLEAVE", MPOL_INTERLEAVE, true},
    {"MPOL_LOCAL", MPOL_LOCAL, false},       {"MPOL_PREFERRED_MANY", MPOL_PREFERRED_MANY, true},
    {"MPOL_WEIGHTED_INTERLEAVE", MPOL_WEIGHTED_INTERLEAVE, true},
};

static const struct {
  const char *name;
  int flag;
} mode_flags[] = {
    {"MPOL_F_NUMA_BALANCING", MPOL_F_NUMA_BALANCING},
    {"MPOL_F_RELATIVE_NODES", MPOL_F_RELATIVE_NODES},
    {"MPOL_F_STATIC_NODES", MPOL_F_STATIC_NODES},
};

/* The mode with its flags, and whether it needs nodes; -1 if unknown. */
static int policy_mode(const crt_memory_policy *m, bool *needs_nodes) {
  int mode = -1;
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
    if (!strcmp(m->mode, modes[i].name)) mode = modes[i].mode, *needs_nodes = modes[i].needs_nodes;
  for (size_t i = 0; mode >= 0 && i < m->flags.len; i++)
    for (size_t j = 0; j < sizeof mode_flags / sizeof mode_flags[0]; j++)
      if (!strcmp(m->flags.v[i], mode_flags[j].name)) mode |= mode_flags[j].flag;
  return mode;
}

/* The rules the kernel would apply at set_mempolicy, checked at create so
 * that the error names the field before anything exists; in runc main's
 * words (memorypolicy.bats): "invalid memory policy nodes", "mode requires
 * 0 nodes but got N". */
int crt_mempolicy_validate(const crt_memory_policy *m, crt_err **err) {
  bool needs = false;
  if (policy_mode(m, &needs) < 0)
    return crt_error(err, 0, ".linux.memoryPolicy.mode: invalid memory policy mode \"%s\"", m->mode);
  bool has = m->nodes && *m->nodes;
  unsigned long mask[LIST_BITS / LONG_BITS];
  if (has && crt_parse_id_list(m->nodes, mask, LIST_BITS, err) < 0)
    return crt_error_wrap(err, ".linux.memoryPolicy.nodes: invalid memory policy nodes \"%s\"", m->nodes);
  size_t n = 0;
  for (size_t i = 0; has && i < LIST_BITS / LONG_BITS; i++) n += (size_t)__builtin_popcountl(mask[i]);
  if (needs && !n) return crt_error(err, 0, ".linux.memoryPolicy.nodes: %s mode requires nodes but got 0", m->mode);
  if (n && (!strcmp(m->mode, "MPOL_DEFAULT") || !strcmp(m->mode, "MPOL_LOCAL")))
    return crt_error(err, 0, ".linux.memoryPolicy.nodes: %s mode requires 0 nodes but got %zu", m->mode, n);
  return 0;
}

int crt_set_mempolicy(const crt_spec *spec, crt_err **err) {
  const crt_memory_policy *m = spec->linux_ ? spec->linux_->memory_policy : NULL;
  if (!m) return 0;
  bool needs = false;
  int mode = policy_mode(m, &needs);
  unsigned long mask[LIST_BITS / LONG_BITS] = {0};
  bool has = m->nodes && *m->nodes;
  if (mode < 0 || (has && crt_parse_id_list(m->nodes, mask, LIST_BITS, err) < 0))
    return crt_error(err, EINVAL, "linux.memoryPolicy");
  if (syscall(SYS_set_mempolicy, mode, has ? mask : NULL, has ? (unsigned long)LIST_BITS + 1 : 0UL) < 0)
    return crt_error(err, errno, "set_mempolicy %s nodes \"%s\"", m->mode, has ? m->nodes : "");
  return 0;
}

/* Every CPU: the kernel keeps those the task's cpuset allows (and, since
 * Linux 6.2, asks for all of them again when the cpuset changes). */
static int set_all_cpus(pid_t pid) {
  cpu_set_t *set = CPU_ALLOC(LIST_BITS);
  if (!set) return -1;
  size_t size = CPU_ALLOC_SIZE(LIST_BITS);
  memset(set, 0xff, size);
  int rc = sched_setaffinity(pid, size, set);
  int e = errno;
  CPU_FREE(set);
  errno = e;
  return rc;
}

int crt_set_cpu_list(const char *list, crt_err **err) {
  if (!list) return set_all_cpus(0) < 0 ? crt_error(err, errno, "sched_setaffinity \"all\"") : 0;
  cpu_set_t *set = CPU_ALLOC(LIST_BITS);
  if (!set) return crt_error(err, ENOMEM, "CPU list");
  size_t size = CPU_ALLOC_SIZE(LIST_BITS);
  int rc = crt_parse_id_list(list, (unsigned long *)set, LIST_BITS, err);
  if (rc == 0 && sched_setaffinity(0, size, set) < 0) rc = crt_error(err, errno, "sched_setaffinity \"%s\"", list);
  CPU_FREE(set);
  return rc;
}

int crt_cpu_move_off(pid_t child, crt_err **err) {
  cpu_set_t before, off;
  int here = sched_getcpu();
  if (here >= 0 && sched_getaffinity(child, sizeof before, &before) == 0 && CPU_COUNT(&before) >= 2 &&
      CPU_ISSET(here, &before)) {
    off = before;
    CPU_CLR(here, &off);
    (void)sched_setaffinity(child, sizeof off, &off); /* refused (a cpuset without the others): it stays */
  }
  /* not the caller's affinity back: a pinned caller (taskset, systemd's
   * CPUAffinity=) does not pin the container (runc >= 1.2 resets it too) */
  if (set_all_cpus(child) < 0) return crt_error(err, errno, "reset the CPU affinity of pid %d", (int)child);
  return 0;
}

int crt_thread_start_beside(pthread_t *t, void *(*fn)(void *), void *arg) {
  cpu_set_t cpus;
  int here = sched_getcpu();
  pthread_attr_t attr;
  bool beside = here >= 0 && sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_ISSET(here, &cpus) &&
                CPU_COUNT(&cpus) >= 2 && pthread_attr_init(&attr) == 0;
  if (!beside) return pthread_create(t, NULL, fn, arg);
  CPU_CLR(here, &cpus);
  int rc = pthread_attr_setaffinity_np(&attr, sizeof cpus, &cpus);
  if (rc == 0) rc = pthread_create(t, &attr, fn, arg);
  pthread_attr_destroy(&attr);
  /* an affinity refused (a cpuset narrowed meanwhile): anywhere */
  return rc == 0 ? 0 : pthread_create(t, NULL, fn, arg);
}
