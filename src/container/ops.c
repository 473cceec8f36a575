/* The status table, and pause, resume, update, ps, events by id. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crt/cgroup.h"
#include "crt/initcheck.h"
#include "crt/log.h"
#include "crt/namespaces.h"
#include "crt/ops.h"
#include "crt/state.h"

/* A refusal: the message, "{id}" and "{status}" replaced by the
 * container's id and status name; why: with ": <why>" appended when
 * state.json names a live process that is not the init (a reused or
 * forged pid), for a stopped container. */
typedef struct {
  const char *msg;
  bool why;
} refusal;

#define NOT_RUNNING {"container not running", false}
#define START_RUNNING {"cannot start an already running container", false}
#define NOT_PAUSED {"container not paused", false}
#define DELETE_LIVE {"cannot delete container {id} that is not stopped: {status}", false}
#define CKPT_NOT_RUNNING {"container is not running ({status})", false}

/* Which status allows which operation: a NULL message allows it.  The
 * messages are runc's (clients and tests match them): keep them. */
static const refusal table[CRT_OP_COUNT][CRT_STATUS_STOPPED + 1] = {
    [CRT_OP_START] =
        {
            [CRT_STATUS_CREATING] = {"cannot start a container that is still being created", false},
            [CRT_STATUS_RUNNING] = START_RUNNING,
            [CRT_STATUS_PAUSED] = START_RUNNING,
            [CRT_STATUS_STOPPED] = {"cannot start a container that has stopped", false},
        },
    /* runc pauses created containers too */
    [CRT_OP_PAUSE] =
        {
            [CRT_STATUS_CREATING] = NOT_RUNNING,
            [CRT_STATUS_PAUSED] = NOT_RUNNING,
            [CRT_STATUS_STOPPED] = NOT_RUNNING,
        },
    [CRT_OP_RESUME] =
        {
            [CRT_STATUS_CREATING] = NOT_PAUSED,
            [CRT_STATUS_CREATED] = NOT_PAUSED,
            [CRT_STATUS_RUNNING] = NOT_PAUSED,
            [CRT_STATUS_STOPPED] = NOT_PAUSED,
        },
    [CRT_OP_UPDATE] = {[CRT_STATUS_STOPPED] = NOT_RUNNING},
    /* a stopped container is no error (runc exits 0): its cgroup, kept
     * until delete, lists what is left */
    [CRT_OP_PS] = {{NULL, false}},
    [CRT_OP_EVENTS] = {[CRT_STATUS_STOPPED] = {"container with id {id} is not running", false}},
    /* kill's exceptions for a stopped one (--all, a SIGKILL to a container
     * without its own pid namespace) are crt_container_kill's */
    [CRT_OP_KILL] = {[CRT_STATUS_STOPPED] = {"container not running", true}},
    /* created included: runc and crun kill the parked init (lifecycle.c) */
    [CRT_OP_DELETE] =
        {
            [CRT_STATUS_CREATING] = DELETE_LIVE,
            [CRT_STATUS_RUNNING] = DELETE_LIVE,
            [CRT_STATUS_PAUSED] = DELETE_LIVE,
        },
    [CRT_OP_EXEC] =
        {
            [CRT_STATUS_CREATING] = {"cannot exec in a container that is being created", false},
            [CRT_STATUS_PAUSED] = {"cannot exec in a paused container (use --ignore-paused to override)", false},
            [CRT_STATUS_STOPPED] = {"cannot exec in a stopped container", true},
        },
    [CRT_OP_CHECKPOINT] =
        {
            [CRT_STATUS_CREATING] = CKPT_NOT_RUNNING,
            [CRT_STATUS_CREATED] = CKPT_NOT_RUNNING,
            [CRT_STATUS_STOPPED] = CKPT_NOT_RUNNING,
        },
};

static const refusal *lookup(enum crt_op op, enum crt_status st) {
  if ((unsigned)op >= CRT_OP_COUNT || (unsigned)st > CRT_STATUS_STOPPED) return NULL;
  return &table[op][st];
}

bool crt_op_allowed(enum crt_op op, enum crt_status st) {
  const refusal *r = lookup(op, st);
  return !r || !r->msg;
}

/* r->msg with its placeholders filled in. */
static char *expand(const char *msg, const crt_state *s, enum crt_status st) {
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  if (!f) return NULL;
  for (const char *p = msg; *p;) {
    if (strncmp(p, "{id}", 4) == 0) {
      fputs(s && s->id ? s->id : "", f);
      p += 4;
    } else if (strncmp(p, "{status}", 8) == 0) {
      fputs(crt_status_name(st), f);
      p += 8;
    } else {
      fputc(*p++, f);
    }
  }
  if (fclose(f) != 0) {
    free(out);
    return NULL;
  }
  return out;
}

int crt_op_check(const crt_state *s, enum crt_op op, enum crt_status st, crt_err **err) {
  const refusal *r = lookup(op, st);
  if (!r || !r->msg) return 0;
  cleanup_free char *msg = expand(r->msg, s, st);
  if (!msg) return crt_error_kind(err, CRT_ERR_BAD_STATE, ENOMEM, "%s", r->msg);
  if (r->why && st == CRT_STATUS_STOPPED && s) {
    uint64_t at = 0;
    enum crt_init_check c = crt_state_check_init(s, &at);
    if (c != CRT_INIT_NONE && c != CRT_INIT_GONE && c != CRT_INIT_OK) {
      char why[512];
      crt_init_check_describe(s, c, at, why, sizeof why);
      return crt_error_kind(err, CRT_ERR_BAD_STATE, 0, "%s: %s", msg, why);
    }
  }
  return crt_error_kind(err, CRT_ERR_BAD_STATE, 0, "%s", msg);
}

