/* A program run to its end: posix_spawnp, its output collected, its exit
 * status worded (include/crt/spawn.h says which spawns use it, and which
 * do not). */
#define _GNU_SOURCE
#include "crt/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* What the child wrote: stdout (grown up to its cap, the rest counted as
 * too much) and the tail of its diagnostics. */
typedef struct {
  char *out;
  size_t out_len, out_max;
  bool out_over;
  char diag[CRT_SPAWN_DIAG_MAX + 1]; /* + the NUL of diag_line */
  size_t diag_len;
} capture;

/* A pipe whose ends are above stdio: the child's dup2s onto 0-2 then
 * cannot close one another's source (crt may run with a standard fd
 * closed, so pipe2 may hand out 0, 1 or 2). */
static int pipe_above_stdio(int p[2]) {
  if (pipe2(p, O_CLOEXEC) < 0) return -1;
  for (int i = 0; i < 2; i++) {
    if (p[i] > 2) continue;
    int fd = fcntl(p[i], F_DUPFD_CLOEXEC, 3);
    if (fd < 0) {
      int e = errno;
      close(p[0]);
      close(p[1]);
      p[0] = p[1] = -1;
      errno = e;
      return -1;
    }
    close(p[i]);
    p[i] = fd;
  }
  return 0;
}

static void keep_out(capture *c, const char *buf, size_t n) {
  if (c->out_over || c->out_len + n > c->out_max) {
    c->out_over = true;
    return;
  }
  char *grown = realloc(c->out, c->out_len + n + 1);
  if (!grown) {
    c->out_over = true;
    return;
  }
  c->out = grown;
  memcpy(c->out + c->out_len, buf, n);
  c->out_len += n;
  c->out[c->out_len] = 0;
}

/* The last CRT_SPAWN_DIAG_MAX bytes: the end of a tool's stderr says why. */
static void keep_diag(capture *c, const char *buf, size_t n) {
  const size_t cap = CRT_SPAWN_DIAG_MAX;
  if (n >= cap) {
    memcpy(c->diag, buf + n - cap, cap);
    c->diag_len = cap;
    return;
  }
  if (c->diag_len + n > cap) {
    size_t drop = c->diag_len + n - cap;
    memmove(c->diag, c->diag + drop, c->diag_len - drop);
    c->diag_len -= drop;
  }
  memcpy(c->diag + c->diag_len, buf, n);
  c->diag_len += n;
}

/* Reads both pipes (out_fd may be -1) until the child has closed them. */
static int collect(int out_fd, int diag_fd, capture *c) {
  struct pollfd p[2] = {{.fd = out_fd, .events = POLLIN}, {.fd = diag_fd, .events = POLLIN}};
  char buf[16384];
  while (p[0].fd >= 0 || p[1].fd >= 0) {
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    for (int i = 0; i < 2; i++) {
      if (p[i].fd < 0 || !p[i].revents) continue;
      ssize_t n = read(p[i].fd, buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) p[i].fd = -1; /* EOF (or an error: nothing more to read) */
      else if (i == 0) keep_out(c, buf, (size_t)n);
      else keep_diag(c, buf, (size_t)n);
    }
  }
  return 0;
}

/* The diagnostics as one line: each run of line ends one space, the
 * end trimmed. */
static const char *diag_line(capture *c) {
  size_t w = 0;
  for (size_t r = 0; r < c->diag_len; r++) {
    char ch = c->diag[r];
    if (ch == '\n' || ch == '\r') {
      if (w && c->diag[w - 1] != ' ') c->diag[w++] = ' ';
      continue;
    }
    c->diag[w++] = ch;
  }
  while (w && c->diag[w - 1] == ' ') w--;
  c->diag[w] = 0;
  return c->diag;
}

static int status_error(const char *name, int st, capture *c, crt_err **err) {
  const char *d = diag_line(c);
  const char *sep = *d ? ": " : "";
  if (WIFSIGNALED(st)) return crt_error(err, 0, "%s: killed by signal %d%s%s", name, WTERMSIG(st), sep, d);
  return crt_error(err, 0, "%s: exited with status %d%s%s", name, WEXITSTATUS(st), sep, d);
}

/* The child's stdio and nothing else, and the signal state a fresh
 * program expects: none blocked, SIGPIPE at its default (crt ignores it
 * while it feeds a hook). */
static int spawn(char *const argv[], int out_w, int diag_w, pid_t *pid) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  int e = posix_spawn_file_actions_init(&fa);
  if (e) return e;
  if ((e = posix_spawnattr_init(&at))) {
    posix_spawn_file_actions_destroy(&fa);
    return e;
  }
  sigset_t none, dfl;
  sigemptyset(&none);
  sigemptyset(&dfl);
  sigaddset(&dfl, SIGPIPE);
  /* each call fails only on a bad argument or ENOMEM */
  if (!(e = posix_spawn_file_actions_adddup2(&fa, out_w, 1)) && !(e = posix_spawn_file_actions_adddup2(&fa, diag_w, 2)) &&
      !(e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) &&
      !(e = posix_spawn_file_actions_addclosefrom_np(&fa, 3)) && !(e = posix_spawnattr_setsigmask(&at, &none)) &&
      !(e = posix_spawnattr_setsigdefault(&at, &dfl)) &&
      !(e = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)))
    e = posix_spawnp(pid, argv[0], &fa, &at, argv, environ);
  posix_spawnattr_destroy(&at);
  posix_spawn_file_actions_destroy(&fa);
  return e;
}

static void close_pipe(int p[2]) {
  for (int i = 0; i < 2; i++)
    if (p[i] >= 0) close(p[i]);
  p[0] = p[1] = -1;
}

int crt_spawn(char *const argv[], const crt_spawn_opts *o, crt_err **err) {
  const char *name = o->name ? o->name : argv[0];
  int out[2] = {-1, -1}, diag[2] = {-1, -1};
  if ((o->out && pipe_above_stdio(out) < 0) || pipe_above_stdio(diag) < 0) {
    int e = errno;
    close_pipe(out);
    return crt_error(err, e, "%s: pipe", name);
  }
  pid_t pid = -1;
  int e = spawn(argv, o->out ? out[1] : diag[1], diag[1], &pid);
  if (out[1] >= 0) close(out[1]);
  close(diag[1]);
  out[1] = diag[1] = -1;
  capture c = {.out_max = o->out_max};
  int rc = 0;
  if (e) {
    rc = o->name ? crt_error(err, e, "%s: exec %s", name, argv[0]) : crt_error(err, e, "exec %s", argv[0]);
  } else {
    if (collect(out[0], diag[0], &c) < 0) rc = crt_error(err, errno, "%s: read its output", name);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (rc == 0 && (!WIFEXITED(st) || WEXITSTATUS(st) != 0)) rc = status_error(name, st, &c, err);
    else if (rc == 0 && c.out_over) rc = crt_error(err, E2BIG, "%s: more than %zu bytes of output", name, o->out_max);
  }
  close_pipe(out);
  close_pipe(diag);
  if (rc == 0 && o->out) *o->out = c.out ? c.out : strdup("");
  else free(c.out);
  if (rc == 0 && o->out && !*o->out) return crt_error(err, ENOMEM, "%s: output", name);
  return rc;
}
