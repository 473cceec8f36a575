/* cgroups: mode detection, path resolution and the operations that work the
 * same way on every hierarchy (join, destroy, pids, kill, freeze). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>


#include "cgroup_internal.h"
#include "crt/fs.h"
#include "crt/log.h"
#include "crt/testpoint.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static const char *override_root;
static enum crt_cgroup_mode override_mode;

static const cg_driver *chosen;

void crt_cgroup_set_root(const char *root, enum crt_cgroup_mode mode) {
  override_root = root;
  override_mode = mode;
  chosen = NULL;
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

/* The only place the mode decides anything: every operation goes through
 * the driver chosen here. */
const cg_driver *cg_drv(void) {
  if (!chosen) {
    enum crt_cgroup_mode m = crt_cgroup_mode();
    chosen = m == CRT_CGROUP_MODE_V2 ? &cg_driver_v2 : m == CRT_CGROUP_MODE_HYBRID ? &cg_driver_hybrid : &cg_driver_v1;
  }
  return chosen;
}

const cg_driver *cg_drv_for(bool systemd) {
  static cg_driver sd;
  static const cg_driver *sd_base;
  if (!systemd) return cg_drv();
  if (sd_base != cg_drv()) {
    sd_base = cg_drv();
    cg_systemd_wrap(&sd, sd_base);
  }
  return &sd;
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
int cg_fs_resolve(const crt_cgroup_config *cfg, char **out, crt_err **err) {
  const char *p = cfg->spec && cfg->spec->linux_ ? cfg->spec->linux_->cgroups_path : NULL;
  if (!p || !*p) p = cfg->id;
  if (!p || !*p) return crt_error(err, EINVAL, "cgroup: no container id");
  cleanup_free char *base = NULL;
  if (*p == '/')
    base = strdup("/");
  else if (cg_root_is_test())
    base = strdup("/"); /* a test tree: the caller's cgroup means nothing there */
  else
    base = own_cgroup(cg_drv()->own_key);
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

int crt_cgroup_stop_unit(const char *path, crt_err **err) {
  const cg_driver *d = cg_drv_for(true);
  if (!path || !*path || !d->stop) return 0;
  return d->stop(path, err);
}

char *crt_cgroup_dir(const char *path, const char *controller) { return cg_drv()->dir(path, controller); }

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
  int rc = cg_drv_for(cfg->systemd)->resolve(cfg, out, err);
  if (rc == 0 && check_existing(*out, err) < 0) {
    free(crt_steal(*out));
    return -1;
  }
  return rc;
}

int crt_cgroup_enter(const crt_cgroup_config *cfg, pid_t pid, char **path_out, crt_err **err) {
  const cg_driver *d = cg_drv_for(cfg->systemd);
  cleanup_free char *path = NULL;
  if (d->resolve(cfg, &path, err) < 0) return -1;
  if (d->start && d->start(cfg, path, pid, err) < 0) return -1;
  int rc = d->enter(cfg, path, pid, err);
  if (rc < 0) return rc;
  /* rc 1: rootless and no hierarchy could be joined */
  *path_out = rc == 1 ? strdup("") : crt_steal(path);
  if (!*path_out) return crt_error(err, ENOMEM, "cgroup");
  return 0;
}

int crt_cgroup_prepare(const crt_cgroup_config *cfg, const char *path, enum crt_cgroup_prepared *out, int *fd,
                       crt_err **err) {
  const cg_driver *d = cg_drv_for(cfg->systemd);
  *fd = -1;
  *out = CRT_CGROUP_NOT_PREPARED;
  if (!d->prepare || !path || !*path) return 0;
  int rc = d->prepare(cfg, path, err);
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
  const cg_driver *d = cg_drv_for(cfg->systemd);
  if (!path || !*path || !d->configure) return 0;
  return d->configure(cfg, path, err);
}

int crt_cgroup_open(const char *path, const char *sub) {
  if (!path || !*path || !cg_drv()->open) return -1;
  return cg_drv()->open(path, sub);
}

int crt_cgroup_join(const char *path, const char *sub, pid_t pid, crt_err **err) {
  if (!path || !*path) return 0;
  if (sub && (strstr(sub, "..") || *sub == 0)) return crt_error(err, EINVAL, "cgroup: %s is not a sub cgroup path of the container's", sub);
  if (!override_root && cg_drv()->member) {
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%s%s%s", path, sub ? "/" : "", sub ? sub : "");
    if (cg_drv()->member(pid, rel)) return 0;
  }
  char **dirs = cg_drv()->dirs(path);
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
  char **dirs = cg_drv()->dirs(path);
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
  cleanup_free char *dir = cg_drv()->procs_dir(path);
  return dir && access(dir, F_OK) == 0;
}

int crt_cgroup_pids(const char *path, pid_t **pids, size_t *n, crt_err **err) {
  *pids = NULL;
  *n = 0;
  if (!path || !*path) return 0;
  cleanup_free char *dir = cg_drv()->procs_dir(path);
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
  if (sig == SIGKILL && cg_drv()->kill_all) {
    int rc = cg_drv()->kill_all(path, err);
    if (rc <= 0) return rc;
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

int crt_cgroup_freeze(const char *path, bool freeze, crt_err **err) {
  if (!path || !*path) return crt_error(err, ENOENT, "cgroup: the container has no cgroup to freeze");
  const cg_driver *d = cg_drv();
  cleanup_free char *dir = d->freezer_dir(path);
  if (!dir) return crt_error(err, ENOMEM, "cgroup: freeze");
  const char *val = freeze ? d->freeze_on : d->freeze_off;
  /* ~5 s: v1 may stay FREEZING while a task is in an uninterruptible sleep;
   * writing again retries the freeze. */
  for (int i = 0; i < 1000; i++) {
    if (i % 50 == 0 && cg_write(dir, d->freeze_file, val, err) < 0) return -1;
    int st = d->frozen(dir);
    if (st < 0) return crt_error(err, errno, "cgroup: read %s/%s", dir, d->frozen_file);
    if (st == (freeze ? 1 : 0)) return 0;
    sleep_ms(5);
  }
  return crt_error(err, ETIMEDOUT, "cgroup: %s %s", freeze ? "freeze" : "thaw", dir);
}

int crt_cgroup_is_frozen(const char *path) {
  if (!path || !*path) return 0;
  cleanup_free char *dir = cg_drv()->freezer_dir(path);
  if (!dir) return -1;
  if (access(dir, F_OK) != 0) return 0;
  /* v2: cgroup.freeze is the requested state; "frozen" in cgroup.events the reached one. */
  int st = cg_drv()->frozen(dir);
  return st < 0 ? 0 : st;
}

/* ---- stats ---- */

unsigned long long cg_rd(const char *dir, const char *file) {
  unsigned long long v = 0;
  if (cg_read_u64(dir, file, &v) < 0 || v == UINT64_MAX) return 0;
  return v;
}

/* A "key value" per line file (memory.stat, cpu.stat); value of key or 0. */
unsigned long long cg_kv_get(const char *s, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (strncmp(p, key, kl) == 0 && p[kl] == ' ') return strtoull(p + kl + 1, NULL, 10);
  return 0;
}

int cg_kv_all(const char *s, crt_cgroup_stat_kv **out, size_t *n) {
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

int cg_push_io(crt_cgroup_blkio_entry **v, size_t *n, unsigned maj, unsigned min, const char *op,
                   unsigned long long val) {
  crt_cgroup_blkio_entry *nv = realloc(*v, (*n + 1) * sizeof **v);
  if (!nv) return -1;
  *v = nv;
  nv[*n] = (crt_cgroup_blkio_entry){maj, min, strdup(op), val};
  return nv[(*n)++].op ? 0 : -1;
}

/* Page sizes from hugetlb.<size>.<suffix> file names. */
int cg_hugetlb_stats(const char *dir, bool v2, crt_cgroup_stats *st) {
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
    h->usage = cg_rd(dir, f);
    if (v2) {
      snprintf(f, sizeof f, "hugetlb.%s.events", size);
      cleanup_free char *ev = cg_read(dir, f);
      h->failcnt = ev ? cg_kv_get(ev, "max") : 0;
    } else {
      snprintf(f, sizeof f, "hugetlb.%s.max_usage_in_bytes", size);
      h->max = cg_rd(dir, f);
      snprintf(f, sizeof f, "hugetlb.%s.failcnt", size);
      h->failcnt = cg_rd(dir, f);
    }
    if (!h->pagesize) rc = -1;
  }
  closedir(d);
  return rc;
}

int crt_cgroup_get_stats(const char *path, crt_cgroup_stats *st, crt_err **err) {
  memset(st, 0, sizeof *st);
  if (!path || !*path) return crt_error(err, ENOENT, "cgroup: the container has no cgroup");
  int rc = cg_drv()->stats(path, st);
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
  return cg_drv()->oom_fd(path, err);
}

int crt_cgroup_oom_read(const char *path, int fd, unsigned long long *last) { return cg_drv()->oom_read(path, fd, last); }

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
