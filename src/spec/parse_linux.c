/* config.json's linux object: namespaces, mappings, devices and the
 * smaller members; resources and seccomp have files of their own. */
#define _GNU_SOURCE
#include <ctype.h>
#include <string.h>

#include "internal.h"
#include "json.h"

static int parse_namespace(jp *p, yajl_val o, crt_namespace *ns) {
  cleanup_free char *type = NULL;
  if (f_str(p, o, "type", true, &type) < 0) return -1;
  int t = -1;
  for (int i = 0; i < CRT_NS_COUNT; i++)
    if (strcmp(crt_ns_name(i), type) == 0) t = i;
  if (t < 0) {
    jp_push(p, ".type");
    return jp_fail(p, "unknown namespace type \"%s\"", type);
  }
  ns->type = t;
  if (f_str(p, o, "path", false, &ns->path) < 0) return -1;
  /* runc reads "path": "" as no path (a new namespace): run.bats joins
   * every namespace of a container but the mount one that way. */
  if (ns->path && !*ns->path) {
    free(ns->path);
    ns->path = NULL;
  }
  if (ns->path) {
    jp_push(p, ".path");
    if (jp_check_abs(p, ns->path) < 0) return -1;
  }
  return 0;
}

static int parse_time_offsets(jp *p, yajl_val o, crt_linux *l) {
  l->time_offsets = jp_calloc(o->u.object.len, sizeof *l->time_offsets);
  for (size_t i = 0; i < o->u.object.len; i++) {
    const char *clock = o->u.object.keys[i];
    size_t s = jp_push(p, ".%s", clock);
    crt_time_offset *t = &l->time_offsets[i];
    l->n_time_offsets = i + 1;
    t->clock = jp_strdup(clock);
    if (strcmp(clock, "monotonic") && strcmp(clock, "boottime"))
      return jp_fail(p, "unknown clock \"%s\" (expected monotonic or boottime)", clock);
    yajl_val v = o->u.object.values[i];
    if (jp_want(p, v, yajl_t_object) < 0) return -1;
    if (f_int(p, v, "secs", false, INT64_MIN, INT64_MAX, &t->secs, NULL) < 0) return -1;
    uint64_t ns = 0;
    if (f_uint(p, v, "nanosecs", false, 999999999, &ns, NULL) < 0) return -1;
    t->nanosecs = (uint32_t)ns;
    jp_pop(p, s);
  }
  return 0;
}

/* Go's filepath.Clean of an absolute path, in place: runc resolves device
 * paths with securejoin, which cleans them, so "/dev/fuse/" and
 * "/dev//x/../fuse" name /dev/fuse.  ".." stops at "/". */
static void clean_abs_path(char *path) {
  char *out = path; /* path[0] is '/' */
  for (const char *in = path; *in;) {
    while (*in == '/') in++;
    const char *end = in + strcspn(in, "/");
    size_t n = (size_t)(end - in);
    if (n == 0 || (n == 1 && in[0] == '.')) {
      /* nothing */
    } else if (n == 2 && in[0] == '.' && in[1] == '.') {
      while (out > path && *--out != '/') {
      }
    } else {
      *out++ = '/';
      memmove(out, in, n);
      out += n;
    }
    in = end;
  }
  if (out == path) *out++ = '/';
  *out = 0;
}

static int parse_device(jp *p, yajl_val o, crt_device *d) {
  if (f_str(p, o, "type", true, &d->type) < 0) return -1;
  if (strcmp(d->type, "c") && strcmp(d->type, "b") && strcmp(d->type, "u") && strcmp(d->type, "p")) {
    jp_push(p, ".type");
    return jp_fail(p, "unknown device type \"%s\" (expected c, b, u or p)", d->type);
  }
  if (f_str(p, o, "path", true, &d->path) < 0) return -1;
  size_t s = jp_push(p, ".path");
  if (jp_check_abs(p, d->path) < 0) return -1;
  jp_pop(p, s);
  clean_abs_path(d->path);
  bool needs_nums = strcmp(d->type, "p") != 0;
  if (f_int(p, o, "major", needs_nums, INT64_MIN, INT64_MAX, &d->major, NULL) < 0) return -1;
  if (f_int(p, o, "minor", needs_nums, INT64_MIN, INT64_MAX, &d->minor, NULL) < 0) return -1;
  if (f_cu64(p, o, "fileMode", 07777, &d->file_mode) < 0) return -1;
  if (f_cu64(p, o, "uid", UINT32_MAX, &d->uid) < 0) return -1;
  return f_cu64(p, o, "gid", UINT32_MAX, &d->gid);
}


