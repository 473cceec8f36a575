/* checkpoint: the container's processes dumped by `criu dump` into an image
 * directory, with a description (crt-checkpoint.txt) of what restore must
 * reconnect: stdio pipes, the terminal, external mounts, a joined network
 * namespace.  Restore is restore.c. */
#define _GNU_SOURCE
#include "crt/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/magic.h>

#include "crt/cgroup.h"
#include "crt/state.h"
#include "crt/criu.h"
#include "crt/fs.h"
#include "crt/lifecycle.h"
#include "crt/log.h"
#include "crt/ops.h"
#include "crt/procinfo.h"
#include "crt/resolve.h"
#include "crt/str.h"

/* ---- the description file: one tab-separated record a line ---- */

static bool field_ok(const char *s) { return s && !strpbrk(s, "\t\n"); }

static int desc_text(const crt_ckpt_desc *d, char **out) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return -1;
  fprintf(f, "id\t%s\n", d->id);
  for (int i = 0; i < 3; i++)
    if (d->stdio[i]) fprintf(f, "stdio\t%d\t%s\n", i, d->stdio[i]);
  if (d->tty) fprintf(f, "tty\t%s\n", d->tty);
  if (d->ext_netns) fprintf(f, "netns\textRootNetNS\n");
  for (size_t i = 0; i < d->n_mounts; i++)
    fprintf(f, "mount\t%s\t%s\t%s\n", d->mounts[i].kind, d->mounts[i].key, d->mounts[i].arg);
  if (fclose(f) != 0) {
    free(buf);
    return -1;
  }
  *out = buf;
  return 0;
}

int crt_ckpt_desc_save(const char *dir, const crt_ckpt_desc *d, crt_err **err) {
  cleanup_free char *text = NULL, *path = NULL;
  if (desc_text(d, &text) < 0 || asprintf(&path, "%s/%s", dir, CRT_CKPT_DESC) < 0)
    return crt_error(err, ENOMEM, "checkpoint description");
  return crt_write_file_atomic(path, text, strlen(text), 0600, err);
}

/* A record restore may act on: a cgroup record names a hierarchy (one
 * path component: restore binds /sys/fs/cgroup/NAME/<cgroup>), a console
 * record is /dev/console; bind records must match the bundle's mounts. */
static bool mount_record_ok(const char *kind, const char *key, const char *arg) {
  if (key[0] != '/') return false;
  if (!strcmp(kind, "bind")) return true;
  if (!strcmp(kind, "console")) return !strcmp(key, "/dev/console");
  if (!strcmp(kind, "devpts")) return !strcmp(key, "/dev/pts");
  if (strcmp(kind, "cgroup")) return false;
  return !strchr(arg, '/') && strcmp(arg, ".") && strcmp(arg, "..");
}

static int desc_mount(crt_ckpt_desc *d, char **f, int nf) {
  if (nf != 4 || !mount_record_ok(f[1], f[2], f[3])) return -1;
  crt_ckpt_mount *m = realloc(d->mounts, (d->n_mounts + 1) * sizeof *m);
  if (!m) return -1;
  d->mounts = m;
  m += d->n_mounts;
  *m = (crt_ckpt_mount){strdup(f[1]), strdup(f[2]), strdup(f[3])};
  d->n_mounts++;
  return m->kind && m->key && m->arg ? 0 : -1;
}

/* One line, split on tabs in place (empty fields kept). */
static int desc_line(crt_ckpt_desc *d, char *line) {
  char *f[5];
  int nf = 0;
  for (char *t; nf < 5 && (t = strsep(&line, "\t"));) f[nf++] = t;
  if (line) return -1; /* more fields than any record has */
  if (nf == 0) return 0;
  if (!strcmp(f[0], "id") && nf == 2 && !d->id) return (d->id = strdup(f[1])) ? 0 : -1;
  if (!strcmp(f[0], "tty") && nf == 2 && !d->tty) return (d->tty = strdup(f[1])) ? 0 : -1;
  if (!strcmp(f[0], "netns") && nf == 2) return (d->ext_netns = true) ? 0 : -1;
  if (!strcmp(f[0], "mount")) return desc_mount(d, f, nf);
  if (!strcmp(f[0], "stdio") && nf == 3) {
    long i;
    if (crt_parse_long(f[1], 0, 2, &i) < 0 || d->stdio[i]) return -1;
    return (d->stdio[i] = strdup(f[2])) ? 0 : -1;
  }
  return -1;
}

