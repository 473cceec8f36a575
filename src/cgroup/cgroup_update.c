/* crt update: checks the values first (cgroup_values.c), then writes them
 * through the driver with a journal (cgroup_journal.c); when a write still
 * fails, the files already written are put back as they were, so that an
 * update is applied whole or not at all. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "cgroup_internal.h"
#include "crt/log.h"

/* ---- update ---- */

static bool allows_all(const crt_device_rule *d) {
  bool any = !d->type || strcmp(d->type, "a") == 0;
  const char *a = d->access && *d->access ? d->access : "rwm";
  return d->allow && any && (!d->major.set || d->major.v < 0) && (!d->minor.set || d->minor.v < 0) &&
         strchr(a, 'r') && strchr(a, 'w') && strchr(a, 'm');
}

/* update's devices: runc's defaults, then the update's rules (last match
 * wins), applied whole: v1 from devices.deny a, v2 as a new eBPF program
 * that replaces the attached one (atomic: a refused program leaves the old). */
static int update_devices(const cg_driver *d, cg_journal *j, const char *path, const crt_resources *r,
                          crt_err **err) {
  for (size_t i = 0; i < r->n_devices; i++)
    if (allows_all(&r->devices[i]))
      crt_warn("update: linux.resources.devices[%zu] allows access to all devices", i);
  crt_device_rule *rules = NULL;
  size_t n = 0;
  if (cg_update_device_rules(r, &rules, &n, err) < 0) return -1;
  int rc = d->devices(d, j, path, rules, n, err);
  cg_device_rules_free(rules, n);
  return rc;
}

int crt_cgroup_update(const crt_cgroup *cg, const crt_resources *r, crt_err **err) {
  if (!cg || !*cg->path) return crt_error(err, ENOENT, "cgroup: the container has no cgroup");
  if (!r) return 0;
  const cg_driver *d = &cg->fs;
  const char *path = cg->path;
  cg_journal j = {0};
  /* apply validates every value before its first write */
  int rc = d->apply(d, &j, path, r, err);
  /* devices last: a v2 program is replaced atomically, and nothing after
   * it can fail */
  if (rc == 0 && r->n_devices) rc = update_devices(d, &j, path, r, err);
  /* systemd: the unit's properties too (it writes them again at a
   * daemon-reload), once the files took the values.  Setting them makes
   * systemd write the unit's files at once, from what it derives: a cpu
   * period with an unlimited quota becomes its default period there.  So
   * the files are written once more, last, as runc writes them after the
   * properties. */
  if (rc == 0 && cg->systemd) rc = cg_systemd_update(d, path, r, err);
  if (rc == 0 && cg->systemd) {
    cg_journal again = {0};
    rc = d->apply(d, &again, path, r, err);
    cg_journal_free(&again);
  }
  if (rc < 0) cg_journal_rollback(&j, err);
  cg_journal_free(&j);
  return rc;
}

/* ---- update's input ---- */

int crt_cgroup_parse_size(const char *s, long long *out) {
  if (!s || !*s) return -1;
  if (strcmp(s, "-1") == 0) {
    *out = -1;
    return 0;
  }
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || v < 0 || !isdigit((unsigned char)*s)) return -1;
  while (*end == ' ') end++;
  double mul = 1;
  const char *units = "kmgtp";
  if (*end) {
    const char *u = strchr(units, tolower((unsigned char)*end));
    if (u) {
      for (const char *q = units; q <= u; q++) mul *= 1024;
      end++;
    }
    if (*end == 'i' || *end == 'I') end++;
    if (*end == 'b' || *end == 'B') end++;
    if (*end) return -1;
  }
  double r = v * mul;
  if (r > 9.2e18) return -1;
  *out = (long long)r;
  return 0;
}

/* update -r: the spec's own resources parser, so create and update agree. */
int crt_cgroup_parse_resources_json(const char *buf, const char *name, crt_resources *r, crt_err **err) {
  return crt_resources_parse(buf, strlen(buf), name, r, err);
}

void crt_cgroup_resources_clear(crt_resources *r) { crt_resources_clear(r); }
