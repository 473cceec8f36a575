/* Reading a yajl tree into the model: the JSON path kept for errors and
 * the typed field readers every part of the spec parser uses. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"

void *jp_calloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (p == NULL) abort();
  return p;
}

char *jp_strdup(const char *s) {
  char *d = strdup(s);
  if (d == NULL) abort();
  return d;
}

size_t jp_push(jp *p, const char *fmt, ...) {
  size_t old = p->plen;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(p->path + old, sizeof p->path - old, fmt, ap);
  va_end(ap);
  if (n > 0) p->plen = old + (size_t)n < sizeof p->path ? old + (size_t)n : sizeof p->path - 1;
  return old;
}

void jp_pop(jp *p, size_t old) {
  p->plen = old;
  p->path[old] = 0;
}

int jp_fail(jp *p, const char *fmt, ...) {
  char *msg = NULL;
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&msg, fmt, ap) < 0) msg = NULL;
  va_end(ap);
  if (p->plen)
    crt_error(p->err, 0, "%s: %s: %s", p->name, p->path, msg ? msg : "invalid value");
  else
    crt_error(p->err, 0, "%s: %s", p->name, msg ? msg : "invalid value");
  free(msg);
  return -1;
}

static const char *type_str(yajl_type t) {
  switch (t) {
  case yajl_t_string: return "string";
  case yajl_t_number: return "number";
  case yajl_t_object: return "object";
  case yajl_t_array: return "array";
  case yajl_t_true:
  case yajl_t_false: return "boolean";
  default: return "null";
  }
}

const char *jp_type_name(yajl_val v) { return type_str(v->type); }

/* yajl_t_true stands for "boolean". */
int jp_want(jp *p, yajl_val v, yajl_type t) {
  if (v->type == t || (t == yajl_t_true && v->type == yajl_t_false)) return 0;
  return jp_fail(p, "expected %s, got %s", type_str(t), jp_type_name(v));
}

/* The next character of s folded as Go's encoding/json folds a key: ASCII
 * letters to lower case, and the two non-ASCII letters that fold to an
 * ASCII one, the Kelvin sign (U+212A, k) and the long s (U+017F, s). */
static int fold_next(const char **s) {
  const unsigned char *c = (const unsigned char *)*s;
  if (c[0] == 0xE2 && c[1] == 0x84 && c[2] == 0xAA) return *s += 3, 'k';
  if (c[0] == 0xC5 && c[1] == 0xBF) return *s += 2, 's';
  *s += 1;
  return c[0] >= 'A' && c[0] <= 'Z' ? c[0] - 'A' + 'a' : c[0];
}

/* Whether a config key names the field key, Go's way (case-insensitive). */
static bool key_folds_to(const char *a, const char *key) {
  while (*a && *key)
    if (fold_next(&a) != fold_next(&key)) return false;
  return !*a && !*key;
}

/* A member of an object; JSON null counts as absent, as in Go.  runc
 * decodes config.json with encoding/json: a key matches its field exactly
 * or, when no key does, case-insensitively ("pagesize" for "pageSize").
 * The last duplicate wins, as with encoding/json. */
yajl_val jp_get(yajl_val obj, const char *key) {
  yajl_val r = NULL, folded = NULL;
  for (size_t i = 0; i < obj->u.object.len; i++) {
    if (strcmp(obj->u.object.keys[i], key) == 0) r = obj->u.object.values[i];
    else if (key_folds_to(obj->u.object.keys[i], key)) folded = obj->u.object.values[i];
  }
  if (!r) r = folded;
  return r && r->type != yajl_t_null ? r : NULL;
}

int jp_missing(jp *p, const char *key) {
  size_t o = jp_push(p, ".%s", key);
  jp_fail(p, "missing required field");
  jp_pop(p, o);
  return -1;
}

/* Enters member `key` of type t: *out NULL when absent, *saved for jp_pop(). */
int jp_enter(jp *p, yajl_val obj, const char *key, yajl_type t, bool required, yajl_val *out, size_t *saved) {
  *out = jp_get(obj, key);
  if (*out == NULL) return required ? jp_missing(p, key) : 0;
  *saved = jp_push(p, ".%s", key);
  return jp_want(p, *out, t);
}

static bool is_integer_text(const char *r) {
  return strpbrk(r, ".eE") == NULL;
}

