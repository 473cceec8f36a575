/* The process setup that create's init and exec's process share (runc's
 * finalizeNamespace, crun's libcrun_join_process): one definition of each
 * step, in the order both need.  See finalize.h. */
#define _GNU_SOURCE
#include "finalize.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crt/caps.h"
#include "crt/exec_stub.h"
#include "crt/fs.h"
#include "crt/log.h"
#include "crt/lsm.h"
#include "crt/namespaces.h"
#include "crt/process.h"
#include "crt/procfs.h"
#include "crt/str.h"
#include "crt/sync.h"
#include "crt/terminal.h"

void crt_child_fail(const crt_child_report *r, crt_err *err) {
  const char *m = err && err->msg ? err->msg : "unknown error";
  if (r->errpipe >= 0) {
    crt_write_all(r->errpipe, "unable to start container process: ", 35);
    crt_write_all(r->errpipe, m, strlen(m));
  } else {
    /* An error text may be cut to fit one message.  Nothing else to tell
     * when this fails: the runtime then sees EOF. */
    size_t len = strlen(m);
    crt_sync_send(r->sync, CRT_SYNC_ERROR, m, len < CRT_SYNC_MAX ? len : CRT_SYNC_MAX - 1, -1);
  }
  _exit(r->exit_code);
}

static int set_no_new_privs(crt_err **err) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return crt_error(err, errno, "prctl(PR_SET_NO_NEW_PRIVS)");
  return 0;
}

/* The seccomp agent gets the notify fd through the runtime. */
static int hand_over_notify_fd(int sync, int *notify_fd, crt_err **err) {
  if (*notify_fd < 0) return 0;
  int rc = crt_sync_send(sync, CRT_SYNC_SECCOMP_FD, NULL, 0, *notify_fd);
  int e = errno;
  close(*notify_fd);
  *notify_fd = -1;
  if (rc < 0) return crt_error(err, e, "send the seccomp notify fd to the runtime");
  cleanup_free crt_sync_msg *m = malloc(sizeof *m);
  if (!m) return crt_error(err, ENOMEM, "wait for the seccomp agent");
  return crt_sync_expect(sync, CRT_SYNC_SECCOMP_DONE, m, err);
}

/* Everything up to the identity change, while still root in the container. */
static int prepare(const crt_finalize_in *in, crt_finalized *out, crt_err **err) {
  const crt_process *p = in->p;
  /* The procfs handle for oom_score_adj and the LSM label, made before a
   * seccomp filter could refuse fsopen/open_tree (the LSM write may come
   * after it is loaded); the init's is made before its mounts already.
   * Without one, the first write that needs it says why. */
  cleanup_err crt_err *no_handle = NULL;
  if (crt_proc_writes_wanted(in->spec, p) && crt_procfs_prepare(&no_handle) < 0)
    crt_debug("procfs handle: %s", no_handle->msg);
  /* made before any seccomp filter can refuse memfd_create */
  if (in->use_stub && (out->stub = crt_stub_open(err)) < 0) return -1;
  const crt_seccomp *sc = in->spec->linux_ ? in->spec->linux_->seccomp : NULL;
  if (sc && crt_seccomp_compile(sc, &out->filter, err) < 0) return -1;
  if (crt_set_rlimits(p, err) < 0) return -1;
  if (crt_set_process_attrs(in->spec, p, err) < 0) return -1;
  /* Not dumpable from here to execve (after the last write to our own
   * /proc files): a process exec'd into the container may not open the
   * parked init's /proc/1/fd or /proc/1/exe, nor this one's. */
  if (prctl(PR_SET_DUMPABLE, 0) < 0) return crt_error(err, errno, "prctl(PR_SET_DUMPABLE, 0)");
  if (crt_caps_prepare(p->capabilities, err) < 0) return -1;
  /* as root: the user may not search the path yet */
  if (crt_set_cwd(p, in->cwd_origin, err) < 0) return -1;
  out->envp = crt_build_env(p, in->extra_env);
  if (!out->envp) return crt_error(err, ENOMEM, "build the process environment");
  return 0;
}

static int become_user(const crt_finalize_in *in, crt_err **err) {
  const crt_process *p = in->p;
  if (crt_fix_stdio_owner(p->user.uid, err) < 0) return -1;
  if (crt_set_user(p, in->userns, err) < 0) return -1;
  if (crt_caps_apply(p->capabilities, err) < 0) return -1;
  if (p->no_new_privileges && set_no_new_privs(err) < 0) return -1;
  return crt_lsm_apply(p, err);
}

