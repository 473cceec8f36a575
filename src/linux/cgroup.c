/* cgroups: mode detection, path resolution and the operations that work the
 * same way on every hierarchy (join, destroy, pids, kill, freeze). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <yajl/yajl_tree.h>

#include "cgroup_internal.h"
#include "crt/fs.h"
#include "crt/log.h"
#include "crt/testpoint.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static const char *override_root;
static enum crt_cgroup_mode override_mode;

void crt_cgroup_set_root(const char *root, enum crt_cgroup_mode mode) {
  override_root = root;
  override_mode = mode;
}

static const char *env_root(void) {
  const char *r = getenv("CRT_CGROUP_ROOT");
  return r && *r ? r : NULL;
}

const char *cg_root(void) {
  if (override_root) return override_root;
  const char *e = env_root();
  return e ? e : "/sys/fs/cgroup";
}

bool cg_root_is_test(void) { return override_root || env_root(); }

static bool is_cgroup2(const char *p) {
  struct statfs fs;
  return statfs(p, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

enum crt_cgroup_mode crt_cgroup_mode(void) {
  if (override_root) return override_mode;
  if (env_root()) {
    const char *m = getenv("CRT_CGROUP_MODE");
    if (m && strcmp(m, "v2") == 0) return CRT_CGROUP_MODE_V2;
    if (m && strcmp(m, "hybrid") == 0) return CRT_CGROUP_MODE_HYBRID;
    return CRT_CGROUP_MODE_V1;
  }
  /* The host's layout does not change under one crt process, and the
   * containers' mount namespaces are entered only by children. */
  static int cached = -1;
  if (cached < 0) {
    if (is_cgroup2("/sys/fs/cgroup")) cached = CRT_CGROUP_MODE_V2;
    else if (is_cgroup2("/sys/fs/cgroup/unified")) cached = CRT_CGROUP_MODE_HYBRID;
    else cached = CRT_CGROUP_MODE_V1;
  }
  return (enum crt_cgroup_mode)cached;
}

/* ---- small file helpers ---- */

bool cg_perm_error(int e) { return e == EACCES || e == EPERM || e == EROFS; }

int cg_write(const char *dir, const char *file, const char *val, crt_err **err) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  bool noted = cg_journal_note(dir, file);
  cleanup_close int fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
  int rc = fd < 0 ? crt_error(err, errno, "cgroup: write %s", file) : 0;
  if (rc == 0) crt_debug("cgroup: %s <- %s", p, val);
  if (rc == 0 && crt_write_all(fd, val, strlen(val)) < 0)
    rc = crt_error(err, errno, "cgroup: write %s (value %s)", file, val);
  if (rc < 0 && noted) cg_journal_unnote(); /* unchanged: nothing to restore */
  return rc;
}

int cg_writef(const char *dir, const char *file, crt_err **err, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return cg_write(dir, file, buf, err);
}

char *cg_read(const char *dir, const char *file) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  char *out = NULL;
  crt_err *e = NULL;
  if (crt_read_file(p, 16 << 20, &out, NULL, &e) < 0) {
    int en = e ? e->errnum : EIO;
    crt_err_free(&e);
    errno = en;
    return NULL;
  }
  return out;
}

bool cg_exists(const char *dir, const char *file) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  return access(p, F_OK) == 0;
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

void cg_strv_free(char **v) {
  if (!v) return;
  for (char **p = v; *p; p++) free(*p);
  free(v);
}

/* ---- device rules ---- */

/* runc's libcontainer/specconv AllowedDevices. */
static const struct {
  const char *type;
  long long major, minor; /* -1: wildcard */
  const char *access;
} default_rules[] = {
    {"c", -1, -1, "m"},   {"b", -1, -1, "m"},   {"c", 1, 3, "rwm"}, {"c", 1, 8, "rwm"},   {"c", 1, 7, "rwm"},
    {"c", 5, 0, "rwm"},   {"c", 1, 5, "rwm"},   {"c", 1, 9, "rwm"}, {"c", 136, -1, "rwm"}, {"c", 5, 2, "rwm"},
};

static int push_rule(crt_device_rule **v, size_t *n, bool allow, const char *type, bool has_maj, long long maj,
                     bool has_min, long long min, const char *access) {
  crt_device_rule *nv = realloc(*v, (*n + 1) * sizeof **v);
  if (!nv) return -1;
  *v = nv;
  crt_device_rule *r = &nv[(*n)++];
  memset(r, 0, sizeof *r);
  r->allow = allow;
  r->type = strdup(type ? type : "a");
  r->access = strdup(access && *access ? access : "rwm");
  r->major.set = has_maj;
  r->major.v = maj;
  r->minor.set = has_min;
  r->minor.v = min;
  return r->type && r->access ? 0 : -1;
}

void cg_device_rules_free(crt_device_rule *r, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(r[i].type);
    free(r[i].access);
  }
  free(r);
}

static int push_defaults(crt_device_rule **v, size_t *k) {
  int rc = 0;
  for (size_t i = 0; i < sizeof default_rules / sizeof default_rules[0] && rc == 0; i++)
    rc = push_rule(v, k, true, default_rules[i].type, default_rules[i].major >= 0, default_rules[i].major,
                   default_rules[i].minor >= 0, default_rules[i].minor, default_rules[i].access);
  return rc;
}

/* As runc: linux.devices only makes nodes; a node gets a cgroup rule only
 * through linux.resources.devices or the defaults, so a spec denying all
 * cannot be undone by listing a node. */
int cg_device_rules(const crt_spec *spec, crt_device_rule **out, size_t *n, crt_err **err) {
  crt_device_rule *v = NULL;
  size_t k = 0;
  const crt_linux *l = spec ? spec->linux_ : NULL;
  int rc = 0;
  if (l && l->resources)
    for (size_t i = 0; i < l->resources->n_devices && rc == 0; i++) {
      const crt_device_rule *d = &l->resources->devices[i];
      rc = push_rule(&v, &k, d->allow, d->type, d->major.set, d->major.v, d->minor.set, d->minor.v, d->access);
    }
  if (rc == 0) rc = push_defaults(&v, &k);
  if (rc < 0) {
    cg_device_rules_free(v, k);
    return crt_error(err, ENOMEM, "cgroup: device rules");
  }
  *out = v;
  *n = k;
  return 0;
}

int cg_update_device_rules(const crt_resources *r, crt_device_rule **out, size_t *n, crt_err **err) {
  crt_device_rule *v = NULL;
  size_t k = 0;
  int rc = push_defaults(&v, &k);
  for (size_t i = 0; i < r->n_devices && rc == 0; i++) {
    const crt_device_rule *d = &r->devices[i];
    rc = push_rule(&v, &k, d->allow, d->type, d->major.set, d->major.v, d->minor.set, d->minor.v, d->access);
  }
  if (rc < 0) {
    cg_device_rules_free(v, k);
    return crt_error(err, ENOMEM, "cgroup: device rules");
  }
  *out = v;
  *n = k;
  return 0;
}

