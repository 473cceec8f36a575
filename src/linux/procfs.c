#define _GNU_SOURCE
/* Writes under /proc that no mount or symlink can redirect (see
 * include/crt/procfs.h).  A write runc made through the container's /proc
 * could be bound to the host's /proc/sys/kernel/core_pattern by a config
 * or image (CVE-2025-52881); here the path is looked up in a procfs crt
 * made itself, without symlinks and without crossing a mount. */
#include "crt/procfs.h"
#include "test_hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PROC_ROOT_INO 1

static int g_fd = -1;
static pid_t g_owner;
static enum crt_procfs_kind g_kind = CRT_PROCFS_NONE;
static bool g_allow_fsmount = true, g_allow_clone = true;

void crt_procfs_test_allow(bool fsmount, bool clone) {
  g_allow_fsmount = fsmount;
  g_allow_clone = clone;
  crt_procfs_close();
}

static const char *kind_name(enum crt_procfs_kind k) {
  switch (k) {
  case CRT_PROCFS_FSMOUNT: return "private procfs";
  case CRT_PROCFS_CLONE: return "clone of /proc";
  case CRT_PROCFS_PLAIN: return "/proc";
  default: return "no procfs";
  }
}

/* The root of a procfs, not a directory inside one nor anything else. */
static bool is_proc_root(int fd) {
  struct statfs sf;
  struct stat st;
  return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) &&
         st.st_ino == PROC_ROOT_INO;
}

/* A fresh procfs of our pid namespace, attached nowhere: nothing can be
 * mounted over any of its files. */
static int fresh_procfs(void) {
  int fs = fsopen("proc", FSOPEN_CLOEXEC);
  if (fs < 0) return -1;
  int mnt = -1;
  if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
    mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
  int e = errno;
  close(fs);
  errno = e;
  return mnt;
}

/* Where fsopen is refused (a user namespace whose /proc is masked): the
 * /proc mount alone, without the mounts on top of its files. */
static int cloned_procfs(void) {
  return (int)syscall(SYS_open_tree, AT_FDCWD, "/proc", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);
}

