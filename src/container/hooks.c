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

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

extern char **environ;

static void child_exec(const crt_hook *h, const crt_hook_place *at, int in_fd, int out_fd) {
  setpgid(0, 0); /* a timeout kills the hook's whole process group */
  if (at && at->dir && chdir(at->dir) < 0) {
    dprintf(out_fd, "chdir %s: %s", at->dir, strerror(errno));
    _exit(127);
  }
  dup2(in_fd, 0);
  dup2(out_fd, 1);
  dup2(out_fd, 2);
  crt_close_fds_from(3, NULL, 0);
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, NULL);
  char *argv_default[] = {h->path, NULL};
  char **argv = h->args.len ? h->args.v : argv_default;
  /* Without env of its own a hook inherits the runtime's, as runc's do
   * (Go's exec.Cmd with a nil Env); with one, it gets exactly that. */
  char *const *envp = h->env.len ? h->env.v : at && at->env ? at->env : environ;
  execve(h->path, argv, envp);
  dprintf(2, "exec %s: %s", h->path, strerror(errno));
  _exit(127);
}

/* Appends what the hook printed (last 4 KiB) into out. */
static void drain(int fd, char *out, size_t cap, size_t *len) {
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; i++) {
      if (*len + 1 >= cap) {
        memmove(out, out + cap / 2, cap / 2);
        *len -= cap / 2;
      }
      out[(*len)++] = buf[i];
    }
  }
  out[*len] = 0;
}

static int run_one(const crt_hook *h, const crt_hook_place *at, const char *state_json, crt_err **err) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) < 0) return crt_error(err, errno, "pipe");
  if (pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0) {
    close(in[0]);
    close(in[1]);
    return crt_error(err, errno, "pipe");
  }
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return crt_error(err, e, "fork");
  }
  if (pid == 0) child_exec(h, at, in[0], out[1]);
  close(in[0]);
  close(out[1]);
  struct sigaction ign = {.sa_handler = SIG_IGN}, old;
  sigaction(SIGPIPE, &ign, &old);
  crt_write_all(in[1], state_json, strlen(state_json));
  sigaction(SIGPIPE, &old, NULL);
  close(in[1]);

  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  int64_t deadline = h->timeout.set ? now_ms() + h->timeout.v * 1000 : -1;
  char output[4096];
  size_t olen = 0;
  output[0] = 0;
  int status = 0;
  bool timed_out = false;
  for (;;) {
    struct pollfd p[2] = {{.fd = out[0], .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
    int wait_ms = deadline < 0 ? 1000 : (int)(deadline - now_ms());
    if (deadline >= 0 && wait_ms <= 0) {
      timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      break;
    }
    if (wait_ms > 1000 || pidfd < 0) wait_ms = pidfd < 0 ? 20 : wait_ms;
    int r = poll(p, pidfd >= 0 ? 2 : 1, wait_ms);
    if (r < 0 && errno != EINTR) break;
    if (p[0].revents) drain(out[0], output, sizeof output, &olen);
    if (p[0].revents & POLLHUP) p[0].fd = -1;
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      pid = -1;
      break;
    }
  }
  if (pid > 0) waitpid(pid, &status, 0);
  drain(out[0], output, sizeof output, &olen);
  close(out[0]);
  if (pidfd >= 0) close(pidfd);
  while (olen && output[olen - 1] == '\n') output[--olen] = 0;
  if (timed_out) return crt_error(err, 0, "timeout after %lld seconds", (long long)h->timeout.v);
  if (WIFSIGNALED(status))
    return crt_error(err, 0, "killed by signal %d%s%s", WTERMSIG(status), olen ? ", output: " : "", output);
  if (WEXITSTATUS(status) != 0)
    return crt_error(err, 0, "exit status %d%s%s", WEXITSTATUS(status), olen ? ", output: " : "", output);
  return 0;
}

int crt_hooks_run_at(const crt_hookv *hooks, const char *kind, const crt_hook_place *at, const char *state_json,
                     crt_err **err) {
  if (!hooks) return 0;
  for (size_t i = 0; i < hooks->len; i++) {
    if (run_one(&hooks->v[i], at, state_json, err) < 0)
      return crt_error_wrap(err, "error running %s hook #%zu (%s)", kind, i, hooks->v[i].path);
  }
  return 0;
}

int crt_hooks_run(const crt_hookv *hooks, const char *kind, const char *state_json, crt_err **err) {
  return crt_hooks_run_at(hooks, kind, NULL, state_json, err);
}

void crt_hooks_run_warn(const crt_hookv *hooks, const char *kind, const char *state_json) {
  for (size_t i = 0; hooks && i < hooks->len; i++) {
    cleanup_err crt_err *err = NULL;
    if (run_one(&hooks->v[i], NULL, state_json, &err) < 0)
      crt_warn("error running %s hook #%zu (%s): %s", kind, i, hooks->v[i].path, err->msg);
  }
}