/* ---- paths ---- */

/* The caller's own cgroup in the hierarchy named by `key` in /proc/self/cgroup
 * ("" for the unified line, else a controller name). */
static char *own_cgroup(const char *key) {
  cleanup_fclose FILE *f = fopen("/proc/self/cgroup", "re");
  if (!f) return strdup("/");
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char *a = strchr(line, ':');
    char *b = a ? strchr(a + 1, ':') : NULL;
    if (!b) continue;
    *b = 0;
    const char *ctrls = a + 1;
    bool match = false;
    if (*key == 0) {
      match = *ctrls == 0;
    } else {
      char *save, *dup = strdup(ctrls);
      for (char *t = dup ? strtok_r(dup, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save))
        if (strcmp(t, key) == 0) match = true;
      free(dup);
    }
    if (match) return strdup(b + 1);
  }
  return strdup("/");
}

/* Lexically cleans p into an absolute path without "." / ".." escaping "/". */
static char *clean_path(const char *base, const char *p) {
  char *joined = NULL;
  if (asprintf(&joined, "%s/%s", base, p) < 0) return NULL;
  char *out = calloc(1, strlen(joined) + 2);
  if (!out) {
    free(joined);
    return NULL;
  }
  char *save;
  for (char *t = strtok_r(joined, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
    if (strcmp(t, ".") == 0) continue;
    if (strcmp(t, "..") == 0) {
      char *s = strrchr(out, '/');
      if (s) *s = 0;
      continue;
    }
    strcat(out, "/");
    strcat(out, t);
  }
  if (*out == 0) strcpy(out, "/");
  free(joined);
  return out;
}

/* runc: an absolute cgroupsPath is taken from the hierarchy root; a relative
 * one (and the default, the container id) is relative to the caller's own
 * cgroup.  We resolve it once, against the unified line on v2 and the pids
 * hierarchy on v1, so that one absolute path can be stored in state.json. */
static int resolve_path(const crt_cgroup_config *cfg, char **out, crt_err **err) {
  const char *p = cfg->spec && cfg->spec->linux_ ? cfg->spec->linux_->cgroups_path : NULL;
  if (!p || !*p) p = cfg->id;
  if (!p || !*p) return crt_error(err, EINVAL, "cgroup: no container id");
  cleanup_free char *base = NULL;
  if (*p == '/')
    base = strdup("/");
  else if (cg_root_is_test())
    base = strdup("/"); /* a test tree: the caller's cgroup means nothing there */
  else
    base = own_cgroup(crt_cgroup_mode() == CRT_CGROUP_MODE_V2 ? "" : "pids");
  if (base) {
    size_t bl = strlen(base);
    /* like runc on v2: never nest below systemd's init.scope */
    if (bl >= 11 && strcmp(base + bl - 11, "/init.scope") == 0) base[bl - 11] = 0;
  }
  *out = base ? clean_path(base, p) : NULL;
  if (!*out) return crt_error(err, ENOMEM, "cgroup: path");
  if (strcmp(*out, "/") == 0) {
    free(crt_steal(*out));
    return crt_error(err, EINVAL, "cgroup: cgroupsPath %s resolves to the root cgroup", p);
  }
  return 0;
}

/* "slice:prefix:name" → "/<slice path>/<prefix>-<name>.scope"; runc's
 * systemd driver.  Creating the unit needs systemd, which we check first. */
static int systemd_path(const crt_cgroup_config *cfg, char **out, crt_err **err) {
  const char *p = cfg->spec && cfg->spec->linux_ ? cfg->spec->linux_->cgroups_path : NULL;
  if (cg_systemd_path(p, cfg->id, cfg->rootless, out, err) < 0) return -1;
  if (!cg_systemd_running()) {
    free(crt_steal(*out));
    return crt_error(err, ENOENT, "systemd cgroup manager: systemd is not running (no /run/systemd/system)");
  }
  return 0;
}

int crt_cgroup_stop_unit(const char *path, crt_err **err) {
  if (!path || !*path) return 0;
  return cg_systemd_stop(path, err);
}

char *crt_cgroup_dir(const char *path, const char *controller) {
  char *out = NULL;
  enum crt_cgroup_mode m = crt_cgroup_mode();
  if (m == CRT_CGROUP_MODE_V2) {
    if (asprintf(&out, "%s%s", cg_root(), path) < 0) return NULL;
    return out;
  }
  if (controller) {
    if (asprintf(&out, "%s/%s%s", cg_root(), controller, path) < 0) return NULL;
    return out;
  }
  char **h = cg_v1_hierarchies();
  if (h && h[0]) (void)!asprintf(&out, "%s%s", h[0], path);
  cg_strv_free(h);
  return out;
}

/* Every directory of the cgroup, one per hierarchy (and unified in hybrid). */
static char **all_dirs(const char *path) {
  enum crt_cgroup_mode m = crt_cgroup_mode();
  size_t n = 0;
  char **h = m == CRT_CGROUP_MODE_V2 ? NULL : cg_v1_hierarchies();
  if (h)
    while (h[n]) n++;
  char **v = calloc(n + 2, sizeof *v);
  if (!v) {
    cg_strv_free(h);
    return NULL;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) (void)!asprintf(&v[k++], "%s%s", h[i], path);
  if (m == CRT_CGROUP_MODE_V2) (void)!asprintf(&v[k++], "%s%s", cg_root(), path);
  if (m == CRT_CGROUP_MODE_HYBRID) (void)!asprintf(&v[k++], "%s/unified%s", cg_root(), path);
  cg_strv_free(h);
  return v;
}

/* The directory whose cgroup.procs lists the container's processes. */
static char *procs_dir(const char *path) {
  enum crt_cgroup_mode m = crt_cgroup_mode();
  if (m == CRT_CGROUP_MODE_V2) return crt_cgroup_dir(path, NULL);
  static const char *pref[] = {"pids", "freezer", "memory", "cpu", "devices", "systemd"};
  for (size_t i = 0; i < sizeof pref / sizeof pref[0]; i++) {
    char *d = crt_cgroup_dir(path, pref[i]);
    if (d && access(d, F_OK) == 0) return d;
    free(d);
  }
  if (m == CRT_CGROUP_MODE_HYBRID) {
    char *d = NULL;
    if (asprintf(&d, "%s/unified%s", cg_root(), path) < 0) return NULL;
    return d;
  }
  return crt_cgroup_dir(path, NULL);
}

/* ---- enter / join ---- */

/* As runc's create: a frozen pre-existing cgroup is refused (the init
 * would stop in it and create hang), a non-empty one is warned about. */
static int check_existing(const char *path, crt_err **err) {
  if (crt_cgroup_is_frozen(path) == 1) return crt_error(err, EBUSY, "container's cgroup unexpectedly frozen");
  if (!crt_cgroup_exists(path)) return 0;
  pid_t *pids = NULL;
  size_t n = 0;
  crt_err *e = NULL;
  if (crt_cgroup_pids(path, &pids, &n, &e) < 0) crt_err_free(&e); /* raced with its removal */
  free(pids);
  if (n) crt_warn("container's cgroup is not empty: %zu process(es) found", n);
  return 0;
}

int crt_cgroup_resolve(const crt_cgroup_config *cfg, char **out, crt_err **err) {
  int rc = cfg->systemd ? systemd_path(cfg, out, err) : resolve_path(cfg, out, err);
  if (rc == 0 && check_existing(*out, err) < 0) {
    free(crt_steal(*out));
    return -1;
  }
  return rc;
}

int crt_cgroup_enter(const crt_cgroup_config *cfg, pid_t pid, char **path_out, crt_err **err) {
  cleanup_free char *path = NULL;
  enum crt_cgroup_mode m = crt_cgroup_mode();
  if (cfg->systemd) {
    /* systemd makes the scope and puts the pid in it; the rest (other v1
     * hierarchies, every resource) goes through cgroupfs as below */
    if (systemd_path(cfg, &path, err) < 0) return -1;
    if (cg_systemd_start(cfg, path, pid, m == CRT_CGROUP_MODE_V2, err) < 0) return -1;
  } else if (resolve_path(cfg, &path, err) < 0) {
    return -1;
  }
  int rc;
  if (m == CRT_CGROUP_MODE_V2) {
    rc = cg_v2_enter(cg_root(), path, cfg->spec, cfg->rootless, true, pid, err);
  } else {
    /* Hybrid: the unified directory must exist before the v1 resources
     * are written (hugetlb may live only there); the pid moves last. */
    cleanup_free char *u = NULL;
    int urc = 1;
    if (m == CRT_CGROUP_MODE_HYBRID) {
      if (asprintf(&u, "%s/unified", cg_root()) < 0) return crt_error(err, ENOMEM, "cgroup");
      urc = cg_v2_enter(u, path, cfg->spec, cfg->rootless, false, 0, err);
      if (urc < 0) return -1;
    }
    rc = cg_v1_enter(path, cfg->spec, cfg->rootless, pid, err);
    if (rc >= 0 && urc == 0) {
      cleanup_free char *ud = NULL;
      crt_err *e = NULL;
      if (asprintf(&ud, "%s%s", u, path) < 0) {
        rc = crt_error(err, ENOMEM, "cgroup");
      } else if (cg_move(ud, pid, &e) < 0) {
        if (cfg->rootless && cg_perm_error(e->errnum)) {
          crt_err_free(&e);
        } else {
          *err = e;
          rc = -1;
        }
      }
      if (rc < 0) {
        crt_err *ign = NULL;
        crt_cgroup_destroy(path, &ign);
        crt_err_free(&ign);
      } else if (rc == 1) {
        rc = 0; /* joined the unified hierarchy at least */
      }
    } else if (rc < 0 && u) {
      cleanup_free char *ud = NULL;
      if (asprintf(&ud, "%s%s", u, path) > 0) rmdir(ud);
    }
  }
  if (rc < 0) return rc;
  /* rc 1: rootless and no hierarchy could be joined */
  *path_out = rc == 1 ? strdup("") : crt_steal(path);
  if (!*path_out) return crt_error(err, ENOMEM, "cgroup");
  return 0;
}

int crt_cgroup_prepare(const crt_cgroup_config *cfg, const char *path, enum crt_cgroup_prepared *out, int *fd,
                       crt_err **err) {
  *fd = -1;
  *out = CRT_CGROUP_NOT_PREPARED;
  if (cfg->systemd || crt_cgroup_mode() != CRT_CGROUP_MODE_V2 || !path || !*path) return 0;
  /* only the directory: resources and the device filter are written after
   * the clone, while the init starts up (crt_cgroup_configure) */
  int rc = cg_v2_enter(cg_root(), path, cfg->spec, cfg->rootless, false, 0, err);
  if (rc < 0) return -1;
  if (rc == 1) { /* rootless, nothing made: nothing to clone into */
    *out = CRT_CGROUP_NONE;
    return 0;
  }
  *fd = crt_cgroup_open(path, NULL);
  *out = CRT_CGROUP_PREPARED;
  return 0;
}

int crt_cgroup_configure(const crt_cgroup_config *cfg, const char *path, crt_err **err) {
  if (!path || !*path) return 0;
  return cg_v2_configure(cg_root(), path, cfg->spec, cfg->rootless, err);
}

int crt_cgroup_open(const char *path, const char *sub) {
  if (!path || !*path || crt_cgroup_mode() != CRT_CGROUP_MODE_V2) return -1;
  if (sub && (strstr(sub, "..") || !*sub)) return -1;
  char dir[PATH_MAX];
  if ((size_t)snprintf(dir, sizeof dir, "%s%s%s%s", cg_root(), path, sub ? "/" : "", sub ? sub : "") >= sizeof dir)
    return -1;
  return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Whether pid already sits in the v2 cgroup `rel` (cloned into it). */
static bool v2_member(pid_t pid, const char *rel) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/%d/cgroup", (int)pid);
  cleanup_free char *buf = NULL;
  size_t len = 0;
  crt_err *e = NULL;
  if (crt_read_file(proc, 4096, &buf, &len, &e) < 0) {
    crt_err_free(&e);
    return false;
  }
  char *save;
  for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
    if (strncmp(l, "0::", 3) == 0) return strcmp(l + 3, rel) == 0;
  return false;
}

int crt_cgroup_join(const char *path, const char *sub, pid_t pid, crt_err **err) {
  if (!path || !*path) return 0;
  if (sub && (strstr(sub, "..") || *sub == 0)) return crt_error(err, EINVAL, "cgroup: invalid sub-cgroup %s", sub);
  if (!override_root && crt_cgroup_mode() == CRT_CGROUP_MODE_V2) {
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%s%s%s", path, sub ? "/" : "", sub ? sub : "");
    if (v2_member(pid, rel)) return 0;
  }
  char **dirs = all_dirs(path);
  if (!dirs) return crt_error(err, ENOMEM, "cgroup: join");
  int rc = 0;
  for (size_t i = 0; dirs[i] && rc == 0; i++) {
    cleanup_free char *d = NULL;
    if (sub) {
      if (asprintf(&d, "%s/%s", dirs[i], sub) < 0) d = NULL;
    } else {
      d = strdup(dirs[i]);
    }
    if (!d) {
      rc = crt_error(err, ENOMEM, "cgroup: join");
      break;
    }
    if (access(d, F_OK) != 0) {
      /* v1 hierarchies we could not create in (rootless) are skipped; a
       * missing sub-cgroup on the main hierarchy is an error. */
      if (sub && i == 0) rc = crt_error(err, ENOENT, "cgroup: sub-cgroup %s", d);
      continue;
    }
    crt_err *e = NULL;
    if (cg_move(d, pid, &e) < 0) {
      if (cg_perm_error(e->errnum) && geteuid() != 0) {
        crt_err_free(&e);
        continue;
      }
      *err = e;
      rc = -1;
    }
  }
  cg_strv_free(dirs);
  return rc;
}

/* ---- destroy ---- */

/* rmdir dir after its sub-cgroups, deepest first. */
static int rmdir_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return errno == ENOENT ? 0 : -1;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
    rmdir_tree(sub);
  }
  closedir(d);
  if (rmdir(dir) < 0 && errno != ENOENT) return -1;
  return 0;
}