static int make_handle(enum crt_procfs_kind *kind, crt_err **err) {
  int fd = g_allow_fsmount ? fresh_procfs() : -1;
  *kind = CRT_PROCFS_FSMOUNT;
  if (fd < 0 && g_allow_clone) {
    fd = cloned_procfs();
    *kind = CRT_PROCFS_CLONE;
  }
  if (fd < 0) {
    /* Last resort: lookups with RESOLVE_NO_XDEV refuse any overmount. */
    fd = open("/proc", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    *kind = CRT_PROCFS_PLAIN;
    if (fd < 0) return crt_error(err, errno, "open a procfs handle: /proc");
  }
  if (!is_proc_root(fd)) {
    close(fd);
    return crt_error(err, EXDEV, "open a procfs handle: the %s is not the root of a procfs", kind_name(*kind));
  }
  return fd;
}

int crt_procfs_prepare(crt_err **err) {
  if (g_fd >= 0 && g_owner == getpid()) return 0;
  crt_procfs_close();
  enum crt_procfs_kind kind;
  int fd = make_handle(&kind, err);
  if (fd < 0) return -1;
  g_fd = fd;
  g_kind = kind;
  g_owner = getpid();
  return 0;
}

void crt_procfs_close(void) {
  if (g_fd >= 0) close(g_fd);
  g_fd = -1;
  g_kind = CRT_PROCFS_NONE;
}

enum crt_procfs_kind crt_procfs_kind(void) { return g_fd >= 0 && g_owner == getpid() ? g_kind : CRT_PROCFS_NONE; }

/* "self" and "thread-self" are symlinks that lookups here refuse: read
 * what they say (our pid as that procfs numbers it). */
static int base_dir(int root, enum crt_procfs_base base, pid_t pid, char *buf, size_t len, crt_err **err) {
  const char *link = base == CRT_PROCFS_SELF ? "self" : "thread-self";
  switch (base) {
  case CRT_PROCFS_ROOT: buf[0] = 0; return 0;
  case CRT_PROCFS_PID: snprintf(buf, len, "%d/", (int)pid); return 0;
  default: break;
  }
  ssize_t n = readlinkat(root, link, buf, len - 2);
  if (n < 0 && errno == ENOENT && base == CRT_PROCFS_THREAD_SELF) {
    link = "self"; /* before Linux 3.17: the init is single-threaded */
    n = readlinkat(root, link, buf, len - 2);
  }
  if (n <= 0) return crt_error(err, n < 0 ? errno : EIO, "read /proc/%s", link);
  buf[n] = '/';
  buf[n + 1] = 0;
  return 0;
}

static int walk_open(int root, const char *path, int flags);

static int open_beneath(int root, const char *path, int flags, enum crt_procfs_kind kind) {
  /* openat2 takes nothing but O_DIRECTORY and O_NOFOLLOW beside O_PATH */
  int extra = (flags & O_PATH) ? O_CLOEXEC : O_CLOEXEC | O_NOCTTY;
  struct open_how how = {.flags = (uint64_t)(flags | extra),
                         .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV};
  for (int tries = 0;; tries++) {
    long fd = syscall(SYS_openat2, root, path, &how, sizeof how);
    if (fd >= 0 || ((errno != EAGAIN && errno != EINTR) || tries >= 64)) {
      /* EPERM: a seccomp profile written before openat2 existed */
      if (fd < 0 && (errno == ENOSYS || errno == EPERM) && kind != CRT_PROCFS_PLAIN) return walk_open(root, path, flags);
      return (int)fd;
    }
  }
}

/* Without openat2 (before 5.6, or a seccomp profile without it): only
 * in a handle crt made, where nothing is mounted below the root, a walk
 * refusing symlinks is as good.  In /proc itself it is refused. */
static int walk_open(int root, const char *path, int flags) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return errno = ENAMETOOLONG, -1;
  int cur = fcntl(root, F_DUPFD_CLOEXEC, 0);
  char *save = NULL;
  for (char *c = strtok_r(buf, "/", &save); c && cur >= 0; c = strtok_r(NULL, "/", &save)) {
    bool last = save == NULL || *save == 0;
    int next = openat(cur, c, last ? flags | O_NOFOLLOW | O_CLOEXEC : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    struct stat st;
    if (next < 0 && fstatat(cur, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) e = ELOOP;
    close(cur);
    errno = e;
    cur = next;
  }
  return cur;
}

/* rel is relative and never climbs: RESOLVE_BENEATH would refuse it too,
 * but the message is clearer. */
static int check_rel(const char *rel, crt_err **err) {
  if (!*rel || rel[0] == '/' || !strcmp(rel, "..") || !strncmp(rel, "../", 3) || strstr(rel, "/../") ||
      (strlen(rel) >= 3 && !strcmp(rel + strlen(rel) - 3, "/..")))
    return crt_error(err, EINVAL, "open /proc/%s: not a path beneath /proc", rel);
  return 0;
}

static int open_in(int root, enum crt_procfs_kind kind, enum crt_procfs_base base, pid_t pid, const char *rel,
                   int flags, crt_err **err) {
  char dir[64], path[PATH_MAX];
  if (base_dir(root, base, pid, dir, sizeof dir, err) < 0) return crt_error_wrap(err, "open /proc/%s", rel);
  if (snprintf(path, sizeof path, "%s%s", dir, rel) >= (int)sizeof path)
    return crt_error(err, ENAMETOOLONG, "open /proc/%s", rel);
  int fd = open_beneath(root, path, flags, kind);
  if (fd < 0 && errno == EXDEV)
    return crt_error(err, errno, "open /proc/%s in the %s: something is mounted over it", path, kind_name(kind));
  if (fd < 0 && errno == ELOOP)
    return crt_error(err, errno, "open /proc/%s in the %s: a symlink on the way", path, kind_name(kind));
  if (fd < 0) return crt_error(err, errno, "open /proc/%s in the %s", path, kind_name(kind));
  struct statfs sf;
  if (fstatfs(fd, &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC) {
    close(fd);
    return crt_error(err, EXDEV, "open /proc/%s in the %s: not on procfs", path, kind_name(kind));
  }
  return fd;
}

int crt_procfs_open(enum crt_procfs_base base, pid_t pid, const char *rel, int flags, crt_err **err) {
  if (check_rel(rel, err) < 0) return -1;
  if (g_fd >= 0 && g_owner == getpid()) return open_in(g_fd, g_kind, base, pid, rel, flags, err);
  /* No handle prepared (the runtime, exec's process): one for this call. */
  enum crt_procfs_kind kind;
  cleanup_close int root = make_handle(&kind, err);
  if (root < 0) return -1;
  return open_in(root, kind, base, pid, rel, flags, err);
}

static int write_checked(int fd, const char *rel, const char *data, size_t len, crt_err **err) {
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
    return crt_error(err, EINVAL, "write /proc/%s: not a regular procfs file", rel);
  ssize_t w;
  do w = write(fd, data, len);
  while (w < 0 && errno == EINTR);
  if (w < 0) return crt_error(err, errno, "write /proc/%s", rel);
  if ((size_t)w != len) return crt_error(err, EIO, "write /proc/%s: short write (%zd of %zu bytes)", rel, w, len);
  return 0;
}

/* The path as the user knows it (self/oom_score_adj), for messages. */
static const char *shown(enum crt_procfs_base base, pid_t pid, const char *rel, char *buf, size_t len) {
  switch (base) {
  case CRT_PROCFS_SELF: snprintf(buf, len, "self/%s", rel); break;
  case CRT_PROCFS_THREAD_SELF: snprintf(buf, len, "thread-self/%s", rel); break;
  case CRT_PROCFS_PID: snprintf(buf, len, "%d/%s", (int)pid, rel); break;
  default: snprintf(buf, len, "%s", rel); break;
  }
  return buf;
}

int crt_procfs_write(enum crt_procfs_base base, pid_t pid, const char *rel, const char *data, size_t len,
                     crt_err **err) {
  cleanup_close int fd = crt_procfs_open(base, pid, rel, O_WRONLY, err);
  if (fd < 0) return -1;
  char name[PATH_MAX];
  return write_checked(fd, shown(base, pid, rel, name, sizeof name), data, len, err);
}

int crt_procfs_reopen(int fd, int flags, crt_err **err) {
  cleanup_close int dir = crt_procfs_open(CRT_PROCFS_SELF, 0, "fd", O_PATH | O_DIRECTORY, err);
  if (dir < 0) return -1;
  char name[16];
  snprintf(name, sizeof name, "%d", fd);
  /* the one magic link followed: our own fd, just checked by the caller */
  int nfd = openat(dir, name, flags | O_CLOEXEC);
  if (nfd < 0) return crt_error(err, errno, "reopen fd %d through /proc/self/fd", fd);
  return nfd;
}

int crt_procfs_write_child(pid_t child, pid_t child_in_proc, const char *rel, const char *data, size_t len,
                           crt_err **err) {
  enum crt_procfs_kind kind;
  cleanup_close int root = make_handle(&kind, err);
  if (root < 0) return -1;
  /* A fresh procfs numbers pids as our pid namespace does (fork's return);
   * a clone of /proc or /proc itself as that mount's namespace does. */
  pid_t pid = kind == CRT_PROCFS_FSMOUNT ? child : child_in_proc;
  cleanup_close int fd = open_in(root, kind, CRT_PROCFS_PID, pid, rel, O_WRONLY, err);
  if (fd < 0) return -1;
  return write_checked(fd, rel, data, len, err);
}
