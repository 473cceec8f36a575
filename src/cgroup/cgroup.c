/* cgroups: the handle.  Opened with the driver for its root's layout (or
 * its systemd wrapper), it dispatches every operation through it; the
 * operations that work the same way on every hierarchy (join, destroy,
 * pids, kill, freeze) are written here once over the driver's
 * directories.  Files, paths, device rules, stats and the mode are in the
 * helper files below the drivers (cgroup_internal.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_internal.h"
#include "crt/log.h"
#include "crt/procinfo.h"
#include "crt/rootless.h"
#include "crt/str.h"
#include "../util/testpoint.h"

/* ---- the handle ---- */

/* The mode decides nothing but this choice: every operation goes through
 * the driver chosen here. */
static const cg_driver *driver_for(enum crt_cgroup_mode mode) {
  switch (mode) {
  case CRT_CGROUP_MODE_V2:
    return &cg_driver_v2;
  case CRT_CGROUP_MODE_HYBRID:
    return &cg_driver_hybrid;
  default:
    return &cg_driver_v1;
  }
}

int crt_cgroup_open(const crt_cgroup_root *root, const char *path, bool systemd, crt_cgroup **out, crt_err **err) {
  crt_cgroup *cg = calloc(1, sizeof *cg);
  *out = NULL;
  if (!cg || !(cg->root_dir = strdup(root->dir)) || !(cg->path = strdup(path ? path : ""))) {
    crt_cgroup_close(cg);
    return crt_error(err, ENOMEM, "cgroup");
  }
  cg->root = *root;
  cg->root.dir = cg->root_dir;
  cg->fs = *driver_for(root->mode);
  cg->fs.root = &cg->root;
  cg->systemd = systemd;
  if (systemd) cg_systemd_wrap(&cg->drv, &cg->fs);
  else cg->drv = cg->fs;
  *out = cg;
  return 0;
}

void crt_cgroup_close(crt_cgroup *cg) {
  if (!cg) return;
  free(cg->root_dir);
  free(cg->path);
  free(cg);
}

const char *crt_cgroup_path(const crt_cgroup *cg) { return cg ? cg->path : ""; }

enum crt_cgroup_mode crt_cgroup_mode(const crt_cgroup *cg) { return cg->root.mode; }

/* No handle, or one without a cgroup: every operation does nothing. */
static bool none(const crt_cgroup *cg) { return !cg || !*cg->path; }

int crt_cgroup_stop_unit(const crt_cgroup *cg, crt_err **err) {
  if (none(cg) || !cg->drv.stop) return 0;
  return cg->drv.stop(&cg->drv, cg->path, err);
}

/* ---- enter / join ---- */

/* As runc's create: a frozen pre-existing cgroup is refused (the init
 * would stop in it and create hang), and so is a non-empty one (runc >=
 * 1.2; 1.1 warned): delete, kill --all and the limits would reach
 * processes that are not the container's. */
int crt_cgroup_check_existing(const crt_cgroup *cg, crt_err **err) {
  if (crt_cgroup_is_frozen(cg) == 1) return crt_error(err, EBUSY, "container's cgroup unexpectedly frozen");
  if (!crt_cgroup_exists(cg)) return 0;
  pid_t *pids = NULL;
  size_t n = 0;
  crt_err *e = NULL;
  if (crt_cgroup_pids(cg, &pids, &n, &e) < 0) crt_err_free(&e); /* raced with its removal */
  free(pids);
  if (n) return crt_error(err, EBUSY, "container's cgroup is not empty: %zu process(es) found", n);
  return 0;
}

/* path (malloc'd, NULL: out of memory) becomes the handle's path, and
 * itself *out: the caller's copy (state.json's). */
static int give_path(crt_cgroup *cg, char *path, char **out, crt_err **err) {
  char *own = path ? strdup(path) : NULL;
  if (!own) {
    free(path);
    return crt_error(err, ENOMEM, "cgroup");
  }
  free(cg->path);
  cg->path = own;
  *out = path;
  return 0;
}

int crt_cgroup_resolve_path(crt_cgroup *cg, const crt_cgroup_config *cfg, char **out, crt_err **err) {
  char *path = NULL;
  if (cg->drv.resolve(&cg->drv, cfg, &path, err) < 0) return -1;
  return give_path(cg, path, out, err);
}

