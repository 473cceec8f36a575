/* config.json / process.json parser: yajl tree -> typed model, validating
 * as it goes.  Every error names the JSON path of the offending value. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "crt/fs.h"
#include "crt/log.h"
#include "crt/spec.h"
#include "internal.h"

#define MAX_CONFIG_SIZE (64u << 20)
#define MAX_DEPTH 256
#define MAX_VALUES 1000000

typedef struct {
  const char *name;
  crt_err **err;
  char path[1024];
  size_t plen;
} P;

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (p == NULL) abort();
  return p;
}

static char *xstrdup(const char *s) {
  char *d = strdup(s);
  if (d == NULL) abort();
  return d;
}

static size_t push(P *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t push(P *p, const char *fmt, ...) {
  size_t old = p->plen;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(p->path + old, sizeof p->path - old, fmt, ap);
  va_end(ap);
  if (n > 0) p->plen = old + (size_t)n < sizeof p->path ? old + (size_t)n : sizeof p->path - 1;
  return old;
}

static void pop(P *p, size_t old) {
  p->plen = old;
  p->path[old] = 0;
}

static int fail(P *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(P *p, const char *fmt, ...) {
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

static const char *type_name(yajl_val v) { return type_str(v->type); }

/* yajl_t_true stands for "boolean". */
static int want(P *p, yajl_val v, yajl_type t) {
  if (v->type == t || (t == yajl_t_true && v->type == yajl_t_false)) return 0;
  return fail(p, "expected %s, got %s", type_str(t), type_name(v));
}

/* A member of an object; JSON null counts as absent, as in Go.  The last
 * duplicate wins, as with encoding/json. */
static yajl_val get(yajl_val obj, const char *key) {
  yajl_val r = NULL;
  for (size_t i = 0; i < obj->u.object.len; i++)
    if (strcmp(obj->u.object.keys[i], key) == 0) r = obj->u.object.values[i];
  return r && r->type != yajl_t_null ? r : NULL;
}

static int missing(P *p, const char *key) {
  size_t o = push(p, ".%s", key);
  fail(p, "missing required field");
  pop(p, o);
  return -1;
}

/* Enters member `key` of type t: *out NULL when absent, *saved for pop(). */
static int enter(P *p, yajl_val obj, const char *key, yajl_type t, bool required, yajl_val *out, size_t *saved) {
  *out = get(obj, key);
  if (*out == NULL) return required ? missing(p, key) : 0;
  *saved = push(p, ".%s", key);
  return want(p, *out, t);
}

static bool is_integer_text(const char *r) {
  return strpbrk(r, ".eE") == NULL;
}

static int num_u(P *p, yajl_val v, uint64_t max, uint64_t *out) {
  if (want(p, v, yajl_t_number) < 0) return -1;
  const char *r = v->u.number.r;
  if (!is_integer_text(r)) return fail(p, "expected integer, got %s", r);
  errno = 0;
  char *end;
  uint64_t x = strtoull(r, &end, 10);
  if (r[0] == '-' && x != 0) errno = ERANGE;
  if (errno || *end || x > max) return fail(p, "value %s out of range (0 to %" PRIu64 ")", r, max);
  *out = x;
  return 0;
}

static int num_i(P *p, yajl_val v, int64_t min, int64_t max, int64_t *out) {
  if (want(p, v, yajl_t_number) < 0) return -1;
  const char *r = v->u.number.r;
  if (!is_integer_text(r)) return fail(p, "expected integer, got %s", r);
  errno = 0;
  char *end;
  long long x = strtoll(r, &end, 10);
  if (errno || *end || x < min || x > max)
    return fail(p, "value %s out of range (%" PRId64 " to %" PRId64 ")", r, min, max);
  *out = x;
  return 0;
}

