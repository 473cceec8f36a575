#define _GNU_SOURCE
#include "crt/fs.h"
#include "crt/str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

int crt_write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

ssize_t crt_read_all(int fd, void *buf, size_t len) {
  char *p = buf;
  size_t got = 0;
  while (got < len) {
    ssize_t r = read(fd, p + got, len - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

int crt_read_fd(int fd, size_t max, char **out, size_t *len, crt_err **err) {
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  if (!buf) return crt_error(err, ENOMEM, "read");
  for (;;) {
    if (n == cap) {
      if (cap >= max) {
        free(buf);
        return crt_error(err, EFBIG, "read: larger than %zu bytes", max);
      }
      cap = cap * 2 > max ? max : cap * 2;
      char *nb = realloc(buf, cap + 1);
      if (!nb) {
        free(buf);
        return crt_error(err, ENOMEM, "read");
      }
      buf = nb;
    }
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int e = errno;
      free(buf);
      return crt_error(err, e, "read");
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  buf[n] = 0;
  *out = buf;
  if (len) *len = n;
  return 0;
}

int crt_read_file(const char *path, size_t max, char **out, size_t *len, crt_err **err) {
  cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return crt_error(err, errno, "open %s", path);
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) return crt_error(err, EISDIR, "read %s", path);
  if (crt_read_fd(fd, max, out, len, err) < 0) return crt_error_wrap(err, "%s", path);
  return 0;
}

int crt_write_file(const char *path, const char *data, size_t len, mode_t mode, crt_err **err) {
  cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return crt_error(err, errno, "open %s", path);
  if (crt_write_all(fd, data, len) < 0) return crt_error(err, errno, "write %s", path);
  return 0;
}

/* tmp takes path's place: every reader sees the old file or the new one.
 * An existing path is exchanged, then the old one (now at tmp) unlinked:
 * ext4 (auto_da_alloc) writes a file's data out on a rename over another
 * one, 0.3 ms here, and not on an exchange, which is what the state files
 * want (they live on /run and do not outlive a reboot).  No path yet, or a
 * filesystem without exchanges: a plain rename. */
static int replace_by(const char *tmp, const char *path) {
  if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
    (void)unlink(tmp); /* a leftover holds an old copy; delete removes it */
    return 0;
  }
  return rename(tmp, path);
}

int crt_atomic_file_begin(const char *path, mode_t mode, crt_atomic_file *f, crt_err **err) {
  f->fd = -1;
  if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path ||
      snprintf(f->tmp, sizeof f->tmp, "%s.tmp.%d", path, getpid()) >= (int)sizeof f->tmp)
    return crt_error(err, ENAMETOOLONG, "%s", path);
  f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  return f->fd < 0 ? crt_error(err, errno, "open %s", f->tmp) : 0;
}

void crt_atomic_file_drop(crt_atomic_file *f) {
  if (f->fd < 0) return;
  close(f->fd);
  unlink(f->tmp);
  f->fd = -1;
}

int crt_atomic_file_end(crt_atomic_file *f, const char *data, size_t len, crt_err **err) {
  /* No fsync: rename makes the update atomic for every reader; the state
   * lives on /run (tmpfs) and does not outlive a reboot anyway. */
  if (crt_write_all(f->fd, data, len) < 0) {
    int e = errno;
    crt_atomic_file_drop(f);
    return crt_error(err, e, "write %s", f->tmp);
  }
  close(f->fd);
  f->fd = -1;
  if (replace_by(f->tmp, f->path) < 0) {
    int e = errno;
    unlink(f->tmp);
    return crt_error(err, e, "rename %s to %s", f->tmp, f->path);
  }
  return 0;
}

int crt_write_file_atomic(const char *path, const char *data, size_t len, mode_t mode, crt_err **err) {
  crt_atomic_file f;
  if (crt_atomic_file_begin(path, mode, &f, err) < 0) return -1;
  return crt_atomic_file_end(&f, data, len, err);
}

int crt_write_pid_file(const char *path, pid_t pid, crt_err **err) {
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%d", (int)pid);
  return crt_write_file_atomic(path, buf, (size_t)n, 0644, err);
}

int crt_mkdir_p(const char *path, mode_t mode, crt_err **err) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return crt_error(err, ENAMETOOLONG, "mkdir %s", path);
  for (char *p = buf + 1;; p++) {
    if (*p == '/' || *p == 0) {
      char save = *p;
      *p = 0;
      if (mkdir(buf, mode) < 0 && errno != EEXIST) return crt_error(err, errno, "mkdir %s", buf);
      *p = save;
      if (save == 0) break;
    }
  }
  struct stat st;
  if (stat(path, &st) < 0) return crt_error(err, errno, "stat %s", path);
  if (!S_ISDIR(st.st_mode)) return crt_error(err, ENOTDIR, "mkdir %s", path);
  return 0;
}

/* The fd a /proc/self/fd entry names; -1 for "." and "..", which atoi
 * would make fd 0. */
