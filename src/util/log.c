#define _GNU_SOURCE
#include "crt/log.h"
#include "crt/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int log_fd = -1;
static crt_log_sink *log_sink;
static void *log_sink_arg;
static bool log_json;
static bool log_debug;
static bool log_off; /* crt_log_detach */

int crt_log_init(const char *path, bool json, bool debug) {
  log_json = json;
  log_debug = debug;
  if (path && *path) {
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    log_fd = fd;
  }
  return 0;
}

bool crt_log_debug_enabled(void) { return log_debug; }

char *crt_json_escape(const char *s) {
  size_t n = strlen(s);
  char *out = malloc(n * 6 + 1), *p = out;
  if (!out) return NULL;
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    switch (*c) {
    case '"': *p++ = '\\'; *p++ = '"'; break;
    case '\\': *p++ = '\\'; *p++ = '\\'; break;
    case '\n': *p++ = '\\'; *p++ = 'n'; break;
    case '\r': *p++ = '\\'; *p++ = 'r'; break;
    case '\t': *p++ = '\\'; *p++ = 't'; break;
    default:
      if (*c < 0x20) p += sprintf(p, "\\u%04x", *c);
      else *p++ = (char)*c;
    }
  }
  *p = 0;
  return out;
}

static const char *level_name(enum crt_log_level l) {
  switch (l) {
  case CRT_LOG_DEBUG: return "debug";
  case CRT_LOG_INFO: return "info";
  case CRT_LOG_WARN: return "warning";
  default: return "error";
  }
}

static void write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, buf, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    buf += w;
    len -= (size_t)w;
  }
}

/* logrus's TextFormatter quotes a value unless it is made only of
 * [A-Za-z0-9-._/@^+] (needsQuoting), and then with Go's %q. */
static bool needs_quoting(const char *s) {
  if (!*s) return true;
  for (const unsigned char *c = (const unsigned char *)s; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("-._/@^+", *c)))
      return true;
  return false;
}

/* Go's strconv.Quote for UTF-8 text: \ and " escaped, control bytes as
 * \n, \t, ... or \xNN; other bytes are kept. */
static char *go_quote(const char *s) {
  char *out = malloc(strlen(s) * 4 + 3), *p = out;
  if (!out) return NULL;
  *p++ = '"';
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    const char *esc = NULL;
    switch (*c) {
    case '"': esc = "\\\""; break;
    case '\\': esc = "\\\\"; break;
    case '\n': esc = "\\n"; break;
    case '\r': esc = "\\r"; break;
    case '\t': esc = "\\t"; break;
    case '\a': esc = "\\a"; break;
    case '\b': esc = "\\b"; break;
    case '\f': esc = "\\f"; break;
    case '\v': esc = "\\v"; break;
    }
    if (esc) p = stpcpy(p, esc);
    else if (*c < 0x20 || *c == 0x7f) p += sprintf(p, "\\x%02x", *c);
    else *p++ = (char)*c;
  }
  *p++ = '"';
  *p = 0;
  return out;
}

/* One line in runc's (logrus's) format: text, or JSON with --log-format
 * json.  Times are RFC 3339 to the second, as logrus prints them. */
static char *format_line(enum crt_log_level lvl, const char *msg) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  char tbuf[64];
  strftime(tbuf, sizeof tbuf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  char *line = NULL;
  int n;
  if (log_json) {
    char *esc = crt_json_escape(msg);
    n = asprintf(&line, "{\"level\":\"%s\",\"msg\":\"%s\",\"time\":\"%s\"}\n", level_name(lvl), esc ? esc : "", tbuf);
    free(esc);
  } else {
    char *q = needs_quoting(msg) ? go_quote(msg) : strdup(msg);
    n = asprintf(&line, "time=\"%s\" level=%s msg=%s\n", tbuf, level_name(lvl), q ? q : "\"\"");
    free(q);
  }
  return n > 0 ? line : NULL;
}

void crt_log_set_sink(crt_log_sink *sink, void *arg) {
  log_sink = sink;
  log_sink_arg = arg;
}

/* As runc: log lines go to the --log file, or else to stderr. */
static void emit(enum crt_log_level lvl, const char *msg) {
  int saved = errno;
  /* a sink (the sync socket to the runtime) still takes warnings after
   * crt_log_detach: it is no host file */
  if (log_sink && lvl >= CRT_LOG_WARN) {
    log_sink(log_sink_arg, lvl, msg);
    errno = saved;
    return;
  }
  if (log_off) return;
  char *line = format_line(lvl, msg);
  if (line) write_all(log_fd >= 0 ? log_fd : STDERR_FILENO, line, strlen(line));
  free(line);
  errno = saved;
}

void crt_log(enum crt_log_level lvl, const char *fmt, ...) {
  if (lvl == CRT_LOG_DEBUG && !log_debug) return;
  va_list ap;
  va_start(ap, fmt);
  char *msg = NULL;
  if (vasprintf(&msg, fmt, ap) < 0) msg = NULL;
  va_end(ap);
  msg = crt_msg_cut(msg);
  if (!msg) return;
  emit(lvl, msg);
  free(msg);
}

/* A fatal error: a log line (see emit), and with --log the bare message on
 * stderr too, as runc's fatalWithCode prints it. */
void crt_log_error_msg(const char *msg) {
  emit(CRT_LOG_ERROR, msg);
  if (log_fd < 0) return;
  write_all(STDERR_FILENO, msg, strlen(msg));
  write_all(STDERR_FILENO, "\n", 1);
}

static long long mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void crt_stages_begin_(crt_stages *st, const char *cmd) {
  st->cmd = cmd;
  st->t0 = st->last = mono_ns();
}

void crt_stage_(crt_stages *st, const char *fmt, ...) {
  if (!st->cmd) return; /* begun before --debug was known: never */
  long long now = mono_ns();
  va_list ap;
  va_start(ap, fmt);
  char *name = NULL;
  if (vasprintf(&name, fmt, ap) < 0) name = NULL;
  va_end(ap);
  crt_log(CRT_LOG_DEBUG, "%s: stage %s took %.3fms", st->cmd, name ? name : "?", (double)(now - st->last) / 1e6);
  free(name);
  st->last = now;
}

void crt_stages_total_(const crt_stages *st) {
  if (!st->cmd) return;
  crt_log(CRT_LOG_DEBUG, "%s: all stages took %.3fms", st->cmd, (double)(mono_ns() - st->t0) / 1e6);
}

void crt_log_detach(void) {
  if (log_fd >= 0) close(log_fd);
  log_fd = -1;
  log_off = true;
}

int crt_log_hold(void) {
  int prev = log_fd;
  if (!log_debug) return prev;
  int fd = fcntl(prev >= 0 ? prev : STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  if (fd >= 0) log_fd = fd;
  return prev;
}

void crt_log_release(int prev) {
  if (!log_debug || log_off) return;
  if (log_fd >= 0 && log_fd != prev) close(log_fd);
  log_fd = prev;
}
