/* Bounded formatting and strict number parsing: a path cut to fit its
 * buffer names another file, and atoi's 0 for "x" is a pid. */
#ifndef CRT_STR_H
#define CRT_STR_H

#include <stddef.h>

#include "crt/error.h"

/* snprintf into buf[size] that tells a cut: returns the length, or -1
 * with errno ENAMETOOLONG when the text does not fit (buf then holds its
 * head). */
int crt_fmt(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* crt_fmt for a path: a cut also sets *err ("path too long: HEAD..."). */
int crt_pathf(char *buf, size_t size, crt_err **err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* text (strsignal's; errno texts are crt_strerror's) as Go, and so runc, words it: its
 * first letter lowered ("operation not permitted", "bad system call"),
 * in buf.  Returns buf. */
const char *crt_go_text(char *buf, size_t size, const char *text);

/* A whole decimal number s in [min, max]: no sign for an unsigned type's
 * caller to trip on, no leading space, no trailing text but one "\n" (as
 * files end).  Returns 0, or -1 with errno EINVAL (not a number) or ERANGE. */
int crt_parse_long(const char *s, long min, long max, long *out);

#endif