int crt_cgroup_resolve(crt_cgroup *cg, const crt_cgroup_config *cfg, char **out, crt_err **err) {
  int rc = crt_cgroup_resolve_path(cg, cfg, out, err);
  if (rc == 0 && crt_cgroup_check_existing(cg, err) < 0) {
    free(crt_steal(*out));
    cg->path[0] = 0; /* not the container's */
    return -1;
  }
  return rc;
}

int crt_cgroup_enter(crt_cgroup *cg, const crt_cgroup_config *cfg, pid_t pid, char **path_out, crt_err **err) {
  const cg_driver *d = &cg->drv;
  cleanup_free char *path = NULL;
  if (d->resolve(d, cfg, &path, err) < 0) return -1;
  if (d->start && d->start(d, cfg, path, pid, err) < 0) return -1;
  int rc = d->enter(d, cfg, path, pid, err);
  if (rc < 0) return rc;
  /* rc 1: rootless and no hierarchy could be joined */
  return give_path(cg, rc == 1 ? strdup("") : crt_steal(path), path_out, err);
}

bool crt_cgroup_prepares(const crt_cgroup *cg, const crt_cgroup_config *cfg) {
  /* rootless v1: crt_cgroup_enter knows which hierarchies it may go without */
  return cg->drv.prepare && !(cfg->rootless && !cg->drv.v2);
}

bool crt_cgroup_v1_late(const crt_cgroup *cg, const crt_cgroup_config *cfg) {
  return cg->drv.prepare_late && crt_cgroup_prepares(cg, cfg);
}

int crt_cgroup_prepare(crt_cgroup *cg, const crt_cgroup_config *cfg, enum crt_cgroup_prepared *out, int *fd,
                       crt_err **err) {
  const cg_driver *d = &cg->drv;
  *fd = -1;
  *out = CRT_CGROUP_NOT_PREPARED;
  if (!d->prepare || none(cg)) return 0;
  int rc = d->prepare(d, cfg, cg->path, err);
  if (rc < 0) return -1;
  if (rc == 1) { /* rootless, nothing made: nothing to clone into */
    *out = CRT_CGROUP_NONE;
    cg->path[0] = 0;
    return 0;
  }
  *fd = crt_cgroup_dirfd(cg, NULL);
  *out = CRT_CGROUP_PREPARED;
  return 0;
}

int crt_cgroup_configure(const crt_cgroup *cg, const crt_cgroup_config *cfg, crt_err **err) {
  if (none(cg) || !cg->drv.configure) return 0;
  return cg->drv.configure(&cg->drv, cfg, cg->path, err);
}

/* Whether the comma-separated lists a and b (a of n bytes) share a name. */
static bool names_meet(const char *a, size_t n, const char *b) {
  for (const char *x = a, *xe; x < a + n; x = xe + 1) {
    xe = memchr(x, ',', (size_t)(a + n - x));
    if (!xe) xe = a + n;
    for (const char *y = b, *ye; *y; y = *ye ? ye + 1 : ye) {
      ye = strchrnul(y, ',');
      if (ye - y == xe - x && !strncmp(x, y, (size_t)(xe - x))) return true;
    }
  }
  return false;
}

/* exec --cgroup, runc's form: one path (every hierarchy), or lines of
 * "ctrl[,ctrl]:path" (cgroup v1; each named hierarchy its own path; the
 * others the container's cgroup).  hier: a v1 hierarchy's controllers
 * ("cpu,cpuacct"), "" for cgroup2.  A new string, NULL for no sub. */
char *cg_sub_for(const char *spec, const char *hier) {
  if (!spec) return NULL;
  for (const char *l = spec, *le; *l; l = *le ? le + 1 : le) {
    le = strchrnul(l, '\n');
    const char *colon = memchr(l, ':', (size_t)(le - l));
    if (!colon) return strndup(l, (size_t)(le - l));
    if (*hier && names_meet(l, (size_t)(colon - l), hier)) return strndup(colon + 1, (size_t)(le - colon - 1));
  }
  return NULL;
}

