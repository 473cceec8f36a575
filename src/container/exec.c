/* exec: a new process in a running container.  Failures before or in
 * execve travel back on an O_CLOEXEC error pipe: EOF without data means
 * the program is running. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crt/cgroup.h"
#include "crt/cloned_binary.h"
#include "crt/exec.h"
#include "crt/exec_stub.h"
#include "crt/initcheck.h"
#include "crt/namespaces.h"
#include "crt/numa.h"
#include "crt/ops.h"
#include "crt/seccomp.h"
#include "crt/state.h"
#include "crt/fs.h"
#include "crt/lifecycle.h"
#include "crt/log.h"
#include "crt/process.h"
#include "crt/sync.h"
#include "crt/terminal.h"
#include "crt/rootless.h"
#include "finalize.h"

typedef struct {
  const crt_exec_opts *o;
  const crt_spec *spec;
  pid_t init_pid;
  int init_pidfd; /* held since the init was checked: its pid cannot be reused meanwhile */
  int sync, errpipe, console;
  crt_child_report rep; /* errors go to errpipe */
  int cgroup_fd; /* cgroup2 (v2, hybrid's unified): the cgroup K is cloned into (the joiner closes it), or -1 */
  bool v1_self;  /* the joiner joins the v1 hierarchies itself (crt_cgroup_join_self) */
  int cgns_fd;   /* the cgroup namespace, joined once in the cgroup */
  bool use_stub; /* end in crt-stub (else crt runs from a sealed copy) */
  bool born;     /* the stub entry: K was cloned into the cgroup2 cgroup (crt_clone_into) */
  const crt_cgroup *cg; /* the container's cgroup (the state's) */
} exec_ctx;

/* The process's setup and its program, through crt-stub when fo.stub is
 * open.  spawn: we are the stub entry's K, outside the pid namespace, and
 * the stub forks the process (its new session too). */
__attribute__((noreturn)) static void finish_process(exec_ctx *c, crt_sync_msg *m, bool spawn) {
  crt_err *err = NULL;
  const crt_child_report *r = &c->rep;
  const crt_process *p = c->o->process;
  CHILD_TRY(r, crt_finalize_terminal(p, c->console, false, !spawn, &err));
  /* foreground tty: wait until the runtime has set the master's modes */
  if (p->terminal && !c->o->console_socket) CHILD_TRY(r, crt_sync_expect(c->sync, CRT_SYNC_TTY_DONE, m, &err));
  crt_finalize_in fin = {.spec = c->spec, .p = p, .cwd_origin = c->o->cwd_origin ? c->o->cwd_origin : "in config.json",
                         .userns = crt_spec_namespace(c->spec, CRT_NS_USER) || crt_in_userns(), .use_stub = c->use_stub,
                         .sync = c->sync};
  crt_finalized fo;
  CHILD_TRY(r, crt_process_finalize(&fin, &fo, &err));
  (void)prctl(PR_SET_PDEATHSIG, 0); /* cannot fail: 0 is a valid signal */
  crt_reset_signals();
  crt_cloexec_fds_from(3 + c->o->preserve_fds);
  if (fo.stub >= 0) {
    crt_stub_args sa = {.stub = fo.stub, .fifo = -1, .hold = -1, .errfd = c->errpipe,
                        .spawn = spawn, .spawn_sync = c->sync, .tty = p->terminal,
                        .filter = fo.seccomp_at == CRT_SECCOMP_STUB ? fo.filter : NULL, .exit_code = 255, .exe = fo.exe,
                        .argv = p->args.v, .envp = fo.envp};
    crt_stub_exec(&sa, &err);
    crt_child_fail(r, err);
  }
  if (spawn) crt_error(&err, 0, "the stub entry without crt-stub"); /* stub_entry_usable rules it out */
  else {
    execve(fo.exe, p->args.v, fo.envp);
    crt_error(&err, errno, "exec %s", fo.exe);
  }
  crt_child_fail(r, err);
}