int crt_ckpt_desc_load(const char *dir, crt_ckpt_desc *d, crt_err **err) {
  *d = (crt_ckpt_desc){0};
  cleanup_free char *path = NULL, *buf = NULL;
  if (asprintf(&path, "%s/%s", dir, CRT_CKPT_DESC) < 0) return crt_error(err, ENOMEM, "checkpoint description");
  if (crt_read_file(path, 1 << 20, &buf, NULL, err) < 0) {
    if ((*err)->errnum == ENOENT)
      return crt_error_kind(err, CRT_ERR_INVALID, 0, "%s: no %s: not an image made by crt checkpoint", dir,
                            CRT_CKPT_DESC);
    return -1;
  }
  int n = 0;
  for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    n++;
    if (desc_line(d, l) < 0) {
      crt_ckpt_desc_free(d);
      return crt_error_kind(err, CRT_ERR_INVALID, 0, "%s: line %d: not understood", path, n);
    }
  }
  if (!d->id) {
    crt_ckpt_desc_free(d);
    return crt_error_kind(err, CRT_ERR_INVALID, 0, "%s: no container id", path);
  }
  return 0;
}

void crt_ckpt_desc_free(crt_ckpt_desc *d) {
  free(d->id);
  free(d->tty);
  for (int i = 0; i < 3; i++) free(d->stdio[i]);
  for (size_t i = 0; i < d->n_mounts; i++) {
    free(d->mounts[i].kind);
    free(d->mounts[i].key);
    free(d->mounts[i].arg);
  }
  free(d->mounts);
  *d = (crt_ckpt_desc){0};
}

/* ---- shared with restore ---- */

static char *absolute(const char *p) {
  char cwd[PATH_MAX], *out = NULL;
  if (p[0] == '/') return strdup(p);
  if (!getcwd(cwd, sizeof cwd)) return NULL;
  return asprintf(&out, "%s/%s", cwd, p) < 0 ? NULL : out;
}

int crt_ckpt_dirs(const crt_criu_opts *c, char **images, char **work, crt_err **err) {
  *images = absolute(c->image_path && *c->image_path ? c->image_path : "checkpoint");
  *work = c->work_path && *c->work_path ? absolute(c->work_path) : (*images ? strdup(*images) : NULL);
  if (!*images || !*work) return crt_error(err, ENOMEM, "image path");
  return 0;
}

/* "IP:PORT" -> --page-server --address IP --port PORT (runc's format).
 * With --lazy-pages the dump is the page server itself, listening there:
 * criu's --page-server would make it connect to one instead. */
static int page_server_args(crt_args *a, const char *ps, bool lazy, crt_err **err) {
  const char *colon = strrchr(ps, ':');
  if (!colon || colon == ps || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
    return crt_error_kind(err, CRT_ERR_INVALID, 0, "--page-server %s: want IP:PORT", ps);
  if (!lazy) crt_args_add(a, "--page-server");
  crt_args_addf(a, "--address=%.*s", (int)(colon - ps), ps);
  crt_args_addf(a, "--port=%s", colon + 1);
  return 0;
}

int crt_ckpt_common_args(crt_args *a, const crt_criu_opts *c, const char *images, const char *work, const char *log,
                         crt_err **err) {
  crt_args_addf(a, "--images-dir=%s", images);
  crt_args_addf(a, "--work-dir=%s", work);
  crt_args_addf(a, "--log-file=%s", log);
  crt_args_add(a, "-v4");
  if (c->manage_cgroups_mode) crt_args_addf(a, "--manage-cgroups=%s", c->manage_cgroups_mode);
  else crt_args_add(a, "--manage-cgroups");
  static const struct {
    size_t off;
    const char *flag;
  } flags[] = {{offsetof(crt_criu_opts, tcp_established), "--tcp-established"},
               {offsetof(crt_criu_opts, ext_unix_sk), "--ext-unix-sk"},
               {offsetof(crt_criu_opts, shell_job), "--shell-job"},
               {offsetof(crt_criu_opts, file_locks), "--file-locks"},
               {offsetof(crt_criu_opts, auto_dedup), "--auto-dedup"}};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
    if (*(const bool *)((const char *)c + flags[i].off)) crt_args_add(a, flags[i].flag);
  if (c->empty_netns) crt_args_add(a, "--empty-ns=net");
  if (c->lazy_pages) crt_args_add(a, "--lazy-pages");
  if (c->page_server && page_server_args(a, c->page_server, c->lazy_pages, err) < 0) return -1;
  return 0;
}

/* With a user namespace, uid=N and gid=N name the container's ids, mapped
 * here to the host's (an id the mappings lack is left out: the container's
 * own create would have failed on it). */
char *crt_ckpt_devpts_data(const crt_spec *spec, const crt_mount *m) {
  const char *data = m && m->opts.data ? m->opts.data : "newinstance,ptmxmode=0666,mode=0620";
  bool userns = crt_spec_namespace(spec, CRT_NS_USER) != NULL;
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  if (!f) return NULL;
  cleanup_free char *copy = strdup(data);
  char *save = NULL;
  for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
    bool uid = !strncmp(t, "uid=", 4), gid = !strncmp(t, "gid=", 4);
    long id;
    if (!userns || (!uid && !gid) || crt_parse_long(t + 4, 0, UINT32_MAX, &id) < 0) {
      fprintf(f, "%s%s", ftell(f) ? "," : "", t);
      continue;
    }
    uint32_t host;
    if (crt_idmap_host(uid ? &spec->linux_->uid_mappings : &spec->linux_->gid_mappings, (uint32_t)id, &host))
      fprintf(f, "%s%.4s%u", ftell(f) ? "," : "", t, (unsigned)host);
  }
  if (fclose(f) != 0 || !copy) {
    free(out);
    return NULL;
  }
  return out;
}

