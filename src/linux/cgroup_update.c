/* crt update: checks the values first, then writes them; when a write still
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

/* ---- validation ---- */

static int check_mem_value(const crt_i64 *v, const char *name, crt_err **err) {
  if (v->set && v->v < -1)
    return crt_error(err, 0, "cgroup: invalid memory.%s %lld (a size in bytes, or -1 for unlimited)", name,
                     (long long)v->v);
  return 0;
}

static int check_memory(const crt_resources *r, bool v2, crt_err **err) {
  const __typeof__(r->memory) *m = &r->memory;
  if (check_mem_value(&m->limit, "limit", err) < 0 || check_mem_value(&m->reservation, "reservation", err) < 0 ||
      check_mem_value(&m->swap, "swap", err) < 0)
    return -1;
  long long limit = m->limit.set ? m->limit.v : 0, swap = m->swap.set ? m->swap.v : 0;
  if (v2) {
    long long out;
    return cg_swap_v2(swap, limit, &out, err);
  }
  if (limit > 0 && swap > 0 && swap < limit)
    return crt_error(err, 0, "cgroup: memory.swap (%lld) should be >= memory.limit (%lld): it is memory+swap",
                     swap, limit);
  /* runc: swappiness -1 (as uint64) means "leave it" */
  if (!v2 && m->swappiness.set && m->swappiness.v != UINT64_MAX && m->swappiness.v > 100)
    return crt_error(err, 0, "cgroup: invalid memory.swappiness %llu (0-100)",
                     (unsigned long long)m->swappiness.v);
  return 0;
}

/* The kernel's CFS bounds: a period of 1 ms to 1 s, a quota of at least 1 ms. */
static int check_cpu(const crt_resources *r, bool v2, crt_err **err) {
  const __typeof__(r->cpu) *c = &r->cpu;
  if (c->period.set && c->period.v && (c->period.v < 1000 || c->period.v > 1000000))
    return crt_error(err, 0, "cgroup: invalid cpu.period %llu (1000-1000000 us, or 0 to leave it)",
                     (unsigned long long)c->period.v);
  if (c->quota.set && c->quota.v > 0 && c->quota.v < 1000)
    return crt_error(err, 0, "cgroup: invalid cpu.quota %lld (at least 1000 us, -1 for unlimited, 0 to leave it)",
                     (long long)c->quota.v);
  if (v2) {
    if ((c->realtime_period.set && c->realtime_period.v) || (c->realtime_runtime.set && c->realtime_runtime.v))
      return crt_error(err, ENOTSUP, "cgroup: invalid configuration: cpu.realtimePeriod/realtimeRuntime are not supported on cgroup v2");
    return 0;
  }
  /* v1 clamps silently; runc reads the value back and refuses the clamp */
  if (c->shares.set && c->shares.v && (c->shares.v < 2 || c->shares.v > 262144))
    return crt_error(err, 0, "cgroup: invalid cpu.shares %llu (2-262144, or 0 to leave it)",
                     (unsigned long long)c->shares.v);
  return 0;
}

static int check_weight(const crt_u64 *w, const char *name, crt_err **err) {
  if (w->set && w->v && (w->v < 10 || w->v > 1000))
    return crt_error(err, 0, "cgroup: invalid blockIO.%s %llu (10-1000, or 0 to leave it)", name,
                     (unsigned long long)w->v);
  return 0;
}

static int check_blkio_v1(const crt_resources *r, crt_err **err) {
  if (check_weight(&r->blkio.weight, "weight", err) < 0 || check_weight(&r->blkio.leaf_weight, "leafWeight", err) < 0)
    return -1;
  for (size_t i = 0; i < r->blkio.n_weight_device; i++)
    if (check_weight(&r->blkio.weight_device[i].weight, "weightDevice[].weight", err) < 0 ||
        check_weight(&r->blkio.weight_device[i].leaf_weight, "weightDevice[].leafWeight", err) < 0)
      return -1;
  return 0;
}

static int check_names(const crt_resources *r, bool v2, crt_err **err) {
  for (size_t i = 0; i < r->n_hugepage_limits; i++) {
    const char *s = r->hugepage_limits[i].page_size;
    if (!s || !*s || strchr(s, '/')) return crt_error(err, EINVAL, "cgroup: invalid hugepage size %s", s ? s : "(null)");
  }
  if (!v2 && r->unified.len > 0)
    return crt_error(err, EINVAL, "cgroup: invalid configuration: linux.resources.unified requires cgroup v2 (this host uses cgroup v1)");
  for (size_t i = 0; v2 && i < r->unified.len; i++) {
    const char *k = r->unified.v[i].key;
    if (!k || !*k || strchr(k, '/') || *k == '.')
      return crt_error(err, EINVAL, "cgroup: linux.resources.unified: invalid key \"%s\"", k ? k : "");
  }
  if (v2 && ((r->network.class_id.set && r->network.class_id.v) || r->network.n_priorities))
    return crt_error(err, ENOTSUP,
                     "cgroup: linux.resources.network needs the v1 net_cls/net_prio controllers, not available on cgroup v2");
  return 0;
}