/* runc's getSubCgroupPaths refusals, a controller form on a pure cgroup2
 * host or a controller no v1 hierarchy has (runc's newSetnsProcess), and a
 * path that climbs out: runc 1.3's words (" .. is not a sub cgroup path")
 * after runc main's ("bad sub cgroup path"), which exec.bats match. */
int crt_cgroup_sub_check(const crt_cgroup_root *root, const char *spec, crt_err **err) {
  size_t lines = 1;
  for (const char *l = spec; (l = strchr(l, '\n')); l++) lines++;
  const char *names[64];
  size_t lens[64], nn = 0;
  for (const char *l = spec, *le; *l; l = *le ? le + 1 : le) {
    le = strchrnul(l, '\n');
    int n = (int)(le - l);
    const char *colon = memchr(l, ':', (size_t)n), *path = colon ? colon + 1 : l;
    if (!colon && lines > 1)
      return crt_error(err, 0, "invalid --cgroup argument: %.*s (missing <controller>: prefix)", n, l);
    for (const char *c = l, *ce; colon && c <= colon; c = ce + 1) {
      ce = memchr(c, ',', (size_t)(colon - c));
      if (!ce) ce = colon;
      if (ce == c) return crt_error(err, 0, "invalid --cgroup argument: %.*s (empty <controller> prefix)", n, l);
      for (size_t j = 0; j < nn; j++)
        if (lens[j] == (size_t)(ce - c) && !strncmp(names[j], c, lens[j]))
          return crt_error(err, 0, "invalid --cgroup argument(s): controller %.*s specified multiple times", (int)lens[j], c);
      if (nn == 64) return crt_error(err, 0, "invalid --cgroup argument(s): too many controllers");
      /* runc: a pure cgroup2 host has one path, under no controller name */
      if (root->mode == CRT_CGROUP_MODE_V2 || !cg_v1_has_controller(root, c, (size_t)(ce - c)))
        return crt_error(err, 0, "unknown controller %.*s in SubCgroupPaths", (int)(ce - c), c);
      names[nn] = c;
      lens[nn++] = (size_t)(ce - c);
    }
    size_t pn = (size_t)(le - path);
    if (!pn || memmem(path, pn, "..", 2))
      return crt_error(err, 0, "cgroup: bad sub cgroup path: %.*s is not a sub cgroup path of the container's", (int)pn,
                       path);
  }
  return 0;
}

int crt_cgroup_dirfd(const crt_cgroup *cg, const char *sub) {
  if (none(cg) || !cg->fs.open) return -1;
  cleanup_free char *s = cg_sub_for(sub, "");
  return cg->fs.open(&cg->fs, cg->path, s);
}

/* The directory of hierarchy dir for the container (sub: exec --cgroup). */
static char *join_dir(const char *dir, const char *sub) {
  char *d = NULL;
  if (!sub) return strdup(dir);
  return asprintf(&d, "%s/%s", dir, sub) < 0 ? NULL : d;
}

/* cgroup2: the v2 driver's directory, or the hybrid layout's unified one */
static bool dir_is_v2(const cg_driver *drv, const char *dir) {
  if (drv->root->mode == CRT_CGROUP_MODE_V2) return true;
  if (!drv->unified) return false;
  size_t n = strlen(drv->root->dir), u = strlen(drv->unified);
  return strncmp(dir, drv->root->dir, n) == 0 && dir[n] == '/' && strncmp(dir + n + 1, drv->unified, u) == 0 &&
         (dir[n + 1 + u] == '/' || dir[n + 1 + u] == 0);
}

/* The controllers of the v1 hierarchy dir lies in ("" for cgroup2). */
static const char *hier_of(const cg_driver *drv, const char *dir, char *buf, size_t n) {
  size_t r = strlen(drv->root->dir);
  if (dir_is_v2(drv, dir) || strncmp(dir, drv->root->dir, r) || dir[r] != '/') return "";
  /* hierarchy names are short ("cpu,cpuacct"): a longer one is none of ours */
  return crt_fmt(buf, n, "%.*s", (int)strcspn(dir + r + 1, "/"), dir + r + 1) < 0 ? "" : buf;
}

