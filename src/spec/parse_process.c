/* config.json's process object (and exec --process files). */
#define _GNU_SOURCE
#include <string.h>

#include "crt/idlist.h"
#include "internal.h"
#include "json.h"

/* The list sched_setaffinity will get, checked by the same parser now. */
static int check_cpulist(jp *p, const char *s) {
  unsigned long mask[CRT_IDLIST_BITS / (8 * sizeof(unsigned long))];
  crt_err *e = NULL;
  if (crt_parse_id_list(s, mask, CRT_IDLIST_BITS, &e) == 0) return 0;
  jp_fail(p, "invalid CPU list: %s", e->msg);
  crt_err_free(&e);
  return -1;
}

static int parse_rlimit(jp *p, yajl_val o, crt_rlimit *r) {
  if (f_str(p, o, "type", true, &r->type) < 0) return -1;
  r->resource = crt_spec_lookup_num(crt_spec_rlimits, r->type);
  if (r->resource < 0) {
    jp_push(p, ".type");
    return jp_fail(p, "unknown rlimit type \"%s\"", r->type);
  }
  if (f_uint(p, o, "hard", true, UINT64_MAX, &r->hard, NULL) < 0) return -1;
  return f_uint(p, o, "soft", true, UINT64_MAX, &r->soft, NULL);
}

static int parse_caps(jp *p, yajl_val o, crt_capabilities *c) {
  struct {
    const char *key;
    crt_strv *l;
    bool *has;
  } sets[] = {{"bounding", &c->bounding, &c->has_bounding},    {"effective", &c->effective, &c->has_effective},
              {"inheritable", &c->inheritable, &c->has_inheritable},
              {"permitted", &c->permitted, &c->has_permitted}, {"ambient", &c->ambient, &c->has_ambient}};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    /* Any name: one that no kernel or not this one knows is skipped with
     * runc's warning when the sets are applied (src/linux/caps.c), as
     * runc does and v1.3 config.md asks ("SHOULD NOT fail"). */
    if (f_strv(p, o, sets[i].key, sets[i].l, sets[i].has) < 0) return -1;
  }
  return 0;
}

