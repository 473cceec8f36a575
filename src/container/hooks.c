#define _GNU_SOURCE
#include "crt/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/log.h"
#include "crt/str.h"

/* Without a pidfd, how often a hook's exit is looked for. */
#define EXIT_POLL_MS 20

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

extern char **environ;

/* The hook's ends of its pipes: stdin, stdout, stderr, and a close-on-exec
 * pipe that gets errno when the exec (or what precedes it) fails. */
typedef struct {
  int in, out, err, fail;
} hook_fds;

/* Puts the pipes on 0, 1 and 2.  Each is first moved above 2: one may
 * already sit on 0, 1 or 2 (crt started with a standard fd closed), where
 * a plain dup2 would clobber another or leave the fd close-on-exec. */
static int setup_stdio(const hook_fds *f) {
  int in = fcntl(f->in, F_DUPFD_CLOEXEC, 3), out = fcntl(f->out, F_DUPFD_CLOEXEC, 3),
      err = fcntl(f->err, F_DUPFD_CLOEXEC, 3);
  if (in < 0 || out < 0 || err < 0) return -1;
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) return -1;
  return 0;
}

/* The child could not become the hook: the parent reports errno as Go's
 * "fork/exec PATH: ..." (runc starts hooks with exec.Cmd). */
static _Noreturn void child_fail(int fail_fd) {
  int e = errno;
  if (write(fail_fd, &e, sizeof e) < 0) { /* the parent then sees exit status 127 */
  }
  _exit(127);
}

/* The hook's child, forked here rather than by crt_spawn (crt/spawn.h):
 * its own process group (the timeout kills the group), the hook's
 * directory, its stdin fed and its output read while it runs. */
static void child_exec(const crt_hook *h, const crt_hook_place *at, const hook_fds *f) {
  setpgid(0, 0); /* a timeout kills the hook's whole process group */
  /* above 2 first: crt started with a standard fd closed may hold it
   * there, where setup_stdio's dup2s would replace it */
  int fail = fcntl(f->fail, F_DUPFD_CLOEXEC, 3);
  if (fail < 0) _exit(127);
  if (at && at->dir && chdir(at->dir) < 0) child_fail(fail);
  if (setup_stdio(f) < 0) child_fail(fail);
  crt_close_fds_from(3, &fail, 1);
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, NULL);
  char *argv_default[] = {h->path, NULL};
  char **argv = h->args.len ? h->args.v : argv_default;
  /* Without env of its own a hook inherits the runtime's, as runc's do
   * (Go's exec.Cmd with a nil Env); with one, it gets exactly that. */
  char *const *envp = h->env.len ? h->env.v : at && at->env ? at->env : environ;
  execve(h->path, argv, envp);
  child_fail(fail);
}

/* What the hook printed on stdout or on stderr: its last 4 KiB, for the
 * error message. */
typedef struct {
  char buf[4096];
  size_t len;
} hook_output;

/* Reads what is there (fd is non-blocking) into o, at most 4 MiB a call
 * (a process that writes without end cannot keep crt here); true at EOF
 * or on an error, when the fd has nothing more to give. */
static bool drain(int fd, hook_output *o) {
  char buf[16384];
  const size_t cap = sizeof o->buf;
  for (int reads = 0; reads < 256; reads++) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno != EAGAIN;
    if (n == 0) return true;
    const char *p = buf;
    if ((size_t)n >= cap) { /* only the tail of this read can survive */
      p += (size_t)n - (cap - 1);
      n = (ssize_t)(cap - 1);
      o->len = 0;
    }
    if (o->len + (size_t)n >= cap) { /* keep the newest bytes */
      size_t drop = o->len + (size_t)n - (cap - 1);
      memmove(o->buf, o->buf + drop, o->len - drop);
      o->len -= drop;
    }
    memcpy(o->buf + o->len, p, (size_t)n);
    o->len += (size_t)n;
  }
  return false;
}

/* Our ends of the hook's pipes: its stdin (the state still to write), its
 * stdout and its stderr (what it printed, kept apart as runc reports
 * them); all non-blocking. */
typedef struct {
  int in_fd;
  const char *state;
  size_t state_left;
  int out_fd, err_fd;
  hook_output out, err;
} hook_io;

/* Writes what the pipe takes of the state; true when done (or the hook
 * closed its stdin: a hook that does not read it is no error, as in runc). */