/* Whether pid already sits in the cgroup2 cgroup rel (cloned into it). */
static bool v2_member(const crt_cgroup_root *root, pid_t pid, const char *path, const char *sub) {
  if (root->foreign) return false; /* /proc/PID/cgroup does not describe it */
  char rel[PATH_MAX];
  if (crt_fmt(rel, sizeof rel, "%s%s%s", path, sub ? "/" : "", sub ? sub : "") < 0) return false;
  cleanup_free char *cur = crt_proc_cgroup_path(pid, "");
  return cur && strcmp(cur, rel) == 0;
}

void crt_cgroup_tasks_free(crt_cgroup_tasks *t) {
  for (size_t i = 0; i < t->n; i++) {
    if (t->fds[i] >= 0) close(t->fds[i]);
    free(t->dirs[i]);
  }
  free(t->fds);
  free(t->dirs);
  *t = (crt_cgroup_tasks){0};
}

int crt_cgroup_open_tasks(const crt_cgroup *cg, crt_cgroup_tasks *t, crt_err **err) {
  *t = (crt_cgroup_tasks){0};
  const cg_driver *drv = &cg->fs;
  if (none(cg) || drv->v2) return 0;
  char **dirs = drv->dirs(drv, cg->path);
  size_t n = 0;
  while (dirs && dirs[n]) n++;
  t->fds = calloc(n + 1, sizeof *t->fds);
  t->dirs = calloc(n + 1, sizeof *t->dirs);
  int rc = dirs && t->fds && t->dirs ? 0 : crt_error(err, ENOMEM, "cgroup");
  for (size_t i = 0; rc == 0 && i < n; i++) {
    if (dir_is_v2(drv, dirs[i])) continue;
    char f[PATH_MAX];
    if (crt_pathf(f, sizeof f, err, "%s/tasks", dirs[i]) < 0) {
      rc = crt_error_wrap(err, "cgroup: open tasks");
      break;
    }
    int fd = open(f, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      rc = crt_error(err, errno, "cgroup: open %s", f);
      break;
    }
    t->fds[t->n] = fd;
    /* a copy: cg_strv_free stops at the first NULL a steal would leave */
    if (!(t->dirs[t->n++] = strdup(dirs[i]))) rc = crt_error(err, ENOMEM, "cgroup");
  }
  cg_strv_free(dirs);
  if (rc < 0) crt_cgroup_tasks_free(t);
  return rc;
}

int crt_cgroup_prepare_v1(const crt_cgroup *cg, const crt_cgroup_config *cfg, crt_cgroup_tasks *t, crt_err **err) {
  const cg_driver *d = &cg->drv;
  *t = (crt_cgroup_tasks){0};
  if (!d->prepare_late || none(cg)) return 0;
  if (d->prepare_late(d, cfg, cg->path, err) < 0) return -1;
  return crt_cgroup_open_tasks(cg, t, err);
}

int crt_cgroup_tasks_join(crt_cgroup_tasks *t, crt_err **err) {
  int rc = 0;
  for (size_t i = 0; i < t->n; i++) {
    if (rc == 0 && write(t->fds[i], "0", 1) != 1) rc = crt_error(err, errno, "cgroup: join %s", t->dirs[i]);
    close(t->fds[i]);
    t->fds[i] = -1;
  }
  return rc;
}

/* One hierarchy's move: pid 0 is the calling thread ("0"; v1's tasks file
 * moves it without the threadgroup lock), else pid into cgroup.procs. */
static int join_one(const char *d, pid_t pid, bool v2, crt_err **err) {
  if (pid) return cg_move(d, pid, err);
  if (cg_write(d, v2 ? "cgroup.procs" : "tasks", "0", err) < 0) return crt_error_wrap(err, "join %s", d);
  return 0;
}

/* exec's way in on pure cgroup2 when the container's cgroup cannot take
 * the process (as runc's setnsProcess): gone (the init moved itself
 * elsewhere and the empty cgroup was removed, by systemd or by hand), or
 * EBUSY (the init moved to a sub-cgroup and enabled controllers in the
 * container's cgroup: v2's "no internal processes").  The process then
 * joins the init's current cgroup, never stays in the caller's.  Not with
 * exec --cgroup, which names the one cgroup wanted; rootless failures are
 * join_each's to ignore. */
static bool init_fallback(const crt_cgroup *cg, const char *sub, pid_t init) {
  return init > 0 && !sub && cg->root.mode == CRT_CGROUP_MODE_V2 && !cg->root.foreign && !crt_rootless();
}