int crt_process_finalize(const crt_finalize_in *in, crt_finalized *out, crt_err **err) {
  *out = (crt_finalized){.stub = -1};
  if (prepare(in, out, err) < 0) return -1;
  const crt_process *p = in->p;
  const crt_seccomp *sc = in->spec->linux_ ? in->spec->linux_->seccomp : NULL;
  const char *forbidden = NULL;
  out->seccomp_at = out->filter ? crt_seccomp_load_point(sc, p, in->parks, out->stub >= 0, &forbidden)
                                : CRT_SECCOMP_NONE;
  if (out->seccomp_at == CRT_SECCOMP_REFUSED) /* create refused it already; never park without the filter */
    return crt_error(err, 0, "linux.seccomp forbids %s, which the parked init needs", forbidden);
  int notify_fd = -1;
  if (out->seccomp_at == CRT_SECCOMP_BEFORE_USER) {
    if (p->no_new_privileges && set_no_new_privs(err) < 0) return -1;
    if (crt_seccomp_load(out->filter, &notify_fd, err) < 0) return -1;
    if (in->parks && hand_over_notify_fd(in->sync, &notify_fd, err) < 0) return -1;
  }
  if (become_user(in, err) < 0) return -1;
  /* as the user, as runc: a program only root could run fails here, at
   * create, and not at start; before a late filter, as runc's init */
  if (crt_find_executable(p, &out->exe, err) < 0) return -1;
  if (out->seccomp_at == CRT_SECCOMP_AFTER_USER && crt_seccomp_load(out->filter, &notify_fd, err) < 0) return -1;
  if (hand_over_notify_fd(in->sync, &notify_fd, err) < 0) return -1;
  crt_procfs_close(); /* the last write under /proc is done */
  return 0;
}

int crt_finalize_terminal(const crt_process *p, int console, bool bind_console, bool session, crt_err **err) {
  int rc = p->terminal ? crt_terminal_setup(p, console, bind_console, session, err) : session ? crt_new_session(err) : 0;
  if (rc == 0 && console >= 0) close(console);
  return rc;
}

void crt_joiner_clone(unsigned long flags, int cgroup_fd, bool *in_cgroup, const char *what, const crt_child_report *r,
                      void (*child)(void *), void *arg) {
  crt_err *err = NULL;
  bool ignored;
  /* The child speaks on the same socket, and asks first thing: it waits
   * until PID went ahead of its first word (the runtime reads PID first). */
  int go[2];
  if (pipe2(go, O_CLOEXEC) < 0) {
    crt_error(&err, errno, "%s: pipe", what);
    crt_child_fail(r, err);
  }
  pid_t pid = crt_clone_into(flags | CLONE_PARENT, cgroup_fd, in_cgroup ? in_cgroup : &ignored);
  if (pid < 0) {
    crt_error(&err, errno, "%s", what);
    crt_child_fail(r, err);
  }
  if (pid == 0) {
    char c;
    close(go[1]);
    if (read(go[0], &c, 1) != 1) _exit(r->exit_code); /* the joiner failed: it reports */
    close(go[0]);
    child(arg);
    _exit(r->exit_code); /* child never returns */
  }
  close(go[0]);
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%d", pid);
  if (crt_sync_send(r->sync, CRT_SYNC_PID, buf, (size_t)n, -1) < 0 || write(go[1], "g", 1) != 1) {
    crt_error(&err, errno, "send the pid of the new process to the runtime");
    kill(pid, SIGKILL); /* nobody would know of it */
    crt_child_fail(r, err);
  }
  _exit(0);
}

int crt_joiner_wait(int sync, pid_t joiner, pid_t *pid, crt_err **err) {
  cleanup_free crt_sync_msg *m = malloc(sizeof *m);
  int rc = m ? crt_sync_expect(sync, CRT_SYNC_PID, m, err) : crt_error(err, ENOMEM, "wait for the joiner");
  waitpid(joiner, NULL, 0);
  long v;
  if (rc == 0 && crt_parse_long(m->data, 1, INT_MAX, &v) < 0)
    return crt_error(err, EPROTO, "wait for the joiner: \"%s\" is no pid", m->data);
  if (rc == 0) *pid = (pid_t)v;
  return rc;
}

int crt_console_open(bool terminal, const char *console_socket, bool detached, int *console, int *ours,
                     crt_err **err) {
  *console = *ours = -1;
  if (!terminal) {
    if (console_socket) /* runc words both refusals so */
      return crt_error(err, 0, "cannot use console socket if runc will not detach or allocate tty");
    return 0;
  }
  if (console_socket) {
    if (!detached) return crt_error(err, 0, "cannot use console socket if runc will not detach or allocate tty");
    *console = crt_console_socket_connect(console_socket, err);
    return *console < 0 ? -1 : 0;
  }
  if (detached) return crt_error(err, 0, "cannot allocate tty if runc will detach without setting console socket");
  int sp[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) return crt_error(err, errno, "socketpair");
  *ours = sp[0];
  *console = sp[1];
  return 0;
}