static int parse_user(jp *p, yajl_val o, crt_user *u) {
  /* runc: a missing uid or gid is 0, Go's zero value (the spec says
   * REQUIRED; docs/spec-conformance.md) */
  if (f_u32(p, o, "uid", false, &u->uid) < 0) return -1;
  if (f_u32(p, o, "gid", false, &u->gid) < 0) return -1;
  if (f_cu64(p, o, "umask", UINT32_MAX, &u->umask) < 0) return -1;
  if (f_str(p, o, "username", false, &u->username) < 0) return -1;
  yajl_val v;
  size_t s;
  if (jp_enter(p, o, "additionalGids", yajl_t_array, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  u->additional_gids = jp_calloc(v->u.array.len, sizeof(uint32_t));
  for (size_t i = 0; i < v->u.array.len; i++) {
    size_t si = jp_push(p, "[%zu]", i);
    uint64_t g;
    if (jp_num_u(p, v->u.array.values[i], UINT32_MAX, &g) < 0) return -1;
    u->additional_gids[i] = (uint32_t)g;
    u->n_additional_gids = i + 1;
    jp_pop(p, si);
  }
  jp_pop(p, s);
  return 0;
}

static int parse_scheduler(jp *p, yajl_val o, crt_scheduler *sc) {
  if (f_str(p, o, "policy", true, &sc->policy) < 0) return -1;
  sc->policy_num = crt_spec_lookup_num(crt_spec_sched_policies, sc->policy);
  if (sc->policy_num < 0) {
    jp_push(p, ".policy");
    return jp_fail(p, "unknown scheduler policy \"%s\"", sc->policy);
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
      jp_push(p, ".flags[%zu]", i);
      return jp_fail(p, "unknown scheduler flag \"%s\"", sc->flags.v[i]);
    }
  if (f_uint(p, o, "runtime", false, UINT64_MAX, &sc->runtime, NULL) < 0) return -1;
  if (f_uint(p, o, "deadline", false, UINT64_MAX, &sc->deadline, NULL) < 0) return -1;
  return f_uint(p, o, "period", false, UINT64_MAX, &sc->period, NULL);
}

static int parse_ioprio(jp *p, yajl_val o, crt_ioprio *io) {
  if (f_str(p, o, "class", true, &io->class_name) < 0) return -1;
  io->class_num = crt_spec_lookup_num(crt_spec_ioprio_classes, io->class_name);
  if (io->class_num < 0) {
    jp_push(p, ".class");
    return jp_fail(p, "unknown I/O priority class \"%s\"", io->class_name);
  }
  /* runc: a missing priority is 0 (crun's io-priority-idle gives none) */
  return f_int(p, o, "priority", false, 0, 7, &io->priority, NULL);
}

static int parse_console_size(jp *p, yajl_val o, crt_process *pr) {
  if (f_u32(p, o, "height", true, &pr->console_height) < 0) return -1;
  if (f_u32(p, o, "width", true, &pr->console_width) < 0) return -1;
  pr->has_console_size = true;
  return 0;
}

static int parse_affinity(jp *p, yajl_val o, crt_exec_cpu_affinity *a) {
  if (f_str(p, o, "initial", false, &a->initial) < 0) return -1;
  if (f_str(p, o, "final", false, &a->final) < 0) return -1;
  size_t s = jp_push(p, ".initial");
  if (a->initial && check_cpulist(p, a->initial) < 0) return -1;
  jp_pop(p, s);
  jp_push(p, ".final");
  if (a->final && check_cpulist(p, a->final) < 0) return -1;
  jp_pop(p, s);
  return 0;
}

JP_ADAPT(parse_rlimit)

static int parse_rlimits(jp *p, yajl_val o, crt_process *pr) {
  if (OBJV(p, o, "rlimits", parse_rlimit, &pr->rlimits, &pr->n_rlimits) < 0) return -1;
  for (size_t i = 0; i < pr->n_rlimits; i++)
    for (size_t j = 0; j < i; j++)
      if (pr->rlimits[i].resource == pr->rlimits[j].resource) {
        jp_push(p, ".rlimits[%zu].type", i);
        return jp_fail(p, "duplicate rlimit type \"%s\"", pr->rlimits[i].type);
      }
  return 0;
}


JP_ADAPT(parse_console_size)
JP_ADAPT(parse_user)
JP_ADAPT(parse_caps)
JP_ADAPT(parse_scheduler)
JP_ADAPT(parse_ioprio)
JP_ADAPT(parse_affinity)

int spec_parse_process(jp *p, yajl_val o, crt_process *pr) {
  if (f_bool(p, o, "terminal", false, &pr->terminal, NULL) < 0) return -1;
  if (IN_PLACE(p, o, "consoleSize", parse_console_size, pr) < 0) return -1;
  if (IN_PLACE(p, o, "user", parse_user, &pr->user) < 0) return -1;
  if (f_strv(p, o, "args", &pr->args, NULL) < 0) return -1;
  if (f_str(p, o, "commandLine", false, &pr->command_line) < 0) return -1;
  if (f_strv(p, o, "env", &pr->env, NULL) < 0) return -1;
  if (jp_each(p, "env", &pr->env, jp_check_env) < 0) return -1;
  if (f_str(p, o, "cwd", false, &pr->cwd) < 0) return -1;
  if (pr->cwd) {
    size_t s = jp_push(p, ".cwd");
    if (jp_check_abs(p, pr->cwd) < 0) return -1;
    jp_pop(p, s);
  }
  if (SUB(p, o, "capabilities", parse_caps, &pr->capabilities) < 0) return -1;
  if (parse_rlimits(p, o, pr) < 0) return -1;
  if (f_bool(p, o, "noNewPrivileges", false, &pr->no_new_privileges, NULL) < 0) return -1;
  if (f_str(p, o, "apparmorProfile", false, &pr->apparmor_profile) < 0) return -1;
  if (f_int(p, o, "oomScoreAdj", false, -1000, 1000, &pr->oom_score_adj.v, &pr->oom_score_adj.set) < 0) return -1;
  if (SUB(p, o, "scheduler", parse_scheduler, &pr->scheduler) < 0) return -1;
  if (f_str(p, o, "selinuxLabel", false, &pr->selinux_label) < 0) return -1;
  if (SUB(p, o, "ioPriority", parse_ioprio, &pr->io_priority) < 0) return -1;
  return SUB(p, o, "execCPUAffinity", parse_affinity, &pr->exec_cpu_affinity);
}
