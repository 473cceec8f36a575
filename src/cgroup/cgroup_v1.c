/* cgroup v1: one directory per controller hierarchy; the v1 and hybrid
 * drivers. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroup_internal.h"
#include "crt/log.h"
#include "crt/str.h"

#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif

/* The hierarchies we create in, by mount directory name. */
static const char *const v1_ctrls[] = {"cpu",     "cpuacct", "cpuset",  "memory",   "devices",    "freezer",
                                       "blkio",   "pids",    "net_cls", "net_prio", "net_cls,net_prio",
                                       "hugetlb", "perf_event", "rdma", "misc", "systemd", NULL};

/* A directory under the root is a hierarchy only when a cgroup filesystem
 * is mounted on it: runc's tests (and admins) leave stray empty directories
 * such as net_cls there, and a pid written into one of those fails.  A
 * foreign root (a test's tree) holds plain directories. */
static bool is_hierarchy(const crt_cgroup_root *root, const char *d, const struct stat *st) {
  if (!S_ISDIR(st->st_mode)) return false;
  if (root->foreign) return true;
  struct statfs fs;
  return statfs(d, &fs) == 0 && fs.f_type == CGROUP_SUPER_MAGIC;
}

bool cg_v1_has_controller(const crt_cgroup_root *root, const char *name, size_t n) {
  if (n > 5 && !strncmp(name, "name=", 5)) name += 5, n -= 5;
  char d[PATH_MAX];
  struct stat st;
  if (!n || memchr(name, '/', n) || crt_fmt(d, sizeof d, "%s/%.*s", root->dir, (int)n, name) < 0) return false;
  return stat(d, &st) == 0 && is_hierarchy(root, d, &st);
}

static char **detect_hierarchies(const crt_cgroup_root *root) {
  size_t n = sizeof v1_ctrls / sizeof v1_ctrls[0];
  char **v = calloc(n, sizeof *v);
  struct stat seen[32];
  size_t k = 0;
  if (!v) return NULL;
  for (size_t i = 0; v1_ctrls[i]; i++) {
    char d[PATH_MAX];
    struct stat st;
    if (crt_fmt(d, sizeof d, "%s/%s", root->dir, v1_ctrls[i]) < 0) continue;
    if (stat(d, &st) != 0 || !is_hierarchy(root, d, &st)) continue;
    /* cpu and cpuacct are often symlinks to one "cpu,cpuacct" mount. */
    bool dup = false;
    for (size_t j = 0; j < k; j++)
      if (seen[j].st_dev == st.st_dev && seen[j].st_ino == st.st_ino) dup = true;
    if (dup) continue;
    seen[k] = st;
    v[k++] = strdup(d);
  }
  return v;
}

static char **strv_dup(char *const *v) {
  size_t n = 0;
  while (v[n]) n++;
  char **out = calloc(n + 1, sizeof *out);
  for (size_t i = 0; out && i < n; i++)
    if (!(out[i] = strdup(v[i]))) {
      cg_strv_free(out);
      return NULL;
    }
  return out;
}

/* Whether the cache (its directory and foreignness) holds root's. */
static bool cached_for(char **cached, const char *dir, bool foreign, const crt_cgroup_root *root) {
  return cached && foreign == root->foreign && strcmp(dir, root->dir) == 0;
}

/* The mounts do not change under one crt process (statfs on every
 * hierarchy for each call would be one syscall per controller per call);
 * the cache follows the root (unit tests make several). */
char **cg_v1_hierarchies(const crt_cgroup_root *root) {
  static char **cached;
  static char cached_root[PATH_MAX];
  static bool cached_foreign; /* the same directory, foreign, has other hierarchies */
  /* `list` probes its containers on several threads */
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lock);
  if (!cached_for(cached, cached_root, cached_foreign, root)) {
    char **v = detect_hierarchies(root);
    if (v) {
      cg_strv_free(cached);
      cached = v;
      cached_foreign = root->foreign;
      /* a root too long to remember is never matched: no cache */
      if (crt_fmt(cached_root, sizeof cached_root, "%s", root->dir) < 0) *cached_root = 0;
    }
  }
  char **out = cached_for(cached, cached_root, cached_foreign, root) ? strv_dup(cached) : NULL;
  pthread_mutex_unlock(&lock);
  return out;
}

static char *ctrl_dir(const cg_driver *drv, const char *ctrl, const char *path) {
  char *d = NULL;
  if (asprintf(&d, "%s/%s%s", drv->root->dir, ctrl, path) < 0) return NULL;
  return d;
}

