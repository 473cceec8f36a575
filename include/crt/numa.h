/* CPU and NUMA node placement (src/linux/numa.c). */
#ifndef CRT_NUMA_H
#define CRT_NUMA_H

#include "crt/error.h"
#include "crt/spec.h"

/* linux.memoryPolicy: checked at create, applied in every container
 * process (set_mempolicy survives execve). */
int crt_mempolicy_validate(const crt_memory_policy *m, crt_err **err);
int crt_set_mempolicy(const crt_spec *spec, crt_err **err);
/* sched_setaffinity to a CPU list; NULL: every CPU the cpuset allows. */
int crt_set_cpu_list(const char *list, crt_err **err);

#endif
