/* The one reader of /proc/<pid>/cgroup and of /proc/self/mountinfo, and
 * the one-read reader of small files that `list` and `state` use. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/procinfo.h"
#include "test_hooks.h"

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

static void entry_free(crt_mountinfo_entry *e) {
  free(e->root);
  free(e->target);
  free(e->fstype);
  free(e->fs_opts);
  free(e->optional);
}

void crt_mountinfo_free(crt_mountinfo *mi) {
  for (size_t i = 0; mi->v && i < mi->n; i++) entry_free(&mi->v[i]);
  free(mi->v);
  mi->v = NULL;
  mi->n = 0;
}

/* The kernel writes ' ', '\t', '\n' and '\\' of a path as \ooo (octal);
 * undone in place. */
static void unescape(char *s) {
  char *w = s;
  for (char *r = s; *r; r++) {
    if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
      *w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 | (r[3] - '0'));
      r += 3;
    } else {
      *w++ = *r;
    }
  }
  *w = 0;
}

/* proc(5): "ID PARENT MAJ:MIN ROOT TARGET OPTS [OPTIONAL...] - FSTYPE
 * SOURCE SUPER_OPTS", one space between fields (the kernel escapes those
 * within one).  0 (e untouched) for a line that is not one of these. */
static int parse_mount_line(char *line, crt_mountinfo_entry *e) {
  line[strcspn(line, "\n")] = 0;
  char *f[6], *save = NULL;
  for (int i = 0; i < 6; i++)
    if (!(f[i] = strtok_r(i ? NULL : line, " ", &save))) return 0;
  /* the optional fields (tags without spaces) run up to a lone "-" */
  char *opt = save, *after;
  if (!opt) return 0;
  if (!strncmp(opt, "- ", 2)) {
    after = opt + 2;
    opt = "";
  } else {
    char *sep = strstr(opt, " - ");
    if (!sep) return 0;
    *sep = 0;
    after = sep + 3;
  }
  char *fstype = strtok_r(after, " ", &save);
  char *source = fstype ? strtok_r(NULL, " ", &save) : NULL;
  char *super = source ? strtok_r(NULL, " ", &save) : NULL;
  if (!super) return 0;
  unescape(f[3]);
  unescape(f[4]);
  unescape(super);
  *e = (crt_mountinfo_entry){.root = strdup(f[3]), .target = strdup(f[4]), .fstype = strdup(fstype),
                             .fs_opts = strdup(super), .optional = strdup(opt)};
  return e->root && e->target && e->fstype && e->fs_opts && e->optional ? 1 : -1;
}

/* fstype NULL: every mount; else only its mounts below the directory under. */
static bool wanted(const crt_mountinfo_entry *e, const char *fstype, const char *under) {
  return !fstype || (!strcmp(e->fstype, fstype) && !strncmp(e->target, under, strlen(under)));
}

/* name: the file f reads, for the error */
static int parse_named(FILE *f, const char *name, const char *fstype, const char *under, crt_mountinfo *out,
                       crt_err **err) {
  *out = (crt_mountinfo){0};
  char *line = NULL;
  size_t cap = 0, alloc = 0;
  int rc = 0;
  while (rc == 0 && getline(&line, &cap, f) > 0) {
    crt_mountinfo_entry e = {0};
    int got = parse_mount_line(line, &e);
    if (got == 1 && wanted(&e, fstype, under)) {
      if (out->n == alloc) {
        crt_mountinfo_entry *nv = realloc(out->v, (alloc = alloc ? 2 * alloc : 16) * sizeof *nv);
        if (!nv) got = -1;
        else out->v = nv;
      }
      if (got == 1) {
        out->v[out->n++] = e;
        continue;
      }
    }
    entry_free(&e);
    if (got < 0) rc = -1;
  }
  int read_err = ferror(f) ? EIO : 0;
  free(line);
  if (rc < 0 || read_err) {
    crt_mountinfo_free(out);
    return crt_error(err, rc < 0 ? ENOMEM : read_err, "read %s", name);
  }
  return 0;
}

/* Read by hand, not with libmount: loading libmount (and libblkid,
 * libselinux, libpcre2) costs 0.3 ms and its parse 0.1 ms, on create's
 * critical path wherever a config mounts cgroup v1 (docs/performance.md). */
static int read_pid_type(pid_t pid, const char *fstype, const char *under, crt_mountinfo *out, crt_err **err) {
  char p[64];
  if (pid > 0)
    snprintf(p, sizeof p, "/proc/%d/mountinfo", (int)pid);
  else
    snprintf(p, sizeof p, "/proc/self/mountinfo");
  *out = (crt_mountinfo){0};
  FILE *f = fopen(p, "re");
  if (!f) return crt_error(err, errno, "read %s", p);
  int rc = parse_named(f, p, fstype, under, out, err);
  fclose(f);
  return rc;
}

int crt_mountinfo_read_type(crt_mountinfo *out, const char *fstype, const char *under, crt_err **err) {
  return read_pid_type(0, fstype, under, out, err);
}

int crt_mountinfo_read_pid(pid_t pid, crt_mountinfo *out, crt_err **err) {
  return read_pid_type(pid, NULL, NULL, out, err);
}

int crt_mountinfo_parse(FILE *f, const char *fstype, const char *under, crt_mountinfo *out, crt_err **err) {
  return parse_named(f, "/proc/self/mountinfo", fstype, under, out, err);
}

int crt_mountinfo_read(crt_mountinfo *out, crt_err **err) { return crt_mountinfo_read_type(out, NULL, NULL, err); }

/* Only the first field of each line: no parse, no copies (it runs in every
 * crt started from the sealed overlay, crt_exe_is_sealed). */
bool crt_mountinfo_has_id(uint64_t mnt_id) {
  FILE *f = fopen("/proc/self/mountinfo", "re");
  if (!f) return true;
  char *line = NULL;
  size_t cap = 0;
  bool found = false;
  while (!found && getline(&line, &cap, f) > 0) found = strtoull(line, NULL, 10) == mnt_id;
  free(line);
  fclose(f);
  return found;
}

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