/* pid (0: the caller) into the init's cgroup2 cgroup, read from
 * /proc/INIT/cgroup in our cgroup namespace (the host's cgroupfs paths).
 * *err holds why the container's cgroup failed; on failure the fallback's
 * error follows it. */
static int join_init_cgroup(const crt_cgroup *cg, pid_t pid, pid_t init, crt_err **err) {
  cleanup_free char *rel = crt_proc_cgroup_path(init, "");
  if (!rel) return crt_error_wrap(err, "the container's init (pid %d) is in no cgroup2 cgroup either", (int)init);
  char d[PATH_MAX];
  cleanup_err crt_err *e = NULL;
  if (crt_pathf(d, sizeof d, &e, "%s%s", cg->root.dir, strcmp(rel, "/") ? rel : "") >= 0 &&
      join_one(d, pid, true, &e) == 0) {
    crt_err_free(err);
    return 0;
  }
  crt_error(err, 0, "%s; the init's cgroup %s: %s", (*err)->msg, rel, e->msg);
  (*err)->errnum = e->errnum;
  return -1;
}

/* One hierarchy's directory d (s: the sub-cgroup in it, or NULL; first:
 * the main hierarchy) for join_each. */
static int join_hier(const crt_cgroup *cg, const char *d, const char *sub, const char *s, bool first, bool v2,
                     pid_t pid, pid_t init, crt_err **err) {
  if (access(d, F_OK) != 0) {
    /* a missing sub-cgroup on the main hierarchy is an error */
    if (s && (first || strchr(sub, ':'))) return crt_error(err, ENOENT, "cgroup: sub-cgroup %s", d);
    /* v1 hierarchies we could not create in (rootless), and a sub-cgroup
     * on another hierarchy, are skipped */
    if (s || crt_rootless() || !init) return 0;
    /* exec: the container's own cgroup is gone; never the caller's instead */
    crt_error(err, ENOENT, "cgroup: %s", d);
    return v2 && init_fallback(cg, sub, init) ? join_init_cgroup(cg, pid, init, err) : -1;
  }
  crt_err *e = NULL;
  if (join_one(d, pid, v2, &e) == 0) return 0;
  if (pid && cg_perm_error(e->errnum) && crt_rootless()) {
    crt_err_free(&e);
    return 0;
  }
  crt_err_move(err, &e);
  return v2 && init_fallback(cg, sub, init) ? join_init_cgroup(cg, pid, init, err) : -1;
}

/* The container's cgroup (and sub) on every hierarchy, except: for pid 0,
 * the cgroup2 one unless cgroup2; for another pid, the cgroup2 one it was
 * cloned into and the v1 ones when v1_joined.  init: exec's fallback
 * (init_fallback), 0 for none. */
static int join_each(const crt_cgroup *cg, const char *sub, pid_t pid, bool v1_joined, bool cgroup2, pid_t init,
                     crt_err **err) {
  if (none(cg)) return 0;
  if (sub && crt_cgroup_sub_check(&cg->root, sub, err) < 0) return -1;
  const cg_driver *drv = &cg->fs;
  const char *path = cg->path;
  char **dirs = drv->dirs(drv, path);
  if (!dirs) return crt_error(err, ENOMEM, "cgroup: join");
  int rc = 0;
  for (size_t i = 0; dirs[i] && rc == 0; i++) {
    bool v2 = dir_is_v2(drv, dirs[i]);
    char hb[256];
    cleanup_free char *s = cg_sub_for(sub, hier_of(drv, dirs[i], hb, sizeof hb));
    if (pid ? (v2 ? v2_member(drv->root, pid, path, s) : v1_joined) : (v2 && !cgroup2)) continue;
    cleanup_free char *d = join_dir(dirs[i], s);
    rc = d ? join_hier(cg, d, sub, s, i == 0, v2, pid, init, err) : crt_error(err, ENOMEM, "cgroup: join");
  }
  cg_strv_free(dirs);
  return rc;
}

int crt_cgroup_join(const crt_cgroup *cg, const char *sub, pid_t pid, bool v1_joined, crt_err **err) {
  return join_each(cg, sub, pid, v1_joined, true, 0, err);
}