static bool has_cgroup(const crt_state *s) { return s->cgroup_path && *s->cgroup_path; }

int crt_container_pause(const char *root, const char *id, bool freeze, crt_err **err) {
  cleanup_close int lock = crt_container_lock(root, id, err);
  if (lock < 0) return -1;
  crt_state *s = NULL;
  if (crt_state_load(root, id, &s, err) < 0) return -1;
  int rc = crt_op_check(s, freeze ? CRT_OP_PAUSE : CRT_OP_RESUME, crt_state_status(s), err);
  if (rc == 0 && !has_cgroup(s))
    rc = crt_error(err, 0, "container %s has no cgroup (rootless?): cannot %s", id, freeze ? "pause" : "resume");
  else if (rc == 0)
    rc = crt_cgroup_freeze(s->cg, freeze, err);
  crt_state_free(s);
  return rc;
}

int crt_container_update(const char *root, const char *id, const crt_resources *r, crt_err **err) {
  cleanup_close int lock = crt_container_lock(root, id, err);
  if (lock < 0) return -1;
  crt_state *s = NULL;
  if (crt_state_load(root, id, &s, err) < 0) return -1;
  int rc = crt_op_check(s, CRT_OP_UPDATE, crt_state_status(s), err);
  if (rc == 0 && !has_cgroup(s)) rc = crt_error(err, 0, "container %s has no cgroup to update", id);
  else if (rc == 0) rc = crt_cgroup_update(s->cg, r, err); /* devices too: runc ignores them */
  crt_state_free(s);
  return rc;
}

int crt_container_pids(const char *root, const char *id, pid_t **pids, size_t *n, crt_err **err) {
  *pids = NULL;
  *n = 0;
  crt_state *s = NULL;
  if (crt_state_load(root, id, &s, err) < 0) return -1;
  enum crt_status st = crt_state_status(s);
  int rc = crt_op_check(s, CRT_OP_PS, st, err);
  if (rc == 0 && has_cgroup(s)) {
    rc = crt_cgroup_pids(s->cg, pids, n, err);
    /* as runc: a stopped container's cgroup may be gone (systemd removes
     * an empty scope at once; anyone may rmdir an empty cgroup), and then
     * it has no processes; with the init alive a missing cgroup is an error */
    if (rc < 0 && (*err)->errnum == ENOENT && st == CRT_STATUS_STOPPED && !crt_cgroup_exists(s->cg)) {
      crt_err_free(err);
      rc = 0;
    }
  } else if (rc == 0 && st != CRT_STATUS_STOPPED) /* no cgroup (rootless): its pid namespace */
    rc = crt_ns_pids(s->pid, pids, n, err);
  crt_state_free(s);
  return rc;
}

int crt_container_watch(const char *root, const char *id, bool oom, crt_watch *w, crt_err **err) {
  *w = (crt_watch){.root = root, .oom_fd = -1};
  crt_state *s = NULL;
  if (crt_state_load(root, id, &s, err) < 0) return -1;
  int rc = crt_op_check(s, CRT_OP_EVENTS, crt_state_status(s), err);
  if (rc == 0 && !has_cgroup(s)) rc = crt_error(err, 0, "container %s has no cgroup: no events", id);
  if (rc == 0) {
    w->id = strdup(id);
    w->cg = crt_steal(s->cg);
    if (!w->id) rc = crt_error(err, ENOMEM, "events %s", id);
  }
  crt_state_free(s);
  if (rc < 0) {
    crt_watch_release(w);
    return -1;
  }
  if (!oom) return 0;
  cleanup_err crt_err *oe = NULL;
  w->oom_fd = crt_cgroup_oom_fd(w->cg, &oe);
  if (w->oom_fd < 0) crt_warn("events: no OOM notifications: %s", oe->msg);
  else crt_cgroup_oom_read(w->cg, w->oom_fd, &w->oom_seen); /* baseline: only OOMs from now on */
  return 0;
}

int crt_watch_stats(const crt_watch *w, crt_cgroup_stats *st, crt_err **err) {
  return crt_cgroup_get_stats(w->cg, st, err);
}

int crt_watch_oom(crt_watch *w) {
  if (w->oom_fd < 0) return 0;
  return crt_cgroup_oom_read(w->cg, w->oom_fd, &w->oom_seen);
}

bool crt_watch_running(const crt_watch *w) {
  crt_state *s = NULL;
  cleanup_err crt_err *e = NULL;
  if (crt_state_load(w->root, w->id, &s, &e) < 0) return false;
  bool r = crt_op_allowed(CRT_OP_EVENTS, crt_state_status(s));
  crt_state_free(s);
  return r;
}

void crt_watch_release(crt_watch *w) {
  free(crt_steal(w->id));
  crt_cgroup_close(crt_steal(w->cg));
  if (w->oom_fd >= 0) close(w->oom_fd);
  w->oom_fd = -1;
}
