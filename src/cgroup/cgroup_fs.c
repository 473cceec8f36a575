/* cgroups: reading and writing the files of a cgroup directory, making and
 * removing directories.  Calls nothing else of the cgroup code. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_internal.h"
#include "crt/procinfo.h"
#include "crt/fs.h"
#include "crt/log.h"
#include "crt/str.h"

/* Most cgroup files fit in this (one read); none is bigger than CG_FILE_MAX
 * (cgroup.procs of a big cgroup comes close). */
#define CG_SMALL 4096
#define CG_FILE_MAX (16 << 20)
/* Processes just killed leave their cgroup asynchronously: rmdir is
 * retried for up to a second. */
#define RMDIR_TRIES 100
#define RMDIR_WAIT_US 10000

bool cg_perm_error(int e) { return e == EACCES || e == EPERM || e == EROFS; }

int cg_open_write(const char *dir, const char *file, crt_err **err) {
  char p[PATH_MAX];
  if (crt_pathf(p, sizeof p, err, "%s/%s", dir, file) < 0) return crt_error_wrap(err, "cgroup: write %s", file);
  int fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return crt_error(err, errno, "cgroup: write %s", file);
  return fd;
}

int cg_write_fd(int fd, const char *dir, const char *file, const char *val, crt_err **err) {
  crt_debug("cgroup: %s/%s <- %s", dir, file, val);
  if (crt_write_all(fd, val, strlen(val)) < 0) return crt_error(err, errno, "cgroup: write %s (value %s)", file, val);
  return 0;
}

int cg_write(const char *dir, const char *file, const char *val, crt_err **err) {
  cleanup_close int fd = cg_open_write(dir, file, err);
  return fd < 0 ? -1 : cg_write_fd(fd, dir, file, val, err);
}

char *cg_read(const char *dir, const char *file) {
  char p[PATH_MAX];
  if (crt_fmt(p, sizeof p, "%s/%s", dir, file) < 0) return NULL; /* errno ENAMETOOLONG */
  /* most cgroup files fit: one open, read and close (list and state read
   * freezer.state of every container) */
  char small[CG_SMALL];
  ssize_t n = crt_read_small(p, small, sizeof small);
  if (n < 0) return NULL;
  if ((size_t)n < sizeof small - 1) return strndup(small, (size_t)n);
  char *out = NULL;
  crt_err *e = NULL;
  if (crt_read_file(p, CG_FILE_MAX, &out, NULL, &e) < 0) {
    int en = e ? e->errnum : EIO;
    crt_err_free(&e);
    errno = en;
    return NULL;
  }
  return out;
}

bool cg_exists(const char *dir, const char *file) {
  char p[PATH_MAX];
  return crt_fmt(p, sizeof p, "%s/%s", dir, file) >= 0 && access(p, F_OK) == 0;
}

int cg_read_u64(const char *dir, const char *file, unsigned long long *v) {
  cleanup_free char *s = cg_read(dir, file);
  if (!s) return -1;
  if (strncmp(s, "max", 3) == 0) {
    *v = UINT64_MAX;
    return 0;
  }
  char *end;
  errno = 0;
  *v = strtoull(s, &end, 10);
  if (errno || end == s) return -1;
  return 0;
}

int cg_move(const char *dir, pid_t pid, crt_err **err) {
  char buf[32];
  snprintf(buf, sizeof buf, "%d", (int)pid);
  if (cg_write(dir, "cgroup.procs", buf, err) < 0) return crt_error_wrap(err, "add pid %d to %s", (int)pid, dir);
  return 0;
}

int cg_strv_push(char ***v, size_t *n, const char *prefix, const char *path) {
  char **nv = realloc(*v, (*n + 2) * sizeof *nv);
  if (!nv) return -1;
  *v = nv;
  nv[*n + 1] = NULL;
  if (asprintf(&nv[*n], "%s%s", prefix, path) < 0) {
    nv[*n] = NULL;
    return -1;
  }
  (*n)++;
  return 0;
}

void cg_strv_free(char **v) {
  if (!v) return;
  for (char **p = v; *p; p++) free(*p);
  free(v);
}

void cg_undo_mkdir(const char *dir, const char *first_made) {
  if (!first_made) return;
  char buf[PATH_MAX];
  if (crt_fmt(buf, sizeof buf, "%s", dir) < 0) return; /* too long to have been made */
  size_t stop = strlen(first_made);
  for (;;) {
    rmdir(buf);
    if (strlen(buf) <= stop) break;
    char *s = strrchr(buf, '/');
    if (!s) break;
    *s = 0;
  }
}

/* rmdir dir after its sub-cgroups, deepest first.  Most containers make
 * no cgroups of their own: the rmdir is tried first, and the directory is
 * read only when that fails because something is still in it (EBUSY:
 * children or tasks; ENOTEMPTY: a test tree of plain directories). */
static int rmdir_tree(const char *dir) {
  if (rmdir(dir) == 0 || errno == ENOENT) return 0;
  if (errno != EBUSY && errno != ENOTEMPTY) return -1;
  DIR *d = opendir(dir);
  if (!d) return errno == ENOENT ? 0 : -1;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char sub[PATH_MAX];
    /* one too long to reach is left, and the rmdir below fails */
    if (crt_fmt(sub, sizeof sub, "%s/%s", dir, e->d_name) >= 0) rmdir_tree(sub);
  }
  closedir(d);
  if (rmdir(dir) < 0 && errno != ENOENT) return -1;
  return 0;
}

int cg_remove_dirs(char *const *dirs, crt_err **err) {
  int rc = 0;
  for (size_t i = 0; dirs[i]; i++) {
    int r = -1, e = 0;
    for (int t = 0; t < RMDIR_TRIES; t++) {
      r = rmdir_tree(dirs[i]);
      e = errno;
      if (r == 0 || e != EBUSY) break;
      usleep(RMDIR_WAIT_US);
    }
    if (r < 0 && rc == 0) rc = crt_error(err, e, "cgroup: remove %s", dirs[i]);
  }
  return rc;
}
