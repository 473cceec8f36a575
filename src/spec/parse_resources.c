/* linux.resources: one parser for config.json and `update --resources`. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "crt/log.h"

#include "internal.h"
#include "json.h"

/* runc 1.1 keeps the r, w and m of an access string and drops any other
 * letter ("rwa" is "rw"), so configs written for it say things like
 * "rwa": crt takes them too, warns about the letters that mean nothing and
 * rewrites access to the canonical "rwm" subset the cgroup writers expect.
 * Nothing left (runc fails later, on v1 with an opaque "doesn't precisely
 * match target") is refused here, by name. */
static int normalize_access(jp *p, crt_device_rule *r) {
  char keep[4] = "", *k = keep;
  for (const char *l = "rwm"; *l; l++)
    if (strchr(r->access, *l)) *k++ = *l;
  *k = 0;
  if (keep[0] == 0) {
    jp_push(p, ".access");
    return jp_fail(p, "invalid access \"%s\" (expected a combination of r, w and m)", r->access);
  }
  if (strspn(r->access, "rwm") != strlen(r->access))
    crt_warn("%s: %s.access: \"%s\": letters other than r, w and m mean nothing, using \"%s\"", p->name, p->path,
             r->access, keep);
  if (strcmp(keep, r->access) != 0) {
    free(r->access);
    r->access = jp_strdup(keep);
  }
  return 0;
}

static int parse_device_rule(jp *p, yajl_val o, crt_device_rule *r) {
  if (f_bool(p, o, "allow", true, &r->allow, NULL) < 0) return -1;
  if (f_str(p, o, "type", false, &r->type) < 0) return -1;
  if (r->type && strcmp(r->type, "a") && strcmp(r->type, "c") && strcmp(r->type, "b")) {
    jp_push(p, ".type");
    return jp_fail(p, "unknown device type \"%s\" (expected a, c or b)", r->type);
  }
  if (f_ci64(p, o, "major", &r->major) < 0) return -1;
  if (f_ci64(p, o, "minor", &r->minor) < 0) return -1;
  if (f_str(p, o, "access", false, &r->access) < 0) return -1;
  return r->access ? normalize_access(p, r) : 0;
}

static int parse_weight_device(jp *p, yajl_val o, crt_blkio_weight_device *w) {
  if (f_int(p, o, "major", true, INT64_MIN, INT64_MAX, &w->major, NULL) < 0) return -1;
  if (f_int(p, o, "minor", true, INT64_MIN, INT64_MAX, &w->minor, NULL) < 0) return -1;
  if (f_cu64(p, o, "weight", UINT16_MAX, &w->weight) < 0) return -1;
  return f_cu64(p, o, "leafWeight", UINT16_MAX, &w->leaf_weight);
}

static int parse_throttle(jp *p, yajl_val o, crt_blkio_throttle *t) {
  if (f_int(p, o, "major", true, INT64_MIN, INT64_MAX, &t->major, NULL) < 0) return -1;
  if (f_int(p, o, "minor", true, INT64_MIN, INT64_MAX, &t->minor, NULL) < 0) return -1;
  return f_uint(p, o, "rate", true, UINT64_MAX, &t->rate, NULL);
}

static int parse_hugepage(jp *p, yajl_val o, crt_hugepage_limit *h) {
  if (f_str(p, o, "pageSize", true, &h->page_size) < 0) return -1;
  return f_uint(p, o, "limit", true, UINT64_MAX, &h->limit, NULL);
}

static int parse_net_prio(jp *p, yajl_val o, crt_net_priority *n) {
  if (f_str(p, o, "name", true, &n->name) < 0) return -1;
  return f_u32(p, o, "priority", true, &n->priority);
}

JP_ADAPT(parse_weight_device)
JP_ADAPT(parse_throttle)

static int parse_blkio(jp *p, yajl_val o, crt_resources *r) {
  r->has_blkio = true;
  if (f_cu64(p, o, "weight", UINT16_MAX, &r->blkio.weight) < 0) return -1;
  if (f_cu64(p, o, "leafWeight", UINT16_MAX, &r->blkio.leaf_weight) < 0) return -1;
  if (OBJV(p, o, "weightDevice", parse_weight_device, &r->blkio.weight_device, &r->blkio.n_weight_device) < 0)
    return -1;
  if (OBJV(p, o, "throttleReadBpsDevice", parse_throttle, &r->blkio.throttle_read_bps,
           &r->blkio.n_throttle_read_bps) < 0)
    return -1;
  if (OBJV(p, o, "throttleWriteBpsDevice", parse_throttle, &r->blkio.throttle_write_bps,
           &r->blkio.n_throttle_write_bps) < 0)
    return -1;
  if (OBJV(p, o, "throttleReadIOPSDevice", parse_throttle, &r->blkio.throttle_read_iops,
           &r->blkio.n_throttle_read_iops) < 0)
    return -1;
  return OBJV(p, o, "throttleWriteIOPSDevice", parse_throttle, &r->blkio.throttle_write_iops,
              &r->blkio.n_throttle_write_iops);
}