int jp_num_u(jp *p, yajl_val v, uint64_t max, uint64_t *out) {
  if (jp_want(p, v, yajl_t_number) < 0) return -1;
  const char *r = v->u.number.r;
  if (!is_integer_text(r)) return jp_fail(p, "expected integer, got %s", r);
  errno = 0;
  char *end;
  uint64_t x = strtoull(r, &end, 10);
  if (r[0] == '-' && x != 0) errno = ERANGE;
  if (errno || *end || x > max) return jp_fail(p, "value %s out of range (0 to %" PRIu64 ")", r, max);
  *out = x;
  return 0;
}

int jp_num_i(jp *p, yajl_val v, int64_t min, int64_t max, int64_t *out) {
  if (jp_want(p, v, yajl_t_number) < 0) return -1;
  const char *r = v->u.number.r;
  if (!is_integer_text(r)) return jp_fail(p, "expected integer, got %s", r);
  errno = 0;
  char *end;
  long long x = strtoll(r, &end, 10);
  if (errno || *end || x < min || x > max)
    return jp_fail(p, "value %s out of range (%" PRId64 " to %" PRId64 ")", r, min, max);
  *out = x;
  return 0;
}

int f_str(jp *p, yajl_val obj, const char *key, bool required, char **out) {
  yajl_val v;
  size_t s;
  if (jp_enter(p, obj, key, yajl_t_string, required, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  *out = jp_strdup(v->u.string);
  jp_pop(p, s);
  return 0;
}

int f_bool(jp *p, yajl_val obj, const char *key, bool required, bool *out, bool *set) {
  yajl_val v;
  size_t s;
  if (jp_enter(p, obj, key, yajl_t_true, required, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  *out = v->type == yajl_t_true;
  if (set) *set = true;
  jp_pop(p, s);
  return 0;
}

int f_cbool(jp *p, yajl_val obj, const char *key, crt_bool *out) {
  return f_bool(p, obj, key, false, &out->v, &out->set);
}

int f_uint(jp *p, yajl_val obj, const char *key, bool required, uint64_t max, uint64_t *out, bool *set) {
  yajl_val v = jp_get(obj, key);
  if (v == NULL) return required ? jp_missing(p, key) : 0;
  size_t s = jp_push(p, ".%s", key);
  if (jp_num_u(p, v, max, out) < 0) return -1;
  if (set) *set = true;
  jp_pop(p, s);
  return 0;
}

int f_int(jp *p, yajl_val obj, const char *key, bool required, int64_t min, int64_t max, int64_t *out,
                 bool *set) {
  yajl_val v = jp_get(obj, key);
  if (v == NULL) return required ? jp_missing(p, key) : 0;
  size_t s = jp_push(p, ".%s", key);
  if (jp_num_i(p, v, min, max, out) < 0) return -1;
  if (set) *set = true;
  jp_pop(p, s);
  return 0;
}

int f_u32(jp *p, yajl_val obj, const char *key, bool required, uint32_t *out) {
  uint64_t x = 0;
  if (f_uint(p, obj, key, required, UINT32_MAX, &x, NULL) < 0) return -1;
  if (jp_get(obj, key)) *out = (uint32_t)x;
  return 0;
}

int f_cu64(jp *p, yajl_val obj, const char *key, uint64_t max, crt_u64 *out) {
  return f_uint(p, obj, key, false, max, &out->v, &out->set);
}

int f_ci64(jp *p, yajl_val obj, const char *key, crt_i64 *out) {
  return f_int(p, obj, key, false, INT64_MIN, INT64_MAX, &out->v, &out->set);
}

int f_strv(jp *p, yajl_val obj, const char *key, crt_strv *out, bool *set) {
  yajl_val v;
  size_t s;
  if (jp_enter(p, obj, key, yajl_t_array, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  size_t n = v->u.array.len;
  out->v = jp_calloc(n + 1, sizeof(char *));
  for (size_t i = 0; i < n; i++) {
    yajl_val e = v->u.array.values[i];
    size_t si = jp_push(p, "[%zu]", i);
    if (jp_want(p, e, yajl_t_string) < 0) return -1;
    out->v[i] = jp_strdup(e->u.string);
    out->len = i + 1;
    jp_pop(p, si);
  }
  if (set) *set = true;
  jp_pop(p, s);
  return 0;
}

/* Checks every element of a parsed list with check(); errors name the element. */
int jp_each(jp *p, const char *key, const crt_strv *l, int (*check)(jp *, const char *)) {
  for (size_t i = 0; i < l->len; i++) {
    size_t s = jp_push(p, ".%s[%zu]", key, i);
    if (check(p, l->v[i]) < 0) return -1;
    jp_pop(p, s);
  }
  return 0;
}

/* Object of string values ({"k": "v"}). */
int f_kvv(jp *p, yajl_val obj, const char *key, crt_kvv *out) {
  yajl_val v;
  size_t s;
  if (jp_enter(p, obj, key, yajl_t_object, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  out->v = jp_calloc(v->u.object.len, sizeof(crt_kv));
  for (size_t i = 0; i < v->u.object.len; i++) {
    size_t si = jp_push(p, ".%s", v->u.object.keys[i]);
    if (v->u.object.keys[i][0] == 0) return jp_fail(p, "empty key");
    if (jp_want(p, v->u.object.values[i], yajl_t_string) < 0) return -1;
    out->v[i].key = jp_strdup(v->u.object.keys[i]);
    out->v[i].value = jp_strdup(v->u.object.values[i]->u.string);
    out->len = i + 1;
    jp_pop(p, si);
  }
  jp_pop(p, s);
  return 0;
}

/* Array of objects: calls fn for each element, the element already being
 * attached to *arr so that a failure leaves it to the caller's free. */
int f_objv(jp *p, yajl_val obj, const char *key, size_t size, elem_fn fn, void **arr, size_t *n) {
  yajl_val v;
  size_t s;
  if (jp_enter(p, obj, key, yajl_t_array, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  char *a = jp_calloc(v->u.array.len, size);
  *arr = a;
  for (size_t i = 0; i < v->u.array.len; i++) {
    size_t si = jp_push(p, "[%zu]", i);
    *n = i + 1;
    if (jp_want(p, v->u.array.values[i], yajl_t_object) < 0) return -1;
    if (fn(p, v->u.array.values[i], a + i * size) < 0) return -1;
    jp_pop(p, si);
  }
  jp_pop(p, s);
  return 0;
}


int f_in_place(jp *p, yajl_val o, const char *key, elem_fn fn, void *dst) {
  yajl_val v;
  size_t s;
  if (jp_enter(p, o, key, yajl_t_object, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  if (fn(p, v, dst) < 0) return -1;
  jp_pop(p, s);
  return 0;
}

/* Optional sub-object allocated into *slot and parsed by fn. */
int f_sub(jp *p, yajl_val o, const char *key, size_t size, elem_fn fn, void **slot) {
  yajl_val v;
  size_t s;
  if (jp_enter(p, o, key, yajl_t_object, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  *slot = jp_calloc(1, size);
  if (fn(p, v, *slot) < 0) return -1;
  jp_pop(p, s);
  return 0;
}

int jp_check_in(jp *p, const char *key, const crt_strv *l, const char *const *known, const char *what) {
  for (size_t i = 0; i < l->len; i++)
    if (crt_spec_in_list(known, l->v[i]) < 0) {
      jp_push(p, ".%s[%zu]", key, i);
      return jp_fail(p, "unknown %s \"%s\"", what, l->v[i]);
    }
  return 0;
}

int jp_check_abs(jp *p, const char *s) {
  if (s[0] != '/') return jp_fail(p, "path \"%s\" is not absolute", s);
  return 0;
}

bool crt_env_entry_valid(const char *kv) { return strchr(kv, '=') != NULL && kv[0] != '='; }

int jp_check_env(jp *p, const char *s) {
  if (!crt_env_entry_valid(s)) return jp_fail(p, "invalid environment variable \"%s\": expected KEY=VALUE", s);
  return 0;
}


static int parse_idmap(jp *p, yajl_val o, crt_idmap *m) {
  if (f_u32(p, o, "containerID", true, &m->container_id) < 0) return -1;
  if (f_u32(p, o, "hostID", true, &m->host_id) < 0) return -1;
  return f_u32(p, o, "size", true, &m->size);
}

JP_ADAPT(parse_idmap)

int f_idmaps(jp *p, yajl_val obj, const char *key, crt_idmapv *out) {
  return OBJV(p, obj, key, parse_idmap, &out->v, &out->len);
}
