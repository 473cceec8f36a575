/* One error type threaded through every call (crun's style).
 *
 * Convention: a function that can fail returns an int < 0 and fills *err;
 * callers either handle it or add context with crt_error_wrap() and return
 * the same value.  Messages never end with a newline. */
#ifndef CRT_ERROR_H
#define CRT_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct crt_err {
  int errnum; /* errno of the root cause, 0 when none */
  char *msg;  /* full text, "context: context: cause" */
} crt_err;

/* Sets *err to fmt (+ ": strerror(errnum)" when errnum != 0); returns -1.
 * When *err is already set, the old error is freed first. */
int crt_error(crt_err **err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends "fmt: " to an existing error; returns -1. */
int crt_error_wrap(crt_err **err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void crt_err_free(crt_err **err);

/* Messages echo values from the caller (a capability name, an env entry);
 * one of a megabyte must not put a megabyte into stderr and the clients'
 * logs.  Longer messages keep their head and tail around a marker. */
#define CRT_MSG_MAX 1024
/* Returns m, or a cut copy of it (m freed); NULL stays NULL. */
char *crt_msg_cut(char *m);

/* Cleanup helpers: every error path frees and closes. */
static inline void crt_freep(void *p) { free(*(void **)p); }
#define cleanup_free __attribute__((cleanup(crt_freep)))
#define cleanup_close __attribute__((cleanup(crt_close_fdp)))
#define cleanup_fclose __attribute__((cleanup(crt_fclosep)))
#define cleanup_err __attribute__((cleanup(crt_err_free)))

void crt_close_fdp(int *fd);
void crt_fclosep(FILE **f);

/* Returns the value of p and sets p to NULL: for handing ownership out of a
 * cleanup_* variable. */
#define crt_steal(p)            \
  ({                            \
    __typeof__(p) crt_tmp_ = p; \
    p = NULL;                   \
    crt_tmp_;                   \
  })
#define crt_steal_fd(fd)  \
  ({                      \
    int crt_tmpfd_ = fd;  \
    fd = -1;              \
    crt_tmpfd_;           \
  })

#endif
