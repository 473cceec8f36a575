/* Model -> JSON (yajl_gen).  Field order follows runc's Go structs so that
 * `crt spec` output matches `runc spec`; every field the parser reads is
 * written back, so parse -> to_json -> parse is lossless. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "crt/spec.h"
#include "internal.h"

typedef yajl_gen G;

static void key(G g, const char *k) { yajl_gen_string(g, (const unsigned char *)k, strlen(k)); }

static void str(G g, const char *s) { yajl_gen_string(g, (const unsigned char *)s, strlen(s)); }

static void num_u(G g, uint64_t v) {
  char b[32];
  int n = snprintf(b, sizeof b, "%" PRIu64, v);
  yajl_gen_number(g, b, (size_t)n);
}

static void num_i(G g, int64_t v) {
  char b[32];
  int n = snprintf(b, sizeof b, "%" PRId64, v);
  yajl_gen_number(g, b, (size_t)n);
}

static void kstr(G g, const char *k, const char *s) {
  if (s == NULL) return;
  key(g, k);
  str(g, s);
}

static void kbool(G g, const char *k, bool v) {
  key(g, k);
  yajl_gen_bool(g, v);
}

static void ku(G g, const char *k, uint64_t v) {
  key(g, k);
  num_u(g, v);
}

static void ki(G g, const char *k, int64_t v) {
  key(g, k);
  num_i(g, v);
}

static void kcu(G g, const char *k, crt_u64 v) {
  if (v.set) ku(g, k, v.v);
}

static void kci(G g, const char *k, crt_i64 v) {
  if (v.set) ki(g, k, v.v);
}

static void kcb(G g, const char *k, crt_bool v) {
  if (v.set) kbool(g, k, v.v);
}

static void kstrv(G g, const char *k, const crt_strv *l) {
  if (l->v == NULL) return;
  key(g, k);
  yajl_gen_array_open(g);
  for (size_t i = 0; i < l->len; i++) str(g, l->v[i]);
  yajl_gen_array_close(g);
}

static void kkvv(G g, const char *k, const crt_kvv *kv) {
  if (kv->v == NULL) return;
  key(g, k);
  yajl_gen_map_open(g);
  for (size_t i = 0; i < kv->len; i++) kstr(g, kv->v[i].key, kv->v[i].value);
  yajl_gen_map_close(g);
}

static void kidmaps(G g, const char *k, const crt_idmapv *m) {
  if (m->v == NULL) return;
  key(g, k);
  yajl_gen_array_open(g);
  for (size_t i = 0; i < m->len; i++) {
    yajl_gen_map_open(g);
    ku(g, "containerID", m->v[i].container_id);
    ku(g, "hostID", m->v[i].host_id);
    ku(g, "size", m->v[i].size);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
}

static void gen_caps(G g, const crt_capabilities *c) {
  key(g, "capabilities");
  yajl_gen_map_open(g);
  if (c->has_bounding) kstrv(g, "bounding", &c->bounding);
  if (c->has_effective) kstrv(g, "effective", &c->effective);
  if (c->has_inheritable) kstrv(g, "inheritable", &c->inheritable);
  if (c->has_permitted) kstrv(g, "permitted", &c->permitted);
  if (c->has_ambient) kstrv(g, "ambient", &c->ambient);
  yajl_gen_map_close(g);
}

static void gen_user(G g, const crt_user *u) {
  key(g, "user");
  yajl_gen_map_open(g);
  ku(g, "uid", u->uid);
  ku(g, "gid", u->gid);
  kcu(g, "umask", u->umask);
  if (u->additional_gids) {
    key(g, "additionalGids");
    yajl_gen_array_open(g);
    for (size_t i = 0; i < u->n_additional_gids; i++) num_u(g, u->additional_gids[i]);
    yajl_gen_array_close(g);
  }
  kstr(g, "username", u->username);
  yajl_gen_map_close(g);
}

static void gen_scheduler(G g, const crt_scheduler *s) {
  key(g, "scheduler");
  yajl_gen_map_open(g);
  kstr(g, "policy", s->policy);
  if (s->nice) ki(g, "nice", s->nice);
  if (s->priority) ki(g, "priority", s->priority);
  kstrv(g, "flags", &s->flags);
  if (s->runtime) ku(g, "runtime", s->runtime);
  if (s->deadline) ku(g, "deadline", s->deadline);
  if (s->period) ku(g, "period", s->period);
  yajl_gen_map_close(g);
}

static void gen_process(G g, const crt_process *p) {
  yajl_gen_map_open(g);
  if (p->terminal) kbool(g, "terminal", true);
  if (p->has_console_size) {
    key(g, "consoleSize");
    yajl_gen_map_open(g);
    ku(g, "height", p->console_height);
    ku(g, "width", p->console_width);
    yajl_gen_map_close(g);
  }
  gen_user(g, &p->user);
  kstrv(g, "args", &p->args);
  kstr(g, "commandLine", p->command_line);
  kstrv(g, "env", &p->env);
  kstr(g, "cwd", p->cwd);
  if (p->capabilities) gen_caps(g, p->capabilities);
  if (p->rlimits) {
    key(g, "rlimits");
    yajl_gen_array_open(g);
    for (size_t i = 0; i < p->n_rlimits; i++) {
      yajl_gen_map_open(g);
      kstr(g, "type", p->rlimits[i].type);
      ku(g, "hard", p->rlimits[i].hard);
      ku(g, "soft", p->rlimits[i].soft);
      yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
  }
  if (p->no_new_privileges) kbool(g, "noNewPrivileges", true);
  kstr(g, "apparmorProfile", p->apparmor_profile);
  kci(g, "oomScoreAdj", p->oom_score_adj);
  if (p->scheduler) gen_scheduler(g, p->scheduler);
  kstr(g, "selinuxLabel", p->selinux_label);
  if (p->io_priority) {
    key(g, "ioPriority");
    yajl_gen_map_open(g);
    kstr(g, "class", p->io_priority->class_name);
    ki(g, "priority", p->io_priority->priority);
    yajl_gen_map_close(g);
  }
  if (p->exec_cpu_affinity) {
    key(g, "execCPUAffinity");
    yajl_gen_map_open(g);
    kstr(g, "initial", p->exec_cpu_affinity->initial);
    kstr(g, "final", p->exec_cpu_affinity->final);
    yajl_gen_map_close(g);
  }
  yajl_gen_map_close(g);
}

static void gen_mount(G g, const crt_mount *m) {
  yajl_gen_map_open(g);
  kstr(g, "destination", m->destination);
  kstr(g, "type", m->type);
  kstr(g, "source", m->source);
  kstrv(g, "options", &m->options);
  kidmaps(g, "uidMappings", &m->uid_mappings);
  kidmaps(g, "gidMappings", &m->gid_mappings);
  yajl_gen_map_close(g);
}

static void gen_hooks(G g, const crt_hooks *h) {
  const crt_hookv *kinds[] = {&h->prestart, &h->create_runtime, &h->create_container,
                              &h->start_container, &h->poststart, &h->poststop};
  key(g, "hooks");
  yajl_gen_map_open(g);
  for (size_t i = 0; crt_spec_hook_names[i]; i++) {
    if (kinds[i]->v == NULL) continue;
    key(g, crt_spec_hook_names[i]);
    yajl_gen_array_open(g);
    for (size_t j = 0; j < kinds[i]->len; j++) {
      const crt_hook *k = &kinds[i]->v[j];
      yajl_gen_map_open(g);
      kstr(g, "path", k->path);
      kstrv(g, "args", &k->args);
      kstrv(g, "env", &k->env);
      kci(g, "timeout", k->timeout);
      yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
  }
  yajl_gen_map_close(g);
}

static void gen_throttle(G g, const char *k, const crt_blkio_throttle *t, size_t n) {
  if (t == NULL) return;
  key(g, k);
  yajl_gen_array_open(g);
  for (size_t i = 0; i < n; i++) {
    yajl_gen_map_open(g);
    ki(g, "major", t[i].major);
    ki(g, "minor", t[i].minor);
    ku(g, "rate", t[i].rate);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
}

static void gen_blkio(G g, const crt_resources *r) {
  key(g, "blockIO");
  yajl_gen_map_open(g);
  kcu(g, "weight", r->blkio.weight);
  kcu(g, "leafWeight", r->blkio.leaf_weight);
  if (r->blkio.weight_device) {
    key(g, "weightDevice");
    yajl_gen_array_open(g);
    for (size_t i = 0; i < r->blkio.n_weight_device; i++) {
      const crt_blkio_weight_device *w = &r->blkio.weight_device[i];
      yajl_gen_map_open(g);
      ki(g, "major", w->major);
      ki(g, "minor", w->minor);
      kcu(g, "weight", w->weight);
      kcu(g, "leafWeight", w->leaf_weight);
      yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
  }
  gen_throttle(g, "throttleReadBpsDevice", r->blkio.throttle_read_bps, r->blkio.n_throttle_read_bps);
  gen_throttle(g, "throttleWriteBpsDevice", r->blkio.throttle_write_bps, r->blkio.n_throttle_write_bps);
  gen_throttle(g, "throttleReadIOPSDevice", r->blkio.throttle_read_iops, r->blkio.n_throttle_read_iops);
  gen_throttle(g, "throttleWriteIOPSDevice", r->blkio.throttle_write_iops, r->blkio.n_throttle_write_iops);
  yajl_gen_map_close(g);
}

static void gen_memory_cpu(G g, const crt_resources *r) {
  if (r->has_memory) {
    key(g, "memory");
    yajl_gen_map_open(g);
    kci(g, "limit", r->memory.limit);
    kci(g, "reservation", r->memory.reservation);
    kci(g, "swap", r->memory.swap);
    kci(g, "kernel", r->memory.kernel);
    kci(g, "kernelTCP", r->memory.kernel_tcp);
    kcu(g, "swappiness", r->memory.swappiness);
    kcb(g, "disableOOMKiller", r->memory.disable_oom_killer);
    kcb(g, "useHierarchy", r->memory.use_hierarchy);
    kcb(g, "checkBeforeUpdate", r->memory.check_before_update);
    yajl_gen_map_close(g);
  }
  if (r->has_cpu) {
    key(g, "cpu");
    yajl_gen_map_open(g);
    kcu(g, "shares", r->cpu.shares);
    kci(g, "quota", r->cpu.quota);
    kcu(g, "burst", r->cpu.burst);
    kcu(g, "period", r->cpu.period);
    kci(g, "realtimeRuntime", r->cpu.realtime_runtime);
    kcu(g, "realtimePeriod", r->cpu.realtime_period);
    kstr(g, "cpus", r->cpu.cpus);
    kstr(g, "mems", r->cpu.mems);
    kci(g, "idle", r->cpu.idle);
    yajl_gen_map_close(g);
  }
}

static void gen_resources(G g, const crt_resources *r) {
  key(g, "resources");
  yajl_gen_map_open(g);
  if (r->devices) {
    key(g, "devices");
    yajl_gen_array_open(g);
    for (size_t i = 0; i < r->n_devices; i++) {
      const crt_device_rule *d = &r->devices[i];
      yajl_gen_map_open(g);
      kbool(g, "allow", d->allow);
      kstr(g, "type", d->type);
      kci(g, "major", d->major);
      kci(g, "minor", d->minor);
      kstr(g, "access", d->access);
      yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
  }
  gen_memory_cpu(g, r);
  if (r->has_pids) {
    key(g, "pids");
    yajl_gen_map_open(g);
    kci(g, "limit", r->pids.limit);
    yajl_gen_map_close(g);
  }
  if (r->has_blkio) gen_blkio(g, r);
  if (r->hugepage_limits) {
    key(g, "hugepageLimits");
    yajl_gen_array_open(g);
    for (size_t i = 0; i < r->n_hugepage_limits; i++) {
      yajl_gen_map_open(g);
      kstr(g, "pageSize", r->hugepage_limits[i].page_size);
      ku(g, "limit", r->hugepage_limits[i].limit);
      yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
  }
  if (r->has_network) {
    key(g, "network");
    yajl_gen_map_open(g);
    kcu(g, "classID", r->network.class_id);
    if (r->network.priorities) {
      key(g, "priorities");
      yajl_gen_array_open(g);
      for (size_t i = 0; i < r->network.n_priorities; i++) {
        yajl_gen_map_open(g);
        kstr(g, "name", r->network.priorities[i].name);
        ku(g, "priority", r->network.priorities[i].priority);
        yajl_gen_map_close(g);
      }
      yajl_gen_array_close(g);
    }
    yajl_gen_map_close(g);
  }
  if (r->rdma) {
    key(g, "rdma");
    yajl_gen_map_open(g);
    for (size_t i = 0; i < r->n_rdma; i++) {
      key(g, r->rdma[i].device);
      yajl_gen_map_open(g);
      kcu(g, "hcaHandles", r->rdma[i].hca_handles);
      kcu(g, "hcaObjects", r->rdma[i].hca_objects);
      yajl_gen_map_close(g);
    }
    yajl_gen_map_close(g);
  }
  kkvv(g, "unified", &r->unified);
  yajl_gen_map_close(g);
}

static void gen_seccomp(G g, const crt_seccomp *s) {
  key(g, "seccomp");
  yajl_gen_map_open(g);
  kstr(g, "defaultAction", s->default_action);
  kcu(g, "defaultErrnoRet", s->default_errno_ret);
  kstrv(g, "architectures", &s->architectures);
  kstrv(g, "flags", &s->flags);
  kstr(g, "listenerPath", s->listener_path);
  kstr(g, "listenerMetadata", s->listener_metadata);
  if (s->syscalls) {
    key(g, "syscalls");
    yajl_gen_array_open(g);
    for (size_t i = 0; i < s->n_syscalls; i++) {
      const crt_seccomp_syscall *c = &s->syscalls[i];
      yajl_gen_map_open(g);
      kstrv(g, "names", &c->names);
      kstr(g, "action", c->action);
      kcu(g, "errnoRet", c->errno_ret);
      if (c->args) {
        key(g, "args");
        yajl_gen_array_open(g);
        for (size_t j = 0; j < c->n_args; j++) {
          yajl_gen_map_open(g);
          ku(g, "index", c->args[j].index);
          ku(g, "value", c->args[j].value);
          if (c->args[j].value_two) ku(g, "valueTwo", c->args[j].value_two);
          kstr(g, "op", c->args[j].op_name ? c->args[j].op_name : crt_spec_seccomp_operators[c->args[j].op]);
          yajl_gen_map_close(g);
        }
        yajl_gen_array_close(g);
      }
      yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
  }
  yajl_gen_map_close(g);
}

static void gen_linux_tail(G g, const crt_linux *l) {
  kstr(g, "rootfsPropagation", l->rootfs_propagation);
  kstrv(g, "maskedPaths", &l->masked_paths);
  kstrv(g, "readonlyPaths", &l->readonly_paths);
  kstr(g, "mountLabel", l->mount_label);
  if (l->intel_rdt) {
    key(g, "intelRdt");
    yajl_gen_map_open(g);
    kstr(g, "closID", l->intel_rdt->clos_id);
    kstr(g, "l3CacheSchema", l->intel_rdt->l3_cache_schema);
    kstr(g, "memBwSchema", l->intel_rdt->mem_bw_schema);
    kstrv(g, "schemata", &l->intel_rdt->schemata);
    if (l->intel_rdt->enable_cmt) kbool(g, "enableCMT", true);
    if (l->intel_rdt->enable_mbm) kbool(g, "enableMBM", true);
    if (l->intel_rdt->enable_monitoring) kbool(g, "enableMonitoring", true);
    yajl_gen_map_close(g);
  }
  if (l->personality) {
    key(g, "personality");
    yajl_gen_map_open(g);
    kstr(g, "domain", l->personality->domain);
    kstrv(g, "flags", &l->personality->flags);
    yajl_gen_map_close(g);
  }
  if (l->time_offsets) {
    key(g, "timeOffsets");
    yajl_gen_map_open(g);
    for (size_t i = 0; i < l->n_time_offsets; i++) {
      key(g, l->time_offsets[i].clock);
      yajl_gen_map_open(g);
      ki(g, "secs", l->time_offsets[i].secs);
      ku(g, "nanosecs", l->time_offsets[i].nanosecs);
      yajl_gen_map_close(g);
    }
    yajl_gen_map_close(g);
  }
  if (l->memory_policy) {
    key(g, "memoryPolicy");
    yajl_gen_map_open(g);
    kstr(g, "mode", l->memory_policy->mode);
    kstr(g, "nodes", l->memory_policy->nodes);
    kstrv(g, "flags", &l->memory_policy->flags);
    yajl_gen_map_close(g);
  }
}

static void gen_linux(G g, const crt_linux *l) {
  key(g, "linux");
  yajl_gen_map_open(g);
  kidmaps(g, "uidMappings", &l->uid_mappings);
  kidmaps(g, "gidMappings", &l->gid_mappings);
  kkvv(g, "sysctl", &l->sysctl);
  if (l->net_devices.v) {
    key(g, "netDevices");
    yajl_gen_map_open(g);
    for (size_t i = 0; i < l->net_devices.len; i++) {
      key(g, l->net_devices.v[i].key);
      yajl_gen_map_open(g);
      if (*l->net_devices.v[i].value) kstr(g, "name", l->net_devices.v[i].value);
      yajl_gen_map_close(g);
    }
    yajl_gen_map_close(g);
  }
  if (l->resources) gen_resources(g, l->resources);
  kstr(g, "cgroupsPath", l->cgroups_path);
  if (l->namespaces) {
    key(g, "namespaces");
    yajl_gen_array_open(g);
    for (size_t i = 0; i < l->n_namespaces; i++) {
      yajl_gen_map_open(g);
      kstr(g, "type", crt_ns_name(l->namespaces[i].type));
      kstr(g, "path", l->namespaces[i].path);
      yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
  }
  if (l->devices) {
    key(g, "devices");
    yajl_gen_array_open(g);
    for (size_t i = 0; i < l->n_devices; i++) {
      const crt_device *d = &l->devices[i];
      yajl_gen_map_open(g);
      kstr(g, "path", d->path);
      kstr(g, "type", d->type);
      ki(g, "major", d->major);
      ki(g, "minor", d->minor);
      kcu(g, "fileMode", d->file_mode);
      kcu(g, "uid", d->uid);
      kcu(g, "gid", d->gid);
      yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
  }
  if (l->seccomp) gen_seccomp(g, l->seccomp);
  gen_linux_tail(g, l);
  yajl_gen_map_close(g);
}

char *crt_spec_to_json(const crt_spec *spec, bool pretty) {
  G g = yajl_gen_alloc(NULL);
  if (g == NULL) return NULL;
  if (pretty) {
    yajl_gen_config(g, yajl_gen_beautify, 1);
    yajl_gen_config(g, yajl_gen_indent_string, "\t");
  }
  yajl_gen_map_open(g);
  kstr(g, "ociVersion", spec->oci_version);
  if (spec->process) {
    key(g, "process");
    gen_process(g, spec->process);
  }
  if (spec->root) {
    key(g, "root");
    yajl_gen_map_open(g);
    kstr(g, "path", spec->root->path);
    if (spec->root->readonly) kbool(g, "readonly", true);
    yajl_gen_map_close(g);
  }
  kstr(g, "hostname", spec->hostname);
  kstr(g, "domainname", spec->domainname);
  if (spec->mounts) {
    key(g, "mounts");
    yajl_gen_array_open(g);
    for (size_t i = 0; i < spec->n_mounts; i++) gen_mount(g, &spec->mounts[i]);
    yajl_gen_array_close(g);
  }
  if (spec->hooks) gen_hooks(g, spec->hooks);
  kkvv(g, "annotations", &spec->annotations);
  if (spec->linux_) gen_linux(g, spec->linux_);
  yajl_gen_map_close(g);
  const unsigned char *buf;
  size_t len;
  char *out = NULL;
  if (yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok) out = strndup((const char *)buf, len);
  yajl_gen_free(g);
  return out;
}
