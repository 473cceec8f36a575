/* start, kill, delete, and run (create, start, the terminal, wait, delete). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crt/cgroup.h"
#include "crt/create.h"
#include "crt/exec_stub.h"
#include "crt/initcheck.h"
#include "crt/namespaces.h"
#include "crt/state.h"
#include "crt/str.h"
#include "crt/execfifo.h"
#include "crt/fs.h"
#include "crt/hooks.h"
#include "crt/lifecycle.h"
#include "crt/log.h"
#include "crt/ops.h"
#include "crt/terminal.h"
#include "../util/testpoint.h"

/* How often a wait for the init's exit looks again (without a pidfd to
 * poll), and how long one SIGKILLed may take to go (a process in
 * uninterruptible sleep, a slow PID 1 reaping it). */
#define STOP_POLL_MS 5
#define KILL_WAIT_MS 10000

/* A pidfd for the init, only if the pid still belongs to it: checked
 * after the pidfd is held, so the pidfd is the process that passed. */
static int init_pidfd(const crt_state *s) {
  if (s->pid <= 0) return -1;
  int fd = (int)syscall(SYS_pidfd_open, s->pid, 0);
  if (fd < 0) return -1;
  if (crt_state_check_init(s, NULL) != CRT_INIT_OK) {
    close(fd);
    return -1;
  }
  return fd;
}

/* kill's refusal of a stopped container (the table's, in ops.c): "container
 * not running", and why when state.json names a live process that is not
 * the init (a reused or forged pid). */
static int not_running(const crt_state *s, crt_err **err) {
  return crt_op_check(s, CRT_OP_KILL, CRT_STATUS_STOPPED, err);
}

static int signal_init(const crt_state *s, int sig) {
  int fd = init_pidfd(s);
  if (fd < 0) {
    errno = ESRCH;
    return -1;
  }
  int rc = (int)syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
  int e = errno;
  close(fd);
  errno = e;
  return rc;
}

static bool wait_stopped(const crt_state *s, int timeout_ms) {
  /* A pidfd becomes readable when the process exits: no fixed sleeps. */
  int fd = init_pidfd(s);
  for (int waited = 0; waited <= timeout_ms; waited += STOP_POLL_MS) {
    /* Reap it if it is our own child (run, tests). */
    waitpid(s->pid, NULL, WNOHANG);
    if (crt_state_status(s) == CRT_STATUS_STOPPED) {
      if (fd >= 0) close(fd);
      return true;
    }
    if (fd >= 0) {
      struct pollfd p = {.fd = fd, .events = POLLIN};
      poll(&p, 1, STOP_POLL_MS);
    } else {
      struct timespec ts = {0, STOP_POLL_MS * 1000000L};
      nanosleep(&ts, NULL);
    }
  }
  if (fd >= 0) close(fd);
  return false;
}

static int load_locked(const char *root, const char *id, crt_state **s, int *lock, crt_err **err) {
  if (crt_container_id_check(id, err) < 0) return -1;
  *lock = crt_container_lock(root, id, err);
  if (*lock < 0) return -1;
  if (crt_state_load(root, id, s, err) < 0) {
    close(*lock);
    *lock = -1;
    return -1;
  }
  return 0;
}

static int destroy(crt_state *s, const crt_spec *spec, const crt_err *spec_err, crt_stages *t, crt_err **err);

/* Kills the container with SIGKILL: every process of its cgroup, then the
 * init (by pidfd, so never a reused pid); a frozen cgroup is thawed, as
 * runc does, since a v1 freezer holds the signal until then.  Only an init
 * that outlives the wait is an error: a failing kill or thaw is warned
 * about (op: "delete", "start"), as it is likely why the wait failed. */
static int stop_container(const crt_state *s, const char *op, crt_err **err) {
  cleanup_err crt_err *e = NULL;
  bool cg = s->cgroup_path && *s->cgroup_path;
  if (cg && crt_cgroup_kill(s->cg, SIGKILL, &e) < 0) crt_warn("%s %s: %s", op, s->id, e->msg);
  if (cg && crt_cgroup_is_frozen(s->cg) == 1 && crt_cgroup_freeze(s->cg, false, &e) < 0)
    crt_warn("%s %s: %s", op, s->id, e->msg);
  if (signal_init(s, SIGKILL) < 0 && errno != ESRCH)
    crt_warn("%s %s: kill pid %d: %s", op, s->id, s->pid, crt_strerror(errno));
  if (!wait_stopped(s, KILL_WAIT_MS)) return crt_error(err, 0, "container init %d did not exit after SIGKILL", s->pid);
  return 0;
}

