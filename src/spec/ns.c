/* Namespace names and flags shared by the parser and the runtime. */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/mount.h>
#include <stddef.h>

#include "crt/spec.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const struct {
  const char *name, *proc;
  int flag;
} ns_table[CRT_NS_COUNT] = {
    [CRT_NS_PID] = {"pid", "pid", CLONE_NEWPID},        [CRT_NS_NETWORK] = {"network", "net", CLONE_NEWNET},
    [CRT_NS_MOUNT] = {"mount", "mnt", CLONE_NEWNS},     [CRT_NS_IPC] = {"ipc", "ipc", CLONE_NEWIPC},
    [CRT_NS_UTS] = {"uts", "uts", CLONE_NEWUTS},        [CRT_NS_USER] = {"user", "user", CLONE_NEWUSER},
    [CRT_NS_CGROUP] = {"cgroup", "cgroup", CLONE_NEWCGROUP}, [CRT_NS_TIME] = {"time", "time", CLONE_NEWTIME},
};

const char *crt_ns_name(enum crt_ns_type t) { return (unsigned)t < CRT_NS_COUNT ? ns_table[t].name : NULL; }

const char *crt_ns_proc_name(enum crt_ns_type t) { return (unsigned)t < CRT_NS_COUNT ? ns_table[t].proc : NULL; }

int crt_ns_clone_flag(enum crt_ns_type t) { return (unsigned)t < CRT_NS_COUNT ? ns_table[t].flag : 0; }

const crt_namespace *crt_spec_namespace(const crt_spec *spec, enum crt_ns_type t) {
  if (spec == NULL || spec->linux_ == NULL) return NULL;
  for (size_t i = 0; i < spec->linux_->n_namespaces; i++)
    if (spec->linux_->namespaces[i].type == t) return &spec->linux_->namespaces[i];
  return NULL;
}

bool crt_spec_new_namespace(const crt_spec *spec, enum crt_ns_type t) {
  const crt_namespace *ns = crt_spec_namespace(spec, t);
  return ns && !(ns->path && *ns->path);
}

bool crt_spec_rootfs_shared(const crt_spec *spec) {
  return spec && spec->linux_ && (spec->linux_->rootfs_propagation_flags & MS_SHARED);
}

bool crt_idmap_host(const crt_idmapv *m, uint32_t id, uint32_t *host) {
  for (size_t i = 0; i < m->len; i++) {
    if (id >= m->v[i].container_id && id - m->v[i].container_id < m->v[i].size) {
      *host = m->v[i].host_id + (id - m->v[i].container_id);
      return true;
    }
  }
  return false;
}
