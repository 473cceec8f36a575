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

/* What went wrong, for callers that act on it (delete --force of an absent
 * container succeeds, of a half-made one cleans up): they switch on the
 * kind, never on the text.  Set where the error is made; wrapping keeps it. */
enum crt_err_kind {
  CRT_ERR_SYSTEM,    /* the default: a failing call (errnum says which) or anything unclassified */
  CRT_ERR_NOT_FOUND, /* no container with that id */
  CRT_ERR_EXISTS,    /* a container with that id exists already */
  CRT_ERR_BAD_STATE, /* the container's status forbids the operation (start of a stopped one) */
  CRT_ERR_INVALID,   /* an id, argument or config that cannot be accepted */
  CRT_ERR_NO_STATE,  /* the container's directory holds no usable state.json: being created,
                      * left half-made, or damaged (delete --force still removes it) */
};

typedef struct crt_err {
  enum crt_err_kind kind;
  int errnum; /* errno of the root cause, 0 when none */
  char *msg;  /* full text, "context: context: cause" */
} crt_err;

/* errnum's text as Go words it ("no such file or directory"), and so
 * runc: every message crt prints uses it, never strerror.  A number Go
 * has no text for is "errno N" (in a per-thread buffer). */
const char *crt_strerror(int errnum);

/* Sets *err to fmt (+ ": crt_strerror(errnum)" when errnum != 0), of kind
 * CRT_ERR_SYSTEM; returns -1.  When *err is already set, the old error is
 * freed first. */
int crt_error(crt_err **err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* crt_error with a kind. */
int crt_error_kind(crt_err **err, enum crt_err_kind kind, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prepends "fmt: " to an existing error; returns -1. */
int crt_error_wrap(crt_err **err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void crt_err_free(crt_err **err);

/* Hands a local error on: frees what *err held (as crt_error does), moves
 * *from into it and clears *from; returns -1. */
int crt_err_move(crt_err **err, crt_err **from);

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
#define cleanup_err __attribute__((cleanup(crt_err_free)))

void crt_close_fdp(int *fd);

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