/* A failing startContainer or poststart hook: "generate an error, stop the
 * container, and continue the lifecycle at step 12" (destroy, then the
 * poststop hooks), as runc and crun remove the container.  The caller's
 * error stays the hook's; trouble here is only warned about. */
static void stop_and_destroy(crt_state *s, const crt_spec *spec) {
  cleanup_err crt_err *e = NULL;
  crt_stages t = {0};
  CRT_STAGES_BEGIN(&t, "delete");
  if (stop_container(s, "start", &e) < 0 || destroy(s, spec, NULL, &t, &e) < 0) crt_warn("%s", e->msg);
}

/* Status "created" is required; the message says what it is instead. */
static int check_startable(const crt_state *s, crt_err **err) {
  return crt_op_check(s, CRT_OP_START, crt_state_status(s), err);
}

/* The poststart hooks, once the init has gone past its execve. */
static int run_poststart(crt_state *s, const crt_spec *spec, crt_err **err) {
  if (!spec->hooks || !spec->hooks->poststart.len) return 0;
  cleanup_free char *json = crt_state_json(s, CRT_STATUS_RUNNING, false);
  crt_hook_place at = {.dir = s->bundle}; /* runc 1.1 runs them in create, in the bundle */
  if (crt_hooks_run_at(&spec->hooks->poststart, "poststart", &at, json, err) < 0) {
    stop_and_destroy(s, spec); /* v1.3 lifecycle step 9 */
    return -1;
  }
  return 0;
}

/* start's last step, once the process has been exec'd. */
static int after_execve(crt_held *h, crt_stages *t, crt_err **err) {
  crt_test_point("start:poststart");
  if (run_poststart(h->state, h->spec, err) < 0) return -1;
  CRT_STAGE(t, "poststart hooks (%zu)", h->spec->hooks ? h->spec->hooks->poststart.len : 0);
  CRT_STAGES_TOTAL(t);
  return 0;
}

/* The exec FIFO released and the init seen past its execve: start's part
 * before the poststart hooks, for a parked init (h's lock held, its state
 * loaded; the spec is read from the state directory unless h has it). */
static int release_parked(crt_held *h, crt_stages *t, crt_err **err) {
  crt_state *s = h->state;
  int rc = -1, fd = -1;
  /* The pidfd before the status check, whose init check then proves it is
   * the init's (what init_pidfd does, without checking twice). */
  int pidfd = s->pid > 0 ? (int)syscall(SYS_pidfd_open, s->pid, 0) : -1;
  if (check_startable(s, err) < 0) goto out;
  if (!h->spec && crt_state_load_spec(s, &h->spec, err) < 0) goto out;
  const crt_spec *spec = h->spec;
  if (!spec->process) { /* config.md: OPTIONAL at create, REQUIRED at start */
    crt_error_kind(err, CRT_ERR_INVALID, 0, "config.json: .process: not set; the runtime-spec requires it at start");
    goto out;
  }
  CRT_STAGE(t, "state loaded");
  if (crt_exec_fifo_release(s->dir, &fd, err) < 0) goto out;
  CRT_STAGE(t, "exec FIFO released");
  crt_test_point("start:fifo");
  bool hook_failed = false;
  int awaited = crt_exec_fifo_await(fd, s, pidfd, &hook_failed, err);
  if (awaited < 0 && (*err)->kind == CRT_ERR_BAD_STATE) goto out; /* it runs: leave it be */
  if (awaited < 0) {
    if (hook_failed) stop_and_destroy(s, spec);
    else signal_init(s, SIGKILL);
    goto out;
  }
  /* the init's part: it runs the startContainer hooks, then execve */
  CRT_STAGE(t, "startContainer hooks (%zu) and execve", spec->hooks ? spec->hooks->start_container.len : 0);
  rc = 0;
out:
  if (pidfd >= 0) close(pidfd);
  if (fd >= 0) close(fd);
  return rc;
}

/* start of h, its lock held and its state loaded.  started: create
 * started the process already (run's direct start, crt_create_result's
 * started), so only the poststart hooks are left.  The lock is released
 * here, the state and spec stay h's. */
static int start_held(crt_held *h, bool started, crt_stages *t, crt_err **err) {
  int rc = started ? 0 : release_parked(h, t, err);
  if (rc == 0) rc = after_execve(h, t, err);
  if (rc < 0) crt_error_wrap(err, "start %s", h->state->id);
  close(h->lock);
  h->lock = -1;
  return rc;
}