static int f_str(P *p, yajl_val obj, const char *key, bool required, char **out) {
  yajl_val v;
  size_t s;
  if (enter(p, obj, key, yajl_t_string, required, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  *out = xstrdup(v->u.string);
  pop(p, s);
  return 0;
}

static int f_bool(P *p, yajl_val obj, const char *key, bool required, bool *out, bool *set) {
  yajl_val v;
  size_t s;
  if (enter(p, obj, key, yajl_t_true, required, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  *out = v->type == yajl_t_true;
  if (set) *set = true;
  pop(p, s);
  return 0;
}

static int f_cbool(P *p, yajl_val obj, const char *key, crt_bool *out) {
  return f_bool(p, obj, key, false, &out->v, &out->set);
}

static int f_uint(P *p, yajl_val obj, const char *key, bool required, uint64_t max, uint64_t *out, bool *set) {
  yajl_val v = get(obj, key);
  if (v == NULL) return required ? missing(p, key) : 0;
  size_t s = push(p, ".%s", key);
  if (num_u(p, v, max, out) < 0) return -1;
  if (set) *set = true;
  pop(p, s);
  return 0;
}

static int f_int(P *p, yajl_val obj, const char *key, bool required, int64_t min, int64_t max, int64_t *out,
                 bool *set) {
  yajl_val v = get(obj, key);
  if (v == NULL) return required ? missing(p, key) : 0;
  size_t s = push(p, ".%s", key);
  if (num_i(p, v, min, max, out) < 0) return -1;
  if (set) *set = true;
  pop(p, s);
  return 0;
}

static int f_u32(P *p, yajl_val obj, const char *key, bool required, uint32_t *out) {
  uint64_t x = 0;
  if (f_uint(p, obj, key, required, UINT32_MAX, &x, NULL) < 0) return -1;
  if (get(obj, key)) *out = (uint32_t)x;
  return 0;
}

static int f_cu64(P *p, yajl_val obj, const char *key, uint64_t max, crt_u64 *out) {
  return f_uint(p, obj, key, false, max, &out->v, &out->set);
}

static int f_ci64(P *p, yajl_val obj, const char *key, crt_i64 *out) {
  return f_int(p, obj, key, false, INT64_MIN, INT64_MAX, &out->v, &out->set);
}

static int f_strv(P *p, yajl_val obj, const char *key, crt_strv *out, bool *set) {
  yajl_val v;
  size_t s;
  if (enter(p, obj, key, yajl_t_array, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  size_t n = v->u.array.len;
  out->v = xcalloc(n + 1, sizeof(char *));
  for (size_t i = 0; i < n; i++) {
    yajl_val e = v->u.array.values[i];
    size_t si = push(p, "[%zu]", i);
    if (want(p, e, yajl_t_string) < 0) return -1;
    out->v[i] = xstrdup(e->u.string);
    out->len = i + 1;
    pop(p, si);
  }
  if (set) *set = true;
  pop(p, s);
  return 0;
}

/* Checks every element of a parsed list with check(); errors name the element. */
static int each(P *p, const char *key, const crt_strv *l, int (*check)(P *, const char *)) {
  for (size_t i = 0; i < l->len; i++) {
    size_t s = push(p, ".%s[%zu]", key, i);
    if (check(p, l->v[i]) < 0) return -1;
    pop(p, s);
  }
  return 0;
}

/* Object of string values ({"k": "v"}). */
static int f_kvv(P *p, yajl_val obj, const char *key, crt_kvv *out) {
  yajl_val v;
  size_t s;
  if (enter(p, obj, key, yajl_t_object, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  out->v = xcalloc(v->u.object.len, sizeof(crt_kv));
  for (size_t i = 0; i < v->u.object.len; i++) {
    size_t si = push(p, ".%s", v->u.object.keys[i]);
    if (v->u.object.keys[i][0] == 0) return fail(p, "empty key");
    if (want(p, v->u.object.values[i], yajl_t_string) < 0) return -1;
    out->v[i].key = xstrdup(v->u.object.keys[i]);
    out->v[i].value = xstrdup(v->u.object.values[i]->u.string);
    out->len = i + 1;
    pop(p, si);
  }
  pop(p, s);
  return 0;
}

/* Array of objects: calls fn for each element, the element already being
 * attached to *arr so that a failure leaves it to the caller's free. */
typedef int (*elem_fn)(P *p, yajl_val o, void *elem);

static int f_objv(P *p, yajl_val obj, const char *key, size_t size, elem_fn fn, void **arr, size_t *n) {
  yajl_val v;
  size_t s;
  if (enter(p, obj, key, yajl_t_array, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  char *a = xcalloc(v->u.array.len, size);
  *arr = a;
  for (size_t i = 0; i < v->u.array.len; i++) {
    size_t si = push(p, "[%zu]", i);
    *n = i + 1;
    if (want(p, v->u.array.values[i], yajl_t_object) < 0) return -1;
    if (fn(p, v->u.array.values[i], a + i * size) < 0) return -1;
    pop(p, si);
  }
  pop(p, s);
  return 0;
}

#define OBJV(p, obj, key, fn, arr, n) f_objv(p, obj, key, sizeof **(arr), (elem_fn)(fn), (void **)(arr), n)

/* ---- value checks ---- */
static int check_abs(P *p, const char *s) {
  if (s[0] != '/') return fail(p, "path \"%s\" is not absolute", s);
  return 0;
}

bool crt_env_entry_valid(const char *kv) { return strchr(kv, '=') != NULL && kv[0] != '='; }

static int check_env(P *p, const char *s) {
  if (!crt_env_entry_valid(s)) return fail(p, "invalid environment variable \"%s\": expected KEY=VALUE", s);
  return 0;
}


static int check_cpulist(P *p, const char *s) {
  for (const char *c = s; *c; c++)
    if (!((*c >= '0' && *c <= '9') || *c == ',' || *c == '-')) return fail(p, "invalid CPU list \"%s\"", s);
  return 0;
}

static int check_version(P *p, const char *v) {
  const char *c = v;
  char *end;
  bool ok = strncmp(c, "1.", 2) == 0;
  if (ok) {
    c += 2;
    ok = *c >= '0' && *c <= '9';
    unsigned long minor = strtoul(c, &end, 10);
    ok = ok && minor <= 3 && end[0] == '.' && end[1] >= '0' && end[1] <= '9';
    if (ok) {
      strtoul(end + 1, &end, 10);
      ok = *end == 0 || ((*end == '-' || *end == '+') && end[1] != 0);
    }
  }
  if (!ok) return fail(p, "unsupported version \"%s\" (crt supports 1.0.0 to 1.3.x)", v);
  return 0;
}

/* ---- shared pieces ---- */
static int parse_idmap(P *p, yajl_val o, crt_idmap *m) {
  if (f_u32(p, o, "containerID", true, &m->container_id) < 0) return -1;
  if (f_u32(p, o, "hostID", true, &m->host_id) < 0) return -1;
  return f_u32(p, o, "size", true, &m->size);
}

static int f_idmaps(P *p, yajl_val obj, const char *key, crt_idmapv *out) {
  return OBJV(p, obj, key, parse_idmap, &out->v, &out->len);
}

/* ---- process ---- */
static int parse_rlimit(P *p, yajl_val o, crt_rlimit *r) {
  if (f_str(p, o, "type", true, &r->type) < 0) return -1;
  r->resource = crt_spec_lookup_num(crt_spec_rlimits, r->type);
  if (r->resource < 0) {
    push(p, ".type");
    return fail(p, "unknown rlimit type \"%s\"", r->type);
  }
  if (f_uint(p, o, "hard", true, UINT64_MAX, &r->hard, NULL) < 0) return -1;
  return f_uint(p, o, "soft", true, UINT64_MAX, &r->soft, NULL);
}

/* A name no kernel knows is a typo: an error naming it (docs/spec-
 * conformance.md: v1.3 says such a value SHOULD NOT fail; the runtime-tools
 * suite's process_capabilities_fail wants the error).  Names this kernel
 * lacks are skipped with a warning when the sets are applied (caps.c). */
static int check_cap(P *p, const char *s) {
  cap_value_t c;
  if (strncmp(s, "CAP_", 4) != 0 || cap_from_name(s, &c) != 0) return fail(p, "unknown capability \"%s\"", s);
  return 0;
}

static int parse_caps(P *p, yajl_val o, crt_capabilities *c) {
  struct {
    const char *key;
    crt_strv *l;
    bool *has;
  } sets[] = {{"bounding", &c->bounding, &c->has_bounding},    {"effective", &c->effective, &c->has_effective},
              {"inheritable", &c->inheritable, &c->has_inheritable},
              {"permitted", &c->permitted, &c->has_permitted}, {"ambient", &c->ambient, &c->has_ambient}};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    if (f_strv(p, o, sets[i].key, sets[i].l, sets[i].has) < 0) return -1;
    if (each(p, sets[i].key, sets[i].l, check_cap) < 0) return -1;
  }
  return 0;
}

static int parse_user(P *p, yajl_val o, crt_user *u) {
  if (f_u32(p, o, "uid", true, &u->uid) < 0) return -1;
  if (f_u32(p, o, "gid", true, &u->gid) < 0) return -1;
  if (f_cu64(p, o, "umask", UINT32_MAX, &u->umask) < 0) return -1;
  if (f_str(p, o, "username", false, &u->username) < 0) return -1;
  yajl_val v;
  size_t s;
  if (enter(p, o, "additionalGids", yajl_t_array, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  u->additional_gids = xcalloc(v->u.array.len, sizeof(uint32_t));
  for (size_t i = 0; i < v->u.array.len; i++) {
    size_t si = push(p, "[%zu]", i);
    uint64_t g;
    if (num_u(p, v->u.array.values[i], UINT32_MAX, &g) < 0) return -1;
    u->additional_gids[i] = (uint32_t)g;
    u->n_additional_gids = i + 1;
    pop(p, si);
  }
  pop(p, s);
  return 0;
}

static int parse_scheduler(P *p, yajl_val o, crt_scheduler *sc) {
  if (f_str(p, o, "policy", true, &sc->policy) < 0) return -1;
  sc->policy_num = crt_spec_lookup_num(crt_spec_sched_policies, sc->policy);
  if (sc->policy_num < 0) {
    push(p, ".policy");
    return fail(p, "unknown scheduler policy \"%s\"", sc->policy);
  }
  int64_t x = 0;
  if (f_int(p, o, "nice", false, -20, 19, &x, NULL) < 0) return -1;
  sc->nice = (int32_t)x;
  x = 0;
  if (f_int(p, o, "priority", false, INT32_MIN, INT32_MAX, &x, NULL) < 0) return -1;
  sc->priority = (int32_t)x;
  if (f_strv(p, o, "flags", &sc->flags, NULL) < 0) return -1;
  for (size_t i = 0; i < sc->flags.len; i++)
    if (crt_spec_in_list(crt_spec_sched_flags, sc->flags.v[i]) < 0) {
      push(p, ".flags[%zu]", i);
      return fail(p, "unknown scheduler flag \"%s\"", sc->flags.v[i]);
    }
  if (f_uint(p, o, "runtime", false, UINT64_MAX, &sc->runtime, NULL) < 0) return -1;
  if (f_uint(p, o, "deadline", false, UINT64_MAX, &sc->deadline, NULL) < 0) return -1;
  return f_uint(p, o, "period", false, UINT64_MAX, &sc->period, NULL);
}

static int parse_ioprio(P *p, yajl_val o, crt_ioprio *io) {
  if (f_str(p, o, "class", true, &io->class_name) < 0) return -1;
  io->class_num = crt_spec_lookup_num(crt_spec_ioprio_classes, io->class_name);
  if (io->class_num < 0) {
    push(p, ".class");
    return fail(p, "unknown I/O priority class \"%s\"", io->class_name);
  }
  return f_int(p, o, "priority", true, 0, 7, &io->priority, NULL);
}

static int parse_process_obj(P *p, yajl_val o, crt_process *pr) {
  yajl_val v;
  size_t s;
  if (f_bool(p, o, "terminal", false, &pr->terminal, NULL) < 0) return -1;
  if (enter(p, o, "consoleSize", yajl_t_object, false, &v, &s) < 0) return -1;
  if (v) {
    if (f_u32(p, v, "height", true, &pr->console_height) < 0) return -1;
    if (f_u32(p, v, "width", true, &pr->console_width) < 0) return -1;
    pr->has_console_size = true;
    pop(p, s);
  }
  if (enter(p, o, "user", yajl_t_object, false, &v, &s) < 0) return -1;
  if (v) {
    if (parse_user(p, v, &pr->user) < 0) return -1;
    pop(p, s);
  }
  if (f_strv(p, o, "args", &pr->args, NULL) < 0) return -1;
  if (f_str(p, o, "commandLine", false, &pr->command_line) < 0) return -1;
  if (f_strv(p, o, "env", &pr->env, NULL) < 0) return -1;
  if (each(p, "env", &pr->env, check_env) < 0) return -1;
  if (f_str(p, o, "cwd", false, &pr->cwd) < 0) return -1;
  if (pr->cwd) {
    s = push(p, ".cwd");
    if (check_abs(p, pr->cwd) < 0) return -1;
    pop(p, s);
  }
  if (enter(p, o, "capabilities", yajl_t_object, false, &v, &s) < 0) return -1;
  if (v) {
    pr->capabilities = xcalloc(1, sizeof *pr->capabilities);
    if (parse_caps(p, v, pr->capabilities) < 0) return -1;
    pop(p, s);
  }
  if (OBJV(p, o, "rlimits", parse_rlimit, &pr->rlimits, &pr->n_rlimits) < 0) return -1;
  for (size_t i = 0; i < pr->n_rlimits; i++)
    for (size_t j = 0; j < i; j++)
      if (pr->rlimits[i].resource == pr->rlimits[j].resource) {
        push(p, ".rlimits[%zu].type", i);
        return fail(p, "duplicate rlimit type \"%s\"", pr->rlimits[i].type);
      }
  if (f_bool(p, o, "noNewPrivileges", false, &pr->no_new_privileges, NULL) < 0) return -1;
  if (f_str(p, o, "apparmorProfile", false, &pr->apparmor_profile) < 0) return -1;
  if (f_int(p, o, "oomScoreAdj", false, -1000, 1000, &pr->oom_score_adj.v, &pr->oom_score_adj.set) < 0) return -1;
  if (enter(p, o, "scheduler", yajl_t_object, false, &v, &s) < 0) return -1;
  if (v) {
    pr->scheduler = xcalloc(1, sizeof *pr->scheduler);
    if (parse_scheduler(p, v, pr->scheduler) < 0) return -1;
    pop(p, s);
  }
  if (f_str(p, o, "selinuxLabel", false, &pr->selinux_label) < 0) return -1;
  if (enter(p, o, "ioPriority", yajl_t_object, false, &v, &s) < 0) return -1;
  if (v) {
    pr->io_priority = xcalloc(1, sizeof *pr->io_priority);
    if (parse_ioprio(p, v, pr->io_priority) < 0) return -1;
    pop(p, s);
  }
  if (enter(p, o, "execCPUAffinity", yajl_t_object, false, &v, &s) < 0) return -1;
  if (v) {
    crt_exec_cpu_affinity *a = pr->exec_cpu_affinity = xcalloc(1, sizeof *a);
    if (f_str(p, v, "initial", false, &a->initial) < 0) return -1;
    if (f_str(p, v, "final", false, &a->final) < 0) return -1;
    size_t s2 = push(p, ".initial");
    if (a->initial && check_cpulist(p, a->initial) < 0) return -1;
    pop(p, s2);
    push(p, ".final");
    if (a->final && check_cpulist(p, a->final) < 0) return -1;
    pop(p, s);
  }
  return 0;
}

/* ---- root, mounts, hooks ---- */
static int parse_mount(P *p, yajl_val o, crt_mount *m) {
  if (f_str(p, o, "destination", true, &m->destination) < 0) return -1;
  if (m->destination[0] == 0) {
    push(p, ".destination");
    return fail(p, "must not be empty");
  }
  /* config.md: SHOULD be absolute; relative is deprecated, relative to "/". */
  if (m->destination[0] != '/')
    crt_warn("%s: %s.destination: relative mount destination \"%s\" is deprecated", p->name, p->path,
             m->destination);
  if (f_str(p, o, "source", false, &m->source) < 0) return -1;
  if (f_str(p, o, "type", false, &m->type) < 0) return -1;
  if (f_strv(p, o, "options", &m->options, NULL) < 0) return -1;
  if (f_idmaps(p, o, "uidMappings", &m->uid_mappings) < 0) return -1;
  return f_idmaps(p, o, "gidMappings", &m->gid_mappings);
}

static int parse_hook(P *p, yajl_val o, crt_hook *h) {
  if (f_str(p, o, "path", true, &h->path) < 0) return -1;
  size_t s = push(p, ".path");
  if (check_abs(p, h->path) < 0) return -1;
  pop(p, s);
  if (f_strv(p, o, "args", &h->args, NULL) < 0) return -1;
  if (f_strv(p, o, "env", &h->env, NULL) < 0) return -1;
  if (each(p, "env", &h->env, check_env) < 0) return -1;
  if (f_ci64(p, o, "timeout", &h->timeout) < 0) return -1;
  if (h->timeout.set && h->timeout.v <= 0) {
    push(p, ".timeout");
    return fail(p, "must be greater than zero, got %" PRId64, h->timeout.v);
  }
  return 0;
}

static int parse_hooks(P *p, yajl_val o, crt_hooks *h) {
  crt_hookv *kinds[] = {&h->prestart, &h->create_runtime, &h->create_container,
                        &h->start_container, &h->poststart, &h->poststop};
  for (size_t i = 0; crt_spec_hook_names[i]; i++)
    if (OBJV(p, o, crt_spec_hook_names[i], parse_hook, &kinds[i]->v, &kinds[i]->len) < 0) return -1;
  return 0;
}

/* ---- linux ---- */
static int parse_namespace(P *p, yajl_val o, crt_namespace *ns) {
  cleanup_free char *type = NULL;
  if (f_str(p, o, "type", true, &type) < 0) return -1;
  int t = -1;
  for (int i = 0; i < CRT_NS_COUNT; i++)
    if (strcmp(crt_ns_name(i), type) == 0) t = i;
  if (t < 0) {
    push(p, ".type");
    return fail(p, "unknown namespace type \"%s\"", type);
  }
  ns->type = t;
  if (f_str(p, o, "path", false, &ns->path) < 0) return -1;
  if (ns->path) {
    push(p, ".path");
    if (check_abs(p, ns->path) < 0) return -1;
  }
  return 0;
}

static int parse_time_offsets(P *p, yajl_val o, crt_linux *l) {
  l->time_offsets = xcalloc(o->u.object.len, sizeof *l->time_offsets);
  for (size_t i = 0; i < o->u.object.len; i++) {
    const char *clock = o->u.object.keys[i];
    size_t s = push(p, ".%s", clock);
    crt_time_offset *t = &l->time_offsets[i];
    l->n_time_offsets = i + 1;
    t->clock = xstrdup(clock);
    if (strcmp(clock, "monotonic") && strcmp(clock, "boottime"))
      return fail(p, "unknown clock \"%s\" (expected monotonic or boottime)", clock);
    yajl_val v = o->u.object.values[i];
    if (want(p, v, yajl_t_object) < 0) return -1;
    if (f_int(p, v, "secs", false, INT64_MIN, INT64_MAX, &t->secs, NULL) < 0) return -1;
    uint64_t ns = 0;
    if (f_uint(p, v, "nanosecs", false, 999999999, &ns, NULL) < 0) return -1;
    t->nanosecs = (uint32_t)ns;
    pop(p, s);
  }
  return 0;
}

/* Go's filepath.Clean of an absolute path, in place: runc resolves device
 * paths with securejoin, which cleans them, so "/dev/fuse/" and
 * "/dev//x/../fuse" name /dev/fuse.  ".." stops at "/". */
static void clean_abs_path(char *path) {
  char *out = path; /* path[0] is '/' */
  for (const char *in = path; *in;) {
    while (*in == '/') in++;
    const char *end = in + strcspn(in, "/");
    size_t n = (size_t)(end - in);
    if (n == 0 || (n == 1 && in[0] == '.')) {
      /* nothing */
    } else if (n == 2 && in[0] == '.' && in[1] == '.') {
      while (out > path && *--out != '/') {
      }
    } else {
      *out++ = '/';
      memmove(out, in, n);
      out += n;
    }
    in = end;
  }
  if (out == path) *out++ = '/';
  *out = 0;
}

static int parse_device(P *p, yajl_val o, crt_device *d) {
  if (f_str(p, o, "type", true, &d->type) < 0) return -1;
  if (strcmp(d->type, "c") && strcmp(d->type, "b") && strcmp(d->type, "u") && strcmp(d->type, "p")) {
    push(p, ".type");
    return fail(p, "unknown device type \"%s\" (expected c, b, u or p)", d->type);
  }
  if (f_str(p, o, "path", true, &d->path) < 0) return -1;
  size_t s = push(p, ".path");
  if (check_abs(p, d->path) < 0) return -1;
  pop(p, s);
  clean_abs_path(d->path);
  bool needs_nums = strcmp(d->type, "p") != 0;
  if (f_int(p, o, "major", needs_nums, INT64_MIN, INT64_MAX, &d->major, NULL) < 0) return -1;
  if (f_int(p, o, "minor", needs_nums, INT64_MIN, INT64_MAX, &d->minor, NULL) < 0) return -1;
  if (f_cu64(p, o, "fileMode", 07777, &d->file_mode) < 0) return -1;
  if (f_cu64(p, o, "uid", UINT32_MAX, &d->uid) < 0) return -1;
  return f_cu64(p, o, "gid", UINT32_MAX, &d->gid);
}

static int parse_device_rule(P *p, yajl_val o, crt_device_rule *r) {
  if (f_bool(p, o, "allow", true, &r->allow, NULL) < 0) return -1;
  if (f_str(p, o, "type", false, &r->type) < 0) return -1;
  if (r->type && strcmp(r->type, "a") && strcmp(r->type, "c") && strcmp(r->type, "b")) {
    push(p, ".type");
    return fail(p, "unknown device type \"%s\" (expected a, c or b)", r->type);
  }
  if (f_ci64(p, o, "major", &r->major) < 0) return -1;
  if (f_ci64(p, o, "minor", &r->minor) < 0) return -1;
  if (f_str(p, o, "access", false, &r->access) < 0) return -1;
  if (r->access && (r->access[0] == 0 || strspn(r->access, "rwm") != strlen(r->access))) {
    push(p, ".access");
    return fail(p, "invalid access \"%s\" (expected a combination of r, w and m)", r->access);
  }
  return 0;
}

static int parse_weight_device(P *p, yajl_val o, crt_blkio_weight_device *w) {
  if (f_int(p, o, "major", true, INT64_MIN, INT64_MAX, &w->major, NULL) < 0) return -1;
  if (f_int(p, o, "minor", true, INT64_MIN, INT64_MAX, &w->minor, NULL) < 0) return -1;
  if (f_cu64(p, o, "weight", UINT16_MAX, &w->weight) < 0) return -1;
  return f_cu64(p, o, "leafWeight", UINT16_MAX, &w->leaf_weight);
}

static int parse_throttle(P *p, yajl_val o, crt_blkio_throttle *t) {
  if (f_int(p, o, "major", true, INT64_MIN, INT64_MAX, &t->major, NULL) < 0) return -1;
  if (f_int(p, o, "minor", true, INT64_MIN, INT64_MAX, &t->minor, NULL) < 0) return -1;
  return f_uint(p, o, "rate", true, UINT64_MAX, &t->rate, NULL);
}

static int parse_hugepage(P *p, yajl_val o, crt_hugepage_limit *h) {
  if (f_str(p, o, "pageSize", true, &h->page_size) < 0) return -1;
  return f_uint(p, o, "limit", true, UINT64_MAX, &h->limit, NULL);
}

static int parse_net_prio(P *p, yajl_val o, crt_net_priority *n) {
  if (f_str(p, o, "name", true, &n->name) < 0) return -1;
  return f_u32(p, o, "priority", true, &n->priority);
}

static int parse_blkio(P *p, yajl_val o, crt_resources *r) {
  r->has_blkio = true;
  if (f_cu64(p, o, "weight", UINT16_MAX, &r->blkio.weight) < 0) return -1;
  if (f_cu64(p, o, "leafWeight", UINT16_MAX, &r->blkio.leaf_weight) < 0) return -1;
  if (OBJV(p, o, "weightDevice", parse_weight_device, &r->blkio.weight_device, &r->blkio.n_weight_device) < 0)
    return -1;
  if (OBJV(p, o, "throttleReadBpsDevice", parse_throttle, &r->blkio.throttle_read_bps,
           &r->blkio.n_throttle_read_bps) < 0)
    return -1;
  if (OBJV(p, o, "throttleWriteBpsDevice", parse_throttle, &r->blkio.throttle_write_bps,
           &r->blkio.n_throttle_write_bps) < 0)
    return -1;
  if (OBJV(p, o, "throttleReadIOPSDevice", parse_throttle, &r->blkio.throttle_read_iops,
           &r->blkio.n_throttle_read_iops) < 0)
    return -1;
  return OBJV(p, o, "throttleWriteIOPSDevice", parse_throttle, &r->blkio.throttle_write_iops,
              &r->blkio.n_throttle_write_iops);
}

static int parse_memory(P *p, yajl_val o, crt_resources *r) {
  r->has_memory = true;
  if (f_ci64(p, o, "limit", &r->memory.limit) < 0) return -1;
  if (f_ci64(p, o, "reservation", &r->memory.reservation) < 0) return -1;
  if (f_ci64(p, o, "swap", &r->memory.swap) < 0) return -1;
  if (f_ci64(p, o, "kernel", &r->memory.kernel) < 0) return -1;
  if (f_ci64(p, o, "kernelTCP", &r->memory.kernel_tcp) < 0) return -1;
  if (f_cu64(p, o, "swappiness", UINT64_MAX, &r->memory.swappiness) < 0) return -1;
  if (f_cbool(p, o, "disableOOMKiller", &r->memory.disable_oom_killer) < 0) return -1;
  if (f_cbool(p, o, "useHierarchy", &r->memory.use_hierarchy) < 0) return -1;
  return f_cbool(p, o, "checkBeforeUpdate", &r->memory.check_before_update);
}

static int parse_cpu(P *p, yajl_val o, crt_resources *r) {
  r->has_cpu = true;
  if (f_cu64(p, o, "shares", UINT64_MAX, &r->cpu.shares) < 0) return -1;
  if (f_ci64(p, o, "quota", &r->cpu.quota) < 0) return -1;
  if (f_cu64(p, o, "burst", UINT64_MAX, &r->cpu.burst) < 0) return -1;
  if (f_cu64(p, o, "period", UINT64_MAX, &r->cpu.period) < 0) return -1;
  if (f_ci64(p, o, "realtimeRuntime", &r->cpu.realtime_runtime) < 0) return -1;
  if (f_cu64(p, o, "realtimePeriod", UINT64_MAX, &r->cpu.realtime_period) < 0) return -1;
  if (f_str(p, o, "cpus", false, &r->cpu.cpus) < 0) return -1;
  if (f_str(p, o, "mems", false, &r->cpu.mems) < 0) return -1;
  return f_ci64(p, o, "idle", &r->cpu.idle);
}

static int parse_rdma(P *p, yajl_val o, crt_resources *r) {
  r->rdma = xcalloc(o->u.object.len, sizeof *r->rdma);
  for (size_t i = 0; i < o->u.object.len; i++) {
    size_t s = push(p, ".%s", o->u.object.keys[i]);
    crt_rdma *d = &r->rdma[i];
    r->n_rdma = i + 1;
    d->device = xstrdup(o->u.object.keys[i]);
    yajl_val v = o->u.object.values[i];
    if (want(p, v, yajl_t_object) < 0) return -1;
    if (f_cu64(p, v, "hcaHandles", UINT32_MAX, &d->hca_handles) < 0) return -1;
    if (f_cu64(p, v, "hcaObjects", UINT32_MAX, &d->hca_objects) < 0) return -1;
    pop(p, s);
  }
  return 0;
}

typedef int (*sub_fn)(P *p, yajl_val o, crt_resources *r);

static int sub(P *p, yajl_val o, const char *key, sub_fn fn, crt_resources *r) {
  yajl_val v;
  size_t s;
  if (enter(p, o, key, yajl_t_object, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  if (fn(p, v, r) < 0) return -1;
  pop(p, s);
  return 0;
}

static int parse_pids(P *p, yajl_val o, crt_resources *r) {
  r->has_pids = true;
  return f_int(p, o, "limit", true, INT64_MIN, INT64_MAX, &r->pids.limit.v, &r->pids.limit.set);
}

static int parse_network(P *p, yajl_val o, crt_resources *r) {
  r->has_network = true;
  if (f_cu64(p, o, "classID", UINT32_MAX, &r->network.class_id) < 0) return -1;
  return OBJV(p, o, "priorities", parse_net_prio, &r->network.priorities, &r->network.n_priorities);
}

static int parse_resources(P *p, yajl_val o, crt_resources *r) {
  if (OBJV(p, o, "devices", parse_device_rule, &r->devices, &r->n_devices) < 0) return -1;
  if (sub(p, o, "memory", parse_memory, r) < 0) return -1;
  if (sub(p, o, "cpu", parse_cpu, r) < 0) return -1;
  if (sub(p, o, "pids", parse_pids, r) < 0) return -1;
  if (sub(p, o, "blockIO", parse_blkio, r) < 0) return -1;
  if (OBJV(p, o, "hugepageLimits", parse_hugepage, &r->hugepage_limits, &r->n_hugepage_limits) < 0) return -1;
  if (sub(p, o, "network", parse_network, r) < 0) return -1;
  if (sub(p, o, "rdma", parse_rdma, r) < 0) return -1;
  return f_kvv(p, o, "unified", &r->unified);
}

static int check_action(P *p, const char *key, const char *action, bool has_errno) {
  size_t s = push(p, ".%s", key);
  if (crt_spec_in_list(crt_spec_seccomp_actions, action) < 0) return fail(p, "unknown seccomp action \"%s\"", action);
  pop(p, s);
  if (has_errno && strcmp(action, "SCMP_ACT_ERRNO") && strcmp(action, "SCMP_ACT_TRACE"))
    return fail(p, "errno return value set for action %s, which takes none", action);
  return 0;
}

static int parse_seccomp_arg(P *p, yajl_val o, crt_seccomp_arg *a) {
  uint64_t idx = 0;
  if (f_uint(p, o, "index", true, 5, &idx, NULL) < 0) return -1;
  a->index = (uint32_t)idx;
  if (f_uint(p, o, "value", true, UINT64_MAX, &a->value, NULL) < 0) return -1;
  if (f_uint(p, o, "valueTwo", false, UINT64_MAX, &a->value_two, NULL) < 0) return -1;
  if (f_str(p, o, "op", true, &a->op_name) < 0) return -1;
  int op = crt_spec_in_list(crt_spec_seccomp_operators, a->op_name);
  if (op < 0) {
    push(p, ".op");
    return fail(p, "unknown seccomp operator \"%s\"", a->op_name);
  }
  a->op = (enum crt_seccomp_op)op;
  return 0;
}

static int parse_syscall(P *p, yajl_val o, crt_seccomp_syscall *c) {
  if (f_strv(p, o, "names", &c->names, NULL) < 0) return -1;
  if (c->names.len == 0) return get(o, "names") ? (push(p, ".names"), fail(p, "must not be empty")) : missing(p, "names");
  if (f_str(p, o, "action", true, &c->action) < 0) return -1;
  if (f_cu64(p, o, "errnoRet", UINT32_MAX, &c->errno_ret) < 0) return -1;
  if (check_action(p, "action", c->action, c->errno_ret.set) < 0) return -1;
  return OBJV(p, o, "args", parse_seccomp_arg, &c->args, &c->n_args);
}

static int check_in(P *p, const char *key, const crt_strv *l, const char *const *known, const char *what) {
  for (size_t i = 0; i < l->len; i++)
    if (crt_spec_in_list(known, l->v[i]) < 0) {
      push(p, ".%s[%zu]", key, i);
      return fail(p, "unknown %s \"%s\"", what, l->v[i]);
    }
  return 0;
}

static int parse_seccomp(P *p, yajl_val o, crt_seccomp *sc) {
  if (f_str(p, o, "defaultAction", true, &sc->default_action) < 0) return -1;
  if (f_cu64(p, o, "defaultErrnoRet", UINT32_MAX, &sc->default_errno_ret) < 0) return -1;
  if (check_action(p, "defaultAction", sc->default_action, sc->default_errno_ret.set) < 0) return -1;
  if (f_strv(p, o, "architectures", &sc->architectures, NULL) < 0) return -1;
  if (check_in(p, "architectures", &sc->architectures, crt_spec_seccomp_archs, "seccomp architecture") < 0)
    return -1;
  if (f_strv(p, o, "flags", &sc->flags, NULL) < 0) return -1;
  if (check_in(p, "flags", &sc->flags, crt_spec_seccomp_flags, "seccomp flag") < 0) return -1;
  if (f_str(p, o, "listenerPath", false, &sc->listener_path) < 0) return -1;
  if (f_str(p, o, "listenerMetadata", false, &sc->listener_metadata) < 0) return -1;
  if (sc->listener_metadata && !sc->listener_path) { /* config-linux.md: "MUST NOT be set if listenerPath is not set" */
    push(p, ".listenerMetadata");
    return fail(p, "set without listenerPath");
  }
  if (OBJV(p, o, "syscalls", parse_syscall, &sc->syscalls, &sc->n_syscalls) < 0) return -1;
  bool notify = strcmp(sc->default_action, "SCMP_ACT_NOTIFY") == 0;
  for (size_t i = 0; i < sc->n_syscalls; i++) notify = notify || strcmp(sc->syscalls[i].action, "SCMP_ACT_NOTIFY") == 0;
  if (notify && sc->listener_path == NULL) return fail(p, "SCMP_ACT_NOTIFY is used but listenerPath is not set");
  return 0;
}

static int parse_intel_rdt(P *p, yajl_val o, crt_intel_rdt *r) {
  if (f_str(p, o, "closID", false, &r->clos_id) < 0) return -1;
  if (f_str(p, o, "l3CacheSchema", false, &r->l3_cache_schema) < 0) return -1;
  if (f_str(p, o, "memBwSchema", false, &r->mem_bw_schema) < 0) return -1;
  if (f_strv(p, o, "schemata", &r->schemata, NULL) < 0) return -1;
  if (f_bool(p, o, "enableCMT", false, &r->enable_cmt, NULL) < 0) return -1;
  return f_bool(p, o, "enableMBM", false, &r->enable_mbm, NULL);
}

static int parse_personality(P *p, yajl_val o, crt_personality *pe) {
  if (f_str(p, o, "domain", true, &pe->domain) < 0) return -1;
  if (crt_spec_in_list(crt_spec_personality_domains, pe->domain) < 0) {
    push(p, ".domain");
    return fail(p, "unknown personality domain \"%s\"", pe->domain);
  }
  return f_strv(p, o, "flags", &pe->flags, NULL);
}

static int parse_mempolicy(P *p, yajl_val o, crt_memory_policy *m) {
  if (f_str(p, o, "mode", true, &m->mode) < 0) return -1;
  if (crt_spec_in_list(crt_spec_mempolicy_modes, m->mode) < 0) {
    push(p, ".mode");
    return fail(p, "unknown memory policy mode \"%s\"", m->mode);
  }
  if (f_str(p, o, "nodes", false, &m->nodes) < 0) return -1;
  if (f_strv(p, o, "flags", &m->flags, NULL) < 0) return -1;
  return check_in(p, "flags", &m->flags, crt_spec_mempolicy_flags, "memory policy flag");
}

/* Optional sub-object allocated into *slot and parsed by fn. */
static int f_sub(P *p, yajl_val o, const char *key, size_t size, int (*fn)(P *, yajl_val, void *), void **slot) {
  yajl_val v;
  size_t s;
  if (enter(p, o, key, yajl_t_object, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  *slot = xcalloc(1, size);
  if (fn(p, v, *slot) < 0) return -1;
  pop(p, s);
  return 0;
}

#define SUB(p, o, key, fn, slot) f_sub(p, o, key, sizeof **(slot), (int (*)(P *, yajl_val, void *))(fn), (void **)(slot))

/* An interface name the kernel would take (dev_valid_name). */
static bool valid_ifname(const char *n) {
  size_t len = strlen(n);
  if (len == 0 || len >= 16 || !strcmp(n, ".") || !strcmp(n, "..")) return false;
  for (; *n; n++)
    if (*n == '/' || *n == ':' || isspace((unsigned char)*n)) return false;
  return true;
}

/* linux.netDevices: {"eth1": {"name": "net0"}, "eth2": {}} */
static int parse_net_devices(P *p, yajl_val o, crt_linux *l) {
  yajl_val v;
  size_t s;
  if (enter(p, o, "netDevices", yajl_t_object, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  l->net_devices.v = xcalloc(v->u.object.len + 1, sizeof(crt_kv));
  for (size_t i = 0; i < v->u.object.len; i++) {
    const char *host = v->u.object.keys[i];
    size_t si = push(p, "[\"%s\"]", host);
    if (!valid_ifname(host)) return fail(p, "not a valid interface name");
    if (want(p, v->u.object.values[i], yajl_t_object) < 0) return -1;
    char *name = NULL;
    if (f_str(p, v->u.object.values[i], "name", false, &name) < 0) return -1;
    l->net_devices.v[i].key = xstrdup(host);
    l->net_devices.v[i].value = name ? name : xstrdup("");
    l->net_devices.len = i + 1;
    if (name && !valid_ifname(name)) {
      push(p, ".name");
      return fail(p, "\"%s\" is not a valid interface name", name);
    }
    pop(p, si);
  }
  pop(p, s);
  return 0;
}

static int parse_linux(P *p, yajl_val o, crt_linux *l) {
  if (OBJV(p, o, "namespaces", parse_namespace, &l->namespaces, &l->n_namespaces) < 0) return -1;
  for (size_t i = 0; i < l->n_namespaces; i++)
    for (size_t j = 0; j < i; j++)
      if (l->namespaces[i].type == l->namespaces[j].type) {
        push(p, ".namespaces[%zu].type", i);
        return fail(p, "duplicate namespace type \"%s\"", crt_ns_name(l->namespaces[i].type));
      }
  if (f_idmaps(p, o, "uidMappings", &l->uid_mappings) < 0) return -1;
  if (f_idmaps(p, o, "gidMappings", &l->gid_mappings) < 0) return -1;
  yajl_val v;
  size_t s;
  if (enter(p, o, "timeOffsets", yajl_t_object, false, &v, &s) < 0) return -1;
  if (v) {
    if (parse_time_offsets(p, v, l) < 0) return -1;
    pop(p, s);
  }
  if (OBJV(p, o, "devices", parse_device, &l->devices, &l->n_devices) < 0) return -1;
  if (f_str(p, o, "cgroupsPath", false, &l->cgroups_path) < 0) return -1;
  if (SUB(p, o, "resources", parse_resources, &l->resources) < 0) return -1;
  if (SUB(p, o, "intelRdt", parse_intel_rdt, &l->intel_rdt) < 0) return -1;
  if (f_kvv(p, o, "sysctl", &l->sysctl) < 0) return -1;
  if (parse_net_devices(p, o, l) < 0) return -1;
  if (SUB(p, o, "seccomp", parse_seccomp, &l->seccomp) < 0) return -1;
  if (f_str(p, o, "rootfsPropagation", false, &l->rootfs_propagation) < 0) return -1;
  if (l->rootfs_propagation && crt_spec_in_list(crt_spec_rootfs_propagations, l->rootfs_propagation) < 0) {
    s = push(p, ".rootfsPropagation");
    return fail(p, "unknown propagation \"%s\" (expected shared, slave, private or unbindable)",
                l->rootfs_propagation);
  }
  if (f_strv(p, o, "maskedPaths", &l->masked_paths, NULL) < 0) return -1;
  if (each(p, "maskedPaths", &l->masked_paths, check_abs) < 0) return -1;
  if (f_strv(p, o, "readonlyPaths", &l->readonly_paths, NULL) < 0) return -1;
  if (each(p, "readonlyPaths", &l->readonly_paths, check_abs) < 0) return -1;
  if (f_str(p, o, "mountLabel", false, &l->mount_label) < 0) return -1;
  if (SUB(p, o, "personality", parse_personality, &l->personality) < 0) return -1;
  return SUB(p, o, "memoryPolicy", parse_mempolicy, &l->memory_policy);
}

static int parse_root(P *p, yajl_val o, crt_root *r) {
  if (f_str(p, o, "path", true, &r->path) < 0) return -1;
  return f_bool(p, o, "readonly", false, &r->readonly, NULL);
}

static int parse_spec_obj(P *p, yajl_val o, crt_spec *sp) {
  if (f_str(p, o, "ociVersion", true, &sp->oci_version) < 0) return -1;
  size_t s = push(p, ".ociVersion");
  if (check_version(p, sp->oci_version) < 0) return -1;
  pop(p, s);
  if (SUB(p, o, "root", parse_root, &sp->root) < 0) return -1;
  if (OBJV(p, o, "mounts", parse_mount, &sp->mounts, &sp->n_mounts) < 0) return -1;
  if (SUB(p, o, "process", parse_process_obj, &sp->process) < 0) return -1;
  if (f_str(p, o, "hostname", false, &sp->hostname) < 0) return -1;
  if (f_str(p, o, "domainname", false, &sp->domainname) < 0) return -1;
  if (SUB(p, o, "hooks", parse_hooks, &sp->hooks) < 0) return -1;
  if (f_kvv(p, o, "annotations", &sp->annotations) < 0) return -1;
  return SUB(p, o, "linux", parse_linux, &sp->linux_);
}

/* ---- JSON text ---- */
static void line_col(const char *buf, size_t off, size_t *line, size_t *col) {
  *line = 1;
  size_t start = 0;
  for (size_t i = 0; i < off; i++)
    if (buf[i] == '\n') {
      (*line)++;
      start = i + 1;
    }
  *col = off - start + 1;
}

static int json_error(const char *name, const char *buf, size_t off, const char *what, crt_err **err) {
  size_t line, col;
  line_col(buf, off, &line, &col);
  return crt_error(err, 0, "%s: invalid JSON at line %zu, column %zu: %s", name, line, col, what);
}

/* Bounded nesting so neither yajl's tree nor its recursive free can exhaust
 * the stack on hostile input, and a bounded number of values so that a
 * 64 MiB "[0,0,0,...]" cannot take gigabytes as a tree. */
static int check_depth(const char *name, const char *buf, size_t len, crt_err **err) {
  size_t depth = 0, values = 0;
  bool in_str = false;
  for (size_t i = 0; i < len; i++) {
    char c = buf[i];
    if (in_str) {
      /* C strings cannot carry NUL: "a\u0000b" would silently become "a". */
      if (c == '\\' && len - i >= 6 && memcmp(buf + i + 1, "u0000", 5) == 0)
        return json_error(name, buf, i, "NUL character (\\u0000) in string", err);
      if (c == '\\') i++;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '[' || c == '{') {
      if (++depth > MAX_DEPTH) return json_error(name, buf, i, "nesting deeper than 256 levels", err);
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    } else if (c == ',' && ++values > MAX_VALUES) {
      return json_error(name, buf, i, "more than 1000000 JSON values", err);
    }
  }
  return 0;
}

/* Strict syntax check (no comments) with the position of the first error. */
static int check_syntax(const char *name, const char *buf, size_t len, crt_err **err) {
  if (len == 0) return crt_error(err, 0, "%s: invalid JSON: empty document", name);
  const char *nul = memchr(buf, 0, len);
  if (nul) return json_error(name, buf, (size_t)(nul - buf), "NUL byte in JSON text", err);
  if (check_depth(name, buf, len, err) < 0) return -1;
  yajl_handle h = yajl_alloc(NULL, NULL, NULL);
  if (h == NULL) abort();
  yajl_status st = yajl_parse(h, (const unsigned char *)buf, len);
  size_t off = yajl_get_bytes_consumed(h);
  bool at_end = false;
  if (st == yajl_status_ok) {
    st = yajl_complete_parse(h);
    off = len;
    at_end = true;
  }
  int ret = 0;
  if (st != yajl_status_ok) {
    unsigned char *m = yajl_get_error(h, 0, (const unsigned char *)buf, len);
    char *msg = m ? strdup((char *)m) : NULL;
    if (m) yajl_free_error(h, m);
    size_t n = msg ? strlen(msg) : 0;
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ' || msg[n - 1] == '.')) msg[--n] = 0;
    /* After a grammar error yajl counts the offending token as consumed;
     * after a lexical one it stops before it.  Point at the byte itself. */
    if (msg && strncmp(msg, "parse error", 11) == 0 && off > 0 && !at_end) off--;
    ret = json_error(name, buf, off > len ? len : off, msg && *msg ? msg : "syntax error", err);
    free(msg);
  }
  yajl_free(h);
  return ret;
}

static int parse_tree(const char *buf, size_t len, const char *name, yajl_val *out, crt_err **err) {
  if (check_syntax(name, buf, len, err) < 0) return -1;
  cleanup_free char *copy = malloc(len + 1);
  if (copy == NULL) return crt_error(err, ENOMEM, "%s: parse", name);
  memcpy(copy, buf, len);
  copy[len] = 0;
  char ebuf[256] = "";
  *out = yajl_tree_parse(copy, ebuf, sizeof ebuf);
  if (*out == NULL) return crt_error(err, 0, "%s: invalid JSON: %s", name, ebuf[0] ? ebuf : "parse error");
  if ((*out)->type != yajl_t_object) {
    crt_error(err, 0, "%s: expected a JSON object at the top level, got %s", name, type_name(*out));
    yajl_tree_free(*out);
    return -1;
  }
  return 0;
}

int crt_spec_parse(const char *buf, size_t len, const char *name, crt_spec **out, crt_err **err) {
  *out = NULL;
  yajl_val tree;
  if (parse_tree(buf, len, name, &tree, err) < 0) return -1;
  P p = {.name = name, .err = err};
  crt_spec *sp = xcalloc(1, sizeof *sp);
  int r = parse_spec_obj(&p, tree, sp);
  yajl_tree_free(tree);
  if (r < 0) {
    crt_spec_free(sp);
    return -1;
  }
  *out = sp;
  return 0;
}

int crt_process_parse(const char *buf, size_t len, const char *name, crt_process **out, crt_err **err) {
  *out = NULL;
  yajl_val tree;
  if (parse_tree(buf, len, name, &tree, err) < 0) return -1;
  P p = {.name = name, .err = err};
  crt_process *pr = xcalloc(1, sizeof *pr);
  int r = parse_process_obj(&p, tree, pr);
  yajl_tree_free(tree);
  if (r < 0) {
    crt_process_free(pr);
    return -1;
  }
  *out = pr;
  return 0;
}

/* config.json must be a regular file; a process file (exec -p) may be any
 * readable file, a pipe such as /dev/stdin included, as in runc.  Opening
 * a FIFO for it blocks until a writer comes, as runc's os.Open does. */
static int load(const char *path, bool any_file, char **buf, size_t *len, crt_err **err) {
  cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (any_file ? 0 : O_NONBLOCK));
  if (fd < 0) return crt_error(err, errno, "open %s", path);
  struct stat st;
  if (fstat(fd, &st) < 0) return crt_error(err, errno, "stat %s", path);
  if (!any_file && !S_ISREG(st.st_mode)) return crt_error(err, 0, "%s: not a regular file", path);
  if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > MAX_CONFIG_SIZE)
    return crt_error(err, 0, "%s: file too large (%lld bytes, at most 64 MiB)", path, (long long)st.st_size);
  if (crt_read_fd(fd, MAX_CONFIG_SIZE, buf, len, err) < 0) return crt_error_wrap(err, "read %s", path);
  return 0;
}

int crt_spec_load(const char *path, crt_spec **out, crt_err **err) {
  *out = NULL;
  cleanup_free char *buf = NULL;
  size_t len = 0;
  if (load(path, false, &buf, &len, err) < 0) return -1;
  const char *base = strrchr(path, '/');
  return crt_spec_parse(buf, len, base ? base + 1 : path, out, err);
}

int crt_process_load(const char *path, crt_process **out, crt_err **err) {
  *out = NULL;
  cleanup_free char *buf = NULL;
  size_t len = 0;
  if (load(path, true, &buf, &len, err) < 0) return -1;
  return crt_process_parse(buf, len, path, out, err);
}