/* ---- the container's CRIU config file (org.criu.config) ---- */

#define CRIU_DEFAULT_CONFIG "/etc/criu/runc.conf"

const char *crt_ckpt_config_file(const crt_spec *spec) {
  for (size_t i = 0; spec && i < spec->annotations.len; i++)
    if (!strcmp(spec->annotations.v[i].key, "org.criu.config")) {
      const char *v = spec->annotations.v[i].value;
      return v && *v ? v : NULL;
    }
  return access(CRIU_DEFAULT_CONFIG, F_OK) == 0 ? CRIU_DEFAULT_CONFIG : NULL;
}

/* The option a config line sets ("log-file=x", "log-file x", "--tcp-close"):
 * its name, cut at '=' or blank, into buf; false for blanks and comments. */
static bool config_key(const char *line, char *buf, size_t len, const char **value) {
  line += strspn(line, " \t");
  if (!strncmp(line, "--", 2)) line += 2;
  size_t n = strcspn(line, "= \t\n#");
  if (!n || n >= len) return false;
  memcpy(buf, line, n);
  buf[n] = 0;
  const char *v = line + n;
  v += strspn(v, "= \t");
  if (value) *value = v;
  return true;
}

static bool arg_is(const char *arg, const char *key) {
  size_t n = strlen(key);
  return !strncmp(arg, "--", 2) && !strncmp(arg + 2, key, n) && (arg[2 + n] == 0 || arg[2 + n] == '=');
}

int crt_ckpt_apply_config(crt_args *a, const char *file, const char *work, char **log, crt_err **err) {
  cleanup_free char *text = NULL;
  if (crt_read_file(file, 1 << 20, &text, NULL, err) < 0) return crt_error_wrap(err, "CRIU config file (org.criu.config)");
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    char key[128];
    const char *value = NULL;
    if (!config_key(l, key, sizeof key, &value)) continue;
    size_t w = 2; /* the binary and the command stay */
    for (size_t r = 2; r < a->n; r++) {
      if (arg_is(a->v[r], key)) free(a->v[r]);
      else a->v[w++] = a->v[r];
    }
    a->n = w;
    a->v[w] = NULL;
    if (!strcmp(key, "log-file") || !strcmp(key, "o")) {
      char *nl = NULL;
      size_t vl = strcspn(value, " \t\r\n");
      if (asprintf(&nl, "%s%s%.*s", value[0] == '/' ? "" : work, value[0] == '/' ? "" : "/", (int)vl, value) < 0)
        return crt_error(err, ENOMEM, "criu log");
      free(*log);
      *log = nl;
    }
  }
  /* --config right after the command */
  crt_args_add(a, "");
  if (a->oom) return crt_error(err, ENOMEM, "criu arguments");
  char *slot = a->v[a->n - 1];
  memmove(a->v + 3, a->v + 2, (a->n - 3) * sizeof *a->v);
  free(slot);
  if (asprintf(&a->v[2], "--config=%s", file) < 0) {
    a->v[2] = NULL;
    a->oom = true;
    return crt_error(err, ENOMEM, "criu arguments");
  }
  return 0;
}

