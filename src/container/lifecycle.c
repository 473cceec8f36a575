/* start, kill, delete. */
#define _GNU_SOURCE
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
#include "crt/container.h"
#include "crt/execfifo.h"
#include "crt/fs.h"
#include "crt/hooks.h"
#include "crt/lifecycle.h"
#include "crt/stub.h"
#include "crt/log.h"
#include "crt/process.h"
#include "crt/testpoint.h"

/* A pidfd for the init, only if the pid still belongs to it. */
static int init_pidfd(const crt_state *s) {
  if (s->pid <= 0) return -1;
  int fd = (int)syscall(SYS_pidfd_open, s->pid, 0);
  if (fd < 0) return -1;
  bool zombie;
  uint64_t st = crt_proc_start_time(s->pid, &zombie);
  if (st == 0 || (s->start_time && st != s->start_time)) {
    close(fd);
    return -1;
  }
  return fd;
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
  for (int waited = 0; waited <= timeout_ms; waited += 5) {
    /* Reap it if it is our own child (run, tests). */
    waitpid(s->pid, NULL, WNOHANG);
    if (crt_state_status(s) == CRT_STATUS_STOPPED) {
      if (fd >= 0) close(fd);
      return true;
    }
    if (fd >= 0) {
      struct pollfd p = {.fd = fd, .events = POLLIN};
      poll(&p, 1, 5);
    } else {
      struct timespec ts = {0, 5 * 1000000};
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

static int destroy(crt_state *s, crt_err **err);

/* Kills the container with SIGKILL: every process of its cgroup, then the
 * init (by pidfd, so never a reused pid); a frozen cgroup is thawed, as
 * runc does, since a v1 freezer holds the signal until then.  Only an init
 * that outlives the wait is an error: a failing kill or thaw is warned
 * about (op: "delete", "start"), as it is likely why the wait failed. */
static int stop_container(const crt_state *s, const char *op, crt_err **err) {
  cleanup_err crt_err *e = NULL;
  bool cg = s->cgroup_path && *s->cgroup_path;
  if (cg && crt_cgroup_kill(s->cgroup_path, SIGKILL, &e) < 0) crt_warn("%s %s: %s", op, s->id, e->msg);
  if (cg && crt_cgroup_is_frozen(s->cgroup_path) == 1 && crt_cgroup_freeze(s->cgroup_path, false, &e) < 0)
    crt_warn("%s %s: %s", op, s->id, e->msg);
  if (signal_init(s, SIGKILL) < 0 && errno != ESRCH)
    crt_warn("%s %s: kill pid %d: %s", op, s->id, s->pid, strerror(errno));
  if (!wait_stopped(s, 10000)) return crt_error(err, 0, "container init %d did not exit after SIGKILL", s->pid);
  return 0;
}

/* A failing startContainer or poststart hook: "generate an error, stop the
 * container, and continue the lifecycle at step 12" (destroy, then the
 * poststop hooks), as runc and crun remove the container.  The caller's
 * error stays the hook's; trouble here is only warned about. */
static void stop_and_destroy(crt_state *s) {
  cleanup_err crt_err *e = NULL;
  if (stop_container(s, "start", &e) < 0 || destroy(s, &e) < 0) crt_warn("%s", e->msg);
}

int crt_container_start(const char *root, const char *id, crt_err **err) {
  crt_state *s = NULL;
  int lock = -1, rc = -1, fd = -1;
  crt_spec *spec = NULL;
  if (load_locked(root, id, &s, &lock, err) < 0) return -1;
  enum crt_status st = crt_state_status(s);
  if (st != CRT_STATUS_CREATED) {
    if (st == CRT_STATUS_STOPPED) crt_error_kind(err, CRT_ERR_BAD_STATE, 0, "cannot start a container that has stopped");
    else if (st == CRT_STATUS_CREATING)
      crt_error_kind(err, CRT_ERR_BAD_STATE, 0, "cannot start a container that is still being created");
    else crt_error_kind(err, CRT_ERR_BAD_STATE, 0, "cannot start an already running container");
    goto out;
  }
  if (crt_state_load_spec(s, &spec, err) < 0) goto out;
  if (!spec->process) { /* config.md: OPTIONAL at create, REQUIRED at start */
    crt_error_kind(err, CRT_ERR_INVALID, 0, "config.json: .process: not set; the runtime-spec requires it at start");
    goto out;
  }
  if (crt_exec_fifo_release(s->dir, &fd, err) < 0) goto out;
  crt_test_point("start:fifo");
  bool hook_failed = false;
  int pidfd = init_pidfd(s);
  int awaited = crt_exec_fifo_await(fd, s, pidfd, &hook_failed, err);
  if (pidfd >= 0) close(pidfd);
  if (awaited < 0 && (*err)->kind == CRT_ERR_BAD_STATE) goto out; /* it runs: leave it be */
  if (awaited < 0) {
    if (hook_failed) stop_and_destroy(s);
    else signal_init(s, SIGKILL);
    goto out;
  }
  crt_test_point("start:poststart");
  if (spec->hooks && spec->hooks->poststart.len) {
    cleanup_free char *json = crt_state_json(s, CRT_STATUS_RUNNING, false);
    crt_hook_place at = {.dir = s->bundle}; /* runc 1.1 runs them in create, in the bundle */
    if (crt_hooks_run_at(&spec->hooks->poststart, "poststart", &at, json, err) < 0) {
      stop_and_destroy(s); /* v1.3 lifecycle step 9 */
      goto out;
    }
  }
  rc = 0;
out:
  if (rc < 0) crt_error_wrap(err, "start %s", id);
  if (fd >= 0) close(fd);
  close(lock);
  crt_spec_free(spec);
  crt_state_free(s);
  return rc;
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
    rc = s->cgroup_path && crt_cgroup_exists(s->cgroup_path) ? crt_cgroup_kill(s->cgroup_path, sig, err) : 0;
  } else if (st == CRT_STATUS_STOPPED) {
    rc = crt_error_kind(err, CRT_ERR_BAD_STATE, 0, "container not running");
  } else if (all && s->cgroup_path && *s->cgroup_path) {
    rc = crt_cgroup_kill(s->cgroup_path, sig, err);
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
    rc = errno == ESRCH ? crt_error_kind(err, CRT_ERR_BAD_STATE, 0, "container not running")
                        : crt_error(err, errno, "kill pid %d", s->pid);
  } else if (st == CRT_STATUS_PAUSED && sig == SIGKILL && s->cgroup_path && *s->cgroup_path) {
    /* as runc: a frozen task's SIGKILL waits for a thaw (v1) */
    cleanup_err crt_err *e = NULL;
    crt_cgroup_freeze(s->cgroup_path, false, &e);
  }
  crt_state_free(s);
  return rc;
}

static void run_poststop(const crt_state *s) {
  crt_spec *spec = NULL;
  cleanup_err crt_err *e = NULL;
  if (crt_state_load_spec(s, &spec, &e) < 0) {
    crt_warn("poststop hooks not run: %s", e->msg);
    return;
  }
  if (spec->hooks && spec->hooks->poststop.len) {
    cleanup_free char *json = crt_state_json(s, CRT_STATUS_STOPPED, false);
    crt_hooks_run_warn(&spec->hooks->poststop, "poststop", json);
  }
  crt_spec_free(spec);
}

/* A pid namespace of its own (not joined by path): its init's death killed
 * every process in it.  Unknown (no readable config): assume so. */
static bool own_pidns(const crt_state *s) {
  crt_spec *spec = NULL;
  cleanup_err crt_err *e = NULL;
  if (crt_state_load_spec(s, &spec, &e) < 0) return true;
  const crt_namespace *ns = crt_spec_namespace(spec, CRT_NS_PID);
  bool own = ns && !(ns->path && *ns->path);
  crt_spec_free(spec);
  return own;
}

static int destroy(crt_state *s, crt_err **err) {
  if (s->cgroup_path && *s->cgroup_path) {
    if (s->systemd && crt_cgroup_stop_unit(s->cgroup_path, err) < 0) return -1;
    if (crt_cgroup_destroy(s->cgroup_path, err) < 0) return -1;
  }
  crt_test_point("delete:cgroup");
  run_poststop(s);
  if (crt_rm_rf(s->dir) < 0) return crt_error(err, errno, "remove %s", s->dir);
  return 0;
}

int crt_container_delete(const char *root, const char *id, bool force, crt_err **err) {
  crt_state *s = NULL;
  int lock = -1;
  cleanup_err crt_err *lerr = NULL;
  if (crt_container_id_check(id, err) < 0) return -1;
  if (load_locked(root, id, &s, &lock, &lerr) < 0) {
    if (lerr->kind == CRT_ERR_NOT_FOUND) {
      if (force) return 0;
      return crt_error_kind(err, CRT_ERR_NOT_FOUND, 0, "container %s does not exist", id);
    }
    if (!force) {
      *err = crt_steal(lerr);
      return -1;
    }
    /* Half-made or corrupt: kill and remove what the rescue file names,
     * then the directory. */
    char dir[PATH_MAX];
    if (crt_container_dir(root, id, dir, sizeof dir, err) < 0) return -1;
    crt_state *r = NULL;
    if (crt_state_load_rescue(root, id, &r) == 0) {
      cleanup_err crt_err *derr = NULL;
      if (crt_state_status(r) != CRT_STATUS_STOPPED && stop_container(r, "delete", &derr) < 0)
        crt_warn("delete %s: %s", id, derr->msg);
      if (r->cgroup_path && *r->cgroup_path && crt_cgroup_destroy(r->cgroup_path, &derr) < 0)
        crt_warn("%s", derr->msg);
      crt_state_free(r);
    }
    if (crt_rm_rf(dir) < 0) return crt_error(err, errno, "remove %s", dir);
    return 0;
  }
  int rc = -1;
  enum crt_status st = crt_state_status(s);
  /* runtime-spec: deleting a container that is not stopped MUST generate an
   * error, created ones included; runc deletes those silently, crt wants
   * --force (docs/spec-conformance.md). */
  if (st != CRT_STATUS_STOPPED && !force) {
    crt_error_kind(err, CRT_ERR_BAD_STATE, 0, "cannot delete container %s that is not stopped: %s", id,
                   crt_status_name(st));
    goto out;
  }
  if (st != CRT_STATUS_STOPPED && stop_container(s, "delete", err) < 0) goto out;
  if (st == CRT_STATUS_STOPPED && crt_cgroup_exists(s->cgroup_path) && !own_pidns(s)) {
    /* As runc: processes left in the cgroup of a container that shares a
     * pid namespace (a pod's) die with it; otherwise rmdir stays EBUSY.
     * A failure is runc's warning too: the rmdir's error says the rest. */
    cleanup_err crt_err *kerr = NULL;
    if (crt_cgroup_kill(s->cgroup_path, SIGKILL, &kerr) < 0) crt_warn("delete %s: %s", id, kerr->msg);
  }
  crt_test_point("delete:killed");
  rc = destroy(s, err);
out:
  if (rc < 0) crt_error_wrap(err, "delete %s", id);
  close(lock);
  crt_state_free(s);
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