int crt_cgroup_join_self(const crt_cgroup *cg, const char *sub, bool cgroup2, pid_t init, crt_err **err) {
  return join_each(cg, sub, 0, false, cgroup2, init, err);
}

int crt_cgroup_exec_join(const crt_cgroup *cg, const char *sub, pid_t pid, bool v1_joined, pid_t init,
                         crt_err **err) {
  return join_each(cg, sub, pid, v1_joined, true, init, err);
}

/* ---- destroy ---- */

int crt_cgroup_destroy(const crt_cgroup *cg, crt_err **err) {
  if (none(cg) || strcmp(cg->path, "/") == 0) return 0;
  char **dirs = cg->fs.dirs(&cg->fs, cg->path);
  if (!dirs) return crt_error(err, ENOMEM, "cgroup: destroy");
  int rc = cg_remove_dirs(dirs, err);
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
    long pid;
    if (crt_parse_long(t, 1, INT_MAX, &pid) < 0) return crt_error(err, EINVAL, "cgroup: %s/cgroup.procs: \"%s\" is no pid", dir, t);
    (*pids)[(*n)++] = (pid_t)pid;
  }
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  int rc = 0;
  while (rc == 0 && (e = readdir(d))) {
    if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char sub[PATH_MAX];
    rc = crt_pathf(sub, sizeof sub, err, "%s/%s", dir, e->d_name);
    if (rc >= 0) rc = collect_pids(sub, pids, n, err);
  }
  closedir(d);
  return rc;
}

bool crt_cgroup_exists(const crt_cgroup *cg) {
  if (none(cg)) return false;
  cleanup_free char *dir = cg->fs.procs_dir(&cg->fs, cg->path);
  return dir && access(dir, F_OK) == 0;
}

