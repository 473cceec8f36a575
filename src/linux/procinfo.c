/* The one reader of /proc/<pid>/cgroup and of /proc/self/mountinfo, and
 * the one-read reader of small files that `list` and `state` use. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/procinfo.h"

void crt_proc_cgroup_free(crt_proc_cgroup *v, size_t n) {
  for (size_t i = 0; v && i < n; i++) {
    free(v[i].controllers);
    free(v[i].path);
  }
  free(v);
}

/* "id:controllers:path": the path may hold ':' itself. */
static int push_cgroup_line(char *line, crt_proc_cgroup **v, size_t *n) {
  char *a = strchr(line, ':');
  char *b = a ? strchr(a + 1, ':') : NULL;
  if (!b) return 0;
  *b = 0;
  crt_proc_cgroup *nv = realloc(*v, (*n + 1) * sizeof *nv);
  if (!nv) return -1;
  *v = nv;
  crt_proc_cgroup *c = &nv[(*n)++];
  *c = (crt_proc_cgroup){strdup(a + 1), strdup(b + 1)};
  return c->controllers && c->path ? 0 : -1;
}

int crt_proc_cgroup_read(pid_t pid, crt_proc_cgroup **out, size_t *n, crt_err **err) {
  char p[64];
  if (pid > 0)
    snprintf(p, sizeof p, "/proc/%d/cgroup", (int)pid);
  else
    snprintf(p, sizeof p, "/proc/self/cgroup");
  *out = NULL;
  *n = 0;
  cleanup_free char *buf = NULL;
  if (crt_read_file(p, 1 << 20, &buf, NULL, err) < 0) return -1;
  char *save = NULL;
  for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
    if (push_cgroup_line(l, out, n) < 0) {
      crt_proc_cgroup_free(*out, *n);
      *out = NULL;
      *n = 0;
      return crt_error(err, ENOMEM, "read %s", p);
    }
  return 0;
}

ssize_t crt_read_small(const char *path, char *buf, size_t len) {
  if (len < 2) {
    errno = EINVAL;
    return -1;
  }
  int fd = crt_anchored_open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n;
  do n = read(fd, buf, len - 1);
  while (n < 0 && errno == EINTR);
  int e = errno;
  close(fd);
  if (n < 0) {
    errno = e;
    return -1;
  }
  buf[n] = 0;
  return n;
}

/* Lines split as crt_proc_cgroup_read splits them, matched as
 * crt_cgroup_has_pid matches: path itself or a cgroup below it. */
int crt_proc_cgroup_under(pid_t pid, const char *path) {
  char p[64], buf[4096];
  if (pid <= 0 || !path || !*path) return -1;
  snprintf(p, sizeof p, "/proc/%d/cgroup", (int)pid);
  ssize_t n = crt_read_small(p, buf, sizeof buf);
  /* a full buffer may be cut short: the caller asks the full reader */
  if (n <= 0 || (size_t)n == sizeof buf - 1) return -1;
  size_t len = strlen(path);
  char *save = NULL;
  for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    char *a = strchr(l, ':');
    char *b = a ? strchr(a + 1, ':') : NULL;
    if (b && strncmp(b + 1, path, len) == 0 && (b[1 + len] == 0 || b[1 + len] == '/')) return 1;
  }
  return 0;
}

int crt_proc_cpuset_under(pid_t pid, const char *path) {
  char p[64], buf[4096];
  if (pid <= 0 || !path || strlen(path) < 2) return -1;
  snprintf(p, sizeof p, "/proc/%d/cpuset", (int)pid);
  ssize_t n = crt_read_small(p, buf, sizeof buf);
  if (n <= 0 || (size_t)n == sizeof buf - 1 || buf[n - 1] != '\n') return -1;
  buf[n - 1] = 0;
  size_t len = strlen(path);
  return strncmp(buf, path, len) == 0 && (buf[len] == 0 || buf[len] == '/');
}

static bool in_list(const char *list, const char *name) {
  size_t l = strlen(name);
  for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (strncmp(p, name, l) == 0 && (p[l] == ',' || p[l] == 0)) return true;
  return false;
}