int crt_cgroup_destroy(const char *path, crt_err **err) {
  if (!path || !*path || strcmp(path, "/") == 0) return 0;
  char **dirs = all_dirs(path);
  if (!dirs) return crt_error(err, ENOMEM, "cgroup: destroy");
  int rc = 0;
  for (size_t i = 0; dirs[i]; i++) {
    /* Processes that were just killed leave their cgroup asynchronously. */
    int r = -1, e = 0;
    for (int t = 0; t < 100; t++) {
      r = rmdir_tree(dirs[i]);
      e = errno;
      if (r == 0 || e != EBUSY) break;
      usleep(10000);
    }
    if (r < 0 && rc == 0) rc = crt_error(err, e, "cgroup: remove %s", dirs[i]);
  }
  cg_strv_free(dirs);
  return rc;
}

/* ---- pids / kill ---- */

static int collect_pids(const char *dir, pid_t **pids, size_t *n, crt_err **err) {
  cleanup_free char *s = cg_read(dir, "cgroup.procs");
  if (!s) return crt_error(err, errno, "cgroup: read %s/cgroup.procs", dir);
  char *save;
  for (char *t = strtok_r(s, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
    pid_t *nv = realloc(*pids, (*n + 1) * sizeof **pids);
    if (!nv) return crt_error(err, ENOMEM, "cgroup: pids");
    *pids = nv;
    (*pids)[(*n)++] = (pid_t)atoi(t);
  }
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  int rc = 0;
  while (rc == 0 && (e = readdir(d))) {
    if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
    rc = collect_pids(sub, pids, n, err);
  }
  closedir(d);
  return rc;
}

bool crt_cgroup_exists(const char *path) {
  if (!path || !*path) return false;
  cleanup_free char *dir = procs_dir(path);
  return dir && access(dir, F_OK) == 0;
}

int crt_cgroup_pids(const char *path, pid_t **pids, size_t *n, crt_err **err) {
  *pids = NULL;
  *n = 0;
  if (!path || !*path) return 0;
  cleanup_free char *dir = procs_dir(path);
  if (!dir) return crt_error(err, ENOMEM, "cgroup: pids");
  if (collect_pids(dir, pids, n, err) < 0) {
    free(crt_steal(*pids));
    *n = 0;
    return -1;
  }
  return 0;
}

static bool has_pid(const pid_t *v, size_t n, pid_t p) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == p) return true;
  return false;
}

