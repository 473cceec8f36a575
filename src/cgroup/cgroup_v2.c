/* cgroup v2: one unified hierarchy; v1-style values are translated as runc
 * does (cgroup_values.c, formulas in docs/cgroups.md).  The v2 driver, and
 * the unified half of hybrid (cg_v2_enter, for cgroup_v1.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_internal.h"
#include "crt/fs.h"
#include "crt/log.h"
#include "crt/procinfo.h"
#include "crt/str.h"

static void fmt_max(char *buf, size_t len, long long v) {
  if (v < 0)
    snprintf(buf, len, "max");
  else
    snprintf(buf, len, "%lld", v);
}

/* memory.swap.max from v1's memory+swap (runc): 0 is unset; swap equal to
 * the limit disables swap ("0"); a host without swap accounting has no
 * file, which is fine for "max" and "0". */
static int v2_swap(cg_journal *j, const char *d, long long swap, long long limit, crt_err **err) {
  long long sw;
  if (cg_swap_v2(swap, limit, &sw, err) < 0) return -1;
  if (sw == 0 && swap <= 0) return 0;
  char buf[32];
  fmt_max(buf, sizeof buf, sw);
  crt_err *e = NULL;
  if (cg_jwrite(j, d, "memory.swap.max", buf, &e) == 0) return 0;
  if (e->errnum == ENOENT && (sw == 0 || sw == -1)) {
    crt_err_free(&e);
    return 0;
  }
  return crt_err_move(err, &e);
}

/* Zero means "not set" for every value, as in runc (dockerd sends zeros
 * for everything it was not asked for). */
static int v2_memory(cg_journal *j, const char *d, const crt_resources *r, crt_err **err) {
  const __typeof__(r->memory) *m = &r->memory;
  long long limit = m->limit.set ? m->limit.v : 0, swap = m->swap.set ? m->swap.v : 0;
  long long res = m->reservation.set ? m->reservation.v : 0;
  char buf[32];
  if (cg_check_before_update(d, "memory.current", r, err) < 0) return -1;
  if ((limit || swap || res) && v2_swap(j, d, swap, limit, err) < 0) return -1;
  if (limit) {
    fmt_max(buf, sizeof buf, limit);
    if (cg_jwrite(j, d, "memory.max", buf, err) < 0) return -1;
  }
  if (res) {
    fmt_max(buf, sizeof buf, res);
    if (cg_jwrite(j, d, "memory.low", buf, err) < 0) return -1;
  }
  if ((m->kernel.set && m->kernel.v) || (m->kernel_tcp.set && m->kernel_tcp.v))
    crt_warn("cgroup: memory.kernel/kernelTCP are not supported on cgroup v2; ignored");
  if (m->swappiness.set && m->swappiness.v != UINT64_MAX)
    crt_warn("cgroup: memory.swappiness is not supported on cgroup v2; ignored");
  if (m->disable_oom_killer.set && m->disable_oom_killer.v)
    crt_warn("cgroup: memory.disableOOMKiller is not supported on cgroup v2; ignored");
  return 0;
}

/* cg_validate refused realtime values on v2 */
static int v2_cpu(cg_journal *j, const char *d, const crt_resources *r, crt_err **err) {
  const __typeof__(r->cpu) *c = &r->cpu;
  if (c->shares.set && c->shares.v &&
      cg_jwritef(j, d, "cpu.weight", err, "%llu", cg_shares_to_weight(c->shares.v)) < 0)
    return -1;
  if ((c->quota.set && c->quota.v) || (c->period.set && c->period.v)) {
    char buf[64] = "max";
    if (c->quota.set && c->quota.v > 0) snprintf(buf, sizeof buf, "%lld", (long long)c->quota.v);
    if (c->period.set && c->period.v)
      snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " %llu", (unsigned long long)c->period.v);
    if (cg_jwrite(j, d, "cpu.max", buf, err) < 0) return -1;
  }
  if (c->burst.set && cg_jwritef(j, d, "cpu.max.burst", err, "%llu", (unsigned long long)c->burst.v) < 0) return -1;
  if (c->idle.set && cg_jwritef(j, d, "cpu.idle", err, "%lld", (long long)c->idle.v) < 0) return -1;
  if (c->cpus && *c->cpus && cg_jwrite(j, d, "cpuset.cpus", c->cpus, err) < 0) return -1;
  if (c->mems && *c->mems && cg_jwrite(j, d, "cpuset.mems", c->mems, err) < 0) return -1;
  return 0;
}