/* ---- checkpoint ---- */

char *crt_ckpt_bind_key(const char *rootfs, const char *dest) {
  cleanup_close int root = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int fd = root < 0 ? -1 : crt_open_in_root(root, dest, O_PATH, CRT_RESOLVE_NONE, NULL);
  char rp[PATH_MAX], fp[PATH_MAX], buf[32];
  ssize_t n = fd < 0 ? -1 : readlink(crt_fd_path(buf, root), rp, sizeof rp - 1);
  ssize_t m = n < 0 ? -1 : readlink(crt_fd_path(buf, fd), fp, sizeof fp - 1);
  if (m < 0) return strdup(dest);
  rp[n] = fp[m] = 0;
  size_t rl = !strcmp(rp, "/") ? 0 : (size_t)n;
  if (strncmp(fp, rp, rl) != 0 || (fp[rl] != '/' && fp[rl] != 0)) return strdup(dest);
  return strdup(fp[rl] ? fp + rl : "/");
}

static int add_mount(crt_ckpt_desc *d, const char *kind, const char *key, const char *arg, crt_err **err) {
  if (!field_ok(key) || !field_ok(arg)) return crt_error(err, EINVAL, "mount point %s: tab or newline in its name", key);
  char *f[4] = {"mount", (char *)kind, (char *)key, (char *)arg};
  if (desc_mount(d, f, 4) < 0) return crt_error(err, ENOMEM, "checkpoint description");
  return 0;
}

/* The cgroup filesystems mounted in the container (runc: the cgroup
 * mounts are external; restore binds the new container's cgroup there). */
static int cgroup_mounts(pid_t pid, crt_ckpt_desc *d, crt_err **err) {
  crt_mountinfo mi;
  if (crt_mountinfo_read_pid(pid, &mi, err) < 0) return -1;
  int rc = 0;
  for (size_t i = 0; i < mi.n && rc == 0; i++) {
    const char *fstype = mi.v[i].fstype, *mp = mi.v[i].target;
    if (strcmp(fstype, "cgroup") && strcmp(fstype, "cgroup2")) continue;
    /* crt mounts hierarchy NAME at <dest>/NAME, the host's name for it */
    const char *slash = strrchr(mp, '/');
    const char *name = !strcmp(fstype, "cgroup2") && strcmp(slash + 1, "unified") ? "" : slash + 1;
    rc = add_mount(d, "cgroup", mp, name, err);
  }
  crt_mountinfo_free(&mi);
  return rc;
}

/* stdio and, for a container with process.terminal, its terminal: what
 * restore reconnects (*tty_dev: the devpts the slave is on).  Another tty
 * as stdio (the caller's, with run -d from a shell) is criu's --shell-job
 * case, as with runc. */
static int describe_stdio(pid_t pid, bool terminal, crt_ckpt_desc *d, dev_t *tty_dev, crt_err **err) {
  for (int i = 0; i < 3; i++) {
    char p[64], link[PATH_MAX];
    snprintf(p, sizeof p, "/proc/%d/fd/%d", pid, i);
    ssize_t n = readlink(p, link, sizeof link - 1);
    if (n < 0) continue; /* closed */
    link[n] = 0;
    if (!field_ok(link)) continue;
    if (!(d->stdio[i] = strdup(link))) return crt_error(err, ENOMEM, "checkpoint description");
    /* a pty slave (majors 136-143) on the container's devpts, whose
     * master is the console socket's receiver's: restore's external tty */
    struct stat st;
    if (!terminal || d->tty || stat(p, &st) < 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) < 136 || major(st.st_rdev) > 143)
      continue;
    if (asprintf(&d->tty, "tty[%llx:%llx]", (unsigned long long)st.st_rdev, (unsigned long long)st.st_dev) < 0) {
      d->tty = NULL;
      return crt_error(err, ENOMEM, "checkpoint description");
    }
    *tty_dev = st.st_dev;
  }
  return 0;
}

/* Whether the container's /dev/pts is the devpts instance dev (the one its
 * terminal is on): a directory there (dev and dev/pts no symlinks, so the
 * path stays in the container's root) on that filesystem is its root. */
static bool devpts_is(pid_t pid, dev_t dev) {
  char p[64];
  struct stat st;
  struct statfs sf;
  snprintf(p, sizeof p, "/proc/%d/root/dev", pid);
  if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode)) return false;
  snprintf(p, sizeof p, "/proc/%d/root/dev/pts", pid);
  if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_dev != dev) return false;
  return statfs(p, &sf) == 0 && sf.f_type == DEVPTS_SUPER_MAGIC;
}

