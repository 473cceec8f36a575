#define _GNU_SOURCE
/* /dev inside the container: default nodes, linux.devices, symlinks. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "crt/devices.h"
#include "crt/log.h"
#include "crt/resolve.h"
#include "crt/rootfs.h"
#include "crt/rootless.h"

typedef struct {
  const char *path;
  mode_t mode; /* type | permissions */
  unsigned int major, minor;
  bool has_uid, has_gid;
  uid_t uid;
  gid_t gid;
} node;

static const node default_nodes[] = {
    {.path = "/dev/null", .mode = S_IFCHR | 0666, .major = 1, .minor = 3},    {.path = "/dev/zero", .mode = S_IFCHR | 0666, .major = 1, .minor = 5},
    {.path = "/dev/full", .mode = S_IFCHR | 0666, .major = 1, .minor = 7},    {.path = "/dev/random", .mode = S_IFCHR | 0666, .major = 1, .minor = 8},
    {.path = "/dev/urandom", .mode = S_IFCHR | 0666, .major = 1, .minor = 9}, {.path = "/dev/tty", .mode = S_IFCHR | 0666, .major = 5, .minor = 0},
};

/* Opens the parent of path inside the root (creating it) and points *base at
 * the last component. */
static int open_parent(int rootfd, const char *path, char **dup, const char **base, crt_err **err) {
  *dup = strdup(path);
  if (!*dup) return crt_error(err, ENOMEM, "device %s", path);
  char *slash = strrchr(*dup, '/');
  *base = slash ? slash + 1 : *dup;
  if (!**base || !strcmp(*base, ".") || !strcmp(*base, ".."))
    return crt_error(err, EINVAL, "device %s: not a file name", path);
  const char *parent = ".";
  if (slash) {
    *slash = 0;
    parent = **dup ? *dup : "/";
  }
  int fd = crt_open_in_root(rootfd, parent, O_PATH | O_DIRECTORY, CRT_RESOLVE_MKDIR, err);
  if (fd < 0) crt_error_wrap(err, "device %s", path);
  return fd;
}

/* In a user namespace (the config's or the one crt runs in) mknod is not
 * allowed: bind the host's node onto an empty file. */
static int bind_node(int rootfd, const node *n, crt_err **err) {
  cleanup_close int dst = crt_open_in_root(rootfd, n->path, O_PATH, CRT_RESOLVE_MKFILE, err);
  if (dst < 0) return crt_error_wrap(err, "device %s", n->path);
  cleanup_close int src = open(n->path, O_PATH | O_CLOEXEC);
  if (src < 0) return crt_error(err, errno, "device %s: open on the host", n->path);
  char sp[32], dp[32];
  if (mount(crt_fd_path(sp, src), crt_fd_path(dp, dst), NULL, MS_BIND, NULL) < 0)
    return crt_error(err, errno, "bind device %s", n->path);
  return 0;
}

static int make_node(int rootfd, const node *n, crt_err **err) {
  cleanup_free char *dup = NULL;
  const char *base = NULL;
  cleanup_close int pfd = open_parent(rootfd, n->path, &dup, &base, err);
  if (pfd < 0) return -1;
  /* An existing node is kept (e.g. /dev bound from the host), but only if
   * it is this device: config-linux.md "If a file already exists at path
   * that does not match the requested device, the runtime MUST generate an
   * error". */
  if (mknodat(pfd, base, n->mode, makedev(n->major, n->minor)) < 0) {
    struct stat st;
    if (errno != EEXIST) {
      crt_error(err, errno, "mknod %s", n->path);
      return crt_rootless_explain(err, "mknod");
    }
    if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) return crt_error(err, errno, "stat %s", n->path);
    if ((st.st_mode & S_IFMT) != (n->mode & S_IFMT) ||
        (!S_ISFIFO(st.st_mode) && st.st_rdev != makedev(n->major, n->minor)))
      return crt_error(err, EEXIST, "device %s: a file that is not this device is already there", n->path);
    return 0;
  }
  /* mknod honours the umask; the spec's fileMode does not. */
  if (fchmodat(pfd, base, n->mode & 07777, 0) < 0) return crt_error(err, errno, "chmod %s", n->path);
  if ((n->has_uid || n->has_gid) &&
      fchownat(pfd, base, n->has_uid ? n->uid : (uid_t)-1, n->has_gid ? n->gid : (gid_t)-1, AT_SYMLINK_NOFOLLOW) < 0)
    return crt_error(err, errno, "chown %s", n->path);
  return 0;
}

