/* cgroups: the resource values, checked before anything is written (so
 * that an update is refused whole), and runc's translations of v1 values
 * to v2 files (formulas in docs/cgroups.md).  Calls no driver. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_internal.h"
#include "crt/str.h"

unsigned long long cg_shares_to_weight(unsigned long long shares) {
  if (shares == 0) return 0;
  if (shares < 2) shares = 2;
  if (shares > 262144) shares = 262144;
  return 1 + ((shares - 2) * 9999) / 262142;
}

unsigned long long cg_blkio_to_io_weight(unsigned long long w) {
  if (w == 0) return 0;
  if (w < 10) w = 10;
  if (w > 1000) w = 1000;
  return 1 + (w - 10) * 9999 / 990;
}

/* v1's memsw is memory+swap; v2's memory.swap.max is swap alone. */
int cg_swap_v2(long long swap, long long limit, long long *out, crt_err **err) {
  if (limit == -1 && swap == 0) {
    *out = -1;
    return 0;
  }
  if (swap == -1 || swap == 0) {
    *out = swap;
    return 0;
  }
  if (limit == 0 || limit == -1)
    return crt_error(err, EINVAL, "cgroup: memory.swap: unable to set swap limit without memory limit");
  if (limit < 0) return crt_error(err, EINVAL, "cgroup: invalid memory.limit %lld", limit);
  if (swap < limit)
    return crt_error(err, EINVAL, "cgroup: memory.swap (%lld) should be >= memory.limit (%lld): it is memory+swap",
                     swap, limit);
  *out = swap - limit;
  return 0;
}

int cg_rdma_line(const crt_rdma *r, char *buf, size_t len, crt_err **err) {
  char h[48] = "", o[48] = "";
  if (r->hca_handles.set) snprintf(h, sizeof h, " hca_handle=%llu", (unsigned long long)r->hca_handles.v);
  if (r->hca_objects.set) snprintf(o, sizeof o, " hca_object=%llu", (unsigned long long)r->hca_objects.v);
  const char *dev = r->device ? r->device : "";
  if (crt_fmt(buf, len, "%s%s%s", dev, h, o) < 0) return crt_error(err, ENAMETOOLONG, "cgroup: rdma device %s: name too long", dev);
  return 0;
}

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

int cg_check_before_update(const char *dir, const char *usage_file, const crt_resources *r, crt_err **err) {
  const __typeof__(r->memory) *m = &r->memory;
  if (!m->check_before_update.set || !m->check_before_update.v || !dir) return 0;
  long long limit = m->limit.set ? m->limit.v : 0, swap = m->swap.set ? m->swap.v : 0;
  unsigned long long usage;
  if ((limit <= 0 && swap <= 0) || cg_read_u64(dir, usage_file, &usage) < 0) return 0;
  if (swap > 0 && (unsigned long long)swap <= usage)
    return crt_error(err, 0, "rejecting memory+swap limit %lld <= usage %llu", swap, usage);
  if (limit > 0 && (unsigned long long)limit <= usage)
    return crt_error(err, 0, "rejecting memory limit %lld <= usage %llu", limit, usage);
  return 0;
}