static int io_max(cg_journal *j, const char *d, const char *key, const crt_blkio_throttle *t, size_t n, crt_err **err) {
  for (size_t i = 0; i < n; i++)
    if (cg_jwritef(j, d, "io.max", err, "%lld:%lld %s=%llu", (long long)t[i].major, (long long)t[i].minor, key,
                  (unsigned long long)t[i].rate) < 0)
      return -1;
  return 0;
}

static int v2_io(cg_journal *j, const char *d, const crt_resources *r, crt_err **err) {
  const __typeof__(r->blkio) *b = &r->blkio;
  /* BFQ takes blkio's 1-1000 scale as is; io.weight is 1-10000. */
  bool bfq = cg_exists(d, "io.bfq.weight");
  if (b->weight.set && b->weight.v) {
    if (bfq) {
      if (cg_jwritef(j, d, "io.bfq.weight", err, "%llu", (unsigned long long)b->weight.v) < 0) return -1;
    } else if (cg_jwritef(j, d, "io.weight", err, "%llu", cg_blkio_to_io_weight(b->weight.v)) < 0) {
      return -1;
    }
  }
  if (b->leaf_weight.set && b->leaf_weight.v) crt_warn("cgroup: blockIO.leafWeight is not supported on cgroup v2; ignored");
  for (size_t i = 0; i < b->n_weight_device; i++) {
    const crt_blkio_weight_device *w = &b->weight_device[i];
    if (!w->weight.set || !w->weight.v) continue; /* runc: 0 leaves it */
    int rc = bfq ? cg_jwritef(j, d, "io.bfq.weight", err, "%lld:%lld %llu", (long long)w->major, (long long)w->minor,
                             (unsigned long long)w->weight.v)
                 : cg_jwritef(j, d, "io.weight", err, "%lld:%lld %llu", (long long)w->major, (long long)w->minor,
                             cg_blkio_to_io_weight(w->weight.v));
    if (rc < 0) return -1;
  }
  if (io_max(j, d, "rbps", b->throttle_read_bps, b->n_throttle_read_bps, err) < 0 ||
      io_max(j, d, "wbps", b->throttle_write_bps, b->n_throttle_write_bps, err) < 0 ||
      io_max(j, d, "riops", b->throttle_read_iops, b->n_throttle_read_iops, err) < 0 ||
      io_max(j, d, "wiops", b->throttle_write_iops, b->n_throttle_write_iops, err) < 0)
    return -1;
  return 0;
}

static int v2_unified(cg_journal *j, const char *d, const crt_kvv *u, crt_err **err) {
  for (size_t i = 0; i < u->len; i++) {
    const char *k = u->v[i].key;
    if (!k || !*k || strchr(k, '/') || *k == '.')
      return crt_error(err, EINVAL, "cgroup: linux.resources.unified: invalid key \"%s\"", k ? k : "");
    if (cg_jwrite(j, d, k, u->v[i].value ? u->v[i].value : "", err) < 0)
      return crt_error_wrap(err, "linux.resources.unified[\"%s\"]", k);
  }
  return 0;
}

int cg_v2_apply(cg_journal *j, const char *d, const crt_resources *r, crt_err **err) {
  if (cg_validate(r, true, err) < 0) return -1;
  if (v2_memory(j, d, r, err) < 0 || v2_cpu(j, d, r, err) < 0) return -1;
  if (r->pids.limit.set && r->pids.limit.v != 0) { /* runc: 0 leaves it; negative: max */
    char v[32] = "max";
    if (r->pids.limit.v > 0) snprintf(v, sizeof v, "%lld", (long long)r->pids.limit.v);
    if (cg_jwrite(j, d, "pids.max", v, err) < 0) return -1;
  }
  if (v2_io(j, d, r, err) < 0) return -1;
  for (size_t i = 0; i < r->n_hugepage_limits; i++) {
    const crt_hugepage_limit *h = &r->hugepage_limits[i];
    if (!h->page_size || strchr(h->page_size, '/'))
      return crt_error(err, EINVAL, "cgroup: invalid hugepage size %s", h->page_size ? h->page_size : "(null)");
    char file[128];
    if (crt_fmt(file, sizeof file, "hugetlb.%s.max", h->page_size) < 0)
      return crt_error(err, ENAMETOOLONG, "cgroup: hugepage size %s: too long", h->page_size);
    if (cg_jwritef(j, d, file, err, "%llu", (unsigned long long)h->limit) < 0) return -1;
  }
  for (size_t i = 0; i < r->n_rdma; i++) {
    char line[512];
    if (cg_rdma_line(&r->rdma[i], line, sizeof line, err) < 0) return -1;
    if (cg_jwrite(j, d, "rdma.max", line, err) < 0) return -1;
  }
  return v2_unified(j, d, &r->unified, err);
}

