#define _GNU_SOURCE
/* Resolving paths inside the rootfs without ever leaving it: symlinks are
 * interpreted as if the rootfs were "/" (CVE-2021-30465). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "crt/resolve.h"

#define MAX_LINKS 40

static bool use_openat2 = true;

void crt_resolve_use_openat2(bool use) { use_openat2 = use; }

const char *crt_fd_path(char *buf, int fd) {
  snprintf(buf, 32, "/proc/self/fd/%d", fd);
  return buf;
}

static int try_openat2(int rootfd, const char *path, int flags) {
  struct open_how how = {
      .flags = (uint64_t)(flags | O_CLOEXEC),
      .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
  };
  for (int tries = 0;; tries++) {
    long fd = syscall(SYS_openat2, rootfd, *path ? path : ".", &how, sizeof how);
    /* EAGAIN: a rename or mount raced the lookup; retry a bounded number of
     * times, then let the caller use the component walk. */
    if (fd < 0 && (errno == EAGAIN || errno == EINTR) && tries < 64) continue;
    return (int)fd;
  }
}

/* Component walk for kernels without openat2.  `todo` holds what is left to
 * resolve; symlink targets are spliced in front of it, absolute ones restart
 * from rootfd, and ".." never climbs above it. */
static int walk(int rootfd, const char *path, int flags) {
  char todo[PATH_MAX * 2], done[PATH_MAX * 2] = "";
  if (snprintf(todo, sizeof todo, "%s", path) >= (int)sizeof todo) return errno = ENAMETOOLONG, -1;
  int links = 0;
  int cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (cur < 0) return -1;
  char *p = todo;
  for (;;) {
    while (*p == '/') p++;
    if (*p == 0) break;
    char *end = strchrnul(p, '/');
    bool last = end[strspn(end, "/")] == 0;
    char comp[NAME_MAX + 1];
    size_t n = (size_t)(end - p);
    if (n > NAME_MAX) return close(cur), errno = ENAMETOOLONG, -1;
    memcpy(comp, p, n);
    comp[n] = 0;
    p = end;
    if (!strcmp(comp, ".")) continue;
    if (!strcmp(comp, "..")) {
      char *slash = strrchr(done, '/');
      if (slash) *slash = 0;
      else done[0] = 0;
      close(cur);
      cur = openat(rootfd, *done ? done + 1 : ".", O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (cur < 0) return -1;
      continue;
    }
    struct stat st;
    if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) return close(cur), -1;
    if (S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW))) {
      char target[PATH_MAX];
      ssize_t len = readlinkat(cur, comp, target, sizeof target - 1);
      if (len < 0) return close(cur), -1;
      target[len] = 0;
      if (++links > MAX_LINKS) return close(cur), errno = ELOOP, -1;
      char rest[PATH_MAX * 2];
      if (snprintf(rest, sizeof rest, "%s/%s", target, p) >= (int)sizeof rest)
        return close(cur), errno = ENAMETOOLONG, -1;
      memcpy(todo, rest, strlen(rest) + 1);
      p = todo;
      if (target[0] == '/') {
        done[0] = 0;
        close(cur);
        cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (cur < 0) return -1;
      }
      continue;
    }
    if (last) {
      int fd = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC);
      /* O_NOFOLLOW on a symlink needs O_PATH to succeed, as openat2 does. */
      close(cur);
      return fd;
    }
    if (!S_ISDIR(st.st_mode)) return close(cur), errno = ENOTDIR, -1;
    int next = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close(cur);
    if (next < 0) return -1;
    cur = next;
    size_t dl = strlen(done);
    if (dl + 1 + n + 1 > sizeof done) return close(cur), errno = ENAMETOOLONG, -1;
    done[dl] = '/';
    memcpy(done + dl + 1, comp, n + 1);
  }
  /* Path was the root itself (or resolved to it). */
  int fd = openat(cur, ".", (flags & ~O_NOFOLLOW) | O_CLOEXEC);
  close(cur);
  return fd;
}

static int resolve(int rootfd, const char *path, int flags) {
  if (use_openat2) {
    int fd = try_openat2(rootfd, path, flags);
    if (fd >= 0 || (errno != ENOSYS && errno != EAGAIN)) return fd;
    if (errno == ENOSYS) use_openat2 = false;
  }
  return walk(rootfd, path, flags);
}

static int create_in_root(int rootfd, const char *path, int flags, int create, int depth, crt_err **err);

/* Creates the last component of path, following a dangling symlink there
 * (inside the root) instead of failing on it. */
static int create_last(int rootfd, const char *path, int create, int depth, crt_err **err) {
  cleanup_free char *dup = strdup(path);
  if (!dup) return crt_error(err, ENOMEM, "resolve %s", path);
  size_t n = strlen(dup);
  while (n > 1 && dup[n - 1] == '/') dup[--n] = 0;
  char *slash = strrchr(dup, '/');
  const char *base = slash ? slash + 1 : dup;
  const char *parent = slash ? (slash == dup ? "/" : dup) : ".";
  if (slash) *slash = 0;
  if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) return 0;
  cleanup_close int pfd = create_in_root(rootfd, parent, O_PATH | O_DIRECTORY, CRT_RESOLVE_MKDIR, depth + 1, err);
  if (pfd < 0) return -1;
  int rc = create == CRT_RESOLVE_MKFILE
               ? openat(pfd, base, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644)
               : mkdirat(pfd, base, 0755);
  if (rc >= 0) {
    if (create == CRT_RESOLVE_MKFILE) close(rc);
    return 0;
  }
  if (errno != EEXIST) return crt_error(err, errno, "create %s", path);
  char target[PATH_MAX];
  ssize_t len = readlinkat(pfd, base, target, sizeof target - 1);
  if (len < 0) return 0; /* something appeared meanwhile: resolve it */
  target[len] = 0;
  cleanup_free char *next = NULL;
  if (asprintf(&next, "%s/%s", target[0] == '/' ? "" : parent, target) < 0)
    return crt_error(err, ENOMEM, "resolve %s", path);
  cleanup_close int fd = create_in_root(rootfd, next, O_PATH, create, depth + 1, err);
  return fd < 0 ? -1 : 0;
}

static int create_in_root(int rootfd, const char *path, int flags, int create, int depth, crt_err **err) {
  if (depth > MAX_LINKS) return crt_error(err, ELOOP, "resolve %s", path);
  int fd = resolve(rootfd, path, flags);
  if (fd >= 0) return fd;
  if (errno != ENOENT || create == CRT_RESOLVE_NONE) return crt_error(err, errno, "open %s", path);
  if (create_last(rootfd, path, create, depth, err) < 0) return -1;
  /* Resolve again from the root: whatever was created is checked the same way. */
  fd = resolve(rootfd, path, flags);
  if (fd < 0) return crt_error(err, errno, "open %s", path);
  return fd;
}

int crt_open_in_root(int rootfd, const char *path, int flags, int create, crt_err **err) {
  return create_in_root(rootfd, path, flags, create, 0, err);
}
