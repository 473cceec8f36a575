#define _GNU_SOURCE
#include "crt/error.h"

#include <errno.h>
#include <string.h>

static char *vformat(const char *fmt, va_list ap) {
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) return NULL;
  return s;
}

/* Moves a cut point back to the start of a UTF-8 sequence: the JSON log
 * must stay valid UTF-8. */
static size_t char_start(const char *s, size_t i) {
  while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
  return i;
}

char *crt_msg_cut(char *m) {
  size_t len = m ? strlen(m) : 0;
  if (len <= CRT_MSG_MAX) return m;
  size_t head = char_start(m, CRT_MSG_MAX * 5 / 8), tail = char_start(m, len - CRT_MSG_MAX / 4);
  char *out = NULL;
  if (asprintf(&out, "%.*s[... %zu bytes cut ...]%s", (int)head, m, tail - head, m + tail) < 0) return m;
  free(m);
  return out;
}

static int verror(crt_err **err, enum crt_err_kind kind, int errnum, const char *fmt, va_list ap) {
  if (err == NULL) return -1;
  char *m = vformat(fmt, ap);
  crt_err_free(err);
  crt_err *e = calloc(1, sizeof *e);
  if (e == NULL) abort();
  e->kind = kind;
  e->errnum = errnum;
  if (m && errnum) {
    char *full = NULL;
    if (asprintf(&full, "%s: %s", m, crt_strerror(errnum)) < 0) full = NULL;
    free(m);
    m = full;
  }
  e->msg = m ? crt_msg_cut(m) : strdup("out of memory");
  *err = e;
  return -1;
}

int crt_error(crt_err **err, int errnum, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verror(err, CRT_ERR_SYSTEM, errnum, fmt, ap);
  va_end(ap);
  return -1;
}

int crt_error_kind(crt_err **err, enum crt_err_kind kind, int errnum, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verror(err, kind, errnum, fmt, ap);
  va_end(ap);
  return -1;
}

int crt_error_wrap(crt_err **err, const char *fmt, ...) {
  if (err == NULL || *err == NULL) return -1;
  va_list ap;
  va_start(ap, fmt);
  char *ctx = crt_msg_cut(vformat(fmt, ap));
  va_end(ap);
  char *full = NULL;
  if (ctx && asprintf(&full, "%s: %s", ctx, (*err)->msg) >= 0) {
    free((*err)->msg);
    (*err)->msg = full;
  }
  free(ctx);
  return -1;
}

void crt_err_free(crt_err **err) {
  if (err == NULL || *err == NULL) return;
  free((*err)->msg);
  free(*err);
  *err = NULL;
}

int crt_err_move(crt_err **err, crt_err **from) {
  if (err == NULL) {
    crt_err_free(from);
    return -1;
  }
  if (*err != *from) crt_err_free(err);
  *err = *from;
  *from = NULL;
  return -1;
}

void crt_close_fdp(int *fd) {
  if (fd && *fd >= 0) {
    int saved = errno;
    close(*fd);
    errno = saved;
    *fd = -1;
  }
}