static int parse_intel_rdt(jp *p, yajl_val o, crt_intel_rdt *r) {
  if (f_str(p, o, "closID", false, &r->clos_id) < 0) return -1;
  if (f_str(p, o, "l3CacheSchema", false, &r->l3_cache_schema) < 0) return -1;
  if (f_str(p, o, "memBwSchema", false, &r->mem_bw_schema) < 0) return -1;
  if (f_strv(p, o, "schemata", &r->schemata, NULL) < 0) return -1;
  if (f_bool(p, o, "enableCMT", false, &r->enable_cmt, NULL) < 0) return -1;
  if (f_bool(p, o, "enableMBM", false, &r->enable_mbm, NULL) < 0) return -1;
  return f_bool(p, o, "enableMonitoring", false, &r->enable_monitoring, NULL);
}

static int parse_personality(jp *p, yajl_val o, crt_personality *pe) {
  if (f_str(p, o, "domain", true, &pe->domain) < 0) return -1;
  if (crt_spec_in_list(crt_spec_personality_domains, pe->domain) < 0) {
    jp_push(p, ".domain");
    return jp_fail(p, "unknown personality domain \"%s\"", pe->domain);
  }
  return f_strv(p, o, "flags", &pe->flags, NULL);
}

/* runc main's words (runc 1.3 has no memoryPolicy): a missing mode is
 * mode "" (Go's zero value), refused as an unknown one. */
static int parse_mempolicy(jp *p, yajl_val o, crt_memory_policy *m) {
  if (f_str(p, o, "mode", false, &m->mode) < 0) return -1;
  if (!m->mode) m->mode = jp_strdup("");
  if (crt_spec_in_list(crt_spec_mempolicy_modes, m->mode) < 0) {
    jp_push(p, ".mode");
    return jp_fail(p, "invalid memory policy mode \"%s\"", m->mode);
  }
  if (f_str(p, o, "nodes", false, &m->nodes) < 0) return -1;
  if (f_strv(p, o, "flags", &m->flags, NULL) < 0) return -1;
  for (size_t i = 0; i < m->flags.len; i++)
    if (crt_spec_in_list(crt_spec_mempolicy_flags, m->flags.v[i]) < 0) {
      jp_push(p, ".flags[%zu]", i);
      return jp_fail(p, "invalid memory policy flag \"%s\"", m->flags.v[i]);
    }
  return 0;
}



/* An interface name the kernel would take (dev_valid_name). */
static bool valid_ifname(const char *n) {
  size_t len = strlen(n);
  if (len == 0 || len >= 16 || !strcmp(n, ".") || !strcmp(n, "..")) return false;
  for (; *n; n++)
    if (*n == '/' || *n == ':' || isspace((unsigned char)*n)) return false;
  return true;
}

/* linux.netDevices: {"eth1": {"name": "net0"}, "eth2": {}} */
static int parse_net_devices(jp *p, yajl_val o, crt_linux *l) {
  yajl_val v;
  size_t s;
  if (jp_enter(p, o, "netDevices", yajl_t_object, false, &v, &s) < 0) return -1;
  if (v == NULL) return 0;
  l->net_devices.v = jp_calloc(v->u.object.len + 1, sizeof(crt_kv));
  for (size_t i = 0; i < v->u.object.len; i++) {
    const char *host = v->u.object.keys[i];
    size_t si = jp_push(p, "[\"%s\"]", host);
    if (!valid_ifname(host)) return jp_fail(p, "not a valid interface name");
    if (jp_want(p, v->u.object.values[i], yajl_t_object) < 0) return -1;
    char *name = NULL;
    if (f_str(p, v->u.object.values[i], "name", false, &name) < 0) return -1;
    l->net_devices.v[i].key = jp_strdup(host);
    l->net_devices.v[i].value = name ? name : jp_strdup("");
    l->net_devices.len = i + 1;
    if (name && !valid_ifname(name)) {
      jp_push(p, ".name");
      return jp_fail(p, "\"%s\" is not a valid interface name", name);
    }
    jp_pop(p, si);
  }
  jp_pop(p, s);
  return 0;
}