static void exec_process(exec_ctx *c) {
  crt_err *err = NULL;
  const crt_child_report *r = &c->rep;
  const crt_process *p = c->o->process;
  crt_sync_msg *m = malloc(sizeof *m);
  if (!m) _exit(255);
  crt_sync_log_to(c->sync); /* warnings to exec's log, not the process's stdio */
  /* PR_SET_PDEATHSIG fails only for an invalid signal; a runtime that
   * died before it is noticed at the next crt_sync_expect (EOF). */
  (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* the joiner kept no host cgroupfs directory for us (joiner) */
  CHILD_TRY(r, crt_sync_expect(c->sync, CRT_SYNC_CGROUP_DONE, m, &err));
  /* execCPUAffinity.final applies once in the cgroup; without it every
   * CPU the cgroup's cpuset allows: an initial list is undone (config.md),
   * and so is the affinity of a pinned caller (as runc >= 1.2 resets it) */
  const crt_exec_cpu_affinity *aff = p->exec_cpu_affinity;
  CHILD_TRY(r, crt_set_cpu_list(aff ? aff->final : NULL, &err));
  if (c->cgns_fd >= 0) {
    if (setns(c->cgns_fd, CLONE_NEWCGROUP) < 0) {
      crt_error(&err, errno, "setns cgroup namespace of pid %d", (int)c->init_pid);
      crt_child_fail(r, err);
    }
    close(c->cgns_fd);
  }
  finish_process(c, m, false);
}

/* The calling child into the container's cgroup (cgroup2: also its
 * cgroup2 one), in runc's words when it fails. */
static int join_cgroup_self(exec_ctx *c, bool cgroup2, crt_err **err) {
  if (crt_cgroup_join_self(c->cg, c->o->cgroup, cgroup2, c->init_pid, err) < 0)
    return crt_error_wrap(err, "error adding pid %d to cgroups", (int)getpid());
  return 0;
}

static void exec_entry(void *c) {
  exec_process(c);
}

/* The container's namespaces (defer: joined later, its fd in cgns_fd);
 * returns the CLONE_NEW* flags joined. */
static int join_namespaces(exec_ctx *c, int defer) {
  crt_err *err = NULL;
  int joined = 0;
  CHILD_TRY(&c->rep, crt_ns_join_pid(c->init_pid, defer, &joined, &c->cgns_fd, &err));
  /* The init checked by load_container was alive while its namespaces
   * were opened by pid: they were its own, not a successor's. */
  if (syscall(SYS_pidfd_send_signal, c->init_pidfd, 0, NULL, 0) < 0 && errno == ESRCH) {
    crt_error(&err, 0, "the container's init (pid %d) exited while exec joined its namespaces", (int)c->init_pid);
    crt_child_fail(&c->rep, err);
  }
  close(c->init_pidfd);
  return joined;
}

/* Joins the container's namespaces, then clones the process as the
 * runtime's child so that the caller (a subreaper shim) inherits it. */
static void joiner(exec_ctx *c) {
  crt_err *err = NULL;
  (void)prctl(PR_SET_PDEATHSIG, SIGKILL); /* as in exec_process: cannot fail */
  /* In the container's cgroup namespace the kernel would refuse to clone
   * into its cgroup (not below our namespace root): join that one last. */
  int defer = c->cgroup_fd >= 0 ? CLONE_NEWCGROUP : 0;
  /* execCPUAffinity.initial: where the process runs before it joins the
   * container's cgroup (inherited by the clone below) */
  const crt_exec_cpu_affinity *aff = c->o->process->exec_cpu_affinity;
  if (aff && aff->initial) CHILD_TRY(&c->rep, crt_set_cpu_list(aff->initial, &err));
  /* before setns: the host's cgroupfs paths; the clone below inherits them */
  if (c->v1_self) CHILD_TRY(&c->rep, join_cgroup_self(c, false, &err));
  /* The process is born in the container's pid namespace, where the
   * container's processes see its fds: never with a host directory (the
   * cgroup2 one: "../.." from it reaches the host's root) nor the --log
   * file.  So it is not cloned into the cgroup; the runtime moves it
   * there by pid (crt_cgroup_join), and it logs nothing (its errors take
   * the error pipe). */
  if (c->cgroup_fd >= 0) close(c->cgroup_fd);
  c->cgroup_fd = -1;
  crt_log_detach();
  join_namespaces(c, defer);
  crt_joiner_clone(0, -1, NULL, "clone", &c->rep, exec_entry, c);
}

/* The stub entry's K (see spawn_process): crt's child, in the container's
 * cgroup and namespaces but never in its pid namespace, which only the
 * process that crt-stub forks enters. */
__attribute__((noreturn)) static void stub_entry(exec_ctx *c) {
  crt_err *err = NULL;
  const crt_child_report *r = &c->rep;
  crt_sync_msg *m = malloc(sizeof *m);
  if (!m) _exit(255);
  crt_sync_log_to(c->sync); /* warnings to exec's log, not the process's stdio */
  (void)prctl(PR_SET_PDEATHSIG, SIGKILL); /* as in exec_process: cannot fail */
  if (c->cgroup_fd >= 0) close(c->cgroup_fd);
  /* before setns, through the host's cgroupfs; cgroup2 only if clone3
   * could not clone us into it */
  CHILD_TRY(r, join_cgroup_self(c, !c->born, &err));
  /* every CPU of the cgroup's cpuset, not a pinned caller's (as in
   * exec_process; no execCPUAffinity comes this way) */
  CHILD_TRY(r, crt_set_cpu_list(NULL, &err));
  if (!(join_namespaces(c, 0) & CLONE_NEWPID)) {
    crt_error(&err, 0, "the container's pid namespace is crt's own: refusing to enter it from crt's binary");
    crt_child_fail(r, err);
  }
  finish_process(c, m, true);
}

static int read_errpipe(int fd, crt_err **err) {
  cleanup_free char *buf = NULL;
  size_t len = 0;
  if (crt_read_fd(fd, 1 << 20, &buf, &len, err) < 0) return -1;
  if (!len) return 0;
  cleanup_free char *stub = crt_stub_message(buf);
  return crt_error(err, 0, "%s", stub ? stub : buf);
}

static int serve_seccomp(int sock, const crt_spec *spec, const crt_state *s, pid_t pid, crt_err **err) {
  cleanup_free crt_sync_msg *m = malloc(sizeof *m);
  if (!m) return crt_error(err, ENOMEM, "exec");
  for (;;) {
    cleanup_err crt_err *eof = NULL;
    if (crt_sync_recv(sock, m, &eof) < 0) return 0; /* closed: exec'd or failed */
    if (m->type != CRT_SYNC_SECCOMP_FD || m->fd < 0) continue;
    /* the container's state (its init's pid); ContainerProcessState.pid is ours */
    cleanup_free char *json = crt_state_json(s, CRT_STATUS_RUNNING, false);
    int rc = crt_seccomp_send_listener(spec->linux_->seccomp, m->fd, pid, json, err);
    close(m->fd);
    if (rc < 0) return -1;
    if (crt_sync_send(sock, CRT_SYNC_SECCOMP_DONE, NULL, 0, -1) < 0)
      return crt_error(err, errno, "tell the process its seccomp agent has the notify fd");
  }
}

static int check_status(const crt_state *s, const crt_exec_opts *o, enum crt_status *out, crt_err **err) {
  enum crt_status st = *out = crt_state_status(s);
  if (st == CRT_STATUS_PAUSED && o->ignore_paused) return 0;
  /* a stopped one's refusal says why when its pid is not the init's
   * (reused, forged): such a pid is never joined */
  return crt_op_check(s, CRT_OP_EXEC, st, err);
}

/* Whether the joiner can join the v1 hierarchies itself, the fast way.
 * Not: rootless (crt_cgroup_join knows which failures to ignore); a paused
 * container (the joiner would freeze before it clones); execCPUAffinity's
 * initial list (it is for the time before the process joins the cgroup,
 * and joining a cpuset resets it). */
static bool v1_self_join(const crt_state *s, enum crt_status st, const crt_exec_opts *o) {
  const crt_exec_cpu_affinity *aff = o->process->exec_cpu_affinity;
  return s->cgroup_path && *s->cgroup_path && !crt_rootless() && st != CRT_STATUS_PAUSED && !(aff && aff->initial);
}

/* The runtime's side of one exec. */
typedef struct {
  const crt_exec_opts *o;
  crt_state *s;
  crt_spec *spec;
  int init_pidfd;       /* the init, checked (crt_state_check_init) once this was open */
  int ep[2], sp[2];     /* error pipe, sync socketpair: [0] ours */
  int console, ours_tty, master;
  pid_t pid;            /* the process, once the joiner sent it */
  bool v1_self;         /* the joiner joins the v1 cgroups itself */
  bool by_stub;         /* the stub entry (spawn_process), not the joiner */
  crt_stages st;        /* --debug timings */
} exec_run;

/* Whether the stub entry can take this exec: the container has a pid
 * namespace that is not ours (else K would be in it, seen); crt-stub
 * loads the seccomp filter, if any, after its fork; nothing needs the
 * process in the cgroup in another order (a paused container, an
 * execCPUAffinity) or needs the runtime to place it after the clone
 * (rootless: crt_cgroup_join knows which cgroups it may go without); no
 * process.scheduler, which must be set in the process itself, after the
 * last fork (SCHED_FLAG_RESET_ON_FORK would drop it at the stub's fork,
 * and a SCHED_DEADLINE task may not fork at all). */
static bool stub_entry_usable(const exec_run *x, enum crt_status st) {
  const crt_process *p = x->o->process;
  const crt_seccomp *sc = x->spec->linux_ ? x->spec->linux_->seccomp : NULL;
  const char *forbidden = NULL;
  if (st == CRT_STATUS_PAUSED || p->exec_cpu_affinity || p->scheduler || crt_rootless()) return false;
  if (!crt_stub_usable(sc, p, false)) return false;
  if (sc && crt_seccomp_load_point(sc, p, false, true, &forbidden) != CRT_SECCOMP_STUB) return false;
  char path[64];
  struct stat a, b;
  snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)x->s->pid);
  if (stat(path, &a) < 0 || stat("/proc/self/ns/pid", &b) < 0) return false;
  return a.st_ino != b.st_ino || a.st_dev != b.st_dev;
}