/* cpuset cgroups start with empty cpus/mems, which refuses tasks. */
static int cpuset_inherit(const char *dir, crt_err **err) {
  static const char *const files[] = {"cpuset.cpus", "cpuset.mems"};
  for (size_t i = 0; i < 2; i++) {
    cleanup_free char *cur = cg_read(dir, files[i]);
    if (!cur) continue;
    if (cur[strspn(cur, " \n")] != 0) continue;
    char parent[PATH_MAX];
    char *s = crt_fmt(parent, sizeof parent, "%s", dir) < 0 ? NULL : strrchr(parent, '/');
    if (!s) continue;
    *s = 0;
    cleanup_free char *pv = cg_read(parent, files[i]);
    if (!pv) continue;
    pv[strcspn(pv, "\n")] = 0;
    if (*pv && cg_write(dir, files[i], pv, err) < 0) return -1;
  }
  return 0;
}

/* mkdir -p below the hierarchy's directory (its first hlen bytes: it
 * exists, cg_v1_hierarchies found it, and a root cpuset is never empty)
 * that remembers the first directory it made (for undo). */
static int mkdir_cg(const char *dir, size_t hlen, bool cpuset, char **first_made, crt_err **err) {
  char buf[PATH_MAX];
  if (crt_pathf(buf, sizeof buf, err, "%s", dir) < 0) return crt_error_wrap(err, "cgroup: mkdir");
  size_t len = strlen(buf);
  for (char *p = buf + (hlen < len ? hlen + 1 : len);; p++) {
    if (*p != '/' && *p != 0) continue;
    char c = *p;
    *p = 0;
    if (mkdir(buf, 0755) == 0) {
      if (!*first_made) *first_made = strdup(buf);
    } else if (errno != EEXIST) {
      return crt_error(err, errno, "cgroup: mkdir %s", buf);
    }
    /* existing levels too (runc's ensureParent): an empty pre-existing
     * parent would leave its new child empty as well */
    if (cpuset && cpuset_inherit(buf, err) < 0) return -1;
    *p = c;
    if (c == 0) break;
  }
  return 0;
}


typedef struct {
  char *dir;
  char *made;
} made_dir;

int cg_v1_enter(const cg_driver *drv, const char *path, const crt_spec *spec, bool rootless, pid_t pid, crt_err **err) {
  char **h = cg_v1_hierarchies(drv->root);
  if (!h) return crt_error(err, ENOMEM, "cgroup");
  size_t n = 0;
  while (h[n]) n++;
  made_dir *made = calloc(n + 1, sizeof *made);
  int rc = made ? 0 : crt_error(err, ENOMEM, "cgroup");
  size_t k = 0;
  for (size_t i = 0; rc == 0 && i < n; i++) {
    char *d = NULL;
    if (asprintf(&d, "%s%s", h[i], path) < 0) {
      rc = crt_error(err, ENOMEM, "cgroup");
      break;
    }
    made[k].dir = d;
    crt_err *e = NULL;
    bool cpuset = strstr(h[i] + strlen(drv->root->dir), "cpuset") != NULL;
    if (mkdir_cg(d, strlen(h[i]), cpuset, &made[k].made, &e) < 0) {
      if (rootless && cg_perm_error(e->errnum)) {
        crt_debug("cgroup: rootless, skipping %s: %s", d, e->msg);
        crt_err_free(&e);
        free(made[k].made);
        made[k].made = NULL;
        free(made[k].dir);
        made[k].dir = NULL;
        continue;
      }
      crt_err_move(err, &e);
      rc = -1;
    }
    k++;
  }
  const crt_resources *r = spec && spec->linux_ ? spec->linux_->resources : NULL;
  if (rc == 0 && r) rc = cg_v1_apply(drv, NULL, path, r, err);
  if (rc == 0 && spec && !rootless) {
    cleanup_free char *dev = ctrl_dir(drv, "devices", path);
    if (dev && access(dev, F_OK) == 0) {
      crt_device_rule *rules = NULL;
      size_t nr = 0;
      rc = cg_device_rules(spec, &rules, &nr, err);
      if (rc == 0) rc = cg_v1_devices(dev, rules, nr, err);
      cg_device_rules_free(rules, nr);
    }
  }
  size_t joined = 0;
  for (size_t i = 0; rc == 0 && pid > 0 && i < k; i++) {
    if (!made[i].dir) continue;
    crt_err *e = NULL;
    if (cg_move(made[i].dir, pid, &e) < 0) {
      if (rootless && cg_perm_error(e->errnum)) {
        crt_err_free(&e);
        continue;
      }
      crt_err_move(err, &e);
      rc = -1;
    } else {
      joined++;
    }
  }
  if (rc == 0 && pid > 0 && joined == 0 && rootless) rc = 1; /* nothing usable */
  for (size_t i = 0; i < k; i++) {
    if (rc != 0 && made[i].dir) cg_undo_mkdir(made[i].dir, made[i].made);
    free(made[i].dir);
    free(made[i].made);
  }
  free(made);
  cg_strv_free(h);
  return rc;
}

