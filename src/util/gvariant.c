/* The GVariant text format subset of crt/gvariant.h.  A literal gets its
 * type from an annotation ("uint64 5", "@t 5") or, as in GLib, from its
 * form: a number is int32 (double with '.' or an exponent), true/false
 * boolean, a quoted text string. */
#define _GNU_SOURCE
#include "crt/gvariant.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *text, *p;
  crt_err **err;
} parser;

enum lit_kind { LIT_INT, LIT_FLOAT, LIT_BOOL, LIT_STRING };

typedef struct {
  enum lit_kind kind;
  bool negative;
  uint64_t mag; /* LIT_INT: the magnitude */
  double d;
  bool b;
  char *s;
} literal;

static int fail(parser *ps, const char *what) {
  return crt_error(ps->err, 0, "%s at offset %zu", what, (size_t)(ps->p - ps->text));
}

static void skip_ws(parser *ps) {
  while (isspace((unsigned char)*ps->p)) ps->p++;
}

static bool basic_type(char c) { return c && strchr("bynqiuxthdsog", c) != NULL; }

static const struct {
  const char *word;
  char type;
} keywords[] = {{"boolean", 'b'}, {"byte", 'y'},   {"int16", 'n'},  {"uint16", 'q'},     {"int32", 'i'},
                {"uint32", 'u'},  {"int64", 'x'},  {"uint64", 't'}, {"handle", 'h'},     {"double", 'd'},
                {"string", 's'},  {"objectpath", 'o'}, {"signature", 'g'}};

/* "@T " or a type keyword: *type (and *array for "@aT"); 0 when none. */
static int annotation(parser *ps, char *type, bool *array) {
  if (*ps->p == '@') {
    const char *t = ++ps->p;
    *array = *t == 'a';
    if (*array) t++;
    if (!basic_type(*t) || (t[1] && !isspace((unsigned char)t[1]) && t[1] != '['))
      return fail(ps, "unsupported type annotation (only basic types and arrays of them)");
    *type = *t;
    ps->p = t + 1;
    return 1;
  }
  for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
    size_t n = strlen(keywords[i].word);
    if (strncmp(ps->p, keywords[i].word, n) == 0 && isspace((unsigned char)ps->p[n])) {
      *type = keywords[i].type;
      *array = false;
      ps->p += n;
      return 1;
    }
  }
  return 0;
}

static int parse_string(parser *ps, literal *l) {
  char q = *ps->p++;
  size_t cap = strlen(ps->p) + 1, n = 0;
  char *s = malloc(cap);
  if (!s) return crt_error(ps->err, ENOMEM, "string");
  static const char esc_in[] = "\\'\"nt rabfv", esc_out[] = "\\'\"\n\t \r\a\b\f\v";
  for (;;) {
    char c = *ps->p;
    if (!c) {
      free(s);
      return fail(ps, "unterminated string");
    }
    ps->p++;
    if (c == q) break;
    if (c == '\\') {
      const char *e = *ps->p ? strchr(esc_in, *ps->p) : NULL;
      if (!e) {
        free(s);
        return fail(ps, "unsupported escape in string");
      }
      c = esc_out[e - esc_in];
      ps->p++;
    }
    s[n++] = c;
  }
  s[n] = 0;
  l->kind = LIT_STRING;
  l->s = s;
  return 0;
}

static int parse_number(parser *ps, literal *l) {
  const char *start = ps->p;
  l->negative = *ps->p == '-';
  if (*ps->p == '-' || *ps->p == '+') ps->p++;
  if (!isdigit((unsigned char)*ps->p)) return fail(ps, "expected a value");
  const char *q = ps->p;
  while (isalnum((unsigned char)*q) || *q == '.' || ((*q == '-' || *q == '+') && (q[-1] == 'e' || q[-1] == 'E')))
    q++;
  bool hex = ps->p[0] == '0' && (ps->p[1] == 'x' || ps->p[1] == 'X');
  bool flt = !hex && (memchr(ps->p, '.', (size_t)(q - ps->p)) || memchr(ps->p, 'e', (size_t)(q - ps->p)) ||
                      memchr(ps->p, 'E', (size_t)(q - ps->p)));
  char *end;
  errno = 0;
  if (flt) {
    l->kind = LIT_FLOAT;
    l->d = strtod(start, &end);
  } else {
    l->kind = LIT_INT;
    l->mag = strtoull(ps->p, &end, hex ? 16 : 10);
  }
  if (end != q) return fail(ps, "malformed number");
  if (errno == ERANGE) return fail(ps, "number out of range");
  ps->p = q;
  return 0;
}

static int parse_literal(parser *ps, literal *l) {
  memset(l, 0, sizeof *l);
  if (*ps->p == '\'' || *ps->p == '"') return parse_string(ps, l);
  size_t n = 0;
  while (isalpha((unsigned char)ps->p[n])) n++;
  if ((n == 4 && !strncmp(ps->p, "true", 4)) || (n == 5 && !strncmp(ps->p, "false", 5))) {
    l->kind = LIT_BOOL;
    l->b = n == 4;
    ps->p += n;
    return 0;
  }
  if (*ps->p == '(' || *ps->p == '{' || *ps->p == '<')
    return fail(ps, "unsupported value (structs, dictionaries and variants are not supported)");
  return parse_number(ps, l);
}

static char default_type(const literal *l) {
  switch (l->kind) {
  case LIT_INT: return 'i';
  case LIT_FLOAT: return 'd';
  case LIT_BOOL: return 'b';
  default: return 's';
  }
}