int crt_container_start(const char *root, const char *id, crt_err **err) {
  crt_held h = {.root = root, .lock = -1};
  crt_stages t = {0};
  CRT_STAGES_BEGIN(&t, "start");
  if (load_locked(root, id, &h.state, &h.lock, err) < 0) return -1;
  int rc = start_held(&h, false, &t, err);
  crt_held_release(&h);
  return rc;
}

/* A pid namespace of its own (not joined by path): its init's death killed
 * every process in it.  Unknown (no readable config): assume so. */
static bool own_pidns(const crt_spec *spec) {
  return !spec || crt_spec_new_namespace(spec, CRT_NS_PID);
}

/* runc >= 1.2: a SIGKILL to a container without a pid namespace of its
 * own (the host's, or a pod's joined by path) kills every process of its
 * cgroup, its init alive or gone, since no init's death takes the others
 * with it.  Needs the cgroup and a readable config.json. */
static bool kill_takes_cgroup(const crt_state *s) {
  if (!crt_cgroup_exists(s->cg)) return false;
  crt_spec *spec = NULL;
  cleanup_err crt_err *e = NULL;
  if (crt_state_load_spec(s, &spec, &e) < 0) return false;
  bool own = own_pidns(spec);
  crt_spec_free(spec);
  return !own;
}

int crt_container_kill(const char *root, const char *id, int sig, bool all, crt_err **err) {
  crt_state *s = NULL;
  if (crt_container_id_check(id, err) < 0) return -1;
  if (crt_state_load(root, id, &s, err) < 0) return -1;
  int rc = 0;
  enum crt_status st = crt_state_status(s);
  if (st == CRT_STATUS_STOPPED && all) {
    /* As runc: the init is gone, but processes of a container without its
     * own pid namespace outlive it in the cgroup (containerd's shim sends
     * kill --all after such a container's exit).  No cgroup: nothing left. */
    rc = crt_cgroup_exists(s->cg) ? crt_cgroup_kill(s->cg, sig, err) : 0;
  } else if (sig == SIGKILL && kill_takes_cgroup(s)) {
    rc = crt_cgroup_kill(s->cg, sig, err);
  } else if (st == CRT_STATUS_STOPPED) {
    rc = not_running(s, err);
  } else if (all && s->cgroup_path && *s->cgroup_path) {
    rc = crt_cgroup_kill(s->cg, sig, err);
  } else if (all) { /* no cgroup (rootless): its pid namespace */
    pid_t *pids = NULL;
    size_t n = 0;
    if ((rc = crt_ns_pids(s->pid, &pids, &n, err)) == 0) {
      for (size_t i = 0; i < n; i++)
        if (pids[i] != s->pid) kill(pids[i], sig);
      if (signal_init(s, sig) < 0 && errno != ESRCH) rc = crt_error(err, errno, "kill pid %d", s->pid);
    }
    free(pids);
  } else if (signal_init(s, sig) < 0) {
    rc = errno == ESRCH ? not_running(s, err) : crt_error(err, errno, "kill pid %d", s->pid);
  } else if (st == CRT_STATUS_PAUSED && sig == SIGKILL && s->cgroup_path && *s->cgroup_path) {
    /* as runc: a frozen task's SIGKILL waits for a thaw (v1) */
    cleanup_err crt_err *e = NULL;
    crt_cgroup_freeze(s->cg, false, &e);
  }
  crt_state_free(s);
  return rc;
}

/* spec NULL: the state directory's config.json could not be read
 * (spec_err says why, if known): the hooks are not run, with a warning. */
static void run_poststop(const crt_state *s, const crt_spec *spec, const crt_err *spec_err, crt_stages *t) {
  if (!spec) {
    crt_warn("poststop hooks not run: %s", spec_err ? spec_err->msg : "no config");
    return;
  }
  if (spec->hooks && spec->hooks->poststop.len) {
    cleanup_free char *json = crt_state_json(s, CRT_STATUS_STOPPED, false);
    crt_hooks_run_warn(&spec->hooks->poststop, "poststop", json);
    CRT_STAGE(t, "poststop hooks (%zu)", spec->hooks->poststop.len);
  }
}

/* Removes a state directory so that, whenever this is killed, what is
 * left says "half-deleted": the mark goes in first and out last, and
 * state.json goes first (crt_state_load tells the two apart). */
