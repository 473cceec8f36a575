/* The mounts of the container (src/linux/mounts.c): the runtime side
 * (idmapped trees and bind sources made before the clone) and the init side
 * (one mount of the config, run by crt_rootfs_prepare). */
#ifndef CRT_MOUNTS_H
#define CRT_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include "crt/error.h"
#include "crt/procinfo.h"
#include "crt/rootfs.h"
#include "crt/spec.h"

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
/* The host's cgroup v1 hierarchies as a "cgroup" mount binds them: the
 * mounts of type cgroup below /sys/fs/cgroup/, from one read of
 * /proc/self/mountinfo. */
int crt_cgroup_v1_mounts_read(crt_mountinfo *out, crt_err **err);

/* ---- for src/linux/rootfs.c ---- */
/* Runs spec->mounts[i] inside the rootfs opened as rootfd. */
int crt_rootfs_do_mount(const crt_rootfs_config *cfg, int rootfd, size_t i, crt_err **err);
/* A read-only tmpfs or /dev (not a bind): mounted read-write, made
 * read-only by crt_rootfs_finalize. */
bool crt_mount_ro_later(const crt_mount *m);

/* MS_* flags of the mount under fd that a remount must keep. */
unsigned long crt_mount_kept_flags(int fd);

#endif
