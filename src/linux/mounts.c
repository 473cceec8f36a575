#define _GNU_SOURCE
/* The mounts of mounts[], from the options parsed with the spec. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <pthread.h>
#include <limits.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/log.h"
#include "crt/lsm.h"
#include "crt/mounts.h"
#include "crt/procinfo.h"
#include "crt/procfs.h"
#include "crt/resolve.h"
#include "crt/rootfs.h"
#include "crt/rootless.h"
#include "crt/str.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000
#endif
#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif
#ifndef SYSFS_MAGIC
#define SYSFS_MAGIC 0x62656572
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* ---- performing mounts[i] ---- */

typedef struct {
  const crt_rootfs_config *cfg;
  int rootfd;
  size_t idx;
  const crt_mount *m;
  const char *dest; /* crt_mount_dest: what is resolved inside the rootfs */
  const char *type; /* never NULL */
  const char *src;  /* for messages: source, else type */
  const crt_mount_opts *o; /* &m->opts */
} mctx;

static int dest_error(const mctx *c, crt_err **err) {
  return crt_error_wrap(err, "mounts[%zu]: destination \"%s\"", c->idx, c->m->destination);
}

const char *crt_mount_dest(const char *rootfs, const crt_mount *m) {
  size_t n = strlen(rootfs);
  while (n > 1 && rootfs[n - 1] == '/') n--;
  const char *d = m->destination;
  if (n <= 1 || strncmp(d, rootfs, n) || (d[n] && d[n] != '/')) return d;
  return d[n] ? d + n : "/";
}

static int open_dest(const mctx *c, int flags, int create, crt_err **err) {
  int fd = crt_open_in_root(c->rootfd, c->dest, O_PATH | flags, create, err);
  if (fd < 0) dest_error(c, err);
  return fd;
}

static int mount_at(const mctx *c, const char *src, int dstfd, const char *type, unsigned long flags,
                    const char *data, crt_err **err) {
  char p[32];
  if (mount(src, crt_fd_path(p, dstfd), type, flags, data) < 0)
    return crt_error(err, errno, "mount %s on %s (type %s)", c->src, c->m->destination, type ? type : c->type);
  return 0;
}

/* The atime flags: what the kernel keeps as the mount's atime (its
 * MNT_ATIME_MASK), and with strictatime all the options that set one. */
#define ATIME_MASK (MS_NOATIME | MS_NODIRATIME | MS_RELATIME)
#define ATIME_FLAGS (ATIME_MASK | MS_STRICTATIME)
/* What a user namespace locks on the mounts it inherits (MNT_LOCK_*): a
 * remount may not drop these nor change the atime. */
#define LOCKED_FLAGS (MS_RDONLY | MS_NODEV | MS_NOSUID | MS_NOEXEC | ATIME_FLAGS)

/* The per-mount flags of the mount under fd, as MS_* flags: strictatime
 * when it has none of noatime and relatime (it is no flag of its own), so
 * that a remount given them keeps the atime. */
unsigned long crt_mount_kept_flags(int fd) {
  struct statvfs sv;
  if (fstatvfs(fd, &sv) < 0) return 0;
  static const struct {
    unsigned long st, ms;
  } map[] = {{ST_RDONLY, MS_RDONLY},     {ST_NOSUID, MS_NOSUID},         {ST_NODEV, MS_NODEV},
             {ST_NOEXEC, MS_NOEXEC},     {ST_NOATIME, MS_NOATIME},       {ST_NODIRATIME, MS_NODIRATIME},
             {ST_RELATIME, MS_RELATIME}, {ST_NOSYMFOLLOW, MS_NOSYMFOLLOW}};
  unsigned long f = 0;
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (sv.f_flag & map[i].st) f |= map[i].ms;
  if (!(f & (MS_NOATIME | MS_RELATIME))) f |= MS_STRICTATIME;
  return f;
}

/* A bind's flags need a remount, which sets exactly them (runc >= 1.2).
 * When the kernel refuses (flags locked in a user namespace), retry with
 * the source's locked flags added, as runc does, unless the options clear
 * one the source has or ask for another atime than its own: then the
 * kernel would refuse again or, worse, keep the old atime silently
 * (relatime over noatime is ignored, strictatime hides the others), and
 * the mount is not what the options say: an error. */
static int remount_bind(const mctx *c, int fd, unsigned long flags, crt_err **err) {
  char p[32];
  const unsigned long f = MS_REMOUNT | MS_BIND | flags;
  if (mount(NULL, crt_fd_path(p, fd), NULL, f, NULL) == 0) return 0;
  int e = errno;
  unsigned long cur = crt_mount_kept_flags(fd);
  bool retry = e == EPERM && !(cur & c->o->clear & LOCKED_FLAGS) &&
               (!(flags & ATIME_FLAGS) || (flags & ATIME_FLAGS) == (cur & ATIME_FLAGS));
  if (retry && mount(NULL, p, NULL, f | (cur & LOCKED_FLAGS), NULL) == 0) return 0;
  if (retry) e = errno;
  return crt_error(err, e, "mounts[%zu]: error mounting \"%s\" to rootfs at \"%s\": remount with the options' flags%s",
                   c->idx, c->src, c->m->destination,
                   e == EPERM ? " (a user namespace keeps the source's ro, nodev, nosuid, noexec and atime)" : "");
}

