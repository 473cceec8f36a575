/* `crt features` (runtime-spec features.md).  Lists come from
 * src/spec/tables.c, libcap, libmount and libseccomp. */
#define _GNU_SOURCE
#include <ctype.h>
#include <libmount.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <yajl/yajl_gen.h>

#include "crt/spec.h"
#include "internal.h"

static void str(yajl_gen g, const char *s) { yajl_gen_string(g, (const unsigned char *)s, strlen(s)); }

static void strs(yajl_gen g, const char *k, const char *const *l) {
  str(g, k);
  yajl_gen_array_open(g);
  for (size_t i = 0; l[i]; i++) str(g, l[i]);
  yajl_gen_array_close(g);
}

static void kbool(yajl_gen g, const char *k, bool v) {
  str(g, k);
  yajl_gen_bool(g, v);
}

static void enabled(yajl_gen g, const char *k, bool v) {
  str(g, k);
  yajl_gen_map_open(g);
  kbool(g, "enabled", v);
  yajl_gen_map_close(g);
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* libmount's Linux option map (plain flags only) plus crt's own table. */
static void mount_options(yajl_gen g) {
  const char *names[512];
  size_t n = 0;
  const struct libmnt_optmap *map = mnt_get_builtin_optmap(MNT_LINUX_MAP);
  for (; map && map->name && n < 400; map++)
    if (strpbrk(map->name, "=[") == NULL) names[n++] = map->name;
  for (size_t i = 0; crt_spec_mount_options[i] && n < 512; i++) names[n++] = crt_spec_mount_options[i];
  qsort(names, n, sizeof names[0], cmp);
  str(g, "mountOptions");
  yajl_gen_array_open(g);
  for (size_t i = 0; i < n; i++)
    if (i == 0 || strcmp(names[i], names[i - 1])) str(g, names[i]);
  yajl_gen_array_close(g);
}

/* Every capability name libcap knows; it prints unknown ones as numbers. */
static void capabilities(yajl_gen g) {
  str(g, "capabilities");
  yajl_gen_array_open(g);
  for (int i = 0; i < 64; i++) {
    char *name = cap_to_name(i);
    if (name == NULL) break;
    bool known = !isdigit((unsigned char)name[0]);
    if (known) {
      char up[64];
      size_t k = 0;
      for (; name[k] && k < sizeof up - 1; k++) up[k] = (char)toupper((unsigned char)name[k]);
      up[k] = 0;
      str(g, up);
    }
    cap_free(name);
    if (!known) break;
  }
  yajl_gen_array_close(g);
}

static void seccomp_obj(yajl_gen g) {
  str(g, "seccomp");
  yajl_gen_map_open(g);
  kbool(g, "enabled", true);
  strs(g, "actions", crt_spec_seccomp_actions);
  strs(g, "operators", crt_spec_seccomp_operators);
  strs(g, "archs", crt_spec_seccomp_archs);
  strs(g, "knownFlags", crt_spec_seccomp_flags);
  strs(g, "supportedFlags", crt_spec_seccomp_supported_flags);
  yajl_gen_map_close(g);
}

static void linux_obj(yajl_gen g) {
  str(g, "linux");
  yajl_gen_map_open(g);
  str(g, "namespaces");
  yajl_gen_array_open(g);
  for (int t = 0; t < CRT_NS_COUNT; t++) str(g, crt_ns_name(t));
  yajl_gen_array_close(g);
  capabilities(g);
  str(g, "cgroup");
  yajl_gen_map_open(g);
  kbool(g, "v1", true);
  kbool(g, "v2", true);
  kbool(g, "systemd", true);      /* transient scopes over the system bus */
  kbool(g, "systemdUser", false); /* the user-bus path exists but is untested */
  kbool(g, "rdma", true);         /* rdma.max, v1 and v2 (src/cgroup) */
  yajl_gen_map_close(g);
  seccomp_obj(g);
  enabled(g, "apparmor", true);
  enabled(g, "selinux", true);
  enabled(g, "intelRdt", false); /* linux.intelRdt is refused (validate.c) */
  str(g, "mountExtensions");
  yajl_gen_map_open(g);
  enabled(g, "idmap", true); /* open_tree + MOUNT_ATTR_IDMAP (docs/userns.md) */
  yajl_gen_map_close(g);
  str(g, "memoryPolicy"); /* src/linux/numa.c */
  yajl_gen_map_open(g);
  strs(g, "modes", crt_spec_mempolicy_modes);
  strs(g, "flags", crt_spec_mempolicy_flags);
  yajl_gen_map_close(g);
  enabled(g, "netDevices", true); /* src/linux/netdev.c */
  yajl_gen_map_close(g);
}

char *crt_features_json(void) {
  yajl_gen g = yajl_gen_alloc(NULL);
  if (g == NULL) return NULL;
  yajl_gen_config(g, yajl_gen_beautify, 1);
  yajl_gen_config(g, yajl_gen_indent_string, "    ");
  yajl_gen_map_open(g);
  str(g, "ociVersionMin");
  str(g, "1.0.0");
  str(g, "ociVersionMax");
  str(g, "1.3.0");
  strs(g, "hooks", crt_spec_hook_names);
  mount_options(g);
  linux_obj(g);
  str(g, "annotations");
  yajl_gen_map_open(g);
  const struct scmp_version *v = seccomp_version();
  char ver[64];
  snprintf(ver, sizeof ver, "%u.%u.%u", v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0);
  str(g, "io.github.seccomp.libseccomp.version");
  str(g, ver);
  str(g, "io.github.crt.commit");
  str(g, CRT_COMMIT);
  str(g, "io.github.crt.version");
  str(g, CRT_VERSION);
  /* runc's name, which clients read: crt checkpoints and restores with criu */
  str(g, "org.opencontainers.runc.checkpoint.enabled");
  str(g, "true");
  yajl_gen_map_close(g);
  /* The annotations that change what crt does: systemd unit properties
   * (PIDs, Slice... after crt's own) and criu's configuration file. */
  static const char *const unsafe[] = {"org.systemd.property.", "org.criu.config", NULL};
  strs(g, "potentiallyUnsafeConfigAnnotations", unsafe);
  yajl_gen_map_close(g);
  const unsigned char *buf;
  size_t len;
  char *out = NULL;
  if (yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok) out = strndup((const char *)buf, len);
  yajl_gen_free(g);
  return out;
}