/* Enables in dir's subtree_control every controller dir has, all at once
 * (one write, as runc), else one by one, skipping those refused. */
static void enable_controllers(const char *dir) {
  cleanup_free char *ctrls = cg_read(dir, "cgroup.controllers");
  if (!ctrls) return;
  char all[1024] = "";
  char *save;
  /* the kernel has a dozen controllers: a list that does not fit is not one */
  for (char *t = strtok_r(ctrls, " \n", &save); t; t = strtok_r(NULL, " \n", &save))
    if (crt_fmt(all + strlen(all), sizeof all - strlen(all), "%s+%s", *all ? " " : "", t) < 0) return;
  if (!*all) return;
  crt_err *e = NULL;
  if (cg_write(dir, "cgroup.subtree_control", all, &e) == 0) return;
  crt_err_free(&e);
  for (char *t = strtok_r(all, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    if (cg_write(dir, "cgroup.subtree_control", t, &e) < 0) {
      crt_debug("cgroup: enable %s in %s: %s", t, dir, e->msg);
      crt_err_free(&e);
    }
  }
}


int cg_v2_devices(const char *dir, const crt_device_rule *rules, size_t n, crt_err **err) {
  cleanup_close int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return fd < 0 ? crt_error(err, errno, "cgroup: open %s", dir) : cg_ebpf_devices(fd, rules, n, err);
}

static int apply_all(const char *dir, const crt_spec *spec, bool rootless, crt_err **err) {
  const crt_resources *r = spec && spec->linux_ ? spec->linux_->resources : NULL;
  if (r && cg_v2_apply(NULL, dir, r, err) < 0) return -1;
  if (!spec || rootless) return 0; /* a rootless user cannot load BPF programs */
  crt_device_rule *rules = NULL;
  size_t n = 0;
  if (cg_device_rules(spec, &rules, &n, err) < 0) return -1;
  int rc = cg_v2_devices(dir, rules, n, err);
  cg_device_rules_free(rules, n);
  return rc;
}

int cg_v2_configure(const char *uroot, const char *path, const crt_spec *spec, bool rootless, crt_err **err) {
  char dir[PATH_MAX];
  if ((size_t)snprintf(dir, sizeof dir, "%s%s", uroot, path) >= sizeof dir)
    return crt_error(err, ENAMETOOLONG, "cgroup: %s%s", uroot, path);
  return apply_all(dir, spec, rootless, err);
}

int cg_v2_enter(const char *uroot, const char *path, const crt_spec *spec, bool rootless, bool apply, pid_t pid,
                crt_err **err) {
  char dir[PATH_MAX];
  if ((size_t)snprintf(dir, sizeof dir, "%s%s", uroot, path) >= sizeof dir)
    return crt_error(err, ENAMETOOLONG, "cgroup: %s%s", uroot, path);
  cleanup_free char *made = NULL;
  size_t rl = strlen(uroot);
  int rc = 0;
  for (char *p = dir + rl + 1;; p++) {
    if (*p != '/' && *p != 0) continue;
    char c = *p;
    *p = 0;
    /* controllers must be enabled in the parent before the child exists */
    char *s = strrchr(dir, '/');
    *s = 0;
    enable_controllers(dir);
    *s = '/';
    if (mkdir(dir, 0755) == 0) {
      if (!made) made = strdup(dir);
    } else if (errno != EEXIST) {
      int e = errno;
      if (rootless && cg_perm_error(e)) {
        crt_debug("cgroup: rootless, no cgroup at %s", dir);
        *p = c;
        cg_undo_mkdir(dir, made);
        return 1;
      }
      rc = crt_error(err, e, "cgroup: mkdir %s", dir);
      *p = c;
      break;
    }
    *p = c;
    if (c == 0) break;
  }
  if (rc == 0 && apply) rc = apply_all(dir, spec, rootless, err);
  if (rc == 0 && pid > 0) { /* pid 0: the caller moves it later */
    crt_err *e = NULL;
    rc = cg_move(dir, pid, &e);
    if (rc < 0 && rootless && cg_perm_error(e->errnum)) {
      crt_err_free(&e);
      cg_undo_mkdir(dir, made);
      return 1;
    } else if (rc < 0) {
      crt_err_move(err, &e);
    }
  }
  if (rc < 0) cg_undo_mkdir(dir, made);
  return rc;
}

/* ---- the v2 driver ---- */

static char *v2_dir(const cg_driver *d, const char *path, const char *controller) {
  char *out = NULL;
  return asprintf(&out, "%s%s", d->root->dir, path) < 0 ? NULL : out;
}

static char **v2_dirs(const cg_driver *d, const char *path) {
  char **v = calloc(2, sizeof *v);
  if (v && !(v[0] = v2_dir(d, path, NULL))) {
    free(v);
    return NULL;
  }
  return v;
}

static char *v2_procs_dir(const cg_driver *d, const char *path) { return v2_dir(d, path, NULL); }

static int v2_enter_cfg(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, pid_t pid, crt_err **err) {
  return cg_v2_enter(d->root->dir, path, cfg->spec, cfg->rootless, true, pid, err);
}

/* only the directory: resources and the device filter are written after
 * the clone, while the init starts up (v2_configure) */
static int v2_prepare(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, crt_err **err) {
  return cg_v2_enter(d->root->dir, path, cfg->spec, cfg->rootless, false, 0, err);
}

static int v2_configure(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, crt_err **err) {
  return cg_v2_configure(d->root->dir, path, cfg->spec, cfg->rootless, err);
}

/* Also the hybrid layout's: its cgroup2 hierarchy is d->unified. */
int cg_v2_open(const cg_driver *d, const char *path, const char *sub) {
  if (sub && (strstr(sub, "..") || !*sub)) return -1;
  char dir[PATH_MAX];
  if ((size_t)snprintf(dir, sizeof dir, "%s%s%s%s%s%s", d->root->dir, d->unified ? "/" : "", d->unified ? d->unified : "",
                       path, sub ? "/" : "", sub ? sub : "") >= sizeof dir)
    return -1;
  return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int v2_kill_all(const cg_driver *d, const char *path, crt_err **err) {
  cleanup_free char *dir = v2_dir(d, path, NULL);
  if (!dir || !cg_exists(dir, "cgroup.kill")) return 1; /* before 5.14 */
  return cg_write(dir, "cgroup.kill", "1", err);
}

static int v2_frozen(const char *dir) {
  cleanup_free char *ev = cg_read(dir, "cgroup.events");
  if (!ev) return -1;
  char *f = strstr(ev, "frozen ");
  return f ? f[7] == '1' : 0;
}

static int v2_apply_path(const cg_driver *d, cg_journal *j, const char *path, const crt_resources *r, crt_err **err) {
  cleanup_free char *dir = v2_dir(d, path, NULL);
  if (!dir) return crt_error(err, ENOMEM, "cgroup: update");
  return cg_v2_apply(j, dir, r, err);
}

static int v2_update_devices(const cg_driver *d, cg_journal *j, const char *path, const crt_device_rule *rules, size_t n,
                             crt_err **err) {
  cleanup_free char *dir = v2_dir(d, path, NULL);
  if (!dir) return crt_error(err, ENOMEM, "cgroup: update");
  return cg_v2_devices(dir, rules, n, err);
}

/* v2 io.stat: "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0". */
static int v2_io_stat(const char *dir, crt_cgroup_stats *st) {
  cleanup_free char *s = cg_read(dir, "io.stat");
  if (!s) return 0;
  char *save;
  for (char *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    unsigned maj, min;
    if (sscanf(l, "%u:%u", &maj, &min) != 2) continue;
    static const struct {
      const char *key, *op;
      bool bytes;
    } map[] = {{"rbytes=", "Read", true}, {"wbytes=", "Write", true}, {"rios=", "Read", false}, {"wios=", "Write", false}};
    for (size_t i = 0; i < 4; i++) {
      char *f = strstr(l, map[i].key);
      if (!f) continue;
      unsigned long long v = strtoull(f + strlen(map[i].key), NULL, 10);
      int rc = map[i].bytes ? cg_push_io(&st->io_bytes, &st->n_io_bytes, maj, min, map[i].op, v)
                            : cg_push_io(&st->io_ios, &st->n_io_ios, maj, min, map[i].op, v);
      if (rc < 0) return -1;
    }
  }
  return 0;
}

static int v2_stats(const cg_driver *drv, const char *path, crt_cgroup_stats *st) {
  cleanup_free char *d = v2_dir(drv, path, NULL);
  if (!d) return -1;
  cleanup_free char *cs = cg_read(d, "cpu.stat");
  if (cs) {
    st->cpu_total = cg_kv_get(cs, "usage_usec") * 1000;
    st->cpu_user = cg_kv_get(cs, "user_usec") * 1000;
    st->cpu_kernel = cg_kv_get(cs, "system_usec") * 1000;
    st->throttle_periods = cg_kv_get(cs, "nr_periods");
    st->throttled_periods = cg_kv_get(cs, "nr_throttled");
    st->throttled_time = cg_kv_get(cs, "throttled_usec") * 1000;
  }
  st->mem_usage = cg_rd(d, "memory.current");
  st->mem_max = cg_rd(d, "memory.peak");
  st->mem_limit = cg_rd(d, "memory.max");
  cleanup_free char *ev = cg_read(d, "memory.events");
  if (ev) st->mem_failcnt = cg_kv_get(ev, "max");
  /* runc reports swap as memory+swap, the v1 meaning */
  st->swap_usage = cg_rd(d, "memory.swap.current") + st->mem_usage;
  st->swap_limit = cg_rd(d, "memory.swap.max");
  cleanup_free char *ms = cg_read(d, "memory.stat");
  if (ms) {
    st->mem_cache = cg_kv_get(ms, "file");
    st->kernel_usage = cg_kv_get(ms, "kernel");
    if (cg_kv_all(ms, &st->mem_raw, &st->n_mem_raw) < 0) return -1;
  }
  st->pids_current = cg_rd(d, "pids.current");
  st->pids_limit = cg_rd(d, "pids.max");
  if (v2_io_stat(d, st) < 0) return -1;
  return cg_hugetlb_stats(d, true, st);
}

/* inotify on memory.events: each change may be an OOM kill. */
static int v2_oom_fd(const cg_driver *drv, const char *path, crt_err **err) {
  cleanup_free char *d = v2_dir(drv, path, NULL);
  char p[PATH_MAX];
  if (crt_pathf(p, sizeof p, err, "%s/memory.events", d ? d : "") < 0) return crt_error_wrap(err, "cgroup: OOM watch");
  int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (fd < 0) return crt_error(err, errno, "cgroup: inotify");
  if (inotify_add_watch(fd, p, IN_MODIFY) < 0) {
    int e = errno;
    close(fd);
    return crt_error(err, e, "cgroup: watch %s", p);
  }
  return fd;
}

static int v2_oom_read(const cg_driver *drv, const char *path, int fd, unsigned long long *last) {
  char buf[4096];
  while (read(fd, buf, sizeof buf) > 0) {
  }
  cleanup_free char *d = v2_dir(drv, path, NULL);
  cleanup_free char *ev = d ? cg_read(d, "memory.events") : NULL;
  if (!ev) return -1;
  unsigned long long n = cg_kv_get(ev, "oom_kill");
  int delta = n > *last ? (int)(n - *last) : 0;
  *last = n;
  return delta;
}

const cg_driver cg_driver_v2 = {
    .name = "v2", .v2 = true, .own_key = "", .resolve = cg_fs_resolve, .enter = v2_enter_cfg,
    .prepare = v2_prepare, .configure = v2_configure, .dir = v2_dir, .dirs = v2_dirs, .procs_dir = v2_procs_dir,
    .open = cg_v2_open, .kill_all = v2_kill_all, .freezer_dir = v2_procs_dir,
    .freeze_file = "cgroup.freeze", .frozen_file = "cgroup.events", .freeze_on = "1", .freeze_off = "0",
    .frozen = v2_frozen, .apply = v2_apply_path, .devices = v2_update_devices, .stats = v2_stats,
    .oom_fd = v2_oom_fd, .oom_read = v2_oom_read,
};
