/* What a container's status allows, and the operations on a container by
 * id that are not start/kill/delete (lifecycle.h), create or exec: pause,
 * resume, update, ps, events (src/container/ops.c).
 *
 * crt_op_check is the one table of which status allows which operation
 * (runc's state machine): every refusal is CRT_ERR_BAD_STATE, its message
 * runc's wording.  lifecycle.c (start, kill, delete), exec.c and
 * checkpoint.c ask it too. */
#ifndef CRT_OPS_H
#define CRT_OPS_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/cgroup.h"
#include "crt/error.h"
#include "crt/spec.h"
#include "crt/state.h"

enum crt_op {
  CRT_OP_START,
  CRT_OP_PAUSE,
  CRT_OP_RESUME,
  CRT_OP_UPDATE,
  CRT_OP_PS,
  CRT_OP_EVENTS, /* events and events --stats */
  CRT_OP_KILL,
  CRT_OP_DELETE, /* without --force (which allows every status) */
  CRT_OP_EXEC,   /* without --ignore-paused (which allows a paused one too) */
  CRT_OP_CHECKPOINT,
  CRT_OP_COUNT
};

/* Whether status st allows op. */
bool crt_op_allowed(enum crt_op op, enum crt_status st);
/* 0 when st (s's status, as the caller derived it) allows op; else -1 and
 * *err the table's refusal for s, of kind CRT_ERR_BAD_STATE. */
int crt_op_check(const crt_state *s, enum crt_op op, enum crt_status st, crt_err **err);

/* pause (freeze) or resume (!freeze): under the container's lock. */
int crt_container_pause(const char *root, const char *id, bool freeze, crt_err **err);
/* update: r written to the container's cgroup (all or nothing), under
 * the lock. */
int crt_container_update(const char *root, const char *id, const crt_resources *r, crt_err **err);
/* ps: the container's processes (its cgroup's, or without a cgroup its
 * pid namespace's); none for a stopped one without a cgroup.  *pids is
 * the caller's to free. */
int crt_container_pids(const char *root, const char *id, pid_t **pids, size_t *n, crt_err **err);

/* events: a container watched by id.  The caller's loop prints; this
 * reads.  oom_fd is -1 when there are no OOM notifications (warned). */
typedef struct {
  const char *root;
  char *id;
  crt_cgroup *cg; /* the container's cgroup, taken from its state */
  int oom_fd;
  unsigned long long oom_seen; /* the OOM count seen so far */
} crt_watch;

/* Loads the container and checks that events may watch it (its cgroup
 * too); with oom, opens the OOM notifications, counting only OOMs from
 * now on. */
int crt_container_watch(const char *root, const char *id, bool oom, crt_watch *w, crt_err **err);
/* The container's cgroup stats now (crt_cgroup_stats_free). */
int crt_watch_stats(const crt_watch *w, crt_cgroup_stats *st, crt_err **err);
/* After oom_fd polled readable: > 0 when there were new OOM kills. */
int crt_watch_oom(crt_watch *w);
/* Whether the container is still there and events may still watch it
 * (not stopped). */
bool crt_watch_running(const crt_watch *w);
void crt_watch_release(crt_watch *w);

#endif
