#define _GNU_SOURCE
/* The container's root: prepare (mounts, /dev), pivot, finalize (read-only
 * root, maskedPaths, readonlyPaths). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "crt/devices.h"
#include "crt/log.h"
#include "crt/lsm.h"
#include "crt/mounts.h"
#include "crt/procinfo.h"
#include "crt/resolve.h"
#include "crt/rootfs.h"

/* linux.rootfsPropagation's MS_* flags, 0 when not set. */
static unsigned long rootfs_propagation(const crt_rootfs_config *cfg) {
  const crt_linux *l = cfg->spec->linux_;
  return l ? l->rootfs_propagation_flags : 0;
}

/* pivot_root refuses a new root whose parent mount is shared, and an
 * unbindable one cannot be bound: make that mount (the one holding rootfs,
 * found in mountinfo) private; rootfsPropagation is applied after pivot. */
static int parent_mount_private(const char *rootfs, crt_err **err) {
  char real[PATH_MAX];
  if (!realpath(rootfs, real)) return crt_error(err, errno, "realpath %s", rootfs);
  crt_mountinfo mi;
  if (crt_mountinfo_read(&mi, err) < 0) return -1;
  const crt_mountinfo_entry *best = NULL;
  for (size_t i = 0; i < mi.n; i++) {
    const char *mp = mi.v[i].target;
    size_t n = strlen(mp);
    bool prefix = !strcmp(mp, "/") || (!strncmp(real, mp, n) && (real[n] == '/' || real[n] == 0));
    if (prefix && (!best || n >= strlen(best->target))) best = &mi.v[i];
  }
  /* unbindable (rootfsPropagation on "/") would refuse the bind too */
  int rc = 0;
  if (best && (crt_mountinfo_has_tag(best, "shared") || crt_mountinfo_has_tag(best, "unbindable")) &&
      mount(NULL, best->target, NULL, MS_PRIVATE, NULL) < 0)
    rc = crt_error(err, errno, "make %s private", best->target);
  crt_mountinfo_free(&mi);
  return rc;
}

/* runc: no setup of /dev when the config bind-mounts one. */
static bool dev_from_config(const crt_spec *spec) {
  for (size_t i = 0; i < spec->n_mounts; i++) {
    const crt_mount *m = &spec->mounts[i];
    if (!m->destination) continue;
    size_t n = strlen(m->destination);
    while (n > 1 && m->destination[n - 1] == '/') n--;
    if (n != 4 || strncmp(m->destination, "/dev", 4)) continue;
    if (crt_mount_is_bind(m)) return true;
  }
  return false;
}

/* Mounts that neither read the caller's cgroup nor open a device (v1's
 * devices cgroup checks that): they may come before the late cgroup join. */
static bool cgroup_free_mount(const crt_mount *m) {
  static const char *const types[] = {"proc", "sysfs", "tmpfs", "devpts", "mqueue"};
  if (crt_mount_is_bind(m)) return true;
  for (size_t i = 0; m->type && i < sizeof types / sizeof types[0]; i++)
    if (!strcmp(m->type, types[i])) return true;
  return false;
}

static int join_cgroup(const crt_rootfs_config *cfg, crt_err **err) {
  return cfg->cgroup_join ? cfg->cgroup_join(cfg->cgroup_join_arg, err) : 0;
}