static int describe(const crt_state *s, const crt_spec *spec, crt_ckpt_desc *d, crt_err **err) {
  if (!(d->id = strdup(s->id))) return crt_error(err, ENOMEM, "checkpoint description");
  dev_t tty_dev = 0;
  if (describe_stdio(s->pid, spec->process && spec->process->terminal, d, &tty_dev, err) < 0) return -1;
  for (size_t i = 0; i < spec->n_mounts; i++) {
    const crt_mount *m = &spec->mounts[i];
    if (!crt_mount_is_bind(m)) continue;
    cleanup_free char *key = crt_ckpt_bind_key(s->rootfs, m->destination);
    if (!key) return crt_error(err, ENOMEM, "checkpoint description");
    if (add_mount(d, "bind", key, "", err) < 0) return -1;
  }
  if (cgroup_mounts(s->pid, d, err) < 0) return -1;
  /* the terminal's slave bound over /dev/console: restore binds the new one */
  if (d->tty && add_mount(d, "console", "/dev/console", "", err) < 0) return -1;
  /* the devpts the terminal is on: restore brings a new instance there and
   * takes the restored terminal from it (the container's own, as at create) */
  if (d->tty && devpts_is(s->pid, tty_dev) && add_mount(d, "devpts", "/dev/pts", "", err) < 0) return -1;
  const crt_namespace *net = crt_spec_namespace(spec, CRT_NS_NETWORK);
  d->ext_netns = net && net->path && *net->path;
  const crt_namespace *pid = crt_spec_namespace(spec, CRT_NS_PID);
  if (pid && pid->path && *pid->path)
    return crt_error_kind(err, CRT_ERR_INVALID, 0,
                          "checkpoint of a container that joins a pid namespace (%s) is not supported", pid->path);
  return 0;
}

/* Checks before anything is dumped: criu itself, and dirty-memory tracking
 * when the dump is incremental (pre-dump, or a dump on a parent). */
int crt_ckpt_criu_usable(const crt_criu_opts *c, bool track_mem, crt_err **err) {
  if (crt_criu_check(c->criu, NULL, err) < 0) return crt_error_wrap(err, "criu cannot run on this system");
  if (c->lazy_pages && crt_criu_check(c->criu, "uffd-noncoop", err) < 0)
    return crt_error_wrap(err, "--lazy-pages needs the kernel's non-cooperative userfaultfd");
  if (track_mem && crt_criu_check(c->criu, "mem_dirty_track", err) < 0)
    return crt_error_wrap(err, "%s needs the kernel's dirty-memory tracking (soft-dirty PTEs), which this kernel "
                               "lacks",
                          c->pre_dump ? "--pre-dump" : "--parent-path");
  return 0;
}

static int dump_args(crt_args *a, const crt_state *s, const crt_ckpt_desc *d, const crt_checkpoint_opts *o,
                     const char *images, const char *work, crt_err **err) {
  const crt_criu_opts *c = &o->c;
  crt_args_add(a, c->criu);
  crt_args_add(a, c->pre_dump ? "pre-dump" : "dump");
  crt_args_addf(a, "--tree=%d", s->pid);
  crt_args_addf(a, "--root=%s", s->rootfs);
  cleanup_free char *log = NULL;
  if (asprintf(&log, "%s/%s", work, c->pre_dump ? "pre-dump.log" : "dump.log") < 0)
    return crt_error(err, ENOMEM, "criu log");
  if (crt_ckpt_common_args(a, c, images, work, log, err) < 0) return -1;
  if (c->pre_dump || c->parent_path) crt_args_add(a, "--track-mem");
  if (c->parent_path) crt_args_addf(a, "--prev-images-dir=%s", c->parent_path);
  if (c->leave_running && !c->pre_dump) crt_args_add(a, "--leave-running");
  if (c->lazy_pages && c->status_fd >= 0) crt_args_addf(a, "--status-fd=%d", c->status_fd);
  cleanup_free char *fz = crt_cgroup_freezer_dir(s->cg);
  if (fz && access(fz, F_OK) == 0) crt_args_addf(a, "--freeze-cgroup=%s", fz);
  for (size_t i = 0; i < d->n_mounts; i++) crt_args_addf(a, "--external=mnt[%s]:%s", d->mounts[i].key, d->mounts[i].key);
  /* The terminal's slave is dumped as a pty, not as an external tty: a
   * process holding /dev/tty (an interactive shell does) needs its
   * controlling terminal to be a pty of the dump, or criu refuses ("ctty
   * inheritance detected ..., no PTY peer").  Its master is outside (the
   * console socket's receiver); runc allows that with the RPC option
   * orphan_pts_master, whose only command-line form is --shell-job.
   * Restore gives criu the new slave as the external tty of that key. */
  if (d->tty && !c->shell_job) crt_args_add(a, "--shell-job");
  if (d->ext_netns) {
    char p[64];
    struct stat st;
    snprintf(p, sizeof p, "/proc/%d/ns/net", s->pid);
    if (stat(p, &st) < 0) return crt_error(err, errno, "stat %s", p);
    crt_args_addf(a, "--external=net[%llu]:extRootNetNS", (unsigned long long)st.st_ino);
  }
  return 0;
}