/* SIGKILL without a freeze: a task with a fatal signal pending cannot fork
 * (copy_process fails), so passes over cgroup.procs until one finds no new
 * pid catch every child forked before its parent got the signal.  A freeze
 * here would outlive a crt killed midway (delete --force) and leave the
 * container "paused" with the signal pending. */
static int kill_all_sigkill(const char *path, crt_err **err) {
  pid_t *seen = NULL;
  size_t nseen = 0;
  int rc = 0;
  for (int pass = 0; pass < 100 && rc == 0; pass++) {
    pid_t *pids = NULL;
    size_t n = 0, fresh = 0;
    rc = crt_cgroup_pids(path, &pids, &n, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
      if (kill(pids[i], SIGKILL) < 0 && errno != ESRCH) rc = crt_error(err, errno, "cgroup: kill %d", (int)pids[i]);
      if (has_pid(seen, nseen, pids[i])) continue;
      pid_t *nv = realloc(seen, (nseen + 1) * sizeof *nv);
      if (!nv) rc = crt_error(err, ENOMEM, "cgroup: kill");
      else (seen = nv)[nseen++] = pids[i], fresh++;
    }
    free(pids);
    if (fresh == 0) break;
  }
  free(seen);
  crt_test_point("cgroup:killed");
  return rc;
}

/* Sends sig to every process of the cgroup, frozen meanwhile so that no
 * process can fork a child we would miss, then thaws it: runc's
 * signalAllProcesses, which thaws a paused container too. */
static int kill_all_frozen(const char *path, int sig, crt_err **err) {
  crt_err *e = NULL;
  bool froze = crt_cgroup_freeze(path, true, &e) == 0; /* no freezer: signal unfrozen */
  crt_err_free(&e);
  pid_t *pids = NULL;
  size_t n = 0;
  int rc = crt_cgroup_pids(path, &pids, &n, err);
  for (size_t i = 0; rc == 0 && i < n; i++)
    if (kill(pids[i], sig) < 0 && errno != ESRCH) rc = crt_error(err, errno, "cgroup: kill %d", (int)pids[i]);
  free(pids);
  if (froze && crt_cgroup_freeze(path, false, &e) < 0 && rc == 0) {
    *err = e;
    return -1;
  }
  crt_err_free(&e);
  return rc;
}

int crt_cgroup_kill(const char *path, int sig, crt_err **err) {
  if (!path || !*path) return 0;
  enum crt_cgroup_mode m = crt_cgroup_mode();
  if (sig == SIGKILL && m == CRT_CGROUP_MODE_V2) {
    cleanup_free char *d = crt_cgroup_dir(path, NULL);
    if (d && cg_exists(d, "cgroup.kill")) return cg_write(d, "cgroup.kill", "1", err);
  }
  if (sig != SIGKILL) return kill_all_frozen(path, sig, err);
  bool was_frozen = crt_cgroup_is_frozen(path) == 1;
  int rc = kill_all_sigkill(path, err);
  /* a paused container is thawed so that the kill takes effect (runc) */
  crt_err *e = NULL;
  if (was_frozen && crt_cgroup_freeze(path, false, &e) < 0 && rc == 0) {
    *err = e;
    return -1;
  }
  crt_err_free(&e);
  return rc;
}