/* Starts from deny-all (as the eBPF filter on v2) and replays the rules in
 * order, so that the last matching rule wins. */
int cg_v1_devices(const char *dir, const crt_device_rule *rules, size_t n, crt_err **err) {
  /* one rule per write(2), as the kernel parses them, through one open
   * file each */
  cleanup_close int deny = cg_open_write(dir, "devices.deny", err);
  if (deny < 0) return -1;
  cleanup_close int allow = cg_open_write(dir, "devices.allow", err);
  if (allow < 0) return -1;
  if (cg_write_fd(deny, dir, "devices.deny", "a", err) < 0) return -1;
  for (size_t i = 0; i < n; i++) {
    const crt_device_rule *r = &rules[i];
    char line[128];
    const char *type = r->type && *r->type ? r->type : "a";
    if (strcmp(type, "a") == 0 && !r->major.set && !r->minor.set) {
      snprintf(line, sizeof line, "a");
    } else {
      char maj[24] = "*", min[24] = "*";
      if (r->major.set && r->major.v >= 0) snprintf(maj, sizeof maj, "%lld", (long long)r->major.v);
      if (r->minor.set && r->minor.v >= 0) snprintf(min, sizeof min, "%lld", (long long)r->minor.v);
      const char *access = r->access ? r->access : "rwm";
      if (crt_fmt(line, sizeof line, "%s %s:%s %s", type, maj, min, access) < 0)
        return crt_error(err, EINVAL, "cgroup: device rule \"%s %s:%s %s\": too long", type, maj, min, access);
    }
    if (cg_write_fd(r->allow ? allow : deny, dir, r->allow ? "devices.allow" : "devices.deny", line, err) < 0) return -1;
  }
  return 0;
}

/* ---- resources ---- */

typedef struct {
  const cg_driver *d;
  cg_journal *j; /* update's journal; NULL at create */
  const char *path;
  crt_err **err;
} v1ctx;

/* Writes file in controller ctrl; when the controller is not mounted the
 * error names the file, because the user asked for this resource. */
