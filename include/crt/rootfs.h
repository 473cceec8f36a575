/* The container's filesystem: mounts, devices, pivot_root, masked and
 * read-only paths.  Runs inside the init, in its mount namespace. */
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
  const int *idmap_fds;     /* per mount: a detached tree the runtime made (idmapped, or a bind
                               source opened with its credentials), or -1 (may be NULL) */
} crt_rootfs_config;

/* Runtime side, before the clone, for a container with a new user
 * namespace: the idmapped bind mounts' trees (open_tree clone +
 * MOUNT_ATTR_IDMAP), one fd per mount (-1 for the others), or NULL when
 * there are none.  The init inherits them and attaches them. */
int crt_idmap_prepare(const crt_spec *spec, const char *bundle, int **fds_out, crt_err **err);
/* Runtime side too, after crt_idmap_prepare, for a container with a new
 * user and mount namespace: every other bind mount's source as a detached
 * tree (open_tree clone), made with the runtime's credentials, so that a
 * source only the host's root may reach still mounts (runc opens mount
 * sources before the user namespace, crun clones them so).  Fills the
 * free slots of *fds (allocated when NULL); on error what it made stays
 * there for crt_idmap_close. */
int crt_bind_sources_prepare(const crt_spec *spec, const char *bundle, int **fds, crt_err **err);
void crt_idmap_close(int *fds, size_t n);

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

/* Opens path inside root without leaving it (openat2 RESOLVE_IN_ROOT, or a
 * safe component walk).  With mkdir/mkfile the missing parts are created
 * (last component as a dir or as an empty file). */
enum { CRT_RESOLVE_NONE = 0, CRT_RESOLVE_MKDIR = 1, CRT_RESOLVE_MKFILE = 2 };
int crt_open_in_root(int rootfd, const char *path, int flags, int create, crt_err **err);

/* ---- internal to src/linux/{rootfs,mounts,devices,resolve}.c ---- */
/* Tests: false forces the component walk used when openat2 is missing. */
void crt_resolve_use_openat2(bool use);
/* Runs spec->mounts[i] inside the rootfs opened as rootfd. */
int crt_rootfs_do_mount(const crt_rootfs_config *cfg, int rootfd, size_t i, crt_err **err);
/* Default devices (when with_defaults), linux.devices and /dev symlinks. */
int crt_rootfs_setup_dev(const crt_rootfs_config *cfg, int rootfd, bool with_defaults, crt_err **err);
/* "/proc/self/fd/N" into buf (at least 32 bytes). */
const char *crt_fd_path(char *buf, int fd);

/* A read-only tmpfs or /dev (not a bind): mounted read-write, made
 * read-only by crt_rootfs_finalize. */
bool crt_mount_ro_later(const crt_mount *m);

/* MS_* flags of the mount under fd that a remount must keep. */
unsigned long crt_mount_kept_flags(int fd);

#endif
