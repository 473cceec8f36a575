/* Bounded formatting and strict number parsing (see crt/str.h). */
#define _GNU_SOURCE
#include "crt/str.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int vfmt(char *buf, size_t size, const char *fmt, va_list ap) {
  int n = vsnprintf(buf, size, fmt, ap);
  if (n < 0) return -1;
  if ((size_t)n >= size) return errno = ENAMETOOLONG, -1;
  return n;
}

int crt_fmt(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vfmt(buf, size, fmt, ap);
  va_end(ap);
  return n;
}

int crt_pathf(char *buf, size_t size, crt_err **err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vfmt(buf, size, fmt, ap);
  va_end(ap);
  if (n < 0) return crt_error(err, errno, "path too long: %s...", size ? buf : "");
  return n;
}

int crt_parse_long(const char *s, long min, long max, long *out) {
  if (!s || !((*s >= '0' && *s <= '9') || (*s == '-' && min < 0))) return errno = EINVAL, -1;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || (*end && !(end[0] == '\n' && end[1] == 0))) return errno = EINVAL, -1;
  if (errno == ERANGE || v < min || v > max) return errno = ERANGE, -1;
  *out = v;
  return 0;
}

const char *crt_go_text(char *buf, size_t size, const char *text) {
  if (size == 0) return "";
  (void)crt_fmt(buf, size, "%s", text); /* a cut message is still the message */
  buf[0] = (char)tolower((unsigned char)buf[0]);
  return buf;
}