/* Propagation and recursive attributes, on the mount now at the destination. */
static int apply_after(const mctx *c, crt_err **err) {
  if (!c->o->propagation && !c->o->attr_set && !c->o->attr_clr) return 0;
  cleanup_close int fd = open_dest(c, 0, CRT_RESOLVE_NONE, err);
  if (fd < 0) return -1;
  char p[32];
  if (c->o->propagation && mount(NULL, crt_fd_path(p, fd), NULL, c->o->propagation, NULL) < 0)
    return crt_error(err, errno, "set propagation of %s", c->m->destination);
  if (c->o->attr_set || c->o->attr_clr) {
    struct mount_attr a = {.attr_set = c->o->attr_set, .attr_clr = c->o->attr_clr};
    if (mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a) < 0)
      return crt_error(err, errno, "set recursive attributes of %s", c->m->destination);
  }
  return 0;
}

static int write_map(pid_t pid, pid_t proc_pid, const char *file, const crt_idmapv *m, crt_err **err) {
  char buf[4096];
  size_t n = 0;
  for (size_t i = 0; i < m->len && n < sizeof buf; i++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%u %u %u\n", m->v[i].container_id, m->v[i].host_id, m->v[i].size);
  if (n >= sizeof buf) return crt_error(err, E2BIG, "%s: too many mappings", file);
  return crt_procfs_write_child(pid, proc_pid, file, buf, n, err);
}

/* A user namespace holding the mappings, for MOUNT_ATTR_IDMAP: a child
 * unshares one, we map it from outside and keep a reference to it. */
static int idmap_userns(const crt_idmapv *uids, const crt_idmapv *gids, crt_err **err) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) < 0) return crt_error(err, errno, "pipe");
  pid_t pid = fork();
  if (pid < 0) {
    close(p[0]);
    close(p[1]);
    return crt_error(err, errno, "fork");
  }
  if (pid == 0) {
    close(p[0]);
    /* Our pid as /proc (maybe not of our pid namespace) knows it. */
    char self[16] = "";
    if (unshare(CLONE_NEWUSER) < 0 || readlink("/proc/self", self, sizeof self - 1) <= 0) _exit(1);
    if (write(p[1], self, sizeof self) != (ssize_t)sizeof self) _exit(1);
    for (;;) pause(); /* killed once the namespace is held */
  }
  close(p[1]);
  char self[16] = "";
  int fd = -1;
  long ppid = 0;
  bool got = crt_read_all(p[0], self, sizeof self) == (ssize_t)sizeof self;
  self[sizeof self - 1] = 0;
  if (!got || crt_parse_long(self, 1, INT_MAX, &ppid) < 0) {
    crt_error(err, 0, "create a user namespace for an idmapped mount");
  } else if (write_map(pid, ppid, "uid_map", uids, err) == 0 && write_map(pid, ppid, "gid_map", gids, err) == 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/user", (int)ppid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) crt_error(err, errno, "open %s", path);
  }
  close(p[0]);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return fd;
}

static bool wants_idmap(const crt_mount *m) {
  return m->opts.idmap || m->opts.ridmap || m->uid_mappings.len || m->gid_mappings.len;
}

/* The user namespace whose mappings an idmapped mounts[idx] carries (its
 * own, else the container's).  The mappings are in terms of the initial
 * user namespace, and only a caller privileged over the source's
 * superblock may idmap it: in a container with its own user namespace the
 * runtime does it (crt_mount_source_clone). */
static int idmap_userns_of(const crt_spec *spec, size_t idx, const crt_mount *m, crt_err **err) {
  const crt_linux *l = spec->linux_;
  const crt_idmapv *uids = m->uid_mappings.len || !l ? &m->uid_mappings : &l->uid_mappings;
  const crt_idmapv *gids = m->gid_mappings.len || !l ? &m->gid_mappings : &l->gid_mappings;
  const crt_namespace *joined = crt_spec_namespace(spec, CRT_NS_USER);
  if (!uids->len && !gids->len && joined && joined->path) {
    /* a joined user namespace: its mappings, as runc (idmap.bats "implied
     * mapping, userns join") */
    int fd = open(joined->path, O_RDONLY | O_CLOEXEC);
    return fd >= 0 ? fd : crt_error(err, errno, "mounts[%zu]: open %s", idx, joined->path);
  }
  if (!uids->len || !gids->len)
    return crt_error(err, EINVAL, "mounts[%zu]: destination \"%s\": idmap without uid and gid mappings", idx,
                     m->destination);
  int userns = idmap_userns(uids, gids, err);
  return userns < 0 ? crt_error_wrap(err, "mounts[%zu]", idx) : userns;
}

/* MOUNT_ATTR_IDMAP on a detached tree ("ridmap": on all of it). */
static int idmap_tree(int tree, int userns, size_t idx, const crt_mount *m, const char *src, crt_err **err) {
  struct mount_attr a = {.attr_set = MOUNT_ATTR_IDMAP, .userns_fd = (uint64_t)userns};
  if (mount_setattr(tree, "", AT_EMPTY_PATH | (m->opts.ridmap ? AT_RECURSIVE : 0), &a, sizeof a) == 0) return 0;
  return crt_error(err, errno, "mounts[%zu]: idmap %s%s", idx, src,
                   errno == EINVAL ? " (the filesystem or kernel does not support idmapped mounts)" : "");
}

static unsigned clone_flags(const crt_mount *m) {
  return OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (m->opts.recursive ? AT_RECURSIVE : 0);
}

/* A detached, idmapped clone of the source sfd, made by the init itself. */
static int idmapped_tree(const crt_spec *spec, size_t idx, const crt_mount *m, int sfd, const char *src,
                         crt_err **err) {
  cleanup_close int userns = idmap_userns_of(spec, idx, m, err);
  if (userns < 0) return -1;
  cleanup_close int tree = open_tree(sfd, "", clone_flags(m) | AT_EMPTY_PATH);
  if (tree < 0) return crt_error(err, errno, "mounts[%zu]: clone %s for an idmapped mount", idx, src);
  if (idmap_tree(tree, userns, idx, m, src, err) < 0) return -1;
  return crt_steal_fd(tree);
}