static int fd_of(const char *name) {
  long fd;
  return crt_parse_long(name, 0, INT_MAX, &fd) < 0 ? -1 : (int)fd;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

void crt_close_fds_from(int from, const int *keep, size_t nkeep) {
  int sorted[64];
  size_t n = nkeep > 64 ? 64 : nkeep;
  if (n) { /* memcpy from NULL is undefined even for 0 bytes (UBSan) */
    memcpy(sorted, keep, n * sizeof(int));
    qsort(sorted, n, sizeof(int), cmp_int);
  }
  int lo = from;
  for (size_t i = 0; i <= n; i++) {
    int hi = i < n ? sorted[i] - 1 : INT_MAX;
    if (i < n && sorted[i] < from) continue;
    if (hi >= lo) {
      if (syscall(SYS_close_range, lo, hi, 0) < 0) {
        /* Old kernel: walk /proc/self/fd. */
        DIR *d = opendir("/proc/self/fd");
        if (d) {
          int dfd = dirfd(d);
          struct dirent *e;
          while ((e = readdir(d))) {
            int fd = fd_of(e->d_name);
            if (fd >= lo && fd <= hi && fd != dfd) close(fd);
          }
          closedir(d);
        }
      }
    }
    if (i < n) lo = sorted[i] + 1;
  }
}

void crt_cloexec_fds_from(int from) {
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
  if (syscall(SYS_close_range, from, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  DIR *d = opendir("/proc/self/fd");
  if (!d) return;
  int dfd = dirfd(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    int fd = fd_of(e->d_name);
    if (fd >= from && fd != dfd) fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  closedir(d);
}

static int rm_at(int dirfd_, const char *name, dev_t dev) {
  struct stat st;
  if (fstatat(dirfd_, name, &st, AT_SYMLINK_NOFOLLOW) < 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlinkat(dirfd_, name, 0);
  if (st.st_dev != dev) return -1; /* never cross into a mount */
  int fd = openat(dirfd_, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -1;
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return -1;
  }
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (rm_at(dirfd(d), e->d_name, dev) < 0) rc = -1;
  }
  closedir(d);
  if (unlinkat(dirfd_, name, AT_REMOVEDIR) < 0 && errno != ENOENT) rc = -1;
  return rc;
}

int crt_rm_rf(const char *path) {
  struct stat st;
  if (lstat(path, &st) < 0) return errno == ENOENT ? 0 : -1;
  return rm_at(AT_FDCWD, path, st.st_dev);
}

ssize_t crt_send_with_fds(int sock, struct iovec *iov, size_t iovcnt, const int *fds, size_t n) {
  if (n > CRT_SEND_MAX_FDS) {
    errno = EMSGSIZE;
    return -1;
  }
  union {
    char buf[CMSG_SPACE(sizeof(int) * CRT_SEND_MAX_FDS)];
    struct cmsghdr align;
  } u;
  struct msghdr mh = {.msg_iov = iov, .msg_iovlen = iovcnt};
  if (n) {
    memset(&u, 0, sizeof u);
    mh.msg_control = u.buf;
    mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * n);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
  }
  ssize_t r;
  do r = sendmsg(sock, &mh, MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  return r;
}

ssize_t crt_send_with_fd(int sock, struct iovec *iov, size_t iovcnt, int fd) {
  return crt_send_with_fds(sock, iov, iovcnt, &fd, fd >= 0 ? 1 : 0);
}

/* A few anchors: list's state root, /proc and the freezer hierarchy;
 * per thread (list probes on several). */
enum { MAX_ANCHORS = 4 };
static __thread struct {
  char *dir;
  size_t len;
  int fd;
} anchors[MAX_ANCHORS];
static __thread size_t n_anchors;

void crt_anchor_dir(const char *dir) {
  size_t len = dir ? strlen(dir) : 0;
  while (len > 1 && dir[len - 1] == '/') len--;
  /* "/" or "" gains nothing; a failed open only loses the shortcut */
  if (len < 2 || dir[0] != '/' || n_anchors == MAX_ANCHORS) return;
  int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  char *copy = fd < 0 ? NULL : strndup(dir, len);
  if (!copy) {
    if (fd >= 0) close(fd);
    return;
  }
  anchors[n_anchors++] = (typeof(anchors[0])){copy, len, fd};
}

void crt_anchors_drop(void) {
  for (size_t i = 0; i < n_anchors; i++) {
    close(anchors[i].fd);
    free(anchors[i].dir);
  }
  n_anchors = 0;
}

/* The anchor path is under (the longest), with *rest its remainder. */
static int anchor_for(const char *path, const char **rest) {
  int best = -1;
  for (size_t i = 0; i < n_anchors; i++)
    if (strncmp(path, anchors[i].dir, anchors[i].len) == 0 && path[anchors[i].len] == '/' &&
        (best < 0 || anchors[i].len > anchors[best].len))
      best = (int)i;
  if (best < 0) return AT_FDCWD;
  /* "root//id": a remainder starting with '/' would be opened as absolute */
  const char *r = path + anchors[best].len;
  while (*r == '/') r++;
  if (!*r) return AT_FDCWD;
  *rest = r;
  return anchors[best].fd;
}

int crt_anchored_open(const char *path, int flags) {
  const char *rest = path;
  int dirfd = anchor_for(path, &rest);
  return openat(dirfd, rest, flags);
}

int crt_open_regular(const char *path, crt_err **err) {
  int fd = crt_anchored_open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return crt_error(err, errno, "open %s", path);
  struct stat st;
  if (fstat(fd, &st) < 0) {
    int e = errno;
    close(fd);
    return crt_error(err, e, "stat %s", path);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return crt_error(err, 0, "%s: not a regular file", path);
  }
  return fd;
}

ssize_t crt_read_small_regular(const char *path, char *buf, size_t len, crt_err **err) {
  if (len < 2) return crt_error(err, EINVAL, "read %s", path);
  cleanup_close int fd = crt_open_regular(path, err);
  if (fd < 0) return -1;
  ssize_t n;
  do n = read(fd, buf, len - 1);
  while (n < 0 && errno == EINTR);
  if (n < 0) return crt_error(err, errno, "read %s", path);
  buf[n] = 0;
  return n;
}

int crt_anchored_stat(const char *path, struct stat *st) {
  const char *rest = path;
  int dirfd = anchor_for(path, &rest);
  return fstatat(dirfd, rest, st, 0);
}
