/* The container's filesystem: mounts, devices, pivot_root, masked and
 * read-only paths.  Runs inside the init, in its mount namespace
 * (src/linux/rootfs.c; the steps it runs: mounts.h, devices.h, and paths
 * resolved inside the root: resolve.h). */
#ifndef CRT_ROOTFS_H
#define CRT_ROOTFS_H

#include <stdbool.h>

#include "crt/error.h"
#include "crt/spec.h"

typedef struct {
  const crt_spec *spec;
  const char *rootfs;       /* absolute host path of root.path */
  bool userns;              /* in a user namespace (the config's, or the caller's: crt_in_userns):
                             * bind devices, no mknod */
  bool new_mount_ns;
  const char *cgroup_path;  /* container cgroup, for "cgroup" mounts (may be NULL) */
  /* A user-namespaced init's request to the runtime, at mounts[idx]'s
   * turn: the bind's source as a detached tree the runtime made with its
   * own rights in the init's mount namespace (idmapped when asked).
   * NULL: the init has the rights itself (no new user namespace). */
  int (*source_from_host)(void *arg, size_t idx, crt_err **err);
  void *source_arg;
  bool host_binds;          /* the runtime may also open plain bind sources the init cannot reach
                             * (not rootless: it has no more rights than the init) */
  /* The init's wait for its cgroup (init.c: the answer to CGROUP, which
   * also sets cgroup_path): called before the first mount whose result may
   * depend on the caller's cgroup (any but proc, sysfs, tmpfs, devpts,
   * mqueue and binds: a cgroup mount reads it, a device's filesystem opens
   * the device) and before any device node is made, in any case; it
   * returns at once after its first call.  NULL: none (in its cgroup
   * already). */
  int (*cgroup_join)(void *arg, crt_err **err);
  void *cgroup_join_arg;
  /* The pid namespace proc mounts show (a path to its nsfs file, procfs's
   * pidns= option), when it is not the init's own: one joined by path,
   * which only the init's last fork enters (init.c: enter_pid_ns).  NULL:
   * the init's. */
  const char *proc_pidns;
} crt_rootfs_config;

/* Makes rootfs a mount point, runs the mounts in config order (destinations
 * resolved inside rootfs, no symlink escapes), default devices and /dev
 * symlinks, configured devices.  Relative bind sources are taken from the
 * current directory (the bundle). */
int crt_rootfs_prepare(const crt_rootfs_config *cfg, crt_err **err);
/* pivot_root into rootfs (or MS_MOVE + chroot when no_pivot), then
 * rootfsPropagation on the new "/" (a shared root would make pivot_root
 * fail, so it cannot be applied earlier). */
int crt_rootfs_pivot(const crt_rootfs_config *cfg, bool no_pivot, crt_err **err);
/* After pivot: read-only root, maskedPaths, readonlyPaths. */
int crt_rootfs_finalize(const crt_rootfs_config *cfg, crt_err **err);
/* After pivot: fds 0-2 that are an outside null device become the
 * container's /dev/null (runc's reOpenDevNull; CRIU needs it). */
int crt_rootfs_reopen_dev_null(crt_err **err);

#endif