/* Stage 1: the container, in a state that takes an exec, and its config. */
static int load_container(exec_run *x, crt_err **err) {
  const crt_exec_opts *o = x->o;
  if (crt_state_load(o->root, o->id, &x->s, err) < 0) return -1;
  x->init_pidfd = x->s->pid > 0 ? (int)syscall(SYS_pidfd_open, x->s->pid, 0) : -1;
  if (x->init_pidfd < 0 && errno != ESRCH && x->s->pid > 0)
    return crt_error(err, errno, "pidfd_open of the container's init (pid %d)", (int)x->s->pid);
  /* checked once the pidfd is held: the pidfd is the process that passed */
  enum crt_status st;
  if (check_status(x->s, o, &st, err) < 0) return -1;
  x->v1_self = v1_self_join(x->s, st, o);
  if (crt_state_load_spec(x->s, &x->spec, err) < 0) return -1;
  x->by_stub = stub_entry_usable(x, st);
  if (x->by_stub) return 0;
  /* Else the process we clone runs crt in the container's pid namespace,
   * where its processes can see it: from a sealed copy of crt.  Starts
   * this command over unless it runs from one already. */
  return crt_ensure_cloned_binary(o->argv, err);
}

/* The channels to the process, and what its side knows. */
static int prepare_spawn(exec_run *x, exec_ctx *c, crt_err **err) {
  const crt_exec_opts *o = x->o;
  if (crt_console_open(o->process->terminal, o->console_socket, o->detach, &x->console, &x->ours_tty, err) < 0)
    return -1;
  if (pipe2(x->ep, O_CLOEXEC) < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, x->sp) < 0)
    return crt_error(err, errno, "pipe");
  /* see crt_container_create: most processes end in crt-stub */
  bool use_stub = x->by_stub || crt_stub_usable(x->spec->linux_ ? x->spec->linux_->seccomp : NULL, o->process, false);
  *c = (exec_ctx){.o = o, .spec = x->spec, .init_pid = x->s->pid, .init_pidfd = x->init_pidfd, .sync = x->sp[1],
                  .errpipe = x->ep[1], .console = x->console,
                  .cgroup_fd = crt_cgroup_dirfd(x->s->cg, o->cgroup), .cgns_fd = -1, .v1_self = x->v1_self,
                  .cg = x->s->cg, .use_stub = use_stub,
                  .rep = {.sync = x->sp[1], .errpipe = x->ep[1], .exit_code = 255}};
  return 0;
}