char *crt_proc_cgroup_path(pid_t pid, const char *controller) {
  crt_proc_cgroup *v = NULL;
  size_t n = 0;
  cleanup_err crt_err *e = NULL;
  if (crt_proc_cgroup_read(pid, &v, &n, &e) < 0) return NULL;
  char *out = NULL;
  for (size_t i = 0; i < n && !out; i++) {
    bool match = *controller ? in_list(v[i].controllers, controller) : *v[i].controllers == 0;
    if (match) out = strdup(v[i].path);
  }
  crt_proc_cgroup_free(v, n);
  return out;
}

void crt_mountinfo_free(crt_mountinfo *mi) {
  for (size_t i = 0; mi->v && i < mi->n; i++) {
    crt_mountinfo_entry *e = &mi->v[i];
    free(e->root);
    free(e->target);
    free(e->fstype);
    free(e->fs_opts);
    free(e->optional);
  }
  free(mi->v);
  mi->v = NULL;
  mi->n = 0;
}

static char *dup_or_empty(const char *s) { return strdup(s ? s : ""); }

static int push_mount(crt_mountinfo *mi, struct libmnt_fs *fs) {
  crt_mountinfo_entry *e = &mi->v[mi->n++];
  e->root = dup_or_empty(mnt_fs_get_root(fs));
  e->target = dup_or_empty(mnt_fs_get_target(fs));
  e->fstype = dup_or_empty(mnt_fs_get_fstype(fs));
  e->fs_opts = dup_or_empty(mnt_fs_get_fs_options(fs));
  e->optional = dup_or_empty(mnt_fs_get_optional_fields(fs));
  return e->root && e->target && e->fstype && e->fs_opts && e->optional ? 0 : -1;
}

/* fstype NULL: every mount; else only its mounts below the directory under. */
static bool wanted(struct libmnt_fs *fs, const char *fstype, const char *under) {
  if (!fstype) return true;
  const char *t = mnt_fs_get_fstype(fs), *mp = mnt_fs_get_target(fs);
  return t && mp && !strcmp(t, fstype) && !strncmp(mp, under, strlen(under));
}

int crt_mountinfo_read_type(crt_mountinfo *out, const char *fstype, const char *under, crt_err **err) {
  *out = (crt_mountinfo){0};
  struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
  if (!tb) return crt_error(err, errno ? errno : EIO, "read /proc/self/mountinfo");
  struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
  out->v = calloc((size_t)mnt_table_get_nents(tb) + 1, sizeof *out->v);
  struct libmnt_fs *fs;
  int rc = it && out->v ? 0 : -1;
  while (rc == 0 && mnt_table_next_fs(tb, it, &fs) == 0)
    if (wanted(fs, fstype, under)) rc = push_mount(out, fs);
  mnt_free_iter(it);
  mnt_unref_table(tb);
  if (rc < 0) {
    crt_mountinfo_free(out);
    return crt_error(err, ENOMEM, "read /proc/self/mountinfo");
  }
  return 0;
}

int crt_mountinfo_read(crt_mountinfo *out, crt_err **err) { return crt_mountinfo_read_type(out, NULL, NULL, err); }

bool crt_mountinfo_has_tag(const crt_mountinfo_entry *e, const char *tag) {
  size_t l = strlen(tag);
  for (const char *p = e->optional; p && *p; p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL)
    if (strncmp(p, tag, l) == 0 && (p[l] == ':' || p[l] == ' ' || p[l] == 0)) return true;
  return false;
}

uint64_t crt_proc_start_time(pid_t pid, bool *zombie) {
  char path[64], buf[1024];
  if (zombie) *zombie = false;
  if (pid <= 0) return 0;
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  if (crt_read_small(path, buf, sizeof buf) <= 0) return 0;
  /* comm may contain spaces and parentheses: parse after the last ')'. */
  char *p = strrchr(buf, ')');
  if (!p || p[1] != ' ') return 0;
  p += 2;
  char state = *p;
  if (zombie && (state == 'Z' || state == 'X' || state == 'x')) *zombie = true;
  /* fields: 3 state ... 22 starttime; we are at field 3 */
  for (int field = 3; field < 22; field++) {
    p = strchr(p, ' ');
    if (!p) return 0;
    p++;
  }
  return strtoull(p, NULL, 10);
}