/* A relative source is relative to the bundle. */
static int source_path(const char *bundle, const crt_mount *m, char *out, size_t size, crt_err **err) {
  bool rel = m->source[0] != '/';
  return crt_pathf(out, size, err, "%s%s%s", rel ? bundle : "", rel ? "/" : "", m->source);
}

/* The propagation a bind made in the container's mount namespace would
 * have: its copy of the source is a slave of the host's peers (a mount
 * namespace of another user namespace), then rootfsPropagation applies. */
static int tree_propagation(int tree, unsigned long rootfs_prop) {
  struct mount_attr a = {.propagation = MS_SLAVE};
  if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a) < 0) return -1;
  a.propagation = rootfs_prop & ~MS_REC;
  if (!a.propagation || a.propagation == MS_SLAVE) return 0;
  return mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a);
}

typedef struct {
  int mntns;
  const char *src;
  unsigned flags;
  int tree, err;
} clone_job;

/* A thread of the runtime in the init's mount namespace (its own fs
 * struct: setns refuses a shared one), with the runtime's credentials. */
static void *clone_in_mntns(void *arg) {
  clone_job *j = arg;
  if (unshare(CLONE_FS) < 0 || setns(j->mntns, CLONE_NEWNS) < 0) {
    j->err = errno;
    return NULL;
  }
  j->tree = open_tree(AT_FDCWD, j->src, j->flags);
  j->err = j->tree < 0 ? errno : 0;
  return NULL;
}

int crt_mount_source_clone(const crt_spec *spec, size_t idx, const char *bundle, int mntns, crt_err **err) {
  if (idx >= spec->n_mounts || !crt_mount_is_bind(&spec->mounts[idx]) || !spec->mounts[idx].source)
    return crt_error(err, EINVAL, "mounts[%zu]: not a bind mount the init may ask a source for", idx);
  const crt_mount *m = &spec->mounts[idx];
  char src[PATH_MAX];
  if (source_path(bundle, m, src, sizeof src, err) < 0) return crt_error_wrap(err, "mounts[%zu]: source", idx);
  /* made before the thread: idmap_userns forks */
  cleanup_close int userns = wants_idmap(m) ? idmap_userns_of(spec, idx, m, err) : -1;
  if (wants_idmap(m) && userns < 0) return -1;
  clone_job j = {.mntns = mntns, .src = src, .tree = -1, .flags = clone_flags(m)};
  pthread_t t;
  int e = pthread_create(&t, NULL, clone_in_mntns, &j);
  if (e) return crt_error(err, e, "mounts[%zu]: start a thread in the container's mount namespace", idx);
  pthread_join(t, NULL);
  if (j.tree < 0) return crt_error(err, j.err, "mounts[%zu]: source \"%s\"", idx, m->source);
  cleanup_close int tree = j.tree;
  if (userns >= 0 && idmap_tree(tree, userns, idx, m, m->source, err) < 0) return -1;
  unsigned long prop = spec->linux_ ? spec->linux_->rootfs_propagation_flags : 0;
  if (tree_propagation(tree, prop) < 0)
    return crt_error(err, errno, "mounts[%zu]: set the propagation of a clone of %s", idx, m->source);
  return crt_steal_fd(tree);
}

/* A user-namespaced init asks the runtime for the source of a bind it
 * cannot make itself (runc's procMountPlease): an idmapped one, which
 * needs the host's rights over the source's filesystem, or one whose
 * source the init cannot reach (runc: when stat fails; never for a
 * rootless runtime, which has no more rights than the init).  Asked at
 * the mount's turn, so the source sees the config's earlier mounts. */
static bool source_from_host(const mctx *c, const char *source) {
  if (!c->cfg->source_from_host) return false;
  if (wants_idmap(c->m)) return true;
  struct stat st;
  return c->cfg->host_binds && stat(source, &st) < 0;
}