/* ---- freezer ---- */

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static int v2_is_frozen(const char *dir) {
  cleanup_free char *ev = cg_read(dir, "cgroup.events");
  if (!ev) return -1;
  char *f = strstr(ev, "frozen ");
  return f ? f[7] == '1' : 0;
}

static char *v1_freezer_dir(const char *path) { return crt_cgroup_dir(path, "freezer"); }

static int v1_freezer_state(const char *dir) {
  cleanup_free char *s = cg_read(dir, "freezer.state");
  if (!s) return -1;
  return strncmp(s, "FROZEN", 6) == 0 ? 1 : 0;
}

int crt_cgroup_freeze(const char *path, bool freeze, crt_err **err) {
  if (!path || !*path) return crt_error(err, ENOENT, "cgroup: the container has no cgroup to freeze");
  bool v2 = crt_cgroup_mode() == CRT_CGROUP_MODE_V2;
  cleanup_free char *dir = v2 ? crt_cgroup_dir(path, NULL) : v1_freezer_dir(path);
  if (!dir) return crt_error(err, ENOMEM, "cgroup: freeze");
  const char *file = v2 ? "cgroup.freeze" : "freezer.state";
  const char *val = v2 ? (freeze ? "1" : "0") : (freeze ? "FROZEN" : "THAWED");
  /* ~5 s: v1 may stay FREEZING while a task is in an uninterruptible sleep;
   * writing again retries the freeze. */
  for (int i = 0; i < 1000; i++) {
    if (i % 50 == 0 && cg_write(dir, file, val, err) < 0) return -1;
    int st = v2 ? v2_is_frozen(dir) : v1_freezer_state(dir);
    if (st < 0) return crt_error(err, errno, "cgroup: read %s/%s", dir, v2 ? "cgroup.events" : "freezer.state");
    if (st == (freeze ? 1 : 0)) return 0;
    sleep_ms(5);
  }
  return crt_error(err, ETIMEDOUT, "cgroup: %s %s", freeze ? "freeze" : "thaw", dir);
}

int crt_cgroup_is_frozen(const char *path) {
  if (!path || !*path) return 0;
  bool v2 = crt_cgroup_mode() == CRT_CGROUP_MODE_V2;
  cleanup_free char *dir = v2 ? crt_cgroup_dir(path, NULL) : v1_freezer_dir(path);
  if (!dir) return -1;
  if (access(dir, F_OK) != 0) return 0;
  if (v2) {
    /* cgroup.freeze is the requested state; "frozen" in cgroup.events the reached one. */
    int st = v2_is_frozen(dir);
    return st < 0 ? 0 : st;
  }
  int st = v1_freezer_state(dir);
  return st < 0 ? 0 : st;
}

/* ---- stats ---- */

static unsigned long long rd(const char *dir, const char *file) {
  unsigned long long v = 0;
  if (cg_read_u64(dir, file, &v) < 0 || v == UINT64_MAX) return 0;
  return v;
}

/* A "key value" per line file (memory.stat, cpu.stat); value of key or 0. */
static unsigned long long kv_get(const char *s, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (strncmp(p, key, kl) == 0 && p[kl] == ' ') return strtoull(p + kl + 1, NULL, 10);
  return 0;
}

static int kv_all(const char *s, crt_cgroup_stat_kv **out, size_t *n) {
  cleanup_free char *dup = strdup(s);
  if (!dup) return -1;
  char *save;
  for (char *l = strtok_r(dup, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    char *sp = strchr(l, ' ');
    if (!sp) continue;
    *sp = 0;
    crt_cgroup_stat_kv *nv = realloc(*out, (*n + 1) * sizeof **out);
    if (!nv) return -1;
    *out = nv;
    nv[*n].name = strdup(l);
    nv[*n].value = strtoull(sp + 1, NULL, 10);
    if (!nv[(*n)++].name) return -1;
  }
  return 0;
}

static int push_io(crt_cgroup_blkio_entry **v, size_t *n, unsigned maj, unsigned min, const char *op,
                   unsigned long long val) {
  crt_cgroup_blkio_entry *nv = realloc(*v, (*n + 1) * sizeof **v);
  if (!nv) return -1;
  *v = nv;
  nv[*n] = (crt_cgroup_blkio_entry){maj, min, strdup(op), val};
  return nv[(*n)++].op ? 0 : -1;
}

/* v1 blkio.*_recursive: "8:0 Read 4096" lines. */
static int v1_blkio_file(const char *dir, const char *file, crt_cgroup_blkio_entry **v, size_t *n) {
  cleanup_free char *s = cg_read(dir, file);
  if (!s) return 0;
  char *save;
  for (char *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    unsigned maj, min;
    char op[16];
    unsigned long long val;
    if (sscanf(l, "%u:%u %15s %llu", &maj, &min, op, &val) == 4 && push_io(v, n, maj, min, op, val) < 0) return -1;
  }
  return 0;
}

/* v2 io.stat: "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0". */
static int v2_io_stat(const char *dir, crt_cgroup_stats *st) {
  cleanup_free char *s = cg_read(dir, "io.stat");
  if (!s) return 0;
  char *save;
  for (char *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    unsigned maj, min;
    if (sscanf(l, "%u:%u", &maj, &min) != 2) continue;
    static const struct {
      const char *key, *op;
      bool bytes;
    } map[] = {{"rbytes=", "Read", true}, {"wbytes=", "Write", true}, {"rios=", "Read", false}, {"wios=", "Write", false}};
    for (size_t i = 0; i < 4; i++) {
      char *f = strstr(l, map[i].key);
      if (!f) continue;
      unsigned long long v = strtoull(f + strlen(map[i].key), NULL, 10);
      int rc = map[i].bytes ? push_io(&st->io_bytes, &st->n_io_bytes, maj, min, map[i].op, v)
                            : push_io(&st->io_ios, &st->n_io_ios, maj, min, map[i].op, v);
      if (rc < 0) return -1;
    }
  }
  return 0;
}

/* Page sizes from hugetlb.<size>.<suffix> file names. */
static int hugetlb_stats(const char *dir, bool v2, crt_cgroup_stats *st) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  const char *suffix = v2 ? ".max" : ".limit_in_bytes";
  int rc = 0;
  while (rc == 0 && (e = readdir(d))) {
    const char *n = e->d_name;
    size_t l = strlen(n), sl = strlen(suffix);
    if (strncmp(n, "hugetlb.", 8) || l <= 8 + sl || strcmp(n + l - sl, suffix) || strstr(n, ".rsvd.")) continue;
    char size[32];
    snprintf(size, sizeof size, "%.*s", (int)(l - 8 - sl), n + 8);
    crt_cgroup_hugetlb_stat *nv = realloc(st->hugetlb, (st->n_hugetlb + 1) * sizeof *nv);
    if (!nv) {
      rc = -1;
      break;
    }
    st->hugetlb = nv;
    crt_cgroup_hugetlb_stat *h = &nv[st->n_hugetlb++];
    memset(h, 0, sizeof *h);
    h->pagesize = strdup(size);
    char f[96];
    snprintf(f, sizeof f, "hugetlb.%s.%s", size, v2 ? "current" : "usage_in_bytes");
    h->usage = rd(dir, f);
    if (v2) {
      snprintf(f, sizeof f, "hugetlb.%s.events", size);
      cleanup_free char *ev = cg_read(dir, f);
      h->failcnt = ev ? kv_get(ev, "max") : 0;
    } else {
      snprintf(f, sizeof f, "hugetlb.%s.max_usage_in_bytes", size);
      h->max = rd(dir, f);
      snprintf(f, sizeof f, "hugetlb.%s.failcnt", size);
      h->failcnt = rd(dir, f);
    }
    if (!h->pagesize) rc = -1;
  }
  closedir(d);
  return rc;
}

