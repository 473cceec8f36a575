#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/process.h"

pid_t crt_raw_clone(unsigned long flags) {
  return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
}

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

struct crt_clone_args { /* struct clone_args of linux/sched.h, v2 */
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

pid_t crt_clone_into(unsigned long flags, int cgroup_fd) {
  if (cgroup_fd >= 0) {
    /* with CLONE_PARENT the child inherits our exit signal; clone3 then
     * insists on exit_signal 0 */
    struct crt_clone_args a = {.flags = flags | CLONE_INTO_CGROUP,
                               .exit_signal = (flags & CLONE_PARENT) ? 0 : SIGCHLD,
                               .cgroup = (uint64_t)cgroup_fd};
    pid_t pid = (pid_t)syscall(SYS_clone3, &a, sizeof a);
    if (pid >= 0) return pid;
    /* old kernel, a cgroup we may not enter from here (a joined cgroup or
     * user namespace): plain clone, the caller moves the pid */
    if (errno == ENOMEM || errno == EAGAIN) return -1;
  }
  return crt_raw_clone(flags);
}

int crt_ns_new_flags(const crt_spec *spec) {
  int flags = 0;
  const crt_linux *l = spec->linux_;
  for (size_t i = 0; l && i < l->n_namespaces; i++)
    if (!l->namespaces[i].path || !*l->namespaces[i].path) flags |= crt_ns_clone_flag(l->namespaces[i].type);
  return flags;
}

static int join_one(const crt_namespace *ns, size_t idx, crt_err **err) {
  cleanup_close int fd = open(ns->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return crt_error(err, errno, "open %s namespace %s", crt_ns_name(ns->type), ns->path);
  if (setns(fd, crt_ns_clone_flag(ns->type)) < 0)
    return crt_error(err, errno, "setns %s namespace %s", crt_ns_name(ns->type), ns->path);
  (void)idx;
  return 0;
}

int crt_ns_join_paths(const crt_spec *spec, crt_err **err) {
  const crt_linux *l = spec->linux_;
  if (!l) return 0;
  /* The user namespace first: the others are owned by it. */
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < l->n_namespaces; i++) {
      const crt_namespace *ns = &l->namespaces[i];
      if (!ns->path || !*ns->path) continue;
      if ((ns->type == CRT_NS_USER) != (pass == 0)) continue;
      if (join_one(ns, i, err) < 0) return -1;
    }
  return 0;
}

int crt_ns_join_pid(pid_t pid, int defer, int *joined, int *deferred, crt_err **err) {
  static const enum crt_ns_type order[] = {CRT_NS_USER, CRT_NS_MOUNT, CRT_NS_CGROUP, CRT_NS_UTS, CRT_NS_IPC,
                                           CRT_NS_NETWORK, CRT_NS_PID, CRT_NS_TIME};
  int fds[CRT_NS_COUNT];
  *joined = 0;
  /* Open them all first: after joining the mount namespace /proc may differ. */
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    char path[64], self[64];
    struct stat a, b;
    fds[i] = -1;
    snprintf(path, sizeof path, "/proc/%d/ns/%s", pid, crt_ns_proc_name(order[i]));
    snprintf(self, sizeof self, "/proc/self/ns/%s", crt_ns_proc_name(order[i]));
    if (stat(path, &a) < 0) continue; /* kernel without it */
    if (stat(self, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) continue;
    fds[i] = open(path, O_RDONLY | O_CLOEXEC);
    if (fds[i] < 0) {
      int e = errno;
      for (size_t j = 0; j < i; j++)
        if (fds[j] >= 0) close(fds[j]);
      return crt_error(err, e, "open %s", path);
    }
  }
  int rc = 0;
  *deferred = -1;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    if (fds[i] < 0) continue;
    if (crt_ns_clone_flag(order[i]) & defer) {
      *deferred = fds[i];
      continue;
    }
    if (rc == 0 && setns(fds[i], crt_ns_clone_flag(order[i])) < 0)
      rc = crt_error(err, errno, "setns %s namespace of pid %d", crt_ns_name(order[i]), pid);
    else if (rc == 0)
      *joined |= crt_ns_clone_flag(order[i]);
    close(fds[i]);
  }
  return rc;
}

static int write_map(pid_t pid, const char *file, const crt_idmapv *m, crt_err **err) {
  char path[64], buf[8192];
  size_t off = 0;
  for (size_t i = 0; i < m->len; i++) {
    int n = snprintf(buf + off, sizeof buf - off, "%u %u %u\n", m->v[i].container_id, m->v[i].host_id, m->v[i].size);
    if (n < 0 || (size_t)n >= sizeof buf - off) return crt_error(err, E2BIG, "%s: too many mappings", file);
    off += (size_t)n;
  }
  snprintf(path, sizeof path, "/proc/%d/%s", pid, file);
  if (crt_write_file(path, buf, off, 0, err) < 0) return crt_error_wrap(err, "write %s mappings", file);
  return 0;
}

int crt_ns_write_maps(pid_t pid, const crt_spec *spec, crt_err **err) {
  const crt_linux *l = spec->linux_;
  if (!l) return 0;
  if (geteuid() != 0) {
    /* An unprivileged writer may only map itself, and only with setgroups denied. */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/setgroups", pid);
    cleanup_err crt_err *e2 = NULL;
    crt_write_file(path, "deny", 4, 0, &e2);
  }
  if (l->uid_mappings.len && write_map(pid, "uid_map", &l->uid_mappings, err) < 0) return -1;
  if (l->gid_mappings.len && write_map(pid, "gid_map", &l->gid_mappings, err) < 0) return -1;
  return 0;
}
