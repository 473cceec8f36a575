/* The spec parser's walk over a yajl tree, shared by src/spec/parse*.c:
 * the JSON path of the value being read (for errors), typed field
 * readers, and the entry points of each part of the config. */
#ifndef CRT_SPEC_JSON_H
#define CRT_SPEC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_tree.h>

#include "crt/spec.h"

typedef struct {
  const char *name; /* "config.json": the first word of every error */
  crt_err **err;
  char path[1024]; /* ".process.args[1]" */
  size_t plen;
} jp;

/* Allocation failures abort: a half-parsed config is never used. */
void *jp_calloc(size_t n, size_t size);
char *jp_strdup(const char *s);

/* Appends to the path; jp_pop restores the length jp_push returned. */
size_t jp_push(jp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void jp_pop(jp *p, size_t old);
/* Sets "name: path: message"; always -1. */
int jp_fail(jp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* yajl_t_true stands for "boolean". */
int jp_want(jp *p, yajl_val v, yajl_type t);
const char *jp_type_name(yajl_val v);
/* A member of an object; JSON null counts as absent, the last duplicate wins. */
yajl_val jp_get(yajl_val obj, const char *key);
int jp_missing(jp *p, const char *key);
/* Enters member key of type t: *out NULL when absent, *saved for jp_pop. */
int jp_enter(jp *p, yajl_val obj, const char *key, yajl_type t, bool required, yajl_val *out, size_t *saved);
int jp_num_u(jp *p, yajl_val v, uint64_t max, uint64_t *out);
int jp_num_i(jp *p, yajl_val v, int64_t min, int64_t max, int64_t *out);

/* Readers of one member of obj; absent optional members leave *out alone. */
int f_str(jp *p, yajl_val obj, const char *key, bool required, char **out);
int f_bool(jp *p, yajl_val obj, const char *key, bool required, bool *out, bool *set);
int f_cbool(jp *p, yajl_val obj, const char *key, crt_bool *out);
int f_uint(jp *p, yajl_val obj, const char *key, bool required, uint64_t max, uint64_t *out, bool *set);
int f_int(jp *p, yajl_val obj, const char *key, bool required, int64_t min, int64_t max, int64_t *out, bool *set);
int f_u32(jp *p, yajl_val obj, const char *key, bool required, uint32_t *out);
int f_cu64(jp *p, yajl_val obj, const char *key, uint64_t max, crt_u64 *out);
int f_ci64(jp *p, yajl_val obj, const char *key, crt_i64 *out);
int f_strv(jp *p, yajl_val obj, const char *key, crt_strv *out, bool *set);
int f_kvv(jp *p, yajl_val obj, const char *key, crt_kvv *out);
int f_idmaps(jp *p, yajl_val obj, const char *key, crt_idmapv *out);

/* The sub-parsers below take a typed element (crt_mount *, ...); a call
 * through a function pointer of another type is undefined behaviour (and
 * what CFI refuses), so each is called through its adapter, fn_v, of
 * exactly the generic type: JP_ADAPT(fn) defines it, beside fn or in the
 * file that passes fn.  The macros check at compile time that fn takes
 * the element the array or slot holds. */
typedef int (*elem_fn)(jp *p, yajl_val o, void *elem);
#define JP_ADAPT(fn) \
  static int fn##_v(jp *p, yajl_val o, void *elem) { return fn(p, o, elem); }
/* Array of objects: fn for each element, the element already attached to
 * *arr so that a failure leaves it to the caller's free. */
int f_objv(jp *p, yajl_val obj, const char *key, size_t size, elem_fn fn, void **arr, size_t *n);
#define OBJV(p, obj, key, fn, arr, n) \
  ((void)sizeof(fn(p, obj, *(arr))), f_objv(p, obj, key, sizeof **(arr), fn##_v, (void **)(arr), n))
/* Optional sub-object allocated into *slot and parsed by fn. */
int f_sub(jp *p, yajl_val o, const char *key, size_t size, elem_fn fn, void **slot);
#define SUB(p, o, key, fn, slot) ((void)sizeof(fn(p, o, *(slot))), f_sub(p, o, key, sizeof **(slot), fn##_v, (void **)(slot)))
/* Optional sub-object parsed by fn into dst itself (nothing allocated). */
int f_in_place(jp *p, yajl_val o, const char *key, elem_fn fn, void *dst);
#define IN_PLACE(p, o, key, fn, dst) ((void)sizeof(fn(p, o, dst)), f_in_place(p, o, key, fn##_v, dst))

/* Checks of parsed values; errors name the element. */
int jp_each(jp *p, const char *key, const crt_strv *l, int (*check)(jp *, const char *));
int jp_check_in(jp *p, const char *key, const crt_strv *l, const char *const *known, const char *what);
int jp_check_abs(jp *p, const char *s);
int jp_check_env(jp *p, const char *s);

/* The parts of a config, one file each. */
int spec_parse_process(jp *p, yajl_val o, crt_process *pr); /* parse_process.c */
int spec_parse_mount(jp *p, yajl_val o, crt_mount *m);      /* parse_mounts.c */
int spec_parse_hooks(jp *p, yajl_val o, crt_hooks *h);      /* parse_mounts.c */
int spec_parse_linux(jp *p, yajl_val o, crt_linux *l);      /* parse_linux.c */
int spec_parse_seccomp(jp *p, yajl_val o, crt_seccomp *sc); /* parse_seccomp.c */
int spec_parse_resources(jp *p, yajl_val o, crt_resources *r); /* parse_resources.c */

#endif