/* In the child, our ends of the channels. */
static void close_parent_ends(exec_run *x) {
  close(x->sp[0]);
  close(x->ep[0]);
  if (x->ours_tty >= 0) close(x->ours_tty);
}

/* In the runtime, the child's ends. */
static void close_child_ends(exec_run *x, exec_ctx *c) {
  if (c->cgroup_fd >= 0) close(c->cgroup_fd);
  close(x->sp[1]);
  close(x->ep[1]);
  x->sp[1] = x->ep[1] = -1;
  if (x->console >= 0) close(x->console);
  x->console = -1;
}

/* The stub entry's foreground tty: K sends the master before it execs the
 * stub; a failure to get it means K failed, and its error is on the error
 * pipe. */
static int stub_tty(exec_run *x, pid_t k, crt_err **err) {
  cleanup_err crt_err *terr = NULL;
  if (crt_terminal_recv_master(x->ours_tty, &x->master, &terr) < 0) return 0;
  if (crt_terminal_master_prepare(x->master, &terr) < 0) {
    kill(k, SIGKILL);
    waitpid(k, NULL, 0);
    return crt_err_move(err, &terr);
  }
  (void)crt_sync_send(x->sp[0], CRT_SYNC_TTY_DONE, NULL, 0, -1); /* failed: K is gone, see the pipe */
  return 0;
}

