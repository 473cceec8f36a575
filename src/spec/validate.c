/* Whole-spec checks for create/run, beyond what a single field shows. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crt/spec.h"

static const char *const ns_proc_name[CRT_NS_COUNT] = {
    [CRT_NS_IPC] = "ipc", [CRT_NS_NETWORK] = "net", [CRT_NS_UTS] = "uts"};

/* Whether the container gets a namespace of type t that is not the
 * runtime's own: a new one, or one joined by a path naming another. */
static bool private_ns(const crt_spec *s, enum crt_ns_type t) {
  const crt_namespace *ns = crt_spec_namespace(s, t);
  if (!ns) return false;
  if (!ns->path || !*ns->path) return true;
  char self[64];
  snprintf(self, sizeof self, "/proc/self/ns/%s", ns_proc_name[t]);
  struct stat a, b;
  /* an unreadable path fails later, when it is joined */
  if (stat(ns->path, &a) < 0 || stat(self, &b) < 0) return true;
  return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

static bool ipc_sysctl(const char *k) {
  static const char *const names[] = {"kernel.msgmax", "kernel.msgmnb", "kernel.msgmni",  "kernel.sem",
                                      "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(k, names[i])) return true;
  return !strncmp(k, "fs.mqueue.", 10);
}

/* Only sysctls of namespaces the container owns: anything else would be
 * written to the host (runc's rules; kernel.hostname as runc: the
 * .hostname field says that). */
static const char *sysctl_refusal(const crt_spec *s, const char *k) {
  if (ipc_sysctl(k))
    return private_ns(s, CRT_NS_IPC) ? NULL : "not allowed in the host's IPC namespace (no private ipc namespace)";
  if (!strncmp(k, "net.", 4))
    return private_ns(s, CRT_NS_NETWORK) ? NULL : "not allowed in the host's network namespace (no private network namespace)";
  if (!strcmp(k, "kernel.domainname"))
    return private_ns(s, CRT_NS_UTS) ? NULL : "not allowed in the host's UTS namespace (no private uts namespace)";
  if (!strcmp(k, "kernel.hostname")) return "not allowed: it conflicts with the .hostname field";
  return "not in a separate kernel namespace (only ipc, net and uts sysctls are namespaced)";
}

static int validate_sysctls(const crt_spec *s, crt_err **err) {
  const crt_kvv *v = s->linux_ ? &s->linux_->sysctl : NULL;
  for (size_t i = 0; v && i < v->len; i++) {
    const char *why = sysctl_refusal(s, v->v[i].key);
    if (why) return crt_error(err, 0, "config.json: .linux.sysctl[\"%s\"]: %s", v->v[i].key, why);
  }
  return 0;
}

int crt_spec_validate_for_create(const crt_spec *s, crt_err **err) {
  const char *n = "config.json";
  if (s->root == NULL || s->root->path == NULL || s->root->path[0] == 0)
    return crt_error(err, 0, "%s: .root.path: missing required field", n);
  /* process is OPTIONAL at create, REQUIRED at start (config.md) */
  const crt_process *p = s->process;
  if (p && p->args.len == 0) return crt_error(err, 0, "%s: .process.args: must contain at least one entry", n);
  if (p && (p->cwd == NULL || p->cwd[0] == 0)) return crt_error(err, 0, "%s: .process.cwd: missing required field", n);
  if (p && p->cwd[0] != '/') return crt_error(err, 0, "%s: .process.cwd: path \"%s\" is not absolute", n, p->cwd);
  const crt_linux *l = s->linux_;
  const crt_namespace *user = crt_spec_namespace(s, CRT_NS_USER);
  /* Mappings without a new user namespace are left alone (joining one). */
  bool new_user = user && user->path == NULL;
  if (new_user && (l->uid_mappings.len == 0 || l->gid_mappings.len == 0))
    return crt_error(err, 0, "%s: .linux.%s: a new user namespace needs uidMappings and gidMappings", n,
                     l->uid_mappings.len == 0 ? "uidMappings" : "gidMappings");
  for (size_t i = 0; l && i < l->n_time_offsets; i++)
    if (crt_spec_namespace(s, CRT_NS_TIME) == NULL)
      return crt_error(err, 0, "%s: .linux.timeOffsets: set but no time namespace is requested", n);
  /* HOST_NAME_MAX: the kernel refuses longer names; say so before forking */
  if (s->hostname && strlen(s->hostname) > 64)
    return crt_error(err, 0, "%s: .hostname: longer than 64 bytes (%zu)", n, strlen(s->hostname));
  if (s->domainname && strlen(s->domainname) > 64)
    return crt_error(err, 0, "%s: .domainname: longer than 64 bytes (%zu)", n, strlen(s->domainname));
  if (s->hostname && s->hostname[0] && crt_spec_namespace(s, CRT_NS_UTS) == NULL)
    return crt_error(err, 0, "%s: .hostname: setting the hostname needs a new UTS namespace", n);
  if (s->domainname && s->domainname[0] && crt_spec_namespace(s, CRT_NS_UTS) == NULL)
    return crt_error(err, 0, "%s: .domainname: setting the domainname needs a new UTS namespace", n);
  for (size_t i = 0; i < s->n_mounts; i++)
    if ((s->mounts[i].uid_mappings.len == 0) != (s->mounts[i].gid_mappings.len == 0))
      return crt_error(err, 0, "%s: .mounts[%zu]: idmapped mounts need both uidMappings and gidMappings", n, i);
  if (l && l->net_devices.len && !private_ns(s, CRT_NS_NETWORK))
    return crt_error(err, 0, "%s: .linux.netDevices: moving interfaces needs a private network namespace", n);
  if (l && l->intel_rdt)
    return crt_error(err, 0, "%s: .linux.intelRdt: Intel RDT is not supported by crt (features: intelRdt.enabled is false)%s",
                     n, access("/sys/fs/resctrl/schemata", F_OK) ? "; /sys/fs/resctrl is not mounted here" : "");
  return validate_sysctls(s, err);
}
