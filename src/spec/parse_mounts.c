/* config.json's mounts and hooks. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>

#include "crt/log.h"
#include "internal.h"
#include "json.h"

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
  if (f_idmaps(p, o, "uidMappings", &m->uid_mappings) < 0) return -1;
  return f_idmaps(p, o, "gidMappings", &m->gid_mappings);
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

int spec_parse_hooks(jp *p, yajl_val o, crt_hooks *h) {
  crt_hookv *kinds[] = {&h->prestart, &h->create_runtime, &h->create_container,
                        &h->start_container, &h->poststart, &h->poststop};
  for (size_t i = 0; crt_spec_hook_names[i]; i++)
    if (OBJV(p, o, crt_spec_hook_names[i], parse_hook, &kinds[i]->v, &kinds[i]->len) < 0) return -1;
  return 0;
}