/* Stage 2: the child that enters the container, which sends the pid of
 * the process: the joiner, or the stub entry's K.  *serr: the sync error
 * when it sent none (its own message is then on the error pipe).
 *
 * The stub entry needs no re-exec of crt.  K is cloned into the cgroup
 * (clone3; on v1 it joins the hierarchies itself, which is fast), joins
 * the namespaces except for the pid namespace, which only its children
 * enter, sets the process up and execs crt-stub from a sealed memfd; the
 * stub forks the process (our child, in the container's pid namespace)
 * and reports its pid.  K runs crt's binary on disk after it entered the
 * container's mount namespace, but no process of the container can name
 * it (its pid is in no namespace they see), so the binary stays out of
 * their reach (CVE-2019-5736, docs/security.md). */
static int spawn_process(exec_run *x, crt_err **serr, crt_err **err) {
  exec_ctx c;
  if (prepare_spawn(x, &c, err) < 0) return -1;
  /* the joiner clones the process into the cgroup itself */
  pid_t k = x->by_stub ? crt_clone_into(0, c.cgroup_fd, &c.born) : fork();
  if (k == 0) {
    close_parent_ends(x);
    if (x->by_stub) stub_entry(&c);
    joiner(&c);
  }
  int e = errno;
  close_child_ends(x, &c);
  if (k < 0) return crt_error(err, e, x->by_stub ? "clone" : "fork");
  if (x->by_stub && x->ours_tty >= 0 && stub_tty(x, k, err) < 0) return -1;
  return crt_joiner_wait(x->sp[0], k, &x->pid, serr);
}

static void kill_process(exec_run *x) {
  kill(x->pid, SIGKILL);
  waitpid(x->pid, NULL, 0);
}

/* A message to the process failed: it is gone, and its own error (on the
 * error pipe) is the one to report when it wrote one. */
static int tell_failed(exec_run *x, int e, const char *step, crt_err **err) {
  kill_process(x);
  if (read_errpipe(x->ep[0], err) < 0) return -1;
  return crt_error(err, e, "%s", step);
}

/* Stage 3: the process in its cgroup, its tty, its seccomp agent; until
 * it exec'd (the error pipe's EOF) or failed. */
static int place_process(exec_run *x, crt_err **err) {
  const crt_exec_opts *o = x->o;
  const crt_state *s = x->s;
  if (s->cgroup_path && *s->cgroup_path && crt_cgroup_exec_join(s->cg, o->cgroup, x->pid, x->v1_self, s->pid, err) < 0) {
    crt_error_wrap(err, "error adding pid %d to cgroups", (int)x->pid);
    kill_process(x);
    return -1;
  }
  CRT_STAGE(&x->st, "cgroup joined");
  if (crt_sync_send(x->sp[0], CRT_SYNC_CGROUP_DONE, NULL, 0, -1) < 0)
    return tell_failed(x, errno, "tell the process it is in its cgroup", err);
  if (x->ours_tty >= 0) {
    /* no master means the process failed first: its error is on the pipe */
    cleanup_err crt_err *terr = NULL;
    if (crt_terminal_recv_master(x->ours_tty, &x->master, &terr) == 0 &&
        crt_terminal_master_prepare(x->master, &terr) == 0 &&
        crt_sync_send(x->sp[0], CRT_SYNC_TTY_DONE, NULL, 0, -1) < 0)
      return tell_failed(x, errno, "tell the process its terminal is ready", err);
  }
  return 0;
}