static int read_percpu(const char *dir, crt_cgroup_stats *st) {
  cleanup_free char *s = cg_read(dir, "cpuacct.usage_percpu");
  if (!s) return 0;
  char *save;
  for (char *t = strtok_r(s, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
    unsigned long long *nv = realloc(st->percpu, (st->n_percpu + 1) * sizeof *nv);
    if (!nv) return -1;
    st->percpu = nv;
    nv[st->n_percpu++] = strtoull(t, NULL, 10);
  }
  return 0;
}

static int v1_stats(const char *path, crt_cgroup_stats *st) {
  cleanup_free char *cpuacct = crt_cgroup_dir(path, "cpuacct");
  cleanup_free char *cpu = crt_cgroup_dir(path, "cpu");
  cleanup_free char *mem = crt_cgroup_dir(path, "memory");
  cleanup_free char *pids = crt_cgroup_dir(path, "pids");
  cleanup_free char *blkio = crt_cgroup_dir(path, "blkio");
  cleanup_free char *huge = crt_cgroup_dir(path, "hugetlb");
  if (!cpuacct || !cpu || !mem || !pids || !blkio || !huge) return -1;
  st->cpu_total = rd(cpuacct, "cpuacct.usage");
  if (read_percpu(cpuacct, st) < 0) return -1;
  cleanup_free char *cs = cg_read(cpuacct, "cpuacct.stat");
  if (cs) {
    /* USER_HZ ticks to nanoseconds, as runc */
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0) hz = 100;
    st->cpu_user = kv_get(cs, "user") * (1000000000ULL / (unsigned long long)hz);
    st->cpu_kernel = kv_get(cs, "system") * (1000000000ULL / (unsigned long long)hz);
  }
  cleanup_free char *cst = cg_read(cpu, "cpu.stat");
  if (cst) {
    st->throttle_periods = kv_get(cst, "nr_periods");
    st->throttled_periods = kv_get(cst, "nr_throttled");
    st->throttled_time = kv_get(cst, "throttled_time");
  }
  st->mem_usage = rd(mem, "memory.usage_in_bytes");
  st->mem_max = rd(mem, "memory.max_usage_in_bytes");
  st->mem_limit = rd(mem, "memory.limit_in_bytes");
  st->mem_failcnt = rd(mem, "memory.failcnt");
  st->swap_usage = rd(mem, "memory.memsw.usage_in_bytes");
  st->swap_max = rd(mem, "memory.memsw.max_usage_in_bytes");
  st->swap_limit = rd(mem, "memory.memsw.limit_in_bytes");
  st->swap_failcnt = rd(mem, "memory.memsw.failcnt");
  st->kernel_usage = rd(mem, "memory.kmem.usage_in_bytes");
  st->kernel_max = rd(mem, "memory.kmem.max_usage_in_bytes");
  st->kernel_limit = rd(mem, "memory.kmem.limit_in_bytes");
  st->kernel_failcnt = rd(mem, "memory.kmem.failcnt");
  cleanup_free char *ms = cg_read(mem, "memory.stat");
  if (ms) {
    st->mem_cache = kv_get(ms, "cache");
    if (kv_all(ms, &st->mem_raw, &st->n_mem_raw) < 0) return -1;
  }
  st->pids_current = rd(pids, "pids.current");
  st->pids_limit = rd(pids, "pids.max");
  if (v1_blkio_file(blkio, "blkio.throttle.io_service_bytes_recursive", &st->io_bytes, &st->n_io_bytes) < 0 ||
      v1_blkio_file(blkio, "blkio.throttle.io_serviced_recursive", &st->io_ios, &st->n_io_ios) < 0)
    return -1;
  if (access(huge, F_OK) == 0) return hugetlb_stats(huge, false, st);
  if (crt_cgroup_mode() == CRT_CGROUP_MODE_HYBRID) {
    cleanup_free char *u = NULL;
    if (asprintf(&u, "%s/unified%s", cg_root(), path) < 0) return -1;
    return hugetlb_stats(u, true, st);
  }
  return 0;
}

static int v2_stats(const char *path, crt_cgroup_stats *st) {
  cleanup_free char *d = crt_cgroup_dir(path, NULL);
  if (!d) return -1;
  cleanup_free char *cs = cg_read(d, "cpu.stat");
  if (cs) {
    st->cpu_total = kv_get(cs, "usage_usec") * 1000;
    st->cpu_user = kv_get(cs, "user_usec") * 1000;
    st->cpu_kernel = kv_get(cs, "system_usec") * 1000;
    st->throttle_periods = kv_get(cs, "nr_periods");
    st->throttled_periods = kv_get(cs, "nr_throttled");
    st->throttled_time = kv_get(cs, "throttled_usec") * 1000;
  }
  st->mem_usage = rd(d, "memory.current");
  st->mem_max = rd(d, "memory.peak");
  st->mem_limit = rd(d, "memory.max");
  cleanup_free char *ev = cg_read(d, "memory.events");
  if (ev) st->mem_failcnt = kv_get(ev, "max");
  /* runc reports swap as memory+swap, the v1 meaning */
  st->swap_usage = rd(d, "memory.swap.current") + st->mem_usage;
  st->swap_limit = rd(d, "memory.swap.max");
  cleanup_free char *ms = cg_read(d, "memory.stat");
  if (ms) {
    st->mem_cache = kv_get(ms, "file");
    st->kernel_usage = kv_get(ms, "kernel");
    if (kv_all(ms, &st->mem_raw, &st->n_mem_raw) < 0) return -1;
  }
  st->pids_current = rd(d, "pids.current");
  st->pids_limit = rd(d, "pids.max");
  if (v2_io_stat(d, st) < 0) return -1;
  return hugetlb_stats(d, true, st);
}

