/* Running the criu binary: argument vectors, `criu check`, and a run whose
 * failure quotes criu's own log. */
#define _GNU_SOURCE
#include "crt/criu.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/log.h"
#include "crt/spawn.h"
#include "crt/str.h"

void crt_args_add(crt_args *a, const char *s) {
  if (a->oom) return;
  if (a->n + 2 > a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 32;
    char **v = realloc(a->v, cap * sizeof *v);
    if (!v) {
      a->oom = true;
      return;
    }
    a->v = v;
    a->cap = cap;
  }
  if (!(a->v[a->n] = strdup(s))) {
    a->oom = true;
    return;
  }
  a->v[++a->n] = NULL;
}

void crt_args_addf(crt_args *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int rc = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (rc < 0) {
    a->oom = true;
    return;
  }
  crt_args_add(a, s);
  free(s);
}

void crt_args_free(crt_args *a) {
  for (size_t i = 0; i < a->n; i++) free(a->v[i]);
  free(a->v);
  *a = (crt_args){0};
}

const char *crt_criu_binary(const char *flag) { return flag && *flag ? flag : "criu"; }

/* A message crt's action script logged into criu's log (logfmt
 * `level=error msg="..."`): the cause when a script failed. */
static char *script_error(const char *line, size_t l) {
  const char *m = memmem(line, l, "level=error msg=\"", 17);
  if (!m) return NULL;
  m += 17;
  const char *end = line + l;
  while (end > m && end[-1] != '"') end--;
  if (end <= m) return NULL;
  char *out = strndup(m, (size_t)(end - 1 - m));
  if (!out) return NULL;
  char *w = out;
  for (const char *r = out; *r; r++) { /* logfmt's \" and \\ */
    if (*r == '\\' && (r[1] == '"' || r[1] == '\\')) r++;
    *w++ = *r;
  }
  *w = 0;
  return out;
}

/* The lines of criu's log that say what failed: "Error (file:line): ...",
 * the last few, joined, after the error of crt's own action script if it
 * logged one; the RLIMIT_NOFILE complaint criu makes on every run in a
 * container-capable but limited host is noise. */
static char *log_errors(const char *log) {
  char *buf = NULL;
  size_t len = 0;
  crt_err *e = NULL;
  if (!log || crt_read_file(log, 64 << 20, &buf, &len, &e) < 0) {
    crt_err_free(&e);
    return NULL;
  }
  enum { KEEP = 3 };
  const char *keep[KEEP] = {0};
  size_t klen[KEEP] = {0}, n = 0;
  char *out = NULL;
  for (char *line = buf; line && *line;) {
    char *nl = strchr(line, '\n');
    size_t l = nl ? (size_t)(nl - line) : strlen(line);
    const char *p = memmem(line, l, "Error (", 7);
    char *se = script_error(line, l);
    if (se) {
      free(out);
      out = se;
    } else if (p && !memmem(line, l, "RLIMIT_NOFILE", 13)) {
      keep[n % KEEP] = p;
      klen[n % KEEP] = l - (size_t)(p - line);
      n++;
    }
    line = nl ? nl + 1 : NULL;
  }
  size_t first = n > KEEP ? n - KEEP : 0;
  for (size_t i = first; i < n; i++) {
    char *next = NULL;
    if (asprintf(&next, "%s%s%.*s", out ? out : "", out ? "; " : "", (int)klen[i % KEEP], keep[i % KEEP]) < 0) break;
    free(out);
    out = next;
  }
  free(buf);
  return out;
}

/* --debug: the whole command line, as the setup left it. */
static void debug_argv(const crt_args *args) {
  if (!crt_log_debug_enabled()) return;
  char line[4096] = "";
  size_t at = 0;
  bool cut = false;
  for (size_t i = 0; i < args->n && !cut; i++) {
    int w = crt_fmt(line + at, sizeof line - at, "%s%s", i ? " " : "", args->v[i]);
    cut = w < 0; /* line holds what fitted */
    at += cut ? 0 : (size_t)w;
  }
  crt_debug("criu: exec %s%s", line, cut ? "..." : "");
}

