#define _GNU_SOURCE
#include "crt/error.h"

#include <errno.h>
#include <stdio.h>
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

/* errno texts as Go's syscall.Errno prints them (its Linux table), so
 * that crt's messages carry runc's words: clients match on them (Docker
 * maps "no such file or directory" to exit 127).  Not glibc's with the
 * first letter lowered: "RFS specific error" keeps its capitals, ESTALE
 * is "stale NFS file handle", 41 and 58 have no text. */


static const char *const go_errno[] = {
    [1] = "operation not permitted",
    [2] = "no such file or directory",
    [3] = "no such process",
    [4] = "interrupted system call",
    [5] = "input/output error",
    [6] = "no such device or address",
    [7] = "argument list too long",
    [8] = "exec format error",
    [9] = "bad file descriptor",
    [10] = "no child processes",
    [11] = "resource temporarily unavailable",
    [12] = "cannot allocate memory",
    [13] = "permission denied",
    [14] = "bad address",
    [15] = "block device required",
    [16] = "device or resource busy",
    [17] = "file exists",
    [18] = "invalid cross-device link",
    [19] = "no such device",
    [20] = "not a directory",
    [21] = "is a directory",
    [22] = "invalid argument",
    [23] = "too many open files in system",
    [24] = "too many open files",
    [25] = "inappropriate ioctl for device",
    [26] = "text file busy",
    [27] = "file too large",
    [28] = "no space left on device",
    [29] = "illegal seek",
    [30] = "read-only file system",
    [31] = "too many links",
    [32] = "broken pipe",
    [33] = "numerical argument out of domain",
    [34] = "numerical result out of range",
    [35] = "resource deadlock avoided",
    [36] = "file name too long",
    [37] = "no locks available",
    [38] = "function not implemented",
    [39] = "directory not empty",
    [40] = "too many levels of symbolic links",
    [42] = "no message of desired type",
    [43] = "identifier removed",
    [44] = "channel number out of range",
    [45] = "level 2 not synchronized",
    [46] = "level 3 halted",
    [47] = "level 3 reset",
    [48] = "link number out of range",
    [49] = "protocol driver not attached",
    [50] = "no CSI structure available",
    [51] = "level 2 halted",
    [52] = "invalid exchange",
    [53] = "invalid request descriptor",
    [54] = "exchange full",
    [55] = "no anode",
    [56] = "invalid request code",
    [57] = "invalid slot",
    [59] = "bad font file format",
    [60] = "device not a stream",
    [61] = "no data available",
    [62] = "timer expired",
    [63] = "out of streams resources",
    [64] = "machine is not on the network",
    [65] = "package not installed",
    [66] = "object is remote",
    [67] = "link has been severed",
    [68] = "advertise error",
    [69] = "srmount error",
    [70] = "communication error on send",
    [71] = "protocol error",
    [72] = "multihop attempted",
    [73] = "RFS specific error",
    [74] = "bad message",
    [75] = "value too large for defined data type",
    [76] = "name not unique on network",
    [77] = "file descriptor in bad state",
    [78] = "remote address changed",
    [79] = "can not access a needed shared library",
    [80] = "accessing a corrupted shared library",
    [81] = ".lib section in a.out corrupted",
    [82] = "attempting to link in too many shared libraries",
    [83] = "cannot exec a shared library directly",
    [84] = "invalid or incomplete multibyte or wide character",
    [85] = "interrupted system call should be restarted",
    [86] = "streams pipe error",
    [87] = "too many users",
    [88] = "socket operation on non-socket",
    [89] = "destination address required",
    [90] = "message too long",
    [91] = "protocol wrong type for socket",
    [92] = "protocol not available",
    [93] = "protocol not supported",
    [94] = "socket type not supported",
    [95] = "operation not supported",
    [96] = "protocol family not supported",
    [97] = "address family not supported by protocol",
    [98] = "address already in use",
    [99] = "cannot assign requested address",
    [100] = "network is down",
    [101] = "network is unreachable",
    [102] = "network dropped connection on reset",
    [103] = "software caused connection abort",
    [104] = "connection reset by peer",
    [105] = "no buffer space available",
    [106] = "transport endpoint is already connected",
    [107] = "transport endpoint is not connected",
    [108] = "cannot send after transport endpoint shutdown",
    [109] = "too many references: cannot splice",
    [110] = "connection timed out",
    [111] = "connection refused",
    [112] = "host is down",
    [113] = "no route to host",
    [114] = "operation already in progress",
    [115] = "operation now in progress",
    [116] = "stale NFS file handle",
    [117] = "structure needs cleaning",
    [118] = "not a XENIX named type file",
    [119] = "no XENIX semaphores available",
    [120] = "is a named type file",
    [121] = "remote I/O error",
    [122] = "disk quota exceeded",
    [123] = "no medium found",
    [124] = "wrong medium type",
    [125] = "operation canceled",
    [126] = "required key not available",
    [127] = "key has expired",
    [128] = "key has been revoked",
    [129] = "key was rejected by service",
    [130] = "owner died",
    [131] = "state not recoverable",
    [132] = "operation not possible due to RF-kill",
};

const char *crt_strerror(int errnum) {
  if (errnum > 0 && (size_t)errnum < sizeof go_errno / sizeof *go_errno && go_errno[errnum]) return go_errno[errnum];
  /* Go's words for a number outside its table; per thread, as the
   * state probes format errors on several */
  static __thread char other[32];
  snprintf(other, sizeof other, "errno %d", errnum);
  return other;
}