int crt_rootfs_prepare(const crt_rootfs_config *cfg, crt_err **err) {
  if (!cfg->rootfs || cfg->rootfs[0] != '/') return crt_error(err, EINVAL, "rootfs: not an absolute path");
  unsigned long prop = rootfs_propagation(cfg) ? rootfs_propagation(cfg) : MS_SLAVE | MS_REC;
  if (mount(NULL, "/", NULL, prop, NULL) < 0) return crt_error(err, errno, "set propagation of /");
  /* After a recursive slave or private, no mount is shared or unbindable
   * (both clear MNT_UNBINDABLE): only other propagations need mountinfo. */
  bool rec_safe = prop == (MS_SLAVE | MS_REC) || prop == (MS_PRIVATE | MS_REC);
  if (!rec_safe && parent_mount_private(cfg->rootfs, err) < 0) return -1;
  if (mount(cfg->rootfs, cfg->rootfs, NULL, MS_BIND | MS_REC, NULL) < 0)
    return crt_error(err, errno, "bind rootfs %s onto itself", cfg->rootfs);
  cleanup_close int rootfd = open(cfg->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0) return crt_error(err, errno, "open rootfs %s", cfg->rootfs);
  for (size_t i = 0; i < cfg->spec->n_mounts; i++) {
    if (!cgroup_free_mount(&cfg->spec->mounts[i]) && join_cgroup(cfg, err) < 0) return -1;
    if (crt_rootfs_do_mount(cfg, rootfd, i, err) < 0) return -1;
  }
  /* v1's devices cgroup restricts mknod */
  if (join_cgroup(cfg, err) < 0) return -1;
  return crt_rootfs_setup_dev(cfg, rootfd, !dev_from_config(cfg->spec), err);
}

