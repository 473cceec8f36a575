/* The mounts of the container (src/linux/mounts.c): the runtime side
 * (bind sources the init asks for) and the init side (one mount of the
 * config, run by crt_rootfs_prepare). */
#ifndef CRT_MOUNTS_H
#define CRT_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include "crt/error.h"
#include "crt/procinfo.h"
#include "crt/rootfs.h"
#include "crt/spec.h"

/* Runtime side: the source of spec->mounts[idx] (a bind) as a detached
 * tree (open_tree clone, recursive for rbind), opened in the mount
 * namespace mntns (the init's, so that it sees the config's earlier
 * mounts) with the runtime's credentials, idmapped if the mount asks.
 * Relative sources are relative to bundle.  The answer to the init's
 * request (crt_rootfs_config.source_from_host). */
int crt_mount_source_clone(const crt_spec *spec, size_t idx, const char *bundle, int mntns, crt_err **err);
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

/* m's destination inside the rootfs: as written, or without a leading
 * rootfs path (runc takes "ROOTFS/mnt" as "/mnt"; its own tests do so). */
const char *crt_mount_dest(const char *rootfs, const crt_mount *m);

/* The per-mount MS_* flags of the mount under fd (MS_STRICTATIME when it
 * has neither noatime nor relatime): what a remount passes to keep them. */
unsigned long crt_mount_kept_flags(int fd);

#endif