int crt_cgroup_get_stats(const char *path, crt_cgroup_stats *st, crt_err **err) {
  memset(st, 0, sizeof *st);
  if (!path || !*path) return crt_error(err, ENOENT, "cgroup: the container has no cgroup");
  int rc = crt_cgroup_mode() == CRT_CGROUP_MODE_V2 ? v2_stats(path, st) : v1_stats(path, st);
  if (rc < 0) {
    crt_cgroup_stats_free(st);
    return crt_error(err, ENOMEM, "cgroup: stats of %s", path);
  }
  return 0;
}

void crt_cgroup_stats_free(crt_cgroup_stats *st) {
  free(st->percpu);
  for (size_t i = 0; i < st->n_mem_raw; i++) free(st->mem_raw[i].name);
  free(st->mem_raw);
  for (size_t i = 0; i < st->n_io_bytes; i++) free(st->io_bytes[i].op);
  free(st->io_bytes);
  for (size_t i = 0; i < st->n_io_ios; i++) free(st->io_ios[i].op);
  free(st->io_ios);
  for (size_t i = 0; i < st->n_hugetlb; i++) free(st->hugetlb[i].pagesize);
  free(st->hugetlb);
  memset(st, 0, sizeof *st);
}

/* ---- OOM notifications ---- */

int crt_cgroup_oom_fd(const char *path, crt_err **err) {
  if (!path || !*path) return crt_error(err, ENOENT, "cgroup: the container has no cgroup");
  if (crt_cgroup_mode() == CRT_CGROUP_MODE_V2) {
    cleanup_free char *d = crt_cgroup_dir(path, NULL);
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/memory.events", d ? d : "");
    int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (fd < 0) return crt_error(err, errno, "cgroup: inotify");
    if (inotify_add_watch(fd, p, IN_MODIFY) < 0) {
      int e = errno;
      close(fd);
      return crt_error(err, e, "cgroup: watch %s", p);
    }
    return fd;
  }
  cleanup_free char *d = crt_cgroup_dir(path, "memory");
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s/memory.oom_control", d ? d : "");
  cleanup_close int ofd = open(p, O_RDONLY | O_CLOEXEC);
  if (ofd < 0) return crt_error(err, errno, "cgroup: open %s", p);
  int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (efd < 0) return crt_error(err, errno, "cgroup: eventfd");
  char line[64];
  snprintf(line, sizeof line, "%d %d", efd, ofd);
  if (cg_write(d, "cgroup.event_control", line, err) < 0) {
    close(efd);
    return -1;
  }
  return efd;
}

int crt_cgroup_oom_read(const char *path, int fd, unsigned long long *last) {
  if (crt_cgroup_mode() != CRT_CGROUP_MODE_V2) {
    uint64_t v;
    if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) return -1;
    return (int)v;
  }
  char buf[4096];
  while (read(fd, buf, sizeof buf) > 0) {
  }
  cleanup_free char *d = crt_cgroup_dir(path, NULL);
  cleanup_free char *ev = d ? cg_read(d, "memory.events") : NULL;
  if (!ev) return -1;
  unsigned long long n = kv_get(ev, "oom_kill");
  int delta = n > *last ? (int)(n - *last) : 0;
  *last = n;
  return delta;
}

/* ---- update's input ---- */

int crt_cgroup_parse_size(const char *s, long long *out) {
  if (!s || !*s) return -1;
  if (strcmp(s, "-1") == 0) {
    *out = -1;
    return 0;
  }
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || v < 0 || !isdigit((unsigned char)*s)) return -1;
  while (*end == ' ') end++;
  double mul = 1;
  const char *units = "kmgtp";
  if (*end) {
    const char *u = strchr(units, tolower((unsigned char)*end));
    if (u) {
      for (const char *q = units; q <= u; q++) mul *= 1024;
      end++;
    }
    if (*end == 'i' || *end == 'I') end++;
    if (*end == 'b' || *end == 'B') end++;
    if (*end) return -1;
  }
  double r = v * mul;
  if (r > 9.2e18) return -1;
  *out = (long long)r;
  return 0;
}

static yajl_val jget(yajl_val o, const char *a, const char *b) {
  const char *path[] = {a, b, NULL};
  return yajl_tree_get(o, path, yajl_t_any);
}

static int jint(yajl_val o, const char *a, const char *b, const char *name, crt_i64 *dst, crt_err **err) {
  yajl_val v = jget(o, a, b);
  if (!v || YAJL_IS_NULL(v)) return 0;
  if (!YAJL_IS_INTEGER(v)) return crt_error(err, 0, "%s: .%s.%s: expected integer", name, a, b);
  dst->set = true;
  dst->v = YAJL_GET_INTEGER(v);
  return 0;
}

static int juint(yajl_val o, const char *a, const char *b, const char *name, crt_u64 *dst, crt_err **err) {
  crt_i64 t = {0};
  if (jint(o, a, b, name, &t, err) < 0) return -1;
  if (!t.set) return 0;
  if (t.v < 0) return crt_error(err, 0, "%s: .%s.%s: expected a non-negative integer", name, a, b);
  dst->set = true;
  dst->v = (uint64_t)t.v;
  return 0;
}

static int jbool(yajl_val o, const char *a, const char *b, const char *name, crt_bool *dst, crt_err **err) {
  yajl_val v = jget(o, a, b);
  if (!v || YAJL_IS_NULL(v)) return 0;
  if (!YAJL_IS_TRUE(v) && !YAJL_IS_FALSE(v)) return crt_error(err, 0, "%s: .%s.%s: expected boolean", name, a, b);
  dst->set = true;
  dst->v = YAJL_IS_TRUE(v);
  return 0;
}

static int jstr(yajl_val o, const char *a, const char *b, const char *name, char **dst, crt_err **err) {
  yajl_val v = jget(o, a, b);
  if (!v || YAJL_IS_NULL(v)) return 0;
  if (!YAJL_IS_STRING(v)) return crt_error(err, 0, "%s: .%s.%s: expected string", name, a, b);
  *dst = strdup(v->u.string);
  return *dst ? 0 : crt_error(err, ENOMEM, "%s", name);
}