static int create_node(const crt_rootfs_config *cfg, int rootfd, const node *n, crt_err **err) {
  return cfg->userns ? bind_node(rootfd, n, err) : make_node(rootfd, n, err);
}

static int spec_node(const crt_device *d, node *n, crt_err **err) {
  memset(n, 0, sizeof *n);
  n->path = d->path;
  if (!d->path || d->path[0] != '/') return crt_error(err, EINVAL, "linux.devices: path \"%s\"", d->path ? d->path : "");
  mode_t type;
  if (!d->type) return crt_error(err, EINVAL, "linux.devices: %s: no type", d->path);
  if (!strcmp(d->type, "c") || !strcmp(d->type, "u")) type = S_IFCHR;
  else if (!strcmp(d->type, "b")) type = S_IFBLK;
  else if (!strcmp(d->type, "p")) type = S_IFIFO;
  else return crt_error(err, EINVAL, "linux.devices: %s: unknown type \"%s\"", d->path, d->type);
  n->mode = type | (d->file_mode.set ? (mode_t)(d->file_mode.v & 07777) : 0666);
  n->major = type == S_IFIFO ? 0 : (unsigned int)d->major;
  n->minor = type == S_IFIFO ? 0 : (unsigned int)d->minor;
  n->has_uid = d->uid.set;
  n->uid = (uid_t)d->uid.v;
  n->has_gid = d->gid.set;
  n->gid = (gid_t)d->gid.v;
  return 0;
}

static int dev_symlink(int devfd, const char *target, const char *name, bool replace, crt_err **err) {
  if (replace && unlinkat(devfd, name, 0) < 0 && errno != ENOENT)
    return crt_error(err, errno, "remove /dev/%s", name);
  if (symlinkat(target, devfd, name) < 0 && errno != EEXIST)
    return crt_error(err, errno, "symlink /dev/%s -> %s", name, target);
  return 0;
}

static int dev_symlinks(int rootfd, crt_err **err) {
  cleanup_close int devfd = crt_open_in_root(rootfd, "/dev", O_PATH | O_DIRECTORY, CRT_RESOLVE_MKDIR, err);
  if (devfd < 0) return crt_error_wrap(err, "/dev symlinks");
  static const char *const links[][2] = {
      {"/proc/self/fd", "fd"},
      {"/proc/self/fd/0", "stdin"},
      {"/proc/self/fd/1", "stdout"},
      {"/proc/self/fd/2", "stderr"},
  };
  for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
    if (dev_symlink(devfd, links[i][0], links[i][1], false, err) < 0) return -1;
  if (access("/proc/kcore", F_OK) == 0 && dev_symlink(devfd, "/proc/kcore", "core", false, err) < 0) return -1;
  /* The devpts instance's ptmx, not the host's. */
  return dev_symlink(devfd, "pts/ptmx", "ptmx", true, err);
}

int crt_rootfs_setup_dev(const crt_rootfs_config *cfg, int rootfd, bool with_defaults, crt_err **err) {
  if (with_defaults)
    for (size_t i = 0; i < sizeof default_nodes / sizeof default_nodes[0]; i++)
      if (create_node(cfg, rootfd, &default_nodes[i], err) < 0) return -1;
  const crt_linux *l = cfg->spec->linux_;
  for (size_t i = 0; l && i < l->n_devices; i++) {
    node n;
    if (spec_node(&l->devices[i], &n, err) < 0 || create_node(cfg, rootfd, &n, err) < 0)
      return crt_error_wrap(err, "linux.devices[%zu]", i);
  }
  if (with_defaults) return dev_symlinks(rootfd, err);
  return 0;
}