int crt_cgroup_pids(const crt_cgroup *cg, pid_t **pids, size_t *n, crt_err **err) {
  *pids = NULL;
  *n = 0;
  if (none(cg)) return 0;
  cleanup_free char *dir = cg->fs.procs_dir(&cg->fs, cg->path);
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

/* A foreign tree holds no process: its cgroup.procs files say who is in. */
static int has_pid_listed(const crt_cgroup *cg, pid_t pid) {
  char **dirs = cg->fs.dirs(&cg->fs, cg->path);
  if (!dirs) return -1;
  int found = -1; /* nothing readable: cannot tell */
  for (size_t i = 0; dirs[i] && found != 1; i++) {
    pid_t *pids = NULL;
    size_t n = 0;
    crt_err *e = NULL;
    if (collect_pids(dirs[i], &pids, &n, &e) < 0) {
      crt_err_free(&e);
      free(pids);
      continue;
    }
    found = has_pid(pids, n, pid) ? 1 : 0;
    free(pids);
  }
  cg_strv_free(dirs);
  return found;
}

/* One read of /proc/<pid>/cgroup (its paths are in the form state.json
 * keeps), not a walk of every hierarchy's cgroup.procs: `list` asks this
 * for every container. */
int crt_cgroup_has_pid(const crt_cgroup *cg, pid_t pid) {
  if (none(cg)) return -1;
  if (cg->root.foreign) return has_pid_listed(cg, pid);
  const char *path = cg->path;
  crt_proc_cgroup *v = NULL;
  size_t n = 0;
  crt_err *e = NULL;
  if (crt_proc_cgroup_read(pid, &v, &n, &e) < 0) {
    crt_err_free(&e);
    return -1;
  }
  size_t len = strlen(path);
  int found = 0;
  for (size_t i = 0; i < n && !found; i++)
    found = strncmp(v[i].path, path, len) == 0 && (v[i].path[len] == 0 || v[i].path[len] == '/');
  crt_proc_cgroup_free(v, n);
  /* no cgroup made (rootless) or gone: nothing to compare with */
  if (!found && !crt_cgroup_exists(cg)) return -1;
  return found;
}

/* SIGKILL without a freeze: a task with a fatal signal pending cannot fork
 * (copy_process fails), so passes over cgroup.procs until one finds no new
 * pid catch every child forked before its parent got the signal.  A freeze
 * here would outlive a crt killed midway (delete --force) and leave the
 * container "paused" with the signal pending. */
static int kill_all_sigkill(const crt_cgroup *cg, crt_err **err) {
  pid_t *seen = NULL;
  size_t nseen = 0;
  int rc = 0;
  for (int pass = 0; pass < 100 && rc == 0; pass++) {
    pid_t *pids = NULL;
    size_t n = 0, fresh = 0;
    rc = crt_cgroup_pids(cg, &pids, &n, err);
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
static int kill_all_frozen(const crt_cgroup *cg, int sig, crt_err **err) {
  crt_err *e = NULL;
  bool froze = crt_cgroup_freeze(cg, true, &e) == 0; /* no freezer: signal unfrozen */
  crt_err_free(&e);
  pid_t *pids = NULL;
  size_t n = 0;
  int rc = crt_cgroup_pids(cg, &pids, &n, err);
  for (size_t i = 0; rc == 0 && i < n; i++)
    if (kill(pids[i], sig) < 0 && errno != ESRCH) rc = crt_error(err, errno, "cgroup: kill %d", (int)pids[i]);
  free(pids);
  if (froze && crt_cgroup_freeze(cg, false, &e) < 0 && rc == 0) {
    crt_err_move(err, &e);
    return -1;
  }
  crt_err_free(&e);
  return rc;
}

int crt_cgroup_kill(const crt_cgroup *cg, int sig, crt_err **err) {
  if (none(cg)) return 0;
  const cg_driver *d = &cg->fs;
  if (sig == SIGKILL && d->kill_all) {
    int rc = d->kill_all(d, cg->path, err);
    if (rc <= 0) return rc;
  }
  if (sig != SIGKILL) return kill_all_frozen(cg, sig, err);
  bool was_frozen = crt_cgroup_is_frozen(cg) == 1;
  int rc = kill_all_sigkill(cg, err);
  /* a paused container is thawed so that the kill takes effect (runc) */
  crt_err *e = NULL;
  if (was_frozen && crt_cgroup_freeze(cg, false, &e) < 0 && rc == 0) {
    crt_err_move(err, &e);
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

int crt_cgroup_freeze(const crt_cgroup *cg, bool freeze, crt_err **err) {
  if (none(cg)) return crt_error(err, ENOENT, "cgroup: the container has no cgroup to freeze");
  const cg_driver *d = &cg->fs;
  cleanup_free char *dir = d->freezer_dir(d, cg->path);
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

char *crt_cgroup_freezer_root(const crt_cgroup_root *root) {
  cg_driver d = *driver_for(root->mode);
  d.root = root;
  return d.freezer_dir(&d, "");
}

char *crt_cgroup_freezer_dir(const crt_cgroup *cg) {
  if (none(cg)) return NULL;
  return cg->fs.freezer_dir(&cg->fs, cg->path);
}

int crt_cgroup_is_frozen(const crt_cgroup *cg) {
  if (none(cg)) return 0;
  const cg_driver *d = &cg->fs;
  cleanup_free char *dir = d->freezer_dir(d, cg->path);
  if (!dir) return -1;
  /* v2: cgroup.freeze is the requested state; "frozen" in cgroup.events
   * the reached one.  No file (no cgroup, no freezer): not frozen. */
  int st = d->frozen(dir);
  return st < 0 ? 0 : st;
}

/* ---- stats ---- */

int crt_cgroup_get_stats(const crt_cgroup *cg, crt_cgroup_stats *st, crt_err **err) {
  memset(st, 0, sizeof *st);
  if (none(cg)) return crt_error(err, ENOENT, "cgroup: the container has no cgroup");
  int rc = cg->fs.stats(&cg->fs, cg->path, st);
  if (rc < 0) {
    crt_cgroup_stats_free(st);
    return crt_error(err, ENOMEM, "cgroup: stats of %s", cg->path);
  }
  return 0;
}

/* ---- OOM notifications ---- */

int crt_cgroup_oom_fd(const crt_cgroup *cg, crt_err **err) {
  if (none(cg)) return crt_error(err, ENOENT, "cgroup: the container has no cgroup");
  return cg->fs.oom_fd(&cg->fs, cg->path, err);
}

int crt_cgroup_oom_read(const crt_cgroup *cg, int fd, unsigned long long *last) {
  if (none(cg)) return -1;
  return cg->fs.oom_read(&cg->fs, cg->path, fd, last);
}
