/* The one parser of "0-3,7" lists (see crt/idlist.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crt/idlist.h"

#define LONG_BITS (8 * sizeof(unsigned long))

/* A decimal number at *p (digits only: strtoul would take signs and
 * leading spaces). */
static bool number(const char **p, unsigned long *out) {
  if (**p < '0' || **p > '9') return false;
  char *end;
  errno = 0;
  *out = strtoul(*p, &end, 10);
  if (errno) return false;
  *p = end;
  return true;
}

int crt_parse_id_list(const char *s, unsigned long *mask, size_t bits, crt_err **err) {
  memset(mask, 0, (bits + LONG_BITS - 1) / LONG_BITS * sizeof *mask);
  const char *p = s;
  if (!*p) return crt_error(err, 0, "empty list");
  for (;;) {
    unsigned long a, b;
    if (!number(&p, &a)) return crt_error(err, 0, "\"%s\": not a list like 0-3,7", s);
    b = a;
    if (*p == '-') {
      p++;
      if (!number(&p, &b) || b < a) return crt_error(err, 0, "\"%s\": bad range", s);
    }
    if (b >= bits) return crt_error(err, 0, "\"%s\": %lu is out of range (at most %zu)", s, b, bits - 1);
    for (unsigned long i = a; i <= b; i++) mask[i / LONG_BITS] |= 1UL << (i % LONG_BITS);
    if (*p == 0) return 0;
    if (*p != ',') return crt_error(err, 0, "\"%s\": not a list like 0-3,7", s);
    p++;
  }
}