static bool feed(hook_io *io) {
  while (io->state_left) {
    ssize_t n = write(io->in_fd, io->state, io->state_left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno != EAGAIN;
    io->state += n;
    io->state_left -= (size_t)n;
  }
  return true;
}

static void kill_hook(pid_t pid, int *status) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

/* The timeout left (ms, -1 none, 0 elapsed), capped for poll. */
static int time_left(int64_t deadline) {
  if (deadline < 0) return -1;
  int64_t left = deadline - now_ms();
  return left <= 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

/* Feeds the hook its state, reads its output as it comes (a hook filling
 * the pipe must not block) and awaits its exit on its pidfd, all in one
 * poll set whose finished fds drop out: once the hook closed its stdout
 * and stderr only the pidfd is watched, with what is left of the timeout
 * (CLOCK_MONOTONIC).  Returns 1 when the timeout killed it; *status: its
 * wait status. */
static int await_hook(pid_t pid, hook_io *io, int64_t deadline, int *status) {
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  struct pollfd p[4] = {{.fd = io->out_fd, .events = POLLIN},
                        {.fd = io->err_fd, .events = POLLIN},
                        {.fd = io->state_left ? io->in_fd : -1, .events = POLLOUT},
                        {.fd = pidfd, .events = POLLIN}};
  for (;;) {
    if (waitpid(pid, status, WNOHANG) == pid) break;
    int wait_ms = time_left(deadline);
    if (wait_ms == 0) {
      kill_hook(pid, status);
      if (pidfd >= 0) close(pidfd);
      return 1;
    }
    /* no pidfd (kernel < 5.3): the exit is looked for every EXIT_POLL_MS */
    if (pidfd < 0 && (wait_ms < 0 || wait_ms > EXIT_POLL_MS)) wait_ms = EXIT_POLL_MS;
    if (poll(p, 4, wait_ms) < 0 && errno != EINTR) {
      /* cannot poll (ENOMEM): stop reading the pipes, look for the exit
       * every EXIT_POLL_MS */
      p[0].fd = p[1].fd = p[2].fd = -1;
      nanosleep(&(struct timespec){0, EXIT_POLL_MS * 1000000L}, NULL);
      continue;
    }
    if (p[0].fd >= 0 && p[0].revents && drain(io->out_fd, &io->out)) p[0].fd = -1;
    if (p[1].fd >= 0 && p[1].revents && drain(io->err_fd, &io->err)) p[1].fd = -1;
    if (p[2].fd >= 0 && p[2].revents && feed(io)) { /* all written: EOF for the hook */
      close(io->in_fd);
      io->in_fd = p[2].fd = -1;
    }
  }
  if (pidfd >= 0) close(pidfd);
  return 0;
}

/* A signal's name as Go's os.ProcessState prints it: strsignal's text
 * with its first letter lowered ("bad system call"), but not in a word
 * that is all capitals ("CPU time limit exceeded", "I/O possible"). */
static const char *signal_name(char *buf, size_t size, int sig) {
  const char *sn = strsignal(sig);
  if (!sn) sn = "unknown signal";
  if (sn[0] && sn[1] >= 'A' && sn[1] <= 'Z') return sn;
  if (sn[1] == '/') return sn;
  return crt_go_text(buf, size, sn);
}

/* runc's words for a hook that failed: Go's ProcessState ("exit status 3",
 * "signal: bad system call"), then all it printed on each stream. */
static int status_error(int status, hook_io *io, crt_err **err) {
  io->out.buf[io->out.len] = 0;
  io->err.buf[io->err.len] = 0;
  char name[64];
  if (WIFSIGNALED(status))
    return crt_error(err, 0, "signal: %s%s, stdout: %s, stderr: %s", signal_name(name, sizeof name, WTERMSIG(status)),
                     WCOREDUMP(status) ? " (core dumped)" : "", io->out.buf, io->err.buf);
  if (WEXITSTATUS(status) != 0)
    return crt_error(err, 0, "exit status %d, stdout: %s, stderr: %s", WEXITSTATUS(status), io->out.buf, io->err.buf);
  return 0;
}

/* errno the child sent when it could not exec the hook, else 0. */
static int exec_errno(int fail_fd) {
  int e = 0;
  ssize_t n;
  while ((n = read(fail_fd, &e, sizeof e)) < 0 && errno == EINTR) {
  }
  return n == (ssize_t)sizeof e ? e : 0;
}

static void close_pipes(int p[][2], size_t n) {
  for (size_t i = 0; i < n; i++)
    for (int j = 0; j < 2; j++)
      if (p[i][j] >= 0) close(p[i][j]);
}

enum { P_IN, P_OUT, P_ERR, P_FAIL, N_PIPES };

/* The hook's stdin, stdout, stderr and exec-failure pipes.  Only our ends
 * of the first three are non-blocking: the others are the hook's stdin,
 * stdout and stderr, and a hook must be able to write all it wants. */
static int open_pipes(int p[N_PIPES][2]) {
  for (int i = 0; i < N_PIPES; i++)
    if (pipe2(p[i], O_CLOEXEC) < 0) return -1;
  if (fcntl(p[P_IN][1], F_SETFL, O_NONBLOCK) < 0 || fcntl(p[P_OUT][0], F_SETFL, O_NONBLOCK) < 0 ||
      fcntl(p[P_ERR][0], F_SETFL, O_NONBLOCK) < 0)
    return -1;
  return 0;
}

static int run_one(const crt_hook *h, const crt_hook_place *at, const char *state_json, crt_err **err) {
  int p[N_PIPES][2] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
  if (open_pipes(p) < 0) {
    int e = errno;
    close_pipes(p, N_PIPES);
    return crt_error(err, e, "pipe for hook %s", h->path);
  }
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close_pipes(p, N_PIPES);
    return crt_error(err, e, "fork for hook %s", h->path);
  }
  if (pid == 0) {
    hook_fds f = {.in = p[P_IN][0], .out = p[P_OUT][1], .err = p[P_ERR][1], .fail = p[P_FAIL][1]};
    child_exec(h, at, &f);
  }
  for (int i = 0; i < N_PIPES; i++) { /* the child's ends */
    int child_end = i == P_IN ? 0 : 1;
    close(p[i][child_end]);
    p[i][child_end] = -1;
  }
  int64_t deadline = h->timeout.set ? now_ms() + h->timeout.v * 1000 : -1;
  hook_io io = {.in_fd = p[P_IN][1],
                .state = state_json,
                .state_left = strlen(state_json),
                .out_fd = p[P_OUT][0],
                .err_fd = p[P_ERR][0]};
  p[P_IN][1] = -1; /* io's now */
  /* a write to a hook that exited must not kill crt */
  struct sigaction ign = {.sa_handler = SIG_IGN}, old;
  sigaction(SIGPIPE, &ign, &old);
  if (feed(&io)) { /* all of it fit: the hook sees EOF on its stdin now */
    close(io.in_fd);
    io.in_fd = -1;
  }
  int status = 0;
  int timed_out = await_hook(pid, &io, deadline, &status);
  sigaction(SIGPIPE, &old, NULL);
  drain(io.out_fd, &io.out); /* what it wrote just before it exited */
  drain(io.err_fd, &io.err);
  if (io.in_fd >= 0) close(io.in_fd);
  int exec_err = timed_out ? 0 : exec_errno(p[P_FAIL][0]);
  close_pipes(p, N_PIPES);
  if (timed_out) return crt_error(err, 0, "hook ran past specified timeout of %lld.0s", (long long)h->timeout.v);
  if (exec_err) return crt_error(err, 0, "fork/exec %s: %s", h->path, crt_strerror(exec_err));
  return status_error(status, &io, err);
}

int crt_hooks_run_at(const crt_hookv *hooks, const char *kind, const crt_hook_place *at, const char *state_json,
                     crt_err **err) {
  if (!hooks) return 0;
  for (size_t i = 0; i < hooks->len; i++) {
    if (run_one(&hooks->v[i], at, state_json, err) < 0)
      return crt_error_wrap(err, "error running %s hook #%zu", kind, i);
  }
  return 0;
}

void crt_hooks_run_warn(const crt_hookv *hooks, const char *kind, const char *state_json) {
  for (size_t i = 0; hooks && i < hooks->len; i++) {
    cleanup_err crt_err *err = NULL;
    if (run_one(&hooks->v[i], NULL, state_json, &err) < 0)
      crt_warn("error running %s hook #%zu: %s", kind, i, err->msg);
  }
}

bool crt_hooks_runtime_create(const crt_hooks *h) {
  return h && (h->prestart.len || h->create_runtime.len);
}