/* the literal as a value of type t (range checked) */
static int coerce(parser *ps, literal *l, char t, crt_gv_basic *out) {
  static const struct {
    char t;
    int64_t min;
    uint64_t max;
  } ints[] = {{'y', 0, 255},
              {'n', INT16_MIN, INT16_MAX},
              {'q', 0, UINT16_MAX},
              {'i', INT32_MIN, INT32_MAX},
              {'h', INT32_MIN, INT32_MAX},
              {'u', 0, UINT32_MAX},
              {'x', INT64_MIN, INT64_MAX},
              {'t', 0, UINT64_MAX}};
  memset(out, 0, sizeof *out);
  if (t == 'b') {
    if (l->kind != LIT_BOOL) return fail(ps, "expected true or false");
    out->u = l->b;
    return 0;
  }
  if (t == 's' || t == 'o' || t == 'g') {
    if (l->kind != LIT_STRING) return fail(ps, "expected a quoted string");
    if (t == 'o' && l->s[0] != '/') return fail(ps, "an object path starts with /");
    out->s = l->s;
    l->s = NULL;
    return 0;
  }
  if (t == 'd') {
    if (l->kind == LIT_FLOAT) out->d = l->d;
    else if (l->kind == LIT_INT) out->d = l->negative ? -(double)l->mag : (double)l->mag;
    else return fail(ps, "expected a number");
    return 0;
  }
  if (l->kind != LIT_INT) return fail(ps, "expected an integer");
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    if (ints[i].t != t) continue;
    bool ok = l->negative ? l->mag <= (uint64_t)INT64_MAX + 1 && -(int64_t)(l->mag - 1) - 1 >= ints[i].min
                          : l->mag <= ints[i].max;
    if (!ok) return fail(ps, "number out of range for its type");
    out->u = l->negative ? (uint64_t)(-(int64_t)(l->mag - 1) - 1) : l->mag;
    return 0;
  }
  return fail(ps, "unsupported type");
}

/* one literal, annotated or not; *t is the type wanted (0: any) */
static int parse_element(parser *ps, char *t, crt_gv_basic *out) {
  char at = 0;
  bool arr = false;
  skip_ws(ps);
  int a = annotation(ps, &at, &arr);
  if (a < 0) return -1;
  if (a && arr) return fail(ps, "nested arrays are not supported");
  if (a && *t && at != *t) return fail(ps, "element type differs from the array's");
  skip_ws(ps);
  literal l;
  if (parse_literal(ps, &l) < 0) return -1;
  if (!*t) *t = a ? at : default_type(&l);
  int rc = coerce(ps, &l, *t, out);
  free(l.s);
  return rc;
}

static int push(parser *ps, crt_gvariant *v, size_t *cap) {
  if (v->n < *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 4;
  crt_gv_basic *nv = realloc(v->v, nc * sizeof *nv);
  if (!nv) return crt_error(ps->err, ENOMEM, "array");
  v->v = nv;
  *cap = nc;
  return 0;
}

static int parse_array(parser *ps, crt_gvariant *v) {
  size_t cap = 0;
  v->array = true;
  ps->p++; /* [ */
  skip_ws(ps);
  if (*ps->p == ']') {
    ps->p++;
    if (!v->type) return fail(ps, "cannot tell the type of an empty array (write @as [])");
    return 0;
  }
  for (;;) {
    if (push(ps, v, &cap) < 0) return -1;
    if (parse_element(ps, &v->type, &v->v[v->n]) < 0) return -1;
    v->n++;
    skip_ws(ps);
    if (*ps->p == ']') break;
    if (*ps->p != ',') return fail(ps, "expected , or ]");
    ps->p++;
  }
  ps->p++;
  return 0;
}

int crt_gvariant_parse(const char *text, crt_gvariant *out, crt_err **err) {
  parser ps = {.text = text, .p = text, .err = err};
  memset(out, 0, sizeof *out);
  skip_ws(&ps);
  char t = 0;
  bool arr = false;
  int a = annotation(&ps, &t, &arr);
  int rc = a < 0 ? -1 : 0;
  if (rc == 0) {
    skip_ws(&ps);
    out->type = t;
    if (*ps.p == '[') {
      rc = a && !arr ? fail(&ps, "an array needs an array type") : parse_array(&ps, out);
    } else if (arr) {
      rc = fail(&ps, "expected [");
    } else if (!(out->v = calloc(1, sizeof *out->v))) {
      rc = crt_error(err, ENOMEM, "value");
    } else {
      rc = parse_element(&ps, &out->type, out->v);
      if (rc == 0) out->n = 1;
    }
  }
  if (rc == 0) {
    skip_ws(&ps);
    if (*ps.p) rc = fail(&ps, "unexpected text after the value");
  }
  if (rc < 0) crt_gvariant_free(out);
  return rc;
}

void crt_gvariant_free(crt_gvariant *v) {
  if (!v) return;
  for (size_t i = 0; i < v->n; i++) free(v->v[i].s);
  free(v->v);
  memset(v, 0, sizeof *v);
}

void crt_gvariant_signature(const crt_gvariant *v, char sig[3]) {
  size_t i = 0;
  if (v->array) sig[i++] = 'a';
  sig[i++] = v->type;
  sig[i] = 0;
}

int crt_gvariant_sec_to_usec(crt_gvariant *v, crt_err **err) {
  if (v->array || v->n != 1 || !strchr("ynqiuxtd", v->type))
    return crt_error(err, 0, "a time in seconds must be a number");
  crt_gv_basic *b = v->v;
  double sec;
  if (v->type == 'd') sec = b->d;
  else if (strchr("qut", v->type)) sec = (double)b->u;
  else sec = (double)b->i;
  if (!(sec >= 0) || sec * 1e6 >= 18446744073709551616.0) return crt_error(err, 0, "a time in seconds out of range");
  b->u = (uint64_t)(sec * 1e6 + 0.5);
  v->type = 't';
  return 0;
}