/* .devices: [{"allow": bool, "type": "a"|"b"|"c", "major": n, "minor": n, "access": "rwm"}] */
static int parse_devices(yajl_val t, const char *n, crt_resources *r, crt_err **err) {
  yajl_val d = jget(t, "devices", NULL);
  if (!d || YAJL_IS_NULL(d)) return 0;
  if (!YAJL_IS_ARRAY(d)) return crt_error(err, 0, "%s: .devices: expected array", n);
  size_t len = YAJL_GET_ARRAY(d)->len;
  r->devices = calloc(len ? len : 1, sizeof *r->devices);
  if (!r->devices) return crt_error(err, ENOMEM, "%s", n);
  for (size_t i = 0; i < len; i++) {
    yajl_val o = YAJL_GET_ARRAY(d)->values[i];
    crt_device_rule *dr = &r->devices[r->n_devices++];
    if (!YAJL_IS_OBJECT(o)) return crt_error(err, 0, "%s: .devices[%zu]: expected object", n, i);
    yajl_val a = jget(o, "allow", NULL), ty = jget(o, "type", NULL), ac = jget(o, "access", NULL);
    yajl_val mj = jget(o, "major", NULL), mn = jget(o, "minor", NULL);
    if (!a || (!YAJL_IS_TRUE(a) && !YAJL_IS_FALSE(a)))
      return crt_error(err, 0, "%s: .devices[%zu].allow: expected boolean", n, i);
    dr->allow = YAJL_IS_TRUE(a);
    if (ty && !YAJL_IS_NULL(ty)) {
      if (!YAJL_IS_STRING(ty) || (strcmp(ty->u.string, "a") && strcmp(ty->u.string, "b") && strcmp(ty->u.string, "c")))
        return crt_error(err, 0, "%s: .devices[%zu].type: expected \"a\", \"b\" or \"c\"", n, i);
      if (!(dr->type = strdup(ty->u.string))) return crt_error(err, ENOMEM, "%s", n);
    }
    if (ac && !YAJL_IS_NULL(ac)) {
      if (!YAJL_IS_STRING(ac) || !*ac->u.string || strspn(ac->u.string, "rwm") != strlen(ac->u.string))
        return crt_error(err, 0, "%s: .devices[%zu].access: expected a combination of r, w and m", n, i);
      if (!(dr->access = strdup(ac->u.string))) return crt_error(err, ENOMEM, "%s", n);
    }
    yajl_val num[2] = {mj, mn};
    crt_i64 *dst[2] = {&dr->major, &dr->minor};
    static const char *const nm[2] = {"major", "minor"};
    for (int k = 0; k < 2; k++) {
      if (!num[k] || YAJL_IS_NULL(num[k])) continue;
      if (!YAJL_IS_INTEGER(num[k])) return crt_error(err, 0, "%s: .devices[%zu].%s: expected integer", n, i, nm[k]);
      dst[k]->set = true;
      dst[k]->v = YAJL_GET_INTEGER(num[k]);
    }
  }
  return 0;
}

static int parse_res(yajl_val t, const char *n, crt_resources *r, crt_err **err) {
  __typeof__(r->memory) *m = &r->memory;
  __typeof__(r->cpu) *c = &r->cpu;
  if (jint(t, "memory", "limit", n, &m->limit, err) || jint(t, "memory", "reservation", n, &m->reservation, err) ||
      jint(t, "memory", "swap", n, &m->swap, err) || jint(t, "memory", "kernel", n, &m->kernel, err) ||
      jint(t, "memory", "kernelTCP", n, &m->kernel_tcp, err) ||
      juint(t, "memory", "swappiness", n, &m->swappiness, err) ||
      jbool(t, "memory", "disableOOMKiller", n, &m->disable_oom_killer, err) ||
      jbool(t, "memory", "useHierarchy", n, &m->use_hierarchy, err) ||
      jbool(t, "memory", "checkBeforeUpdate", n, &m->check_before_update, err))
    return -1;
  if (juint(t, "cpu", "shares", n, &c->shares, err) || jint(t, "cpu", "quota", n, &c->quota, err) ||
      juint(t, "cpu", "period", n, &c->period, err) || juint(t, "cpu", "burst", n, &c->burst, err) ||
      jint(t, "cpu", "realtimeRuntime", n, &c->realtime_runtime, err) ||
      juint(t, "cpu", "realtimePeriod", n, &c->realtime_period, err) || jint(t, "cpu", "idle", n, &c->idle, err) ||
      jstr(t, "cpu", "cpus", n, &c->cpus, err) || jstr(t, "cpu", "mems", n, &c->mems, err))
    return -1;
  if (juint(t, "blockIO", "weight", n, &r->blkio.weight, err) || jint(t, "pids", "limit", n, &r->pids.limit, err) ||
      parse_devices(t, n, r, err))
    return -1;
  yajl_val u = jget(t, "unified", NULL);
  if (u && YAJL_IS_OBJECT(u)) {
    size_t len = YAJL_GET_OBJECT(u)->len;
    r->unified.v = calloc(len ? len : 1, sizeof *r->unified.v);
    if (!r->unified.v) return crt_error(err, ENOMEM, "%s", n);
    for (size_t i = 0; i < len; i++) {
      yajl_val v = YAJL_GET_OBJECT(u)->values[i];
      if (!YAJL_IS_STRING(v))
        return crt_error(err, 0, "%s: .unified.%s: expected string", n, YAJL_GET_OBJECT(u)->keys[i]);
      r->unified.v[i].key = strdup(YAJL_GET_OBJECT(u)->keys[i]);
      r->unified.v[i].value = strdup(v->u.string);
      r->unified.len++;
    }
  }
  return 0;
}

int crt_cgroup_parse_resources_json(const char *buf, const char *name, crt_resources *r, crt_err **err) {
  memset(r, 0, sizeof *r);
  char ebuf[256] = "";
  yajl_val t = yajl_tree_parse(buf, ebuf, sizeof ebuf);
  if (!t) return crt_error(err, 0, "%s: invalid JSON: %s", name, ebuf);
  int rc = YAJL_IS_OBJECT(t) ? parse_res(t, name, r, err) : crt_error(err, 0, "%s: expected an object", name);
  yajl_tree_free(t);
  if (rc < 0) crt_cgroup_resources_clear(r);
  return rc;
}

void crt_cgroup_resources_clear(crt_resources *r) {
  free(r->cpu.cpus);
  free(r->cpu.mems);
  for (size_t i = 0; i < r->unified.len; i++) {
    free(r->unified.v[i].key);
    free(r->unified.v[i].value);
  }
  free(r->unified.v);
  for (size_t i = 0; i < r->n_devices; i++) {
    free(r->devices[i].type);
    free(r->devices[i].access);
  }
  free(r->devices);
  memset(r, 0, sizeof *r);
}

/* Removes dir and its parents up to first_made, the first one we created. */
void cg_undo_mkdir(const char *dir, const char *first_made) {
  if (!first_made) return;
  char buf[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", dir);
  size_t stop = strlen(first_made);
  for (;;) {
    rmdir(buf);
    if (strlen(buf) <= stop) break;
    char *s = strrchr(buf, '/');
    if (!s) break;
    *s = 0;
  }
}