static int drive_process(exec_run *x, crt_err **err) {
  /* the stub entry's K was in the cgroup and set the terminal up already */
  if (x->by_stub) CRT_STAGE(&x->st, "cgroup joined (by the stub entry, before the fork)");
  else if (place_process(x, err) < 0) return -1;
  /* The sync socket closes at execve (or failure); before that the process
   * may hand over a seccomp notify fd. */
  if (serve_seccomp(x->sp[0], x->spec, x->s, x->pid, err) < 0) {
    kill_process(x);
    return -1;
  }
  if (read_errpipe(x->ep[0], err) < 0) {
    waitpid(x->pid, NULL, 0);
    return -1;
  }
  CRT_STAGE(&x->st, "process set up and execve (terminal, seccomp agent)");
  return 0;
}

static int write_pid_file(exec_run *x, crt_err **err) {
  if (crt_write_pid_file(x->o->pid_file, x->pid, err) < 0) {
    /* as runc: a process nobody can find by its pid file is not left running */
    kill_process(x);
    return -1;
  }
  return 0;
}

static void close_run(exec_run *x) {
  for (int i = 0; i < 2; i++) {
    if (x->ep[i] >= 0) close(x->ep[i]);
    if (x->sp[i] >= 0) close(x->sp[i]);
  }
  if (x->console >= 0) close(x->console);
  if (x->ours_tty >= 0) close(x->ours_tty);
  if (x->master >= 0) close(x->master);
  if (x->init_pidfd >= 0) close(x->init_pidfd);
  crt_spec_free(x->spec);
  crt_state_free(x->s);
}

int crt_container_exec(const crt_exec_opts *o, int *exit_status, crt_err **err) {
  exec_run x = {.o = o, .init_pidfd = -1, .ep = {-1, -1}, .sp = {-1, -1}, .console = -1, .ours_tty = -1,
                .master = -1};
  int rc = -1;
  cleanup_err crt_err *serr = NULL;
  cleanup_close int pidfd_sock = -1;
  *exit_status = 255;
  CRT_STAGES_BEGIN(&x.st, "exec");
  if (o->cgroup && crt_cgroup_sub_check(crt_cgroup_host(), o->cgroup, err) < 0) goto out;
  if (load_container(&x, err) < 0) goto out;
  CRT_STAGE(&x.st, "state loaded");
  if (o->pidfd_socket && (pidfd_sock = crt_unix_connect(o->pidfd_socket, "--pidfd-socket", err)) < 0) goto out;
  if (spawn_process(&x, &serr, err) < 0) {
    /* The joiner failed: its message is on the error pipe. */
    if (serr && read_errpipe(x.ep[0], err) == 0) crt_error(err, 0, "%s", serr->msg);
    goto out;
  }
  CRT_STAGE(&x.st, "clone (namespaces joined, pid %d)", (int)x.pid);
  if (pidfd_sock >= 0 && crt_pidfd_send(pidfd_sock, x.pid, "setns", err) < 0) goto out;
  if (drive_process(&x, err) < 0) goto out;
  if (o->pid_file && write_pid_file(&x, err) < 0) goto out;
  CRT_STAGES_TOTAL(&x.st);
  rc = 0;
  if (o->detach) {
    *exit_status = 0;
    goto out;
  }
  if (x.master >= 0) {
    cleanup_err crt_err *terr = NULL;
    if (crt_terminal_copy_loop_forward(x.master, x.pid, &terr) < 0) crt_warn("%s", terr->msg);
  }
  *exit_status = crt_wait_forward(x.pid);
out:
  if (rc < 0) crt_error_wrap(err, "exec failed");
  close_run(&x);
  return rc;
}