static int parse_memory(jp *p, yajl_val o, crt_resources *r) {
  r->has_memory = true;
  if (f_ci64(p, o, "limit", &r->memory.limit) < 0) return -1;
  if (f_ci64(p, o, "reservation", &r->memory.reservation) < 0) return -1;
  if (f_ci64(p, o, "swap", &r->memory.swap) < 0) return -1;
  if (f_ci64(p, o, "kernel", &r->memory.kernel) < 0) return -1;
  if (f_ci64(p, o, "kernelTCP", &r->memory.kernel_tcp) < 0) return -1;
  if (f_cu64(p, o, "swappiness", UINT64_MAX, &r->memory.swappiness) < 0) return -1;
  if (f_cbool(p, o, "disableOOMKiller", &r->memory.disable_oom_killer) < 0) return -1;
  if (f_cbool(p, o, "useHierarchy", &r->memory.use_hierarchy) < 0) return -1;
  return f_cbool(p, o, "checkBeforeUpdate", &r->memory.check_before_update);
}

static int parse_cpu(jp *p, yajl_val o, crt_resources *r) {
  r->has_cpu = true;
  if (f_cu64(p, o, "shares", UINT64_MAX, &r->cpu.shares) < 0) return -1;
  if (f_ci64(p, o, "quota", &r->cpu.quota) < 0) return -1;
  if (f_cu64(p, o, "burst", UINT64_MAX, &r->cpu.burst) < 0) return -1;
  if (f_cu64(p, o, "period", UINT64_MAX, &r->cpu.period) < 0) return -1;
  if (f_ci64(p, o, "realtimeRuntime", &r->cpu.realtime_runtime) < 0) return -1;
  if (f_cu64(p, o, "realtimePeriod", UINT64_MAX, &r->cpu.realtime_period) < 0) return -1;
  if (f_str(p, o, "cpus", false, &r->cpu.cpus) < 0) return -1;
  if (f_str(p, o, "mems", false, &r->cpu.mems) < 0) return -1;
  return f_ci64(p, o, "idle", &r->cpu.idle);
}

static int parse_rdma(jp *p, yajl_val o, crt_resources *r) {
  r->rdma = jp_calloc(o->u.object.len, sizeof *r->rdma);
  for (size_t i = 0; i < o->u.object.len; i++) {
    size_t s = jp_push(p, ".%s", o->u.object.keys[i]);
    crt_rdma *d = &r->rdma[i];
    r->n_rdma = i + 1;
    d->device = jp_strdup(o->u.object.keys[i]);
    yajl_val v = o->u.object.values[i];
    if (jp_want(p, v, yajl_t_object) < 0) return -1;
    if (f_cu64(p, v, "hcaHandles", UINT32_MAX, &d->hca_handles) < 0) return -1;
    if (f_cu64(p, v, "hcaObjects", UINT32_MAX, &d->hca_objects) < 0) return -1;
    jp_pop(p, s);
  }
  return 0;
}

static int parse_pids(jp *p, yajl_val o, crt_resources *r) {
  r->has_pids = true;
  return f_int(p, o, "limit", true, INT64_MIN, INT64_MAX, &r->pids.limit.v, &r->pids.limit.set);
}

JP_ADAPT(parse_net_prio)

static int parse_network(jp *p, yajl_val o, crt_resources *r) {
  r->has_network = true;
  if (f_cu64(p, o, "classID", UINT32_MAX, &r->network.class_id) < 0) return -1;
  return OBJV(p, o, "priorities", parse_net_prio, &r->network.priorities, &r->network.n_priorities);
}

JP_ADAPT(parse_device_rule)
JP_ADAPT(parse_memory)
JP_ADAPT(parse_cpu)
JP_ADAPT(parse_pids)
JP_ADAPT(parse_blkio)
JP_ADAPT(parse_hugepage)
JP_ADAPT(parse_network)
JP_ADAPT(parse_rdma)

int spec_parse_resources(jp *p, yajl_val o, crt_resources *r) {
  if (OBJV(p, o, "devices", parse_device_rule, &r->devices, &r->n_devices) < 0) return -1;
  if (IN_PLACE(p, o, "memory", parse_memory, r) < 0) return -1;
  if (IN_PLACE(p, o, "cpu", parse_cpu, r) < 0) return -1;
  if (IN_PLACE(p, o, "pids", parse_pids, r) < 0) return -1;
  if (IN_PLACE(p, o, "blockIO", parse_blkio, r) < 0) return -1;
  if (OBJV(p, o, "hugepageLimits", parse_hugepage, &r->hugepage_limits, &r->n_hugepage_limits) < 0) return -1;
  if (IN_PLACE(p, o, "network", parse_network, r) < 0) return -1;
  if (IN_PLACE(p, o, "rdma", parse_rdma, r) < 0) return -1;
  return f_kvv(p, o, "unified", &r->unified);
}
