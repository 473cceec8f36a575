/* linux.seccomp. */
#define _GNU_SOURCE
#include <string.h>

#include "internal.h"
#include "json.h"

static int check_action(jp *p, const char *key, const char *action, bool has_errno) {
  size_t s = jp_push(p, ".%s", key);
  if (crt_spec_in_list(crt_spec_seccomp_actions, action) < 0) return jp_fail(p, "unknown seccomp action \"%s\"", action);
  jp_pop(p, s);
  if (has_errno && strcmp(action, "SCMP_ACT_ERRNO") && strcmp(action, "SCMP_ACT_TRACE"))
    return jp_fail(p, "errno return value set for action %s, which takes none", action);
  return 0;
}

static int parse_seccomp_arg(jp *p, yajl_val o, crt_seccomp_arg *a) {
  uint64_t idx = 0;
  if (f_uint(p, o, "index", true, 5, &idx, NULL) < 0) return -1;
  a->index = (uint32_t)idx;
  if (f_uint(p, o, "value", true, UINT64_MAX, &a->value, NULL) < 0) return -1;
  if (f_uint(p, o, "valueTwo", false, UINT64_MAX, &a->value_two, NULL) < 0) return -1;
  if (f_str(p, o, "op", true, &a->op_name) < 0) return -1;
  int op = crt_spec_in_list(crt_spec_seccomp_operators, a->op_name);
  if (op < 0) {
    jp_push(p, ".op");
    return jp_fail(p, "unknown seccomp operator \"%s\"", a->op_name);
  }
  a->op = (enum crt_seccomp_op)op;
  return 0;
}

JP_ADAPT(parse_seccomp_arg)

static int parse_syscall(jp *p, yajl_val o, crt_seccomp_syscall *c) {
  if (f_strv(p, o, "names", &c->names, NULL) < 0) return -1;
  if (c->names.len == 0) return jp_get(o, "names") ? (jp_push(p, ".names"), jp_fail(p, "must not be empty")) : jp_missing(p, "names");
  if (f_str(p, o, "action", true, &c->action) < 0) return -1;
  if (f_cu64(p, o, "errnoRet", UINT32_MAX, &c->errno_ret) < 0) return -1;
  if (check_action(p, "action", c->action, c->errno_ret.set) < 0) return -1;
  return OBJV(p, o, "args", parse_seccomp_arg, &c->args, &c->n_args);
}


JP_ADAPT(parse_syscall)

int spec_parse_seccomp(jp *p, yajl_val o, crt_seccomp *sc) {
  if (f_str(p, o, "defaultAction", true, &sc->default_action) < 0) return -1;
  if (f_cu64(p, o, "defaultErrnoRet", UINT32_MAX, &sc->default_errno_ret) < 0) return -1;
  if (check_action(p, "defaultAction", sc->default_action, sc->default_errno_ret.set) < 0) return -1;
  if (f_strv(p, o, "architectures", &sc->architectures, NULL) < 0) return -1;
  if (jp_check_in(p, "architectures", &sc->architectures, crt_spec_seccomp_archs, "seccomp architecture") < 0)
    return -1;
  if (f_strv(p, o, "flags", &sc->flags, NULL) < 0) return -1;
  if (jp_check_in(p, "flags", &sc->flags, crt_spec_seccomp_flags, "seccomp flag") < 0) return -1;
  if (f_str(p, o, "listenerPath", false, &sc->listener_path) < 0) return -1;
  if (f_str(p, o, "listenerMetadata", false, &sc->listener_metadata) < 0) return -1;
  if (sc->listener_metadata && !sc->listener_path) { /* config-linux.md: "MUST NOT be set if listenerPath is not set" */
    jp_push(p, ".listenerMetadata");
    return jp_fail(p, "set without listenerPath");
  }
  if (OBJV(p, o, "syscalls", parse_syscall, &sc->syscalls, &sc->n_syscalls) < 0) return -1;
  bool notify = strcmp(sc->default_action, "SCMP_ACT_NOTIFY") == 0;
  for (size_t i = 0; i < sc->n_syscalls; i++) notify = notify || strcmp(sc->syscalls[i].action, "SCMP_ACT_NOTIFY") == 0;
  if (notify && sc->listener_path == NULL) return jp_fail(p, "SCMP_ACT_NOTIFY is used but listenerPath is not set");
  return 0;
}
