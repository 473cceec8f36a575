/* cgroups: the device rules a container gets (runc's defaults and the
 * spec's), the same list for the v1 files and the v2 eBPF filter. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_internal.h"

/* runc's libcontainer/specconv AllowedDevices. */
static const struct {
  const char *type;
  long long major, minor; /* -1: wildcard */
  const char *access;
} default_rules[] = {
    {"c", -1, -1, "m"},   {"b", -1, -1, "m"},   {"c", 1, 3, "rwm"}, {"c", 1, 8, "rwm"},   {"c", 1, 7, "rwm"},
    {"c", 5, 0, "rwm"},   {"c", 1, 5, "rwm"},   {"c", 1, 9, "rwm"}, {"c", 136, -1, "rwm"}, {"c", 5, 2, "rwm"},
};

static int push_rule(crt_device_rule **v, size_t *n, bool allow, const char *type, bool has_maj, long long maj,
                     bool has_min, long long min, const char *access) {
  crt_device_rule *nv = realloc(*v, (*n + 1) * sizeof **v);
  if (!nv) return -1;
  *v = nv;
  crt_device_rule *r = &nv[(*n)++];
  memset(r, 0, sizeof *r);
  r->allow = allow;
  r->type = strdup(type ? type : "a");
  r->access = strdup(access && *access ? access : "rwm");
  r->major.set = has_maj;
  r->major.v = maj;
  r->minor.set = has_min;
  r->minor.v = min;
  return r->type && r->access ? 0 : -1;
}

void cg_device_rules_free(crt_device_rule *r, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(r[i].type);
    free(r[i].access);
  }
  free(r);
}

static int push_defaults(crt_device_rule **v, size_t *k) {
  int rc = 0;
  for (size_t i = 0; i < sizeof default_rules / sizeof default_rules[0] && rc == 0; i++)
    rc = push_rule(v, k, true, default_rules[i].type, default_rules[i].major >= 0, default_rules[i].major,
                   default_rules[i].minor >= 0, default_rules[i].minor, default_rules[i].access);
  return rc;
}

/* As runc: linux.devices only makes nodes; a node gets a cgroup rule only
 * through linux.resources.devices or the defaults, so a spec denying all
 * cannot be undone by listing a node. */
int cg_device_rules(const crt_spec *spec, crt_device_rule **out, size_t *n, crt_err **err) {
  crt_device_rule *v = NULL;
  size_t k = 0;
  const crt_linux *l = spec ? spec->linux_ : NULL;
  int rc = 0;
  if (l && l->resources)
    for (size_t i = 0; i < l->resources->n_devices && rc == 0; i++) {
      const crt_device_rule *d = &l->resources->devices[i];
      rc = push_rule(&v, &k, d->allow, d->type, d->major.set, d->major.v, d->minor.set, d->minor.v, d->access);
    }
  if (rc == 0) rc = push_defaults(&v, &k);
  if (rc < 0) {
    cg_device_rules_free(v, k);
    return crt_error(err, ENOMEM, "cgroup: device rules");
  }
  *out = v;
  *n = k;
  return 0;
}

int cg_update_device_rules(const crt_resources *r, crt_device_rule **out, size_t *n, crt_err **err) {
  crt_device_rule *v = NULL;
  size_t k = 0;
  int rc = push_defaults(&v, &k);
  for (size_t i = 0; i < r->n_devices && rc == 0; i++) {
    const crt_device_rule *d = &r->devices[i];
    rc = push_rule(&v, &k, d->allow, d->type, d->major.set, d->major.v, d->minor.set, d->minor.v, d->access);
  }
  if (rc < 0) {
    cg_device_rules_free(v, k);
    return crt_error(err, ENOMEM, "cgroup: device rules");
  }
  *out = v;
  *n = k;
  return 0;
}