static int remove_state_dir(const char *dir, crt_err **err) {
  char mark[PATH_MAX], path[PATH_MAX];
  if (crt_pathf(mark, sizeof mark, err, "%s/%s", dir, CRT_DELETING_MARK) < 0 ||
      crt_pathf(path, sizeof path, err, "%s/state.json", dir) < 0)
    return -1;
  /* Both in one step: state.json becomes the mark (on ext4 a file made
   * costs 0.15 ms, a rename 0.03).  Without state.json (half-made or
   * half-deleted) the mark is made. */
  if (rename(path, mark) < 0) {
    if (errno != ENOENT) return crt_error(err, errno, "mark %s as being deleted", dir);
    int fd = open(mark, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return errno == ENOENT ? 0 : crt_error(err, errno, "mark %s as being deleted", dir);
    close(fd);
  }
  crt_test_point("delete:state");
  DIR *d = opendir(dir);
  if (!d) return crt_error(err, errno, "open %s", dir);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, CRT_DELETING_MARK)) continue;
    if (crt_pathf(path, sizeof path, err, "%s/%s", dir, e->d_name) < 0) {
      closedir(d);
      return crt_error_wrap(err, "remove %s", dir);
    }
    /* the files (init, config.json) go without crt_rm_rf's two lstats */
    bool file = e->d_type != DT_DIR && e->d_type != DT_UNKNOWN;
    if (file && (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno == ENOENT)) continue;
    if (crt_rm_rf(path) < 0) {
      int en = errno;
      closedir(d);
      return crt_error(err, en, "remove %s", path);
    }
  }
  closedir(d);
  if (unlink(mark) < 0 || rmdir(dir) < 0) return crt_error(err, errno, "remove %s", dir);
  return 0;
}

static int destroy(crt_state *s, const crt_spec *spec, const crt_err *spec_err, crt_stages *t, crt_err **err) {
  if (s->cgroup_path && *s->cgroup_path) {
    if (s->systemd && crt_cgroup_stop_unit(s->cg, err) < 0) return -1;
    if (crt_cgroup_destroy(s->cg, err) < 0) return -1;
  }
  CRT_STAGE(t, "cgroup removed");
  crt_test_point("delete:cgroup");
  run_poststop(s, spec, spec_err, t);
  return remove_state_dir(s->dir, err);
}

/* A stopped container whose cgroup still holds processes: those of a
 * container sharing a pid namespace (a pod's), which die with it as in
 * runc; or, with a pid namespace of its own, the processes of an init that
 * state.json no longer names (the state lies: a reused or forged pid).
 * Either way they are the container's and die, so that the cgroup can go
 * (no wait on a busy cgroup, no leaked init).  A failure is runc's warning
 * too: the rmdir's error says the rest. */
static void kill_leftovers(const crt_state *s, const crt_spec *spec) {
  if (!s->cgroup_path || !*s->cgroup_path) return;
  cleanup_err crt_err *e = NULL;
  pid_t *pids = NULL;
  size_t n = 0;
  bool listed = crt_cgroup_pids(s->cg, &pids, &n, &e) == 0;
  /* no cgroup.procs: no cgroup (the listing is the existence check) */
  if (!listed && e->errnum == ENOENT && !crt_cgroup_exists(s->cg)) return;
  crt_err_free(&e);
  free(pids);
  if (listed && n == 0) return;
  if (n && own_pidns(spec)) {
    uint64_t at = 0;
    char why[512];
    crt_init_check_describe(s, crt_state_check_init(s, &at), at, why, sizeof why);
    crt_warn("delete %s: %s, but %zu process(es) were left in its cgroup: killing them", s->id, why, n);
  }
  if (crt_cgroup_kill(s->cg, SIGKILL, &e) < 0) crt_warn("delete %s: %s", s->id, e->msg);
}

/* Whether a delete was interrupted in the directory (remove_state_dir's mark). */
static bool half_deleted(const char *dir) {
  char mark[PATH_MAX];
  /* too long for a path: no mark can be there */
  return crt_fmt(mark, sizeof mark, "%s/%s", dir, CRT_DELETING_MARK) >= 0 && access(mark, F_OK) == 0;
}

/* A directory without a usable state.json: half-made, half-deleted or
 * corrupt.  Kills and removes what the rescue file names, then the
 * directory: on delete --force, or to finish an interrupted delete. */