int cg_validate(const crt_resources *r, bool v2, crt_err **err) {
  if (check_memory(r, v2, err) < 0 || check_cpu(r, v2, err) < 0 || check_names(r, v2, err) < 0) return -1;
  return v2 ? 0 : check_blkio_v1(r, err);
}

/* ---- the journal ---- */

typedef struct {
  char *dir, *file, *old;
} undo_entry;

static struct {
  bool on;
  undo_entry *v;
  size_t n;
} journal;

static bool noted(const char *dir, const char *file) {
  for (size_t i = 0; i < journal.n; i++)
    if (strcmp(journal.v[i].dir, dir) == 0 && strcmp(journal.v[i].file, file) == 0) return true;
  return false;
}

static void free_entry(undo_entry *u) {
  free(u->dir);
  free(u->file);
  free(u->old);
}

static bool push_entry(const char *dir, const char *file, char *old) {
  undo_entry *nv = realloc(journal.v, (journal.n + 1) * sizeof *nv);
  if (!nv) {
    crt_warn("cgroup: out of memory recording %s/%s for a rollback", dir, file);
    free(old);
    return false;
  }
  journal.v = nv;
  nv[journal.n++] = (undo_entry){strdup(dir), strdup(file), old};
  return true;
}

bool cg_journal_note(const char *dir, const char *file) {
  /* device rules are restored from the devices.list snapshot */
  if (!journal.on || strcmp(file, "devices.allow") == 0 || strcmp(file, "devices.deny") == 0 || noted(dir, file))
    return false;
  char *old = cg_read(dir, file);
  if (!old) return false; /* nothing to put back: the write fails too */
  size_t len = strlen(old);
  while (len && old[len - 1] == '\n') old[--len] = 0;
  return push_entry(dir, file, old);
}

void cg_journal_unnote(void) {
  if (journal.n) free_entry(&journal.v[--journal.n]);
}

void cg_journal_note_devices(const char *dir) {
  if (!journal.on || noted(dir, "devices.list")) return;
  char *old = cg_read(dir, "devices.list");
  if (old) push_entry(dir, "devices.list", old);
}

static void journal_clear(void) {
  for (size_t i = 0; i < journal.n; i++) free_entry(&journal.v[i]);
  free(journal.v);
  journal.v = NULL;
  journal.n = 0;
  journal.on = false;
}

/* One line per write: keyed files (io.max, *_device) take one key a write. */
static int write_lines(const char *dir, const char *file, const char *text, crt_err **err) {
  if (!*text) return cg_write(dir, file, "", err);
  cleanup_free char *copy = strdup(text);
  if (!copy) return crt_error(err, ENOMEM, "cgroup: restore %s", file);
  char *save = NULL;
  for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
    if (cg_write(dir, file, l, err) < 0) return -1;
  return 0;
}

static int restore(const undo_entry *u, crt_err **err) {
  if (strcmp(u->file, "devices.list") != 0) return write_lines(u->dir, u->file, u->old, err);
  if (cg_write(u->dir, "devices.deny", "a", err) < 0) return -1;
  return write_lines(u->dir, "devices.allow", u->old, err);
}

/* Puts every recorded file back, newest first (the order the kernel's
 * cross-file checks, memsw >= limit and quota vs period, accepted). */
static void journal_rollback(crt_err **err) {
  journal.on = false;
  size_t ok = 0, bad = 0;
  char failed[256] = "";
  for (size_t i = journal.n; i-- > 0;) {
    crt_err *e = NULL;
    if (restore(&journal.v[i], &e) == 0) {
      ok++;
      continue;
    }
    if (bad++ == 0) snprintf(failed, sizeof failed, "%s", e->msg);
    crt_err_free(&e);
  }
  if (bad)
    crt_error_wrap(err, "cgroup: update failed, and %zu of %zu file(s) already written could not be restored (first: %s)",
                   bad, ok + bad, failed);
  else if (ok)
    crt_error_wrap(err, "cgroup: update failed; the %zu file(s) already written were restored", ok);
}

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
static int update_devices(const char *path, const crt_resources *r, crt_err **err) {
  for (size_t i = 0; i < r->n_devices; i++)
    if (allows_all(&r->devices[i]))
      crt_warn("update: linux.resources.devices[%zu] allows access to all devices", i);
  crt_device_rule *rules = NULL;
  size_t n = 0;
  if (cg_update_device_rules(r, &rules, &n, err) < 0) return -1;
  int rc = cg_drv()->devices(path, rules, n, err);
  cg_device_rules_free(rules, n);
  return rc;
}

int crt_cgroup_update(const char *path, const crt_resources *r, crt_err **err) {
  if (!path || !*path) return crt_error(err, ENOENT, "cgroup: the container has no cgroup");
  if (!r) return 0;
  journal_clear();
  journal.on = true;
  /* apply validates every value before its first write */
  int rc = cg_drv()->apply(path, r, err);
  /* devices last: a v2 program is replaced atomically, and nothing after
   * it can fail */
  if (rc == 0 && r->n_devices) rc = update_devices(path, r, err);
  if (rc < 0) journal_rollback(err);
  journal_clear();
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
