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
static bool log_json;
static bool log_debug;

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

void crt_log_set_fd(int fd) { log_fd = fd; }
int crt_log_fd(void) { return log_fd; }
bool crt_log_json(void) { return log_json; }
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

static void emit(enum crt_log_level lvl, const char *msg) {
  int saved = errno;
  if (log_fd >= 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char tbuf[64];
    strftime(tbuf, sizeof tbuf, "%Y-%m-%dT%H:%M:%S", &tm);
    char *line = NULL;
    int n;
    if (log_json) {
      char *esc = crt_json_escape(msg);
      n = asprintf(&line, "{\"level\":\"%s\",\"msg\":\"%s\",\"time\":\"%s.%09ldZ\"}\n", level_name(lvl),
                   esc ? esc : "", tbuf, ts.tv_nsec);
      free(esc);
    } else {
      n = asprintf(&line, "time=\"%s.%09ldZ\" level=%s msg=\"%s\"\n", tbuf, ts.tv_nsec, level_name(lvl), msg);
    }
    if (n > 0) write_all(log_fd, line, (size_t)n);
    free(line);
  }
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
  /* Warnings and debug go to stderr too when there is no log file. */
  if (log_fd < 0 && (lvl >= CRT_LOG_WARN || log_debug)) {
    char *line = NULL;
    int n = asprintf(&line, "crt: %s: %s\n", level_name(lvl), msg);
    if (n > 0) write_all(STDERR_FILENO, line, (size_t)n);
    free(line);
  }
  free(msg);
}

void crt_log_error_msg(const char *msg) {
  emit(CRT_LOG_ERROR, msg);
  char *line = NULL;
  int n = asprintf(&line, "crt: %s\n", msg);
  if (n > 0) write_all(STDERR_FILENO, line, (size_t)n);
  free(line);
}