static int delete_stateless(const char *root, const char *id, bool force, crt_err **lerr, crt_err **err) {
  char dir[PATH_MAX];
  if (crt_container_dir(root, id, dir, sizeof dir, err) < 0) return -1;
  if (!force && !half_deleted(dir)) {
    *err = crt_steal(*lerr);
    return -1;
  }
  crt_state *r = NULL;
  if (crt_state_load_rescue(root, id, &r) == 0) {
    cleanup_err crt_err *derr = NULL;
    if (crt_state_status(r) != CRT_STATUS_STOPPED && stop_container(r, "delete", &derr) < 0)
      crt_warn("delete %s: %s", id, derr->msg);
    if (crt_cgroup_destroy(r->cg, &derr) < 0)
      crt_warn("%s", derr->msg);
    crt_state_free(r);
  }
  return remove_state_dir(dir, err);
}

/* Takes the container's lock for delete: 1 when there is nothing to
 * delete and force says that is fine. */
static int lock_for_delete(const char *root, const char *id, bool force, int *lock, crt_err **err) {
  cleanup_err crt_err *lerr = NULL;
  if ((*lock = crt_container_lock(root, id, &lerr)) >= 0) return 0;
  if (lerr->kind != CRT_ERR_NOT_FOUND) return crt_err_move(err, &lerr);
  if (force) return 1;
  return crt_error_kind(err, CRT_ERR_NOT_FOUND, 0, "container %s does not exist", id);
}

/* delete of a loaded container, its lock held.  *spec: config.json, read
 * here (once: the poststop hooks and the pid namespace both ask) unless
 * the caller has it. */
static int delete_loaded(crt_state *s, crt_spec **spec, bool force, crt_err **err) {
  int rc = -1;
  cleanup_err crt_err *spec_err = NULL;
  crt_stages t = {0};
  CRT_STAGES_BEGIN(&t, "delete");
  enum crt_status st = crt_state_status(s);
  /* runtime-spec: deleting a container that is not stopped MUST generate an
   * error, created ones included.  runc and crun kill a created one's
   * parked init and delete it, and containerd's shim relies on it (a plain
   * delete of a created task): crt does as they do (docs/spec-conformance.md).
   * Running and paused ones still want --force, as in runc. */
  if (!force && crt_op_check(s, CRT_OP_DELETE, st, err) < 0) goto out;
  if (!*spec && crt_state_load_spec(s, spec, &spec_err) < 0) *spec = NULL;
  if (st != CRT_STATUS_STOPPED && stop_container(s, "delete", err) < 0) goto out;
  if (st == CRT_STATUS_STOPPED) kill_leftovers(s, *spec);
  crt_test_point("delete:killed");
  CRT_STAGE(&t, "status and leftovers checked");
  rc = destroy(s, *spec, spec_err, &t, err);
  CRT_STAGE(&t, "state dir removed");
  CRT_STAGES_TOTAL(&t);
out:
  if (rc < 0) crt_error_wrap(err, "delete %s", s->id);
  return rc;
}

/* delete with the lock held, from what the state directory holds. */
static int delete_from_disk(const char *root, const char *id, bool force, crt_err **err) {
  crt_state *s = NULL;
  cleanup_err crt_err *lerr = NULL;
  if (crt_state_load(root, id, &s, &lerr) < 0) {
    if (lerr->kind == CRT_ERR_NOT_FOUND)
      return force ? 0 : crt_error_kind(err, CRT_ERR_NOT_FOUND, 0, "container %s does not exist", id);
    if (lerr->kind != CRT_ERR_NO_STATE) return crt_err_move(err, &lerr);
    return delete_stateless(root, id, force, &lerr, err);
  }
  crt_spec *spec = NULL;
  int rc = delete_loaded(s, &spec, force, err);
  crt_spec_free(spec);
  crt_state_free(s);
  return rc;
}

int crt_container_delete(const char *root, const char *id, bool force, crt_err **err) {
  int lock = -1;
  if (crt_container_id_check(id, err) < 0) return -1;
  int got = lock_for_delete(root, id, force, &lock, err);
  if (got != 0) return got < 0 ? -1 : 0;
  int rc = delete_from_disk(root, id, force, err);
  close(lock);
  return rc;
}

/* delete_held's case where state.json is not the file create wrote: it was
 * rewritten (pause, update), or the container was deleted and perhaps made
 * again under the same id by someone else.  Only the same container (its
 * init's pid and start time) is deleted; another one is left alone. */