static int pivot(const char *rootfs, crt_err **err) {
  cleanup_close int oldroot = open("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (oldroot < 0) return crt_error(err, errno, "open /");
  cleanup_close int newroot = open(rootfs, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (newroot < 0) return crt_error(err, errno, "open rootfs %s", rootfs);
  if (fchdir(newroot) < 0) return crt_error(err, errno, "chdir %s", rootfs);
  /* Old root stacked under the new one, no put_old directory needed. */
  if (syscall(SYS_pivot_root, ".", ".") < 0) return crt_error(err, errno, "pivot_root %s", rootfs);
  if (fchdir(oldroot) < 0) return crt_error(err, errno, "chdir to the old root");
  /* So that the detach below cannot propagate to the host. */
  if (mount(NULL, ".", NULL, MS_SLAVE | MS_REC, NULL) < 0) return crt_error(err, errno, "make the old root rslave");
  if (umount2(".", MNT_DETACH) < 0) return crt_error(err, errno, "unmount the old root");
  return 0;
}

/* The host's full procfs and sysfs mounts outside rootfs, children first.
 * Returns a NULL-terminated list. */
static char **host_proc_sys(const char *rootfs, crt_err **err) {
  crt_mountinfo mi;
  if (crt_mountinfo_read(&mi, err) < 0) return NULL;
  size_t n = 0, rlen = strlen(rootfs);
  char **out = calloc(mi.n + 1, sizeof *out);
  for (size_t i = mi.n; out && i-- > 0;) {
    const crt_mountinfo_entry *e = &mi.v[i];
    if (strcmp(e->root, "/") || (strcmp(e->fstype, "proc") && strcmp(e->fstype, "sysfs"))) continue;
    if (!strncmp(e->target, rootfs, rlen) && (e->target[rlen] == '/' || !e->target[rlen])) continue;
    out[n++] = strdup(e->target);
  }
  crt_mountinfo_free(&mi);
  if (!out) crt_error(err, ENOMEM, "read /proc/self/mountinfo");
  return out;
}

/* Without pivot_root the host's mounts stay in the container's mount
 * namespace below the moved root.  A full procfs or sysfs among them would
 * let a user namespace in the container mount a fresh, unmasked procfs
 * (the kernel only checks that a fully visible one exists): detach them
 * first, or cover them where that is refused (as runc's msMoveRoot). */
static int hide_host_proc_sys(const char *rootfs, crt_err **err) {
  char **list = host_proc_sys(rootfs, err);
  if (!list) return -1;
  int rc = 0;
  for (char **p = list; *p && rc == 0; p++) {
    /* so that the detach does not propagate to the host */
    if (mount(NULL, *p, NULL, MS_SLAVE | MS_REC, NULL) < 0) {
      if (errno != ENOENT && errno != EINVAL) rc = crt_error(err, errno, "make %s rslave", *p);
      continue; /* gone with a parent detached before it */
    }
    if (umount2(*p, MNT_DETACH) == 0) continue;
    if ((errno != EINVAL && errno != EPERM) || mount("tmpfs", *p, "tmpfs", MS_RDONLY, "size=0") < 0)
      rc = crt_error(err, errno, "hide the host's %s before moving the root", *p);
  }
  for (char **p = list; *p; p++) free(*p);
  free(list);
  return rc;
}

static int move_root(const char *rootfs, crt_err **err) {
  if (hide_host_proc_sys(rootfs, err) < 0) return -1;
  if (chdir(rootfs) < 0) return crt_error(err, errno, "chdir %s", rootfs);
  if (mount(rootfs, "/", NULL, MS_MOVE, NULL) < 0) return crt_error(err, errno, "move %s to /", rootfs);
  if (chroot(".") < 0) return crt_error(err, errno, "chroot %s", rootfs);
  return 0;
}

/* The null device maskedPaths files are bound from when the container's
 * /dev/null is not the null device (it may be a symlink to the very file
 * being masked: CVE-2025-31133): the host's, taken before pivot_root.  A
 * detached clone, consumed by crt_rootfs_finalize; -1 when it could not be
 * had (a file mask then fails). */
static int g_null_tree = -1;
static bool g_null_attached; /* g_null_tree's mount is in our namespace now */

static bool is_devnull(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

static void null_tree_prepare(void) {
  if (g_null_tree >= 0) close(g_null_tree);
  g_null_tree = -1;
  g_null_attached = false;
  cleanup_close int fd = open("/dev/null", O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || !is_devnull(fd)) {
    crt_debug("maskedPaths: the host's /dev/null is not the null device; using the container's if it is");
    return;
  }
  g_null_tree = (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
  if (g_null_tree < 0) crt_debug("maskedPaths: open_tree of the host's /dev/null: %s", crt_strerror(errno));
}

int crt_rootfs_pivot(const crt_rootfs_config *cfg, bool no_pivot, crt_err **err) {
  null_tree_prepare();
  if ((no_pivot ? move_root : pivot)(cfg->rootfs, err) < 0) return -1;
  if (chdir("/") < 0) return crt_error(err, errno, "chdir /");
  return 0;
}

/* rootfsPropagation is for the container's root mount; applied once it is
 * "/" and every bind of finalize is done: a shared new root would make
 * pivot_root fail, an unbindable one the readonlyPaths binds. */
static int apply_root_propagation(const crt_rootfs_config *cfg, crt_err **err) {
  unsigned long prop = rootfs_propagation(cfg);
  if (!prop) return 0;
  if (mount(NULL, "/", NULL, prop, NULL) < 0)
    return crt_error(err, errno, "linux.rootfsPropagation %s", cfg->spec->linux_->rootfs_propagation);
  return 0;
}


/* target NULL: through fd (needs /proc); the root is remounted by name. */
static int remount_ro(int fd, const char *target, const char *what, crt_err **err) {
  char p[32];
  unsigned long f = MS_BIND | MS_REMOUNT | MS_RDONLY | crt_mount_kept_flags(fd);
  if (mount(NULL, target ? target : crt_fd_path(p, fd), NULL, f, NULL) < 0)
    return crt_error(err, errno, "remount %s read-only", what);
  return 0;
}

/* Opens a maskedPaths/readonlyPaths entry; 0 with *fd = -1 when missing. */
static int open_listed(int rootfd, const char *list, size_t i, const char *path, int *fd, crt_err **err) {
  int nofollow = strcmp(list, "maskedPaths") ? 0 : O_NOFOLLOW;
  *fd = crt_open_in_root(rootfd, path, O_PATH | nofollow, CRT_RESOLVE_NONE, err);
  if (*fd >= 0) return 0;
  if ((*err)->errnum == ENOENT) {
    crt_err_free(err);
    return 0;
  }
  return crt_error_wrap(err, "linux.%s[%zu]", list, i);
}

static int readonly_path(int rootfd, size_t i, const char *path, crt_err **err) {
  cleanup_close int fd = -1;
  if (open_listed(rootfd, "readonlyPaths", i, path, &fd, err) < 0) return -1;
  if (fd < 0) return 0;
  char p[32];
  if (mount(crt_fd_path(p, fd), p, NULL, MS_BIND | MS_REC, NULL) < 0)
    return crt_error(err, errno, "bind %s onto itself", path);
  cleanup_close int now = crt_open_in_root(rootfd, path, O_PATH, CRT_RESOLVE_NONE, err);
  if (now < 0) return -1;
  return remount_ro(now, NULL, path, err);
}

/* The container's /dev/null, if it is the null device and not a symlink:
 * the mask is bound from this very fd, so nothing is looked up again.
 * Preferred to the host's, as runc does: a mask from the container's own
 * /dev keeps the mount tree one CRIU can dump. -1 when it is not. */
static int container_null(int rootfd) {
  crt_err *e = NULL;
  int fd = crt_open_in_root(rootfd, "/dev/null", O_PATH | O_NOFOLLOW, CRT_RESOLVE_NONE, &e);
  crt_err_free(&e);
  if (fd >= 0 && !is_devnull(fd)) {
    close(fd);
    return -1;
  }
  return fd;
}

/* A file mask is bound from the container's null device (own, from
 * container_null) when it is one, else from the host's (the clone made
 * before pivot_root, then clones of that once it is attached).  Anything
 * else is refused, never followed. */
static int mask_file(int own, int target, const char *path, crt_err **err) {
  char s[32], t[32];
  if (own >= 0) {
    if (mount(crt_fd_path(s, own), crt_fd_path(t, target), NULL, MS_BIND, NULL) < 0)
      return crt_error(err, errno, "mask %s", path);
    return 0;
  }
  if (g_null_tree < 0)
    return crt_error(err, EPERM, "mask %s: no null device to mask with: /dev/null is not char 1:3", path);
  cleanup_close int src = g_null_attached
                              ? (int)syscall(SYS_open_tree, g_null_tree, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH)
                              : fcntl(g_null_tree, F_DUPFD_CLOEXEC, 3);
  if (src < 0) return crt_error(err, errno, "mask %s: clone the null device", path);
  if (move_mount(src, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    return crt_error(err, errno, "mask %s", path);
  g_null_attached = true; /* from now on cloned: a mount attaches once */
  return 0;
}

/* Masks a directory.  The first gets a read-only tmpfs; the others are
 * bound from it (*shared, its fd), so that every masked directory is the
 * one empty filesystem, as in current runc. */
static int mask_dir(int rootfd, int target, const char *path, const char *label, int *shared, crt_err **err) {
  if (*shared >= 0) {
    cleanup_close int tree = (int)syscall(SYS_open_tree, *shared, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
    struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
    if (tree < 0 || mount_setattr(tree, "", AT_EMPTY_PATH, &ro, sizeof ro) < 0 ||
        move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
      return crt_error(err, errno, "mask %s", path);
    return 0;
  }
  char t[32];
  crt_fd_path(t, target);
  cleanup_free char *data = crt_selinux_mount_option(label);
  if (mount("tmpfs", t, "tmpfs", MS_RDONLY, data) < 0) return crt_error(err, errno, "mask %s", path);
  *shared = crt_open_in_root(rootfd, path, O_PATH | O_NOFOLLOW | O_DIRECTORY, CRT_RESOLVE_NONE, err);
  return *shared < 0 ? crt_error_wrap(err, "mask %s: reopen", path) : 0;
}

/* The entry itself, never what a symlink there points to. */
static int masked_path(int rootfd, int own_null, size_t i, const char *path, const char *label, int *shared,
                       crt_err **err) {
  cleanup_close int fd = -1;
  if (open_listed(rootfd, "maskedPaths", i, path, &fd, err) < 0) return -1;
  if (fd < 0) return 0;
  struct stat st;
  if (fstat(fd, &st) < 0) return crt_error(err, errno, "stat %s", path);
  if (S_ISLNK(st.st_mode)) return crt_error(err, ELOOP, "linux.maskedPaths[%zu]: mask %s: a symlink", i, path);
  if (!S_ISDIR(st.st_mode)) return mask_file(own_null, fd, path, err);
  return mask_dir(rootfd, fd, path, label, shared, err);
}

/* An entry named earlier in the list is masked already: once is enough. */
static bool listed_before(const crt_strv *l, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (!strcmp(l->v[j], l->v[i])) return true;
  return false;
}

/* The read-only tmpfs and /dev mounts, mounted read-write until now (see
 * crt_mount_ro_later): made read-only per mount, their filesystem left
 * writable, as runc's finalizeRootfs does. */
static int remount_ro_later(int rootfd, const crt_rootfs_config *cfg, crt_err **err) {
  const crt_spec *spec = cfg->spec;
  for (size_t i = 0; i < spec->n_mounts; i++) {
    const crt_mount *m = &spec->mounts[i];
    if (!crt_mount_ro_later(m)) continue;
    cleanup_close int fd = crt_open_in_root(rootfd, crt_mount_dest(cfg->rootfs, m), O_PATH, CRT_RESOLVE_NONE, err);
    if (fd < 0 || remount_ro(fd, NULL, m->destination, err) < 0) return crt_error_wrap(err, "mounts[%zu]", i);
  }
  return 0;
}

int crt_rootfs_finalize(const crt_rootfs_config *cfg, crt_err **err) {
  cleanup_close int rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0) return crt_error(err, errno, "open /");
  const crt_linux *l = cfg->spec->linux_;
  if (l) {
    for (size_t i = 0; i < l->readonly_paths.len; i++)
      if (readonly_path(rootfd, i, l->readonly_paths.v[i], err) < 0) return -1;
    /* opened once: every file mask is bound from the same checked fd */
    cleanup_close int own_null = l->masked_paths.len ? container_null(rootfd) : -1;
    cleanup_close int shared = -1;
    for (size_t i = 0; i < l->masked_paths.len; i++)
      if (!listed_before(&l->masked_paths, i) &&
          masked_path(rootfd, own_null, i, l->masked_paths.v[i], l->mount_label, &shared, err) < 0)
        return -1;
  }
  if (g_null_tree >= 0) close(g_null_tree);
  g_null_tree = -1;
  if (remount_ro_later(rootfd, cfg, err) < 0) return -1;
  if (cfg->spec->root && cfg->spec->root->readonly && remount_ro(rootfd, "/", "/", err) < 0) return -1;
  return apply_root_propagation(cfg, err);
}

/* As runc's reOpenDevNull: stdio that is a null device from outside (the
 * caller's /dev/null, e.g. conmon's stdin) is replaced by the container's
 * own, so that no process of the container holds a file of a host mount
 * (CRIU cannot dump one: "Can't lookup mount").  Only a real null device
 * (char 1:3) in the container is used. */
int crt_rootfs_reopen_dev_null(crt_err **err) {
  cleanup_close int fd = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return 0; /* no /dev/null in the container: nothing to swap in */
  struct stat null_st, st;
  if (fstat(fd, &null_st) < 0) return crt_error(err, errno, "stat the container's /dev/null");
  if (!S_ISCHR(null_st.st_mode) || null_st.st_rdev != makedev(1, 3)) return 0;
  if (fcntl(fd, F_SETFL, 0) < 0) return crt_error(err, errno, "the container's /dev/null: clear O_NONBLOCK");
  for (int i = 0; i < 3; i++) {
    if (fstat(i, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != null_st.st_rdev) continue;
    if (st.st_dev == null_st.st_dev && st.st_ino == null_st.st_ino) continue;
    if (dup3(fd, i, 0) < 0) return crt_error(err, errno, "reopen fd %d on the container's /dev/null", i);
  }
  return 0;
}