/* The child: setup, then exec; a failure before exec goes up errpipe. */
static void child(crt_args *args, const crt_criu_run_opts *o, int go, int errpipe) {
  char msg[512] = "";
  char c;
  if (read(go, &c, 1) != 1) _exit(1); /* the parent gave up */
  if (o->setup && (o->setup(o->setup_arg, args, msg, sizeof msg) < 0 || args->oom)) {
    if (!*msg) snprintf(msg, sizeof msg, "criu arguments: out of memory");
    if (write(errpipe, msg, strlen(msg)) < 0) _exit(1);
    _exit(1);
  }
  signal(SIGPIPE, SIG_DFL);
  debug_argv(args);
  execvp(args->v[0], args->v);
  snprintf(msg, sizeof msg, "exec %s: %s", args->v[0], crt_strerror(errno));
  if (write(errpipe, msg, strlen(msg)) < 0) _exit(127);
  _exit(127);
}

/* After the child ran: its exec error, or criu's exit status. */
static int child_result(crt_args *args, const crt_criu_run_opts *o, pid_t pid, int errpipe, crt_err **err) {
  char msg[512];
  ssize_t n = crt_read_all(errpipe, msg, sizeof msg - 1);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (n > 0) {
    msg[n] = 0;
    return crt_error(err, 0, "%s", msg);
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  cleanup_free char *why = log_errors(o->log);
  const char *verb = args->n > 1 ? args->v[1] : "run";
  if (WIFSIGNALED(st))
    return crt_error(err, 0, "criu %s killed by signal %d (log: %s)%s%s", verb, WTERMSIG(st), o->log ? o->log : "none",
                     why ? ": " : "", why ? why : "");
  return crt_error(err, 0, "criu %s failed with status %d (log: %s)%s%s", verb, WEXITSTATUS(st),
                   o->log ? o->log : "none", why ? ": " : "", why ? why : "");
}

int crt_criu_run(crt_args *args, const crt_criu_run_opts *o, crt_err **err) {
  if (args->oom || !args->n) return crt_error(err, ENOMEM, "criu arguments");
  int gop[2], ep[2];
  if (pipe2(gop, O_CLOEXEC) < 0) return crt_error(err, errno, "pipe");
  if (pipe2(ep, O_CLOEXEC) < 0) {
    int e = errno;
    close(gop[0]);
    close(gop[1]);
    return crt_error(err, e, "pipe");
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(gop[1]);
    close(ep[0]);
    child(args, o, gop[0], ep[1]);
  }
  int e = errno;
  close(gop[0]);
  close(ep[1]);
  if (pid < 0) {
    close(gop[1]);
    close(ep[0]);
    return crt_error(err, e, "fork for criu");
  }
  int rc = 0;
  if (o->before_exec) rc = o->before_exec(o->before_arg, pid, err);
  if (rc == 0 && write(gop[1], "g", 1) != 1) rc = crt_error(err, errno, "start criu");
  close(gop[1]); /* on failure: the child reads EOF and exits */
  if (rc == 0) rc = child_result(args, o, pid, ep[0], err);
  else waitpid(pid, NULL, 0);
  if (rc == 0) crt_debug("criu %s: done (log: %s)", args->n > 1 ? args->v[1] : "run", o->log ? o->log : "none");
  close(ep[0]);
  return rc;
}

/* `criu check [--feature F]`, its output (stdout and stderr) in the error. */
int crt_criu_check(const char *criu, const char *feature, crt_err **err) {
  char *argv[] = {(char *)criu, "check", feature ? "--feature" : NULL, (char *)feature, NULL};
  char name[PATH_MAX + 64]; /* "PATH check --feature F" */
  if (crt_fmt(name, sizeof name, "%s check%s%s", criu, feature ? " --feature " : "", feature ? feature : "") < 0)
    return crt_error(err, ENAMETOOLONG, "%s check: path too long", criu);
  return crt_spawn(argv, &(crt_spawn_opts){.name = name}, err);
}