static int delete_if_same(crt_held *h, crt_err **err) {
  crt_state *s = NULL;
  cleanup_err crt_err *lerr = NULL;
  if (crt_state_load(h->root, h->state->id, &s, &lerr) < 0)
    return lerr->kind == CRT_ERR_NOT_FOUND || lerr->kind == CRT_ERR_NO_STATE ? 0 : crt_err_move(err, &lerr);
  int rc = 0;
  if (s->pid == h->state->pid && s->start_time == h->state->start_time) {
    crt_spec *spec = NULL;
    rc = delete_loaded(s, &spec, true, err);
    crt_spec_free(spec);
  }
  crt_state_free(s);
  return rc;
}

/* run's delete (forced, as runc's: whatever the process left) of the
 * container create handed over; start has released the lock.  h's state
 * is used as it is only if state.json is still the file create wrote. */
static int delete_held(crt_held *h, crt_err **err) {
  int lock = -1;
  int got = lock_for_delete(h->root, h->state->id, true, &lock, err);
  if (got != 0) return got < 0 ? -1 : 0;
  int rc = crt_held_current(h, lock) ? delete_loaded(h->state, &h->spec, true, err) : delete_if_same(h, err);
  close(lock);
  return rc;
}

/* Signals that `run` and `exec` forward to the container process. */
static const int forwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGPIPE, SIGALRM, SIGCONT};

int crt_wait_forward(pid_t pid) {
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) sigaddset(&set, forwarded[i]);
  sigprocmask(SIG_BLOCK, &set, &old);
  int code = 255;
  for (;;) {
    int st;
    pid_t w;
    /* Reap everything that exited; stop when our process did. */
    while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
      if (w == pid) {
        code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return code;
      }
    }
    if (w < 0 && errno == ECHILD) break;
    siginfo_t si;
    struct timespec ts = {1, 0};
    int sig = sigtimedwait(&set, &si, &ts);
    if (sig > 0 && sig != SIGCHLD) kill(pid, sig);
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  return code;
}

/* The master the init sent during create, its modes set before the
 * program can write anything; -1 without a foreground terminal.  A
 * failure is warned about: the program runs, its output not copied. */
static int run_master(crt_create_result *res) {
  if (res->tty_sock < 0) return -1;
  int master = -1;
  cleanup_err crt_err *e = NULL;
  if (crt_terminal_recv_master(res->tty_sock, &master, &e) < 0 || crt_terminal_master_prepare(master, &e) < 0)
    crt_warn("%s", e->msg);
  close(res->tty_sock);
  res->tty_sock = -1;
  return master;
}

/* run's delete, unless --keep.  Its failure is logged as an error and
 * does not replace the exit code or start's error, as runc's destroy. */
static void run_delete(crt_held *h, bool keep) {
  cleanup_err crt_err *e = NULL;
  if (!keep && delete_held(h, &e) < 0) crt_log_error_msg(e->msg);
}

/* run after its create: start what create handed over, copy the
 * terminal, wait, delete. */
static int run_created(const crt_run_opts *o, crt_create_result *res, int *exit_code, crt_err **err) {
  int master = run_master(res);
  crt_stages t = {0};
  CRT_STAGES_BEGIN(&t, "start");
  if (start_held(&res->held, res->started, &t, err) < 0) {
    run_delete(&res->held, o->keep);
    if (master >= 0) close(master);
    return -1;
  }
  *exit_code = 0;
  if (master >= 0) { /* only in the foreground: detached, create made no master */
    cleanup_err crt_err *e = NULL;
    if (crt_terminal_copy_loop_forward(master, res->pid, &e) < 0) crt_warn("%s", e->msg);
    close(master);
  }
  if (o->detach) return 0;
  CRT_STAGES_BEGIN(&t, "run");
  *exit_code = crt_wait_forward(res->pid);
  CRT_STAGE(&t, "waited for the process to exit");
  run_delete(&res->held, o->keep);
  return 0;
}

int crt_container_run(const crt_run_opts *o, int *exit_code, crt_err **err) {
  crt_create_opts co = o->create;
  co.foreground_tty = !o->detach && !co.console_socket;
  co.hold = true;
  co.start_now = true;
  /* Orphans of the container land on us and are reaped (crt_wait_forward). */
  if (!o->detach && !o->no_subreaper) (void)prctl(PR_SET_CHILD_SUBREAPER, 1); /* cannot fail: it only sets a flag */
  crt_create_result res;
  if (crt_container_create(&co, &res, err) < 0) return -1;
  int rc = run_created(o, &res, exit_code, err);
  crt_held_release(&res.held);
  return rc;
}