static int bind_from(const mctx *c, const char *source, bool recursive, unsigned long flags, crt_err **err) {
  cleanup_close int tree = -1;
  if (source_from_host(c, source) && (tree = c->cfg->source_from_host(c->cfg->source_arg, c->idx, err)) < 0)
    return -1;
  struct stat st;
  if (tree >= 0 ? fstat(tree, &st) < 0 : stat(source, &st) < 0)
    return crt_error(err, errno, "mounts[%zu]: source \"%s\"", c->idx, source);
  cleanup_close int dst = open_dest(c, 0, S_ISDIR(st.st_mode) ? CRT_RESOLVE_MKDIR : CRT_RESOLVE_MKFILE, err);
  if (dst < 0) return -1;
  if (tree < 0 && wants_idmap(c->m)) {
    cleanup_close int sfd = open(source, O_PATH | O_CLOEXEC);
    if (sfd < 0) return crt_error(err, errno, "mounts[%zu]: source \"%s\"", c->idx, source);
    if ((tree = idmapped_tree(c->cfg->spec, c->idx, c->m, sfd, c->src, err)) < 0) return -1;
  }
  if (tree >= 0) {
    if (move_mount(tree, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
      return crt_error(err, errno, "mounts[%zu]: mount %s on %s", c->idx, c->src, c->m->destination);
  } else {
    /* Pin the source too: a path swapped after the stat cannot redirect us. */
    cleanup_close int sfd = open(source, O_PATH | O_CLOEXEC);
    if (sfd < 0) return crt_error(err, errno, "mounts[%zu]: source \"%s\"", c->idx, source);
    char sp[32];
    if (mount_at(c, crt_fd_path(sp, sfd), dst, NULL, MS_BIND | (recursive ? MS_REC : 0), NULL, err) < 0) return -1;
  }
  flags &= ~(MS_REMOUNT | MS_MOVE);
  /* "bind" alone keeps the source's flags; any flag given, set or
   * cleared, makes the mount exactly what the options say (runc >= 1.2),
   * less what the kernel keeps locked (remount_bind).  A tree the runtime
   * made is locked as the init's own binds are: it is cloned from the
   * init's mount namespace, whose copies of the host's mounts a user
   * namespace owns, and a clone keeps their locks. */
  if (!flags && !c->o->clear) return 0;
  cleanup_close int now = open_dest(c, 0, CRT_RESOLVE_NONE, err);
  if (now < 0) return -1;
  return remount_bind(c, now, flags, err);
}

static char *with_label(const mctx *c, const char *data) {
  const char *label = c->cfg->spec->linux_ ? c->cfg->spec->linux_->mount_label : NULL;
  cleanup_free char *opt = crt_selinux_mount_option(label);
  if (!opt) return data ? strdup(data) : NULL;
  if (!data) return crt_steal(opt);
  char *out = NULL;
  return asprintf(&out, "%s,%s", data, opt) < 0 ? NULL : out;
}

static int copy_tree(int src, int dst, int depth);

static int copy_entry(int src, int dst, const char *name, const struct stat *st, int depth) {
  if (S_ISDIR(st->st_mode)) {
    if (mkdirat(dst, name, st->st_mode & 07777) < 0 && errno != EEXIST) return -1;
    cleanup_close int s = openat(src, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    cleanup_close int d = openat(dst, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (s < 0 || d < 0 || copy_tree(s, d, depth + 1) < 0) return -1;
  } else if (S_ISREG(st->st_mode)) {
    cleanup_close int s = openat(src, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    cleanup_close int d = openat(dst, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st->st_mode & 07777);
    if (s < 0 || d < 0) return -1;
    char buf[65536];
    ssize_t r;
    while ((r = read(s, buf, sizeof buf)) > 0)
      if (crt_write_all(d, buf, (size_t)r) < 0) return -1;
    if (r < 0) return -1;
  } else if (S_ISLNK(st->st_mode)) {
    char target[4096];
    ssize_t n = readlinkat(src, name, target, sizeof target - 1);
    if (n < 0) return -1;
    target[n] = 0;
    if (symlinkat(target, dst, name) < 0) return -1;
  } else if (mknodat(dst, name, st->st_mode, st->st_rdev) < 0) {
    return -1;
  }
  if (fchownat(dst, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0) return -1;
  /* after the chown, which clears setuid/setgid bits, and over the umask
   * and a setgid parent's bit that mkdir and open applied */
  return S_ISLNK(st->st_mode) ? 0 : fchmodat(dst, name, st->st_mode & 07777, 0);
}

/* tmpcopyup: what was under the tmpfs is copied into it (owners, modes). */
static int copy_tree(int src, int dst, int depth) {
  if (depth > 64) return errno = ELOOP, -1;
  int fd = openat(src, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  DIR *d = fdopendir(fd);
  if (!d) return close(fd), -1;
  struct dirent *e;
  int rc = 0;
  while (rc == 0 && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    struct stat st;
    rc = fstatat(src, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -1 : copy_entry(src, dst, e->d_name, &st, depth);
  }
  int saved = errno;
  closedir(d);
  errno = saved;
  return rc;
}

bool crt_mount_ro_later(const crt_mount *m) {
  if (!(m->opts.flags & MS_RDONLY) || crt_mount_is_bind(m) || !m->destination) return false;
  if (m->type && !strcmp(m->type, "tmpfs")) return true;
  const char *d = m->destination;
  while (d[0] == '/' && d[1] == '/') d++;
  return !strncmp(d, "/dev", 4) && strspn(d + 4, "/") == strlen(d + 4);
}

/* Filesystems of other types than proc, sysfs and cgroup.  A read-only
 * tmpfs or /dev is mounted read-write: /dev gets its devices and mounts,
 * a tmpfs may get mount points, and crt_rootfs_finalize makes them
 * read-only at the end, as runc does. */
static bool has_mode(const char *data) {
  for (const char *d = data; d && *d; d = strchr(d, ',') ? strchr(d, ',') + 1 : NULL)
    if (!strncmp(d, "mode=", 5)) return true;
  return false;
}

/* A tmpfs over an existing directory takes its mode, setuid, setgid and
 * sticky bits included, unless the options give one (runc's rule; the
 * kernel's default is 1777).  NULL: the options as they are. */
static char *tmpfs_mode(const mctx *c) {
  cleanup_err crt_err *absent = NULL;
  cleanup_close int fd = -1;
  struct stat st;
  if (strcmp(c->type, "tmpfs") || has_mode(c->o->data) ||
      (fd = crt_open_in_root(c->rootfd, c->dest, O_PATH | O_DIRECTORY, CRT_RESOLVE_NONE, &absent)) < 0 ||
      fstat(fd, &st) < 0)
    return NULL;
  char *data = NULL;
  const char *more = c->o->data;
  if (asprintf(&data, "mode=%04o%s%s", (unsigned)(st.st_mode & 07777), more ? "," : "", more ? more : "") < 0)
    return NULL;
  return data;
}

static int mount_fs(const mctx *c, crt_err **err) {
  cleanup_free char *moded = tmpfs_mode(c);
  cleanup_free char *data = with_label(c, moded ? moded : c->o->data);
  cleanup_close int dst = open_dest(c, 0, CRT_RESOLVE_MKDIR, err);
  if (dst < 0) return -1;
  unsigned long flags = c->o->flags & ~(MS_REMOUNT | MS_MOVE);
  if (crt_mount_ro_later(c->m)) flags &= ~MS_RDONLY;
  bool copyup = c->o->tmpcopyup && !strcmp(c->type, "tmpfs");
  if (!copyup) return mount_at(c, c->m->source ? c->m->source : c->type, dst, c->type, flags, data, err);
  cleanup_close int under = crt_open_in_root(c->rootfd, c->dest, O_RDONLY | O_DIRECTORY, CRT_RESOLVE_NONE, err);
  if (under < 0) return dest_error(c, err);
  if (mount_at(c, c->m->source ? c->m->source : c->type, dst, c->type, flags, data, err) < 0) return -1;
  cleanup_close int now = crt_open_in_root(c->rootfd, c->dest, O_RDONLY | O_DIRECTORY, CRT_RESOLVE_NONE, err);
  if (now < 0) return dest_error(c, err);
  if (copy_tree(under, now, 0) < 0) return crt_error(err, errno, "tmpcopyup into %s", c->m->destination);
  return 0;
}

/* mqueue needs an IPC namespace owned by our user namespace: rootless
 * without an IPC namespace of its own the kernel refuses (runc fails too). */
static int mount_mqueue(const mctx *c, crt_err **err) {
  if (mount_fs(c, err) == 0) return 0;
  return (*err)->errnum == EPERM && c->cfg->userns ? crt_rootless_explain(err, "mqueue") : -1;
}

/* proc and sysfs only onto real directories, and only if what ends up there
 * really is procfs/sysfs (CVE-2019-16884, CVE-2019-19921).  The refusal is
 * runc's sentence (mask.bats matches it), symlink or file alike. */
static int mount_special(const mctx *c, long magic, crt_err **err) {
  cleanup_close int dst = open_dest(c, O_NOFOLLOW, CRT_RESOLVE_MKDIR, err);
  if (dst < 0) return -1;
  struct stat st;
  if (fstat(dst, &st) < 0) return crt_error(err, errno, "stat %s", c->m->destination);
  if (!S_ISDIR(st.st_mode))
    return crt_error(err, 0,
                     "mounts[%zu]: error mounting \"%s\" to rootfs at \"%s\": filesystem \"%s\" must be mounted on "
                     "ordinary directory",
                     c->idx, c->src, c->m->destination, c->type);
  unsigned long flags = c->o->flags & ~(MS_REMOUNT | MS_MOVE);
  const char *src = c->m->source ? c->m->source : c->type;
  cleanup_free char *data = NULL;
  const char *pidns = magic == PROC_SUPER_MAGIC ? c->cfg->proc_pidns : NULL;
  if (pidns && asprintf(&data, "%s%spidns=%s", c->o->data ? c->o->data : "", c->o->data && *c->o->data ? "," : "",
                        pidns) < 0)
    return crt_error(err, ENOMEM, "mounts[%zu]", c->idx);
  if (mount_at(c, src, dst, c->type, flags, data ? data : c->o->data, err) < 0) {
    if (magic != SYSFS_MAGIC || (*err)->errnum != EPERM || !c->cfg->userns) return -1;
    /* A user namespace without its own network namespace may not mount
     * sysfs: show the host's, read-only. */
    crt_debug("mount sysfs on %s: %s; binding the host's /sys read-only", c->m->destination, (*err)->msg);
    crt_err_free(err);
    char p[32];
    if (mount("/sys", crt_fd_path(p, dst), NULL, MS_BIND | MS_REC, NULL) < 0)
      return crt_error(err, errno, "bind /sys on %s", c->m->destination);
    cleanup_close int now = open_dest(c, 0, CRT_RESOLVE_NONE, err);
    if (now < 0) return -1;
    struct mount_attr a = {.attr_set = MOUNT_ATTR_RDONLY};
    if (mount_setattr(now, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a) < 0)
      return crt_error(err, errno, "make %s read-only", c->m->destination);
    return 0;
  }
  cleanup_close int now = open_dest(c, O_NOFOLLOW, CRT_RESOLVE_NONE, err);
  if (now < 0) return -1;
  struct statfs sf;
  if (fstatfs(now, &sf) < 0) return crt_error(err, errno, "statfs %s", c->m->destination);
  if ((long)sf.f_type != magic) {
    char p[32];
    umount2(crt_fd_path(p, now), MNT_DETACH);
    return crt_error(err, 0, "mount %s on %s: the destination is not %s after mounting", c->src, c->m->destination,
                     c->type);
  }
  return 0;
}

/* ---- cgroup mounts ---- */

static bool has_cgroupns(const crt_rootfs_config *cfg) {
  const crt_linux *l = cfg->spec->linux_;
  for (size_t i = 0; l && i < l->n_namespaces; i++)
    if (l->namespaces[i].type == CRT_NS_CGROUP) return true;
  return false;
}

/* Every element of the comma list want is an element of the list have. */
static bool all_in(const char *want, const char *have) {
  cleanup_free char *w = strdup(want);
  if (!w) return false;
  char *save = NULL;
  for (char *t = strtok_r(w, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    size_t n = strlen(t);
    bool found = false;
    for (const char *h = have; h && *h; h = strchr(h, ',') ? strchr(h, ',') + 1 : NULL)
      if (!strncmp(h, t, n) && (h[n] == ',' || h[n] == 0)) found = true;
    if (!found) return false;
  }
  return true;
}

/* Our /proc/self/cgroup, read once for all the hierarchies. */
typedef struct {
  crt_proc_cgroup *v;
  size_t n;
} own_cgroups;

/* The calling process's path in the v1 hierarchy whose super options are
 * opts ("rw,cpu,cpuacct"); the controllers are copied to ctrl. */
static const char *own_cgroup(const own_cgroups *own, const char *opts, char *ctrl, size_t ctrl_len) {
  for (size_t i = 0; i < own->n; i++) {
    if (!*own->v[i].controllers || !all_in(own->v[i].controllers, opts)) continue;
    /* the kernel's controller names are short: a list that is cut is not one */
    if (crt_fmt(ctrl, ctrl_len, "%s", own->v[i].controllers) < 0) continue;
    return own->v[i].path;
  }
  return NULL;
}

static int link_comounted(int dirfd_, const char *name) {
  if (!strchr(name, ',')) return 0;
  cleanup_free char *dup = strdup(name);
  if (!dup) return -1;
  char *save = NULL;
  for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save))
    if (symlinkat(name, dirfd_, t) < 0 && errno != EEXIST) return -1;
  return 0;
}

int crt_cgroup_v1_mounts_read(crt_mountinfo *out, crt_err **err) {
  return crt_mountinfo_read_type(out, "cgroup", "/sys/fs/cgroup/", err);
}

/* The directory for hierarchy name in the tmpfs the cgroup mount just made
 * (tmp): made there and opened without following a symlink.  Only a
 * co-mounted controller's symlink (link_comounted) can be there already:
 * then it is resolved inside the rootfs as any destination. */
static int v1_target(const mctx *c, int tmp, const char *name, const char *dest, crt_err **err) {
  if (strcmp(name, ".") && strcmp(name, "..") && (mkdirat(tmp, name, 0755) == 0 || errno == EEXIST)) {
    int fd = openat(tmp, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) return fd;
  }
  int fd = crt_open_in_root(c->rootfd, dest, O_PATH | O_DIRECTORY, CRT_RESOLVE_MKDIR, err);
  if (fd < 0) dest_error(c, err);
  return fd;
}

/* A bind remount's MS_* flags as mount_setattr attributes, as the remount
 * applies them: the per-mount flags not given are cleared, the atime kept
 * unless one is given.  false: a flag has no attribute. */
static bool remount_attr(unsigned long flags, struct mount_attr *a) {
  static const struct {
    unsigned long ms;
    uint64_t attr;
  } map[] = {{MS_RDONLY, MOUNT_ATTR_RDONLY},         {MS_NOSUID, MOUNT_ATTR_NOSUID},
             {MS_NODEV, MOUNT_ATTR_NODEV},           {MS_NOEXEC, MOUNT_ATTR_NOEXEC},
             {MS_NODIRATIME, MOUNT_ATTR_NODIRATIME}, {MS_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW}};
  const unsigned long atime = MS_NOATIME | MS_RELATIME | MS_STRICTATIME;
  unsigned long known = atime;
  *a = (struct mount_attr){0};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    known |= map[i].ms;
    if (flags & map[i].ms) a->attr_set |= map[i].attr;
    else a->attr_clr |= map[i].attr;
  }
  if (flags & ~known) return false;
  /* the kernel's remount: any atime-related flag sets the atime (relatime by default) */
  if (flags & (atime | MS_NODIRATIME)) {
    a->attr_clr |= MOUNT_ATTR__ATIME;
    a->attr_set |= flags & MS_STRICTATIME ? MOUNT_ATTR_STRICTATIME
                   : flags & MS_NOATIME   ? MOUNT_ATTR_NOATIME
                                          : MOUNT_ATTR_RELATIME;
  }
  return true;
}

/* A clone of the hierarchy's cgroup directory: src_cg (the container's
 * cgroup) when given and there, else src_own.  *used: the one cloned. */
static int v1_clone_source(const char *src_cg, const char *src_own, const char **used) {
  const unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE;
  if (src_cg) {
    *used = src_cg;
    int tree = open_tree(AT_FDCWD, src_cg, flags);
    if (tree >= 0 || errno == ENOSYS) return tree;
  }
  *used = src_own;
  return open_tree(AT_FDCWD, src_own, flags);
}

/* The hierarchy's bind given its flags (read-only) while detached, then
 * attached on dst: never writable in the container, one mount operation
 * fewer than bind + remount.  1: not done (no new mount API, a flag without
 * attribute, or one the kernel refuses to change: locked in a user
 * namespace), the caller binds and remounts. */
static int v1_bind_detached(int dst, const char *src_cg, const char *src_own, unsigned long flags, const char *dest,
                            crt_err **err) {
  struct mount_attr a;
  if (!remount_attr(flags, &a)) return 1;
  const char *src = NULL;
  cleanup_close int tree = v1_clone_source(src_cg, src_own, &src);
  if (tree < 0) return errno == ENOSYS ? 1 : crt_error(err, errno, "clone %s for %s", src, dest);
  if (flags && mount_setattr(tree, "", AT_EMPTY_PATH, &a, sizeof a) < 0) {
    if (errno == EPERM || errno == ENOSYS || errno == EINVAL) return 1; /* the tree is dropped with its fd */
    return crt_error(err, errno, "set the flags of a clone of %s for %s", src, dest);
  }
  if (move_mount(tree, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    return crt_error(err, errno, "bind %s on %s", src, dest);
  return 0;
}

/* The same with mount(2): bind, then remount with the flags. */
static int v1_bind_remount(const mctx *c, int dst, const char *src_cg, const char *src_own, unsigned long flags,
                           const char *dest, crt_err **err) {
  const char *src = src_cg ? src_cg : src_own;
  int sfd = src_cg ? open(src_cg, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
  if (sfd < 0) sfd = open(src = src_own, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (sfd < 0) return crt_error(err, errno, "open %s", src);
  char sp[32], p[32];
  int rc = mount(crt_fd_path(sp, sfd), crt_fd_path(p, dst), NULL, MS_BIND | MS_REC, NULL);
  int e = errno;
  close(sfd);
  if (rc < 0) return crt_error(err, e, "bind %s on %s", src, dest);
  cleanup_close int now = crt_open_in_root(c->rootfd, dest, O_PATH, CRT_RESOLVE_NONE, err);
  if (now < 0) return dest_error(c, err);
  return flags ? remount_bind(c, now, flags, err) : 0;
}

/* One v1 hierarchy: mountinfo gave its mount point, root and super options. */
static int cgroup_v1_one(const mctx *c, int tmp, const own_cgroups *ours, const crt_mountinfo_entry *e,
                         crt_err **err) {
  const char *name = strrchr(e->target, '/') + 1;
  char ctrl[256] = "";
  const char *own = own_cgroup(ours, e->fs_opts, ctrl, sizeof ctrl);
  if (!own) return 0; /* not a hierarchy this process is in */
  cleanup_free char *dest = NULL, *src_cg = NULL, *src_own = NULL;
  if (asprintf(&dest, "%s/%s", c->dest, name) < 0) return crt_error(err, ENOMEM, "cgroup");
  cleanup_close int dst = v1_target(c, tmp, name, dest, err);
  if (dst < 0) return -1;
  char p[32];
  unsigned long flags = c->o->flags & ~(MS_REMOUNT | MS_MOVE);
  if (has_cgroupns(c->cfg)) {
    if (mount("cgroup", crt_fd_path(p, dst), "cgroup", flags, ctrl) < 0)
      return crt_error(err, errno, "mount cgroup (%s) on %s", ctrl, dest);
    return 0;
  }
  const char *rel = own;
  if (strcmp(e->root, "/") && !strncmp(own, e->root, strlen(e->root))) rel = own + strlen(e->root);
  if (c->cfg->cgroup_path && asprintf(&src_cg, "%s%s", e->target, c->cfg->cgroup_path) < 0)
    return crt_error(err, ENOMEM, "cgroup");
  if (asprintf(&src_own, "%s%s", e->target, rel) < 0) return crt_error(err, ENOMEM, "cgroup");
  int rc = v1_bind_detached(dst, src_cg, src_own, flags, dest, err);
  return rc == 1 ? v1_bind_remount(c, dst, src_cg, src_own, flags, dest, err) : rc;
}

static int cgroup_v1(const mctx *c, crt_err **err) {
  cleanup_close int dst = open_dest(c, 0, CRT_RESOLVE_MKDIR, err);
  if (dst < 0) return -1;
  cleanup_free char *data = with_label(c, "mode=755");
  unsigned long flags = c->o->flags & ~(MS_REMOUNT | MS_MOVE);
  if (mount_at(c, "tmpfs", dst, "tmpfs", flags & ~MS_RDONLY, data, err) < 0) return -1;
  cleanup_close int tmp = open_dest(c, O_DIRECTORY, CRT_RESOLVE_NONE, err);
  if (tmp < 0) return -1;
  /* The hierarchies as they are before the binds below (which add cgroup
   * lines to mountinfo). */
  crt_mountinfo hier = {0};
  if (crt_cgroup_v1_mounts_read(&hier, err) < 0) return -1;
  own_cgroups ours = {0};
  cleanup_err crt_err *unread = NULL;
  if (crt_proc_cgroup_read(0, &ours.v, &ours.n, &unread) < 0) ours.n = 0; /* then no hierarchy is ours */
  size_t rlen = strlen(c->cfg->rootfs);
  int rc = 0;
  for (size_t i = 0; i < hier.n && rc == 0; i++) {
    const char *mp = hier.v[i].target;
    /* Only the host's hierarchies: none already inside the rootfs. */
    if (!strncmp(mp, c->cfg->rootfs, rlen) && (mp[rlen] == '/' || mp[rlen] == 0)) continue;
    rc = cgroup_v1_one(c, tmp, &ours, &hier.v[i], err);
    if (rc == 0 && link_comounted(tmp, strrchr(mp, '/') + 1) < 0)
      rc = crt_error(err, errno, "symlink comounted controllers in %s", c->m->destination);
  }
  crt_mountinfo_free(&hier);
  crt_proc_cgroup_free(ours.v, ours.n);
  if (rc == 0 && (flags & MS_RDONLY)) return remount_bind(c, tmp, flags, err);
  return rc;
}

static int cgroup_v2(const mctx *c, crt_err **err) {
  cleanup_close int dst = open_dest(c, 0, CRT_RESOLVE_MKDIR, err);
  if (dst < 0) return -1;
  unsigned long flags = c->o->flags & ~(MS_REMOUNT | MS_MOVE);
  if (mount_at(c, "cgroup2", dst, "cgroup2", flags, c->o->data, err) == 0) return 0;
  if ((*err)->errnum != EPERM && (*err)->errnum != EBUSY) return -1;
  /* Not allowed to mount cgroup2 here (user namespace): bind our own cgroup. */
  crt_err_free(err);
  cleanup_free char *own = NULL, *src = NULL;
  if (c->cfg->cgroup_path) {
    if (asprintf(&src, "/sys/fs/cgroup%s", c->cfg->cgroup_path) < 0) return crt_error(err, ENOMEM, "cgroup");
  } else {
    own = crt_proc_cgroup_path(0, "");
    if (asprintf(&src, "/sys/fs/cgroup%s", own ? own : "") < 0) return crt_error(err, ENOMEM, "cgroup");
  }
  return bind_from(c, src, true, flags, err);
}

static int mount_cgroup(const mctx *c, crt_err **err) {
  struct statfs sf;
  if (strcmp(c->type, "cgroup2") && statfs("/sys/fs/cgroup", &sf) == 0 && (long)sf.f_type != CGROUP2_SUPER_MAGIC)
    return cgroup_v1(c, err);
  return cgroup_v2(c, err);
}

/* Where the destination is now, relative to the rootfs ("/proc/sys"), or
 * its text when it does not exist yet.  malloc'd. */
static char *dest_now(const mctx *c) {
  cleanup_err crt_err *ignored = NULL;
  cleanup_close int fd = crt_open_in_root(c->rootfd, c->dest, O_PATH | O_NOFOLLOW, CRT_RESOLVE_NONE, &ignored);
  char p[32], real[PATH_MAX], root[PATH_MAX];
  ssize_t n = fd >= 0 ? readlink(crt_fd_path(p, fd), real, sizeof real - 1) : -1;
  ssize_t r = n > 0 ? readlink(crt_fd_path(p, c->rootfd), root, sizeof root - 1) : -1;
  if (r <= 0) return strdup(c->dest);
  real[n] = root[r] = 0;
  if (!strcmp(root, "/")) r = 0; /* no prefix to cut */
  return strncmp(real, root, (size_t)r) ? strdup(c->dest) : strdup(real[r] ? real + r : "/");
}

/* path is dir or below it ("/proc", "/proc/", "/proc/sys"; not "/procx") */
static bool path_in(const char *path, const char *dir) {
  while (path[0] == '/' && path[1] == '/') path++;
  size_t n = strlen(dir);
  return !strncmp(path, dir, n) && (path[n] == 0 || path[n] == '/');
}

static bool is_procfs(const char *path) {
  struct statfs sf;
  return path && statfs(path, &sf) == 0 && (long)sf.f_type == PROC_SUPER_MAGIC;
}

/* Mounts over /proc and /sys, as runc allows them (CVE-2019-19921: a fake
 * procfs would take the LSM label crt writes to /proc/self/attr):
 * nothing through a symlinked /proc or /sys, only a procfs on /proc
 * itself, and below it only the files lxcfs emulates.  proc and sysfs
 * mounts check their own destination; tmpfs and cgroup ones are not
 * checked (as runc). */
static int check_proc_dest(const mctx *c, crt_err **err) {
  static const char *const lxcfs[] = {"/proc/cpuinfo", "/proc/diskstats", "/proc/meminfo", "/proc/stat",
                                      "/proc/swaps",   "/proc/uptime",    "/proc/loadavg", "/proc/slabinfo",
                                      "/proc/net/dev", "/proc/sys/kernel/ns_last_pid"};
  cleanup_free char *d = dest_now(c);
  if (!d) return crt_error(err, ENOMEM, "mounts[%zu]", c->idx);
  const char *e = d;
  while (e[0] == '/' && e[1] == '/') e++;
  for (const char *top = "/proc"; top; top = strcmp(top, "/proc") ? NULL : "/sys") {
    size_t n = strlen(top);
    if (strncmp(e, top, n) || (e[n] && strspn(e + n, "/") != strlen(e + n))) continue;
    cleanup_close int fd = crt_open_in_root(c->rootfd, top, O_PATH | O_NOFOLLOW, CRT_RESOLVE_NONE, err);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
      return crt_error(err, 0, "mounts[%zu]: destination \"%s\": %s in the rootfs is a %s, not a directory", c->idx,
                       c->m->destination, top, S_ISLNK(st.st_mode) ? "symlink" : "file");
    crt_err_free(err);
  }
  if (!path_in(e, "/proc")) return 0;
  if (strspn(e + 5, "/") == strlen(e + 5)) {
    if (is_procfs(c->m->source)) return 0;
    return crt_error(err, 0, "mounts[%zu]: destination \"%s\": only a procfs may be mounted on /proc", c->idx,
                     c->m->destination);
  }
  for (size_t i = 0; i < sizeof lxcfs / sizeof lxcfs[0]; i++)
    if (!strcmp(e, lxcfs[i])) return 0;
  return crt_error(err, 0, "mounts[%zu]: destination \"%s\" is inside /proc: only the files lxcfs emulates may be mounted there",
                   c->idx, c->m->destination);
}

int crt_rootfs_do_mount(const crt_rootfs_config *cfg, int rootfd, size_t i, crt_err **err) {
  mctx c = {.cfg = cfg, .rootfd = rootfd, .idx = i, .m = &cfg->spec->mounts[i]};
  if (!c.m->destination || !*c.m->destination) return crt_error(err, 0, "mounts[%zu]: destination is empty", i);
  c.o = &c.m->opts;
  c.dest = crt_mount_dest(cfg->rootfs, c.m);
  int rc;
  bool bind = crt_mount_is_bind(c.m);
  c.type = c.m->type && *c.m->type ? c.m->type : (bind ? "bind" : "none");
  c.src = c.m->source && *c.m->source ? c.m->source : c.type;
  bool own_check = !bind && (!strcmp(c.type, "proc") || !strcmp(c.type, "sysfs") || !strcmp(c.type, "tmpfs") ||
                             !strcmp(c.type, "cgroup") || !strcmp(c.type, "cgroup2"));
  if (!own_check && check_proc_dest(&c, err) < 0) {
    rc = -1;
  } else if (bind) {
    rc = c.m->source ? bind_from(&c, c.m->source, c.o->recursive, c.o->flags, err)
                     : crt_error(err, 0, "mounts[%zu]: destination \"%s\": bind mount without a source", i,
                                 c.m->destination);
  } else if (!strcmp(c.type, "proc")) {
    rc = mount_special(&c, PROC_SUPER_MAGIC, err);
  } else if (!strcmp(c.type, "sysfs")) {
    rc = mount_special(&c, SYSFS_MAGIC, err);
  } else if (!strcmp(c.type, "cgroup") || !strcmp(c.type, "cgroup2")) {
    rc = mount_cgroup(&c, err);
  } else if (!strcmp(c.type, "mqueue")) {
    rc = mount_mqueue(&c, err);
  } else {
    rc = mount_fs(&c, err);
  }
  if (rc == 0) rc = apply_after(&c, err);
  return rc;
}