static int w(v1ctx *c, const char *ctrl, const char *file, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int w(v1ctx *c, const char *ctrl, const char *file, const char *fmt, ...) {
  cleanup_free char *d = ctrl_dir(c->d, ctrl, c->path);
  if (!d) return crt_error(c->err, ENOMEM, "cgroup");
  char buf[CG_VALUE_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof buf) return crt_error(c->err, E2BIG, "cgroup: write %s: value too long", file);
  return cg_jwrite(c->j, d, file, buf, c->err);
}

static bool has_file(v1ctx *c, const char *ctrl, const char *file) {
  cleanup_free char *d = ctrl_dir(c->d, ctrl, c->path);
  return d && cg_exists(d, file);
}

/* memory.limit_in_bytes; the kernel's EBUSY (usage it cannot reclaim
 * below the limit) in runc's words, which name the usage. */
static int w_limit(v1ctx *c, long long limit) {
  if (w(c, "memory", "memory.limit_in_bytes", "%lld", limit) == 0) return 0;
  if (!*c->err || (*c->err)->errnum != EBUSY) return -1;
  cleanup_free char *d = ctrl_dir(c->d, "memory", c->path);
  unsigned long long usage = d ? cg_rd(d, "memory.usage_in_bytes") : 0;
  unsigned long long peak = d ? cg_rd(d, "memory.max_usage_in_bytes") : 0;
  crt_err_free(c->err);
  crt_error(c->err, 0, "unable to set memory limit to %lld (current usage: %llu, peak usage: %llu)", limit, usage,
            peak);
  (*c->err)->errnum = EBUSY;
  return -1;
}

/* memsw (memory+swap) must stay >= the limit at every step: when both
 * change, memsw goes first if it grows (runc's order). */
static int v1_limits(v1ctx *c, long long limit, long long swap) {
  if (limit != 0 && swap != 0) {
    cleanup_free char *d = ctrl_dir(c->d, "memory", c->path);
    unsigned long long cur = 0;
    if (swap == -1 || (d && cg_read_u64(d, "memory.limit_in_bytes", &cur) == 0 && cur < (unsigned long long)swap)) {
      if (w(c, "memory", "memory.memsw.limit_in_bytes", "%lld", swap) < 0) return -1;
      return w_limit(c, limit);
    }
  }
  if (limit != 0 && w_limit(c, limit) < 0) return -1;
  if (swap != 0 && w(c, "memory", "memory.memsw.limit_in_bytes", "%lld", swap) < 0) return -1;
  return 0;
}

/* kernel memory limits are deprecated; newer kernels dropped the files. */
static int v1_kmem(v1ctx *c, const crt_i64 *v, const char *file, const char *name) {
  if (!v->set || v->v == 0) return 0;
  if (has_file(c, "memory", file)) return w(c, "memory", file, "%lld", (long long)v->v);
  crt_warn("cgroup: memory.%s is deprecated and not supported by this kernel; ignored", name);
  return 0;
}

/* Zero means "not set" for every value here, as in runc (dockerd sends
 * zeros for everything it was not asked for). */
static int v1_memory(v1ctx *c, const crt_resources *r) {
  const __typeof__(r->memory) *m = &r->memory;
  long long limit = m->limit.set ? m->limit.v : 0, swap = m->swap.set ? m->swap.v : 0;
  cleanup_free char *d = ctrl_dir(c->d, "memory", c->path);
  if (cg_check_before_update(d, "memory.usage_in_bytes", r, c->err) < 0) return -1;
  /* runc: an unlimited memory without a swap value makes swap unlimited too */
  if (limit == -1 && swap == 0 && has_file(c, "memory", "memory.memsw.limit_in_bytes")) swap = -1;
  if (v1_limits(c, limit, swap) < 0) return -1;
  if (m->reservation.set && m->reservation.v != 0 &&
      w(c, "memory", "memory.soft_limit_in_bytes", "%lld", (long long)m->reservation.v) < 0)
    return -1;
  if (v1_kmem(c, &m->kernel, "memory.kmem.limit_in_bytes", "kernel") < 0 ||
      v1_kmem(c, &m->kernel_tcp, "memory.kmem.tcp.limit_in_bytes", "kernelTCP") < 0)
    return -1;
  /* -1 (as uint64) leaves it; cg_validate refused values above 100 */
  if (m->swappiness.set && m->swappiness.v != UINT64_MAX &&
      w(c, "memory", "memory.swappiness", "%llu", (unsigned long long)m->swappiness.v) < 0)
    return -1;
  if (m->disable_oom_killer.set && m->disable_oom_killer.v && w(c, "memory", "memory.oom_control", "1") < 0) return -1;
  if (m->use_hierarchy.set && w(c, "memory", "memory.use_hierarchy", "%d", m->use_hierarchy.v ? 1 : 0) < 0) return -1;
  return 0;
}

/* Period before quota: the kernel checks the quota against the current
 * period.  A shorter period can be refused (EINVAL) until the new quota is
 * in; then it is written again after the quota, as runc does. */
static int v1_cfs(v1ctx *c, const crt_resources *r) {
  unsigned long long period = r->cpu.period.set ? r->cpu.period.v : 0;
  long long quota = r->cpu.quota.set ? r->cpu.quota.v : 0;
  bool again = false;
  if (period) {
    crt_err *e = NULL;
    v1ctx t = {c->d, c->j, c->path, &e};
    if (w(&t, "cpu", "cpu.cfs_period_us", "%llu", period) < 0) {
      if (e->errnum != EINVAL || quota == 0) {
        return crt_err_move(c->err, &e);
      }
      crt_err_free(&e);
      again = true;
    }
  }
  if (quota && w(c, "cpu", "cpu.cfs_quota_us", "%lld", quota) < 0) return -1;
  if (again && w(c, "cpu", "cpu.cfs_period_us", "%llu", period) < 0) return -1;
  return 0;
}

static int v1_cpu(v1ctx *c, const crt_resources *r) {
  const __typeof__(r->cpu) *p = &r->cpu;
  if (p->shares.set && p->shares.v && w(c, "cpu", "cpu.shares", "%llu", (unsigned long long)p->shares.v) < 0) return -1;
  if (v1_cfs(c, r) < 0) return -1;
  if (p->burst.set && w(c, "cpu", "cpu.cfs_burst_us", "%llu", (unsigned long long)p->burst.v) < 0) return -1;
  if (p->realtime_period.set && p->realtime_period.v &&
      w(c, "cpu", "cpu.rt_period_us", "%llu", (unsigned long long)p->realtime_period.v) < 0)
    return -1;
  if (p->realtime_runtime.set && p->realtime_runtime.v &&
      w(c, "cpu", "cpu.rt_runtime_us", "%lld", (long long)p->realtime_runtime.v) < 0)
    return -1;
  if (p->idle.set && w(c, "cpu", "cpu.idle", "%lld", (long long)p->idle.v) < 0) return -1;
  if (p->cpus && *p->cpus && w(c, "cpuset", "cpuset.cpus", "%s", p->cpus) < 0) return -1;
  if (p->mems && *p->mems && w(c, "cpuset", "cpuset.mems", "%s", p->mems) < 0) return -1;
  return 0;
}

static int throttle(v1ctx *c, const char *file, const crt_blkio_throttle *t, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (w(c, "blkio", file, "%lld:%lld %llu", (long long)t[i].major, (long long)t[i].minor,
          (unsigned long long)t[i].rate) < 0)
      return -1;
  return 0;
}

static int v1_blkio(v1ctx *c, const crt_resources *r) {
  const __typeof__(r->blkio) *b = &r->blkio;
  /* With BFQ the CFQ files are gone and blkio.bfq.weight takes over. */
  bool bfq = !has_file(c, "blkio", "blkio.weight") && has_file(c, "blkio", "blkio.bfq.weight");
  if (b->weight.set && b->weight.v &&
      w(c, "blkio", bfq ? "blkio.bfq.weight" : "blkio.weight", "%llu", (unsigned long long)b->weight.v) < 0)
    return -1;
  if (b->leaf_weight.set && b->leaf_weight.v && w(c, "blkio", "blkio.leaf_weight", "%llu", (unsigned long long)b->leaf_weight.v) < 0)
    return -1;
  for (size_t i = 0; i < b->n_weight_device; i++) {
    const crt_blkio_weight_device *d = &b->weight_device[i];
    if (d->weight.set && d->weight.v && w(c, "blkio", bfq ? "blkio.bfq.weight_device" : "blkio.weight_device", "%lld:%lld %llu",
                           (long long)d->major, (long long)d->minor, (unsigned long long)d->weight.v) < 0)
      return -1;
    if (d->leaf_weight.set && d->leaf_weight.v && w(c, "blkio", "blkio.leaf_weight_device", "%lld:%lld %llu", (long long)d->major,
                                (long long)d->minor, (unsigned long long)d->leaf_weight.v) < 0)
      return -1;
  }
  if (throttle(c, "blkio.throttle.read_bps_device", b->throttle_read_bps, b->n_throttle_read_bps) < 0) return -1;
  if (throttle(c, "blkio.throttle.write_bps_device", b->throttle_write_bps, b->n_throttle_write_bps) < 0) return -1;
  if (throttle(c, "blkio.throttle.read_iops_device", b->throttle_read_iops, b->n_throttle_read_iops) < 0) return -1;
  if (throttle(c, "blkio.throttle.write_iops_device", b->throttle_write_iops, b->n_throttle_write_iops) < 0)
    return -1;
  return 0;
}

static int v1_hugetlb(v1ctx *c, const crt_resources *r) {
  if (r->n_hugepage_limits == 0) return 0;
  cleanup_free char *d = ctrl_dir(c->d, "hugetlb", c->path);
  bool v1 = d && access(d, F_OK) == 0;
  cleanup_free char *u = NULL;
  /* Hybrid hosts may have hugetlb only on the unified hierarchy. */
  if (!v1 && c->d->unified && asprintf(&u, "%s/%s%s", c->d->root->dir, c->d->unified, c->path) < 0)
    return crt_error(c->err, ENOMEM, "cgroup: hugetlb");
  for (size_t i = 0; i < r->n_hugepage_limits; i++) {
    const crt_hugepage_limit *h = &r->hugepage_limits[i];
    char file[128];
    if (!h->page_size || strchr(h->page_size, '/'))
      return crt_error(c->err, EINVAL, "cgroup: invalid hugepage size %s", h->page_size ? h->page_size : "(null)");
    if (crt_fmt(file, sizeof file, "hugetlb.%s.limit_in_bytes", h->page_size) < 0)
      return crt_error(c->err, ENAMETOOLONG, "cgroup: hugepage size %s: too long", h->page_size);
    if (u) {
      snprintf(file, sizeof file, "hugetlb.%s.max", h->page_size); /* shorter: fits */
      if (cg_jwritef(c->j, u, file, c->err, "%llu", (unsigned long long)h->limit) < 0) return -1;
    } else {
      if (w(c, "hugetlb", file, "%llu", (unsigned long long)h->limit) < 0) return -1;
    }
  }
  return 0;
}

static const char *net_ctrl(v1ctx *c, const char *name) {
  cleanup_free char *d = ctrl_dir(c->d, name, c->path);
  if (d && access(d, F_OK) == 0) return name;
  return "net_cls,net_prio";
}

static int v1_network(v1ctx *c, const crt_resources *r) {
  if (r->network.class_id.set && r->network.class_id.v &&
      w(c, net_ctrl(c, "net_cls"), "net_cls.classid", "%llu", (unsigned long long)r->network.class_id.v) < 0)
    return -1;
  for (size_t i = 0; i < r->network.n_priorities; i++) {
    const crt_net_priority *p = &r->network.priorities[i];
    if (w(c, net_ctrl(c, "net_prio"), "net_prio.ifpriomap", "%s %u", p->name ? p->name : "", p->priority) < 0)
      return -1;
  }
  return 0;
}

int cg_v1_apply(const cg_driver *d, cg_journal *j, const char *path, const crt_resources *r, crt_err **err) {
  v1ctx c = {d, j, path, err};
  if (cg_validate(r, false, err) < 0) return -1;
  if (v1_memory(&c, r) < 0 || v1_cpu(&c, r) < 0) return -1;
  if (r->pids.limit.set && r->pids.limit.v != 0) { /* runc: 0 leaves it */
    char v[32] = "max"; /* any negative: unlimited */
    if (r->pids.limit.v > 0) snprintf(v, sizeof v, "%lld", (long long)r->pids.limit.v);
    if (w(&c, "pids", "pids.max", "%s", v) < 0) return -1;
  }
  if (v1_blkio(&c, r) < 0 || v1_hugetlb(&c, r) < 0 || v1_network(&c, r) < 0) return -1;
  for (size_t i = 0; i < r->n_rdma; i++) {
    char line[512];
    if (cg_rdma_line(&r->rdma[i], line, sizeof line, c.err) < 0) return -1;
    if (w(&c, "rdma", "rdma.max", "%s", line) < 0) return -1;
  }
  return 0;
}

/* ---- the v1 and hybrid drivers ---- */

static char *v1_dir(const cg_driver *d, const char *path, const char *controller) {
  char *out = NULL;
  if (controller) return asprintf(&out, "%s/%s%s", d->root->dir, controller, path) < 0 ? NULL : out;
  char **h = cg_v1_hierarchies(d->root);
  if (h && h[0] && asprintf(&out, "%s%s", h[0], path) < 0) out = NULL;
  cg_strv_free(h);
  return out;
}

/* Every hierarchy's directory, and the unified one in hybrid. */
/* NULL when out of memory: a shortened list would leave cgroups behind. */
static char **v1_dirs(const cg_driver *d, const char *path) {
  char **h = cg_v1_hierarchies(d->root);
  char **v = calloc(1, sizeof *v);
  size_t k = 0;
  int rc = h && v ? 0 : -1;
  for (size_t i = 0; rc == 0 && h[i]; i++) rc = cg_strv_push(&v, &k, h[i], path);
  char u[PATH_MAX];
  if (rc == 0 && d->unified) {
    rc = crt_fmt(u, sizeof u, "%s/%s", d->root->dir, d->unified) < 0 ? -1 : cg_strv_push(&v, &k, u, path);
  }
  cg_strv_free(h);
  if (rc < 0) {
    cg_strv_free(v);
    return NULL;
  }
  return v;
}

static char *v1_procs_dir(const cg_driver *drv, const char *path) {
  static const char *pref[] = {"pids", "freezer", "memory", "cpu", "devices", "systemd"};
  for (size_t i = 0; i < sizeof pref / sizeof pref[0]; i++) {
    char *d = v1_dir(drv, path, pref[i]);
    if (d && access(d, F_OK) == 0) return d;
    free(d);
  }
  if (drv->unified) {
    char *d = NULL;
    return asprintf(&d, "%s/%s%s", drv->root->dir, drv->unified, path) < 0 ? NULL : d;
  }
  return v1_dir(drv, path, NULL);
}

static int v1_enter_cfg(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, pid_t pid, crt_err **err) {
  return cg_v1_enter(d, path, cfg->spec, cfg->rootless, pid, err);
}

/* Moves pid into the unified directory ud after the v1 hierarchies. */
static int hybrid_move(const crt_cgroup_config *cfg, const char *ud, pid_t pid, crt_err **err) {
  crt_err *e = NULL;
  if (cg_move(ud, pid, &e) == 0) return 0;
  if (cfg->rootless && cg_perm_error(e->errnum)) {
    crt_err_free(&e);
    return 0;
  }
  crt_err_move(err, &e);
  return -1;
}

/* The unified directory must exist before the v1 resources are written
 * (hugetlb may live only there); the pid moves last. */
static int hybrid_enter(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, pid_t pid, crt_err **err) {
  cleanup_free char *u = NULL, *ud = NULL;
  if (asprintf(&u, "%s/%s", d->root->dir, d->unified) < 0 || asprintf(&ud, "%s%s", u, path) < 0)
    return crt_error(err, ENOMEM, "cgroup");
  int urc = cg_v2_enter(u, path, cfg->spec, cfg->rootless, false, 0, err);
  if (urc < 0) return -1;
  int rc = cg_v1_enter(d, path, cfg->spec, cfg->rootless, pid, err);
  if (rc < 0) {
    if (urc == 0) rmdir(ud);
    return -1;
  }
  if (urc != 0 || pid == 0) return rc;
  if (hybrid_move(cfg, ud, pid, err) < 0) {
    char **dirs = v1_dirs(d, path);
    crt_err *ign = NULL;
    if (dirs) cg_remove_dirs(dirs, &ign);
    crt_err_free(&ign);
    cg_strv_free(dirs);
    return -1;
  }
  return 0; /* joined the unified hierarchy at least */
}

/* Hybrid's unified directory alone, which the init is cloned into; the v1
 * hierarchies (which may write hugetlb there) come after (v1_prepare_late). */
static int hybrid_unified(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, crt_err **err) {
  cleanup_free char *u = NULL;
  if (asprintf(&u, "%s/%s", d->root->dir, d->unified) < 0) return crt_error(err, ENOMEM, "cgroup");
  return cg_v2_enter(u, path, cfg->spec, cfg->rootless, false, 0, err) < 0 ? -1 : 0;
}

/* Made and configured before the clone; pid 0: nobody moved in (the init
 * joins by itself, crt_cgroup_open_tasks).  v1_late: only what the clone
 * needs now. */
static int v1_prepare(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, crt_err **err) {
  if (cfg->v1_late) return d->unified ? hybrid_unified(d, cfg, path, err) : 0;
  if (d->unified) return hybrid_enter(d, cfg, path, 0, err);
  return cg_v1_enter(d, path, cfg->spec, cfg->rootless, 0, err);
}

/* After the clone (v1_late): the v1 hierarchies, resources and devices. */
static int v1_prepare_late(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, crt_err **err) {
  return cg_v1_enter(d, path, cfg->spec, cfg->rootless, 0, err);
}

static char *v1_freezer_dir(const cg_driver *d, const char *path) { return v1_dir(d, path, "freezer"); }

static int v1_frozen(const char *dir) {
  cleanup_free char *s = cg_read(dir, "freezer.state");
  if (!s) return -1;
  return strncmp(s, "FROZEN", 6) == 0 ? 1 : 0;
}

static int v1_update_devices(const cg_driver *drv, cg_journal *j, const char *path, const crt_device_rule *rules,
                             size_t n, crt_err **err) {
  cleanup_free char *d = v1_dir(drv, path, "devices");
  if (!d) return crt_error(err, ENOMEM, "cgroup: update");
  if (access(d, F_OK) != 0) return crt_error(err, ENOENT, "cgroup: no devices controller at %s", d);
  cg_journal_note_devices(j, d);
  return cg_v1_devices(d, rules, n, err);
}

/* v1 blkio.*_recursive: "8:0 Read 4096" lines. */
static int v1_blkio_file(const char *dir, const char *file, crt_cgroup_blkio_entry **v, size_t *n) {
  cleanup_free char *s = cg_read(dir, file);
  if (!s) return 0;
  char *save;
  for (char *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    unsigned maj, min;
    char op[16];
    unsigned long long val;
    if (sscanf(l, "%u:%u %15s %llu", &maj, &min, op, &val) == 4 && cg_push_io(v, n, maj, min, op, val) < 0) return -1;
  }
  return 0;
}

static int read_percpu(const char *dir, crt_cgroup_stats *st) {
  cleanup_free char *s = cg_read(dir, "cpuacct.usage_percpu");
  if (!s) return 0;
  char *save;
  for (char *t = strtok_r(s, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
    unsigned long long *nv = realloc(st->percpu, (st->n_percpu + 1) * sizeof *nv);
    if (!nv) return -1;
    st->percpu = nv;
    nv[st->n_percpu++] = strtoull(t, NULL, 10);
  }
  return 0;
}

static int v1_stats(const cg_driver *d, const char *path, crt_cgroup_stats *st) {
  cleanup_free char *cpuacct = v1_dir(d, path, "cpuacct");
  cleanup_free char *cpu = v1_dir(d, path, "cpu");
  cleanup_free char *mem = v1_dir(d, path, "memory");
  cleanup_free char *pids = v1_dir(d, path, "pids");
  cleanup_free char *blkio = v1_dir(d, path, "blkio");
  cleanup_free char *huge = v1_dir(d, path, "hugetlb");
  if (!cpuacct || !cpu || !mem || !pids || !blkio || !huge) return -1;
  st->cpu_total = cg_rd(cpuacct, "cpuacct.usage");
  if (read_percpu(cpuacct, st) < 0) return -1;
  cleanup_free char *cs = cg_read(cpuacct, "cpuacct.stat");
  if (cs) {
    /* USER_HZ ticks to nanoseconds, as runc */
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0) hz = 100;
    st->cpu_user = cg_kv_get(cs, "user") * (1000000000ULL / (unsigned long long)hz);
    st->cpu_kernel = cg_kv_get(cs, "system") * (1000000000ULL / (unsigned long long)hz);
  }
  cleanup_free char *cst = cg_read(cpu, "cpu.stat");
  if (cst) {
    st->throttle_periods = cg_kv_get(cst, "nr_periods");
    st->throttled_periods = cg_kv_get(cst, "nr_throttled");
    st->throttled_time = cg_kv_get(cst, "throttled_time");
  }
  st->mem_usage = cg_rd(mem, "memory.usage_in_bytes");
  st->mem_max = cg_rd(mem, "memory.max_usage_in_bytes");
  st->mem_limit = cg_rd(mem, "memory.limit_in_bytes");
  st->mem_failcnt = cg_rd(mem, "memory.failcnt");
  st->swap_usage = cg_rd(mem, "memory.memsw.usage_in_bytes");
  st->swap_max = cg_rd(mem, "memory.memsw.max_usage_in_bytes");
  st->swap_limit = cg_rd(mem, "memory.memsw.limit_in_bytes");
  st->swap_failcnt = cg_rd(mem, "memory.memsw.failcnt");
  st->kernel_usage = cg_rd(mem, "memory.kmem.usage_in_bytes");
  st->kernel_max = cg_rd(mem, "memory.kmem.max_usage_in_bytes");
  st->kernel_limit = cg_rd(mem, "memory.kmem.limit_in_bytes");
  st->kernel_failcnt = cg_rd(mem, "memory.kmem.failcnt");
  cleanup_free char *ms = cg_read(mem, "memory.stat");
  if (ms) {
    st->mem_cache = cg_kv_get(ms, "cache");
    if (cg_kv_all(ms, &st->mem_raw, &st->n_mem_raw) < 0) return -1;
  }
  st->pids_current = cg_rd(pids, "pids.current");
  st->pids_limit = cg_rd(pids, "pids.max");
  if (v1_blkio_file(blkio, "blkio.throttle.io_service_bytes_recursive", &st->io_bytes, &st->n_io_bytes) < 0 ||
      v1_blkio_file(blkio, "blkio.throttle.io_serviced_recursive", &st->io_ios, &st->n_io_ios) < 0)
    return -1;
  if (access(huge, F_OK) == 0) return cg_hugetlb_stats(huge, false, st);
  if (d->unified) {
    cleanup_free char *u = NULL;
    if (asprintf(&u, "%s/%s%s", d->root->dir, d->unified, path) < 0) return -1;
    return cg_hugetlb_stats(u, true, st);
  }
  return 0;
}

/* An eventfd registered on memory.oom_control: one count per OOM. */
static int v1_oom_fd(const cg_driver *drv, const char *path, crt_err **err) {
  cleanup_free char *d = v1_dir(drv, path, "memory");
  char p[PATH_MAX];
  if (crt_pathf(p, sizeof p, err, "%s/memory.oom_control", d ? d : "") < 0) return crt_error_wrap(err, "cgroup: OOM watch");
  cleanup_close int ofd = open(p, O_RDONLY | O_CLOEXEC);
  if (ofd < 0) return crt_error(err, errno, "cgroup: open %s", p);
  int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (efd < 0) return crt_error(err, errno, "cgroup: eventfd");
  char line[64];
  snprintf(line, sizeof line, "%d %d", efd, ofd);
  if (cg_write(d, "cgroup.event_control", line, err) < 0) {
    close(efd);
    return -1;
  }
  return efd;
}

static int v1_oom_read(const cg_driver *d, const char *path, int fd, unsigned long long *last) {
  uint64_t v;
  if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) return -1;
  return (int)v;
}

#define V1_COMMON                                                                                              \
  .own_key = "pids", .resolve = cg_fs_resolve, .dir = v1_dir, .dirs = v1_dirs, .procs_dir = v1_procs_dir,    \
  .freezer_dir = v1_freezer_dir, .freeze_file = "freezer.state", .frozen_file = "freezer.state",             \
  .freeze_on = "FROZEN", .freeze_off = "THAWED", .frozen = v1_frozen, .apply = cg_v1_apply,                  \
  .devices = v1_update_devices, .stats = v1_stats, .oom_fd = v1_oom_fd, .oom_read = v1_oom_read

const cg_driver cg_driver_v1 = {.name = "v1", V1_COMMON, .enter = v1_enter_cfg, .prepare = v1_prepare,
                                .prepare_late = v1_prepare_late};
const cg_driver cg_driver_hybrid = {.name = "hybrid", V1_COMMON, .unified = "unified", .enter = hybrid_enter,
                                    .prepare = v1_prepare, .prepare_late = v1_prepare_late, .open = cg_v2_open};
