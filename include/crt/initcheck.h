/* The init check (src/container/initcheck.c): is the pid state.json
 * names still the init crt started? */
#ifndef CRT_INITCHECK_H
#define CRT_INITCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "crt/state.h"

/* Whether s->pid is the init crt started (src/container/initcheck.c):
 * alive, with the start time state.json records, the pid and start time of
 * the rescue file `init` when there is one, and (once created) inside the
 * container's cgroup.  Anything but OK means the init is gone for crt: it
 * never signals that pid nor joins its namespaces. */
enum crt_init_check {
  CRT_INIT_OK,
  CRT_INIT_NONE,           /* no pid recorded */
  CRT_INIT_GONE,           /* exited (no such process, or a zombie) */
  CRT_INIT_REUSED,         /* another process: its start time differs (or none was recorded) */
  CRT_INIT_UNRECORDED,     /* state.json and the rescue file name different inits */
  CRT_INIT_OUTSIDE_CGROUP, /* not in the container's cgroup */
};
/* *actual_start (may be NULL): the start time of the process now at s->pid. */
enum crt_init_check crt_state_check_init(const crt_state *s, uint64_t *actual_start);
/* What the check found, for messages ("pid 42 is not its init (...)"). */
void crt_init_check_describe(const crt_state *s, enum crt_init_check c, uint64_t actual_start, char *buf,
                             size_t len);

#endif