/* runc's check of --status-fd (given with --lazy-pages): criu inherits it
 * and writes \0 there once its page server is ready. */
static int status_fd_ok(const crt_criu_opts *c, crt_err **err) {
  if (!c->lazy_pages || c->status_fd < 0) return 0;
  int fl = fcntl(c->status_fd, F_GETFL);
  if (fl < 0) return crt_error_kind(err, CRT_ERR_INVALID, errno, "invalid --status-fd argument %d", c->status_fd);
  if ((fl & O_ACCMODE) == O_RDONLY)
    return crt_error_kind(err, CRT_ERR_INVALID, 0, "invalid --status-fd argument %d: not writable", c->status_fd);
  return 0;
}

/* The dump itself, once the container is known to be running. */
static int dump(const crt_checkpoint_opts *o, const crt_state *s, crt_err **err) {
  crt_spec *spec = NULL;
  crt_ckpt_desc d = {0};
  crt_args a = {0};
  cleanup_free char *images = NULL, *work = NULL, *log = NULL;
  int rc = -1;
  if (crt_ckpt_dirs(&o->c, &images, &work, err) < 0 || status_fd_ok(&o->c, err) < 0) goto out;
  if (crt_ckpt_criu_usable(&o->c, o->c.pre_dump || o->c.parent_path, err) < 0) goto out;
  if (crt_state_load_spec(s, &spec, err) < 0 || describe(s, spec, &d, err) < 0) goto out;
  if (crt_mkdir_p(images, 0700, err) < 0 || crt_mkdir_p(work, 0700, err) < 0) goto out;
  if (dump_args(&a, s, &d, o, images, work, err) < 0) goto out;
  if (asprintf(&log, "%s/%s", work, o->c.pre_dump ? "pre-dump.log" : "dump.log") < 0) {
    crt_error(err, ENOMEM, "criu log");
    goto out;
  }
  const char *config = crt_ckpt_config_file(spec);
  if (config && crt_ckpt_apply_config(&a, config, work, &log, err) < 0) goto out;
  /* before criu runs: a lazy restore starts while the dump serves pages */
  if (!o->c.pre_dump && crt_ckpt_desc_save(images, &d, err) < 0) goto out;
  crt_criu_run_opts ro = {.log = log};
  if (crt_criu_run(&a, &ro, err) < 0) goto out;
  rc = 0;
out:
  crt_args_free(&a);
  crt_ckpt_desc_free(&d);
  crt_spec_free(spec);
  return rc;
}

int crt_container_checkpoint(const crt_checkpoint_opts *o, crt_err **err) {
  if (crt_container_id_check(o->id, err) < 0) return -1;
  int lock = crt_container_lock(o->root, o->id, err);
  if (lock < 0) return crt_error_wrap(err, "checkpoint %s", o->id);
  crt_state *s = NULL;
  int rc = crt_state_load(o->root, o->id, &s, err);
  if (rc == 0) {
    enum crt_status st = crt_state_status(s);
    if (crt_op_check(s, CRT_OP_CHECKPOINT, st, err) < 0) rc = -1;
    else rc = dump(o, s, err);
  }
  crt_state_free(s);
  close(lock);
  if (rc < 0) return crt_error_wrap(err, "checkpoint %s", o->id);
  if (o->c.leave_running || o->c.pre_dump) return 0;
  /* As runc: the processes are gone; the container is destroyed (cgroup,
   * poststop hooks, state).  The lock is dropped first: delete takes it. */
  if (crt_container_delete(o->root, o->id, true, err) < 0) return crt_error_wrap(err, "checkpoint %s: dumped", o->id);
  return 0;
}