JP_ADAPT(parse_namespace)
JP_ADAPT(parse_device)
JP_ADAPT(spec_parse_resources)
JP_ADAPT(parse_intel_rdt)
JP_ADAPT(spec_parse_seccomp)
JP_ADAPT(parse_personality)
JP_ADAPT(parse_mempolicy)

int spec_parse_linux(jp *p, yajl_val o, crt_linux *l) {
  if (OBJV(p, o, "namespaces", parse_namespace, &l->namespaces, &l->n_namespaces) < 0) return -1;
  for (size_t i = 0; i < l->n_namespaces; i++)
    for (size_t j = 0; j < i; j++)
      if (l->namespaces[i].type == l->namespaces[j].type) {
        jp_push(p, ".namespaces[%zu].type", i);
        return jp_fail(p, "duplicate namespace type \"%s\"", crt_ns_name(l->namespaces[i].type));
      }
  if (f_idmaps(p, o, "uidMappings", &l->uid_mappings) < 0) return -1;
  if (f_idmaps(p, o, "gidMappings", &l->gid_mappings) < 0) return -1;
  yajl_val v;
  size_t s;
  if (jp_enter(p, o, "timeOffsets", yajl_t_object, false, &v, &s) < 0) return -1;
  if (v) {
    if (parse_time_offsets(p, v, l) < 0) return -1;
    jp_pop(p, s);
  }
  if (OBJV(p, o, "devices", parse_device, &l->devices, &l->n_devices) < 0) return -1;
  if (f_str(p, o, "cgroupsPath", false, &l->cgroups_path) < 0) return -1;
  if (SUB(p, o, "resources", spec_parse_resources, &l->resources) < 0) return -1;
  if (SUB(p, o, "intelRdt", parse_intel_rdt, &l->intel_rdt) < 0) return -1;
  if (f_kvv(p, o, "sysctl", &l->sysctl) < 0) return -1;
  if (parse_net_devices(p, o, l) < 0) return -1;
  if (SUB(p, o, "seccomp", spec_parse_seccomp, &l->seccomp) < 0) return -1;
  if (f_str(p, o, "rootfsPropagation", false, &l->rootfs_propagation) < 0) return -1;
  l->rootfs_propagation_flags = crt_mount_propagation(l->rootfs_propagation);
  if (l->rootfs_propagation && crt_spec_in_list(crt_spec_rootfs_propagations, l->rootfs_propagation) < 0) {
    s = jp_push(p, ".rootfsPropagation");
    return jp_fail(p, "unknown propagation \"%s\" (expected shared, slave, private or unbindable)",
                l->rootfs_propagation);
  }
  if (f_strv(p, o, "maskedPaths", &l->masked_paths, NULL) < 0) return -1;
  if (jp_each(p, "maskedPaths", &l->masked_paths, jp_check_abs) < 0) return -1;
  if (f_strv(p, o, "readonlyPaths", &l->readonly_paths, NULL) < 0) return -1;
  if (jp_each(p, "readonlyPaths", &l->readonly_paths, jp_check_abs) < 0) return -1;
  if (f_str(p, o, "mountLabel", false, &l->mount_label) < 0) return -1;
  if (SUB(p, o, "personality", parse_personality, &l->personality) < 0) return -1;
  return SUB(p, o, "memoryPolicy", parse_mempolicy, &l->memory_policy);
}
