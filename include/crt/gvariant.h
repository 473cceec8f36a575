/* GVariant text format, the values of config.json's org.systemd.property.*
 * annotations (runc reads them with godbus's ParseVariant): a basic value
 * ("uint64 123", "'inactive-or-failed'", "true", "@t 5") or an array of
 * basic values ("['a', 'b']", "@as []").  Containers of other shapes
 * (structs, dicts, variants) are refused by name. */
#ifndef CRT_GVARIANT_H
#define CRT_GVARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crt/error.h"

typedef struct {
  union {
    int64_t i; /* y n i x h: signed view (y: 0..255) */
    uint64_t u; /* q u t, and b (0/1) */
    double d;
  };
  char *s; /* s o g */
} crt_gv_basic;

typedef struct {
  bool array;
  char type;       /* D-Bus type code of the value, or of the elements */
  crt_gv_basic *v; /* 1 for a scalar, n for an array */
  size_t n;
} crt_gvariant;

/* Fails with what is wrong and at which offset of text. */
int crt_gvariant_parse(const char *text, crt_gvariant *out, crt_err **err);
void crt_gvariant_free(crt_gvariant *v);
/* The D-Bus signature of v ("t", "as"); sig holds at least 3 bytes. */
void crt_gvariant_signature(const crt_gvariant *v, char sig[3]);
/* A numeric scalar of seconds becomes uint64 microseconds (runc's
 * convertSecToUSec for properties named *Sec); others fail. */
int crt_gvariant_sec_to_usec(crt_gvariant *v, crt_err **err);

#endif
