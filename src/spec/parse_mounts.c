/* config.json's mounts and hooks. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>

#include "crt/log.h"
#include "internal.h"
#include "json.h"

static int parse_options(jp *p, crt_mount *m) {
  crt_err *e = NULL;
  if (crt_mount_opts_parse(&m->options, &m->opts, &e) == 0) return 0;
  jp_push(p, ".options");
  jp_fail(p, "%s", e->msg);
  crt_err_free(&e);
  return -1;
}

/* The kernel idmaps a clone of an existing tree only: bind mounts. */
static int check_idmap(jp *p, const crt_mount *m) {
  if (crt_mount_is_bind(m)) return 0;
  for (size_t i = 0; i < m->options.len; i++)
    if (!strcmp(m->options.v[i], "idmap") || !strcmp(m->options.v[i], "ridmap")) {
      jp_push(p, ".options[%zu]", i);
      return jp_fail(p, "%s is only supported on bind mounts", m->options.v[i]);
    }
  if (m->uid_mappings.len || m->gid_mappings.len) {
    jp_push(p, ".%s", m->uid_mappings.len ? "uidMappings" : "gidMappings");
    return jp_fail(p, "idmapped mounts are only supported on bind mounts");
  }
  return 0;
}

int spec_parse_mount(jp *p, yajl_val o, crt_mount *m) {
  if (f_str(p, o, "destination", true, &m->destination) < 0) return -1;
  if (m->destination[0] == 0) {
    jp_push(p, ".destination");
    return jp_fail(p, "must not be empty");
  }
  /* config.md: SHOULD be absolute; relative is deprecated, relative to "/". */
  if (m->destination[0] != '/')
    crt_warn("%s: %s.destination: relative mount destination \"%s\" is deprecated", p->name, p->path,
             m->destination);
  if (f_str(p, o, "source", false, &m->source) < 0) return -1;
  if (f_str(p, o, "type", false, &m->type) < 0) return -1;
  if (f_strv(p, o, "options", &m->options, NULL) < 0) return -1;
  if (parse_options(p, m) < 0) return -1;
  if (f_idmaps(p, o, "uidMappings", &m->uid_mappings) < 0) return -1;
  if (f_idmaps(p, o, "gidMappings", &m->gid_mappings) < 0) return -1;
  return check_idmap(p, m);
}

static int parse_hook(jp *p, yajl_val o, crt_hook *h) {
  if (f_str(p, o, "path", true, &h->path) < 0) return -1;
  size_t s = jp_push(p, ".path");
  if (jp_check_abs(p, h->path) < 0) return -1;
  jp_pop(p, s);
  if (f_strv(p, o, "args", &h->args, NULL) < 0) return -1;
  if (f_strv(p, o, "env", &h->env, NULL) < 0) return -1;
  if (jp_each(p, "env", &h->env, jp_check_env) < 0) return -1;
  if (f_ci64(p, o, "timeout", &h->timeout) < 0) return -1;
  if (h->timeout.set && h->timeout.v <= 0) {
    jp_push(p, ".timeout");
    return jp_fail(p, "must be greater than zero, got %" PRId64, h->timeout.v);
  }
  return 0;
}

JP_ADAPT(parse_hook)

int spec_parse_hooks(jp *p, yajl_val o, crt_hooks *h) {
  crt_hookv *kinds[] = {&h->prestart, &h->create_runtime, &h->create_container,
                        &h->start_container, &h->poststart, &h->poststop};
  for (size_t i = 0; crt_spec_hook_names[i]; i++)
    if (OBJV(p, o, crt_spec_hook_names[i], parse_hook, &kinds[i]->v, &kinds[i]->len) < 0) return -1;
  return 0;
}
