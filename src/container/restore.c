/* restore: a container made from the bundle's config.json, its processes
 * brought back by `criu restore` from an image of `crt checkpoint`:
 *
 *   crt restore                               criu (child of crt)
 *   state dir, config saved, state.json
 *   fork ------------------------------------> waits
 *   cgroup made (resources), child moved in
 *   go --------------------------------------> private mount ns, rootfs
 *                                              bound on <state>/criu-root,
 *                                              exec criu restore
 *                                              setup-namespaces: action
 *                                              script `crt restore
 *                                              --criu-notify`: prestart and
 *                                              createRuntime hooks
 *                                              tasks restored in the cgroup,
 *                                              as siblings: children of crt
 *   pid from criu's pidfile, state.json,
 *   --pid-file, poststart hooks
 *
 * Any failure removes what was made: the processes, the cgroup, the state
 * directory (criu's mounts lived in its own mount namespace). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crt/procinfo.h"
#include "crt/cgroup.h"
#include "crt/checkpoint.h"
#include "crt/restore.h"
#include "crt/state.h"
#include "crt/str.h"
#include "crt/criu.h"
#include "crt/fs.h"
#include "crt/hooks.h"
#include "crt/lifecycle.h"
#include "crt/log.h"
#include "crt/terminal.h"

typedef struct {
  const crt_restore_opts *o;
  crt_spec *spec;
  crt_ckpt_desc d;
  crt_state *s;
  char *images, *work, *bundle, *rootfs;
  char dir[PATH_MAX];   /* the state directory, "" until made by us */
  char croot[PATH_MAX]; /* <dir>/criu-root */
  char cpts[PATH_MAX];  /* <dir>/criu-pts: the new terminal's devpts, for criu */
  int lock, netns;
  int pts, slave, pty; /* a terminal image: the new devpts (detached), the slave, its index */
  bool cgroup_made;
} rctx;

/* The images: a directory holding criu's inventory and crt's description. */
static int load_images(rctx *c, crt_err **err) {
  if (crt_ckpt_dirs(&c->o->c, &c->images, &c->work, err) < 0) return -1;
  struct stat st;
  if (stat(c->images, &st) < 0) return crt_error_kind(err, CRT_ERR_INVALID, errno, "image directory %s", c->images);
  if (!S_ISDIR(st.st_mode)) return crt_error_kind(err, CRT_ERR_INVALID, ENOTDIR, "image directory %s", c->images);
  char inv[PATH_MAX];
  if (crt_pathf(inv, sizeof inv, err, "%s/inventory.img", c->images) < 0) return -1;
  if (access(inv, F_OK) < 0)
    return crt_error_kind(err, CRT_ERR_INVALID, 0, "%s holds no checkpoint (no inventory.img)", c->images);
  return crt_ckpt_desc_load(c->images, &c->d, err);
}

static int load_bundle(rctx *c, crt_err **err) {
  char cfg[PATH_MAX + 16];
  const char *b = c->o->bundle ? c->o->bundle : ".";
  if (!(c->bundle = realpath(b, NULL))) return crt_error(err, errno, "bundle %s", b);
  snprintf(cfg, sizeof cfg, "%s/config.json", c->bundle);
  if (crt_spec_load(cfg, &c->spec, err) < 0 || crt_spec_validate_for_create(c->spec, err) < 0) return -1;
  char *r = NULL;
  if (c->spec->root->path[0] == '/') r = strdup(c->spec->root->path);
  else if (asprintf(&r, "%s/%s", c->bundle, c->spec->root->path) < 0) r = NULL;
  if (!r) return crt_error(err, ENOMEM, "rootfs path");
  c->rootfs = realpath(r, NULL);
  int e = errno;
  if (!c->rootfs) crt_error(err, e, "rootfs %s", r);
  free(r);
  return c->rootfs ? 0 : -1;
}

/* The bundle's bind mount whose key (crt_ckpt_bind_key) is the image's. */
static const crt_mount *bind_at(const crt_spec *spec, const char *rootfs, const char *key) {
  for (size_t i = 0; i < spec->n_mounts; i++) {
    if (!crt_mount_is_bind(&spec->mounts[i])) continue;
    cleanup_free char *k = crt_ckpt_bind_key(rootfs, spec->mounts[i].destination);
    if (k && !strcmp(k, key)) return &spec->mounts[i];
  }
  return NULL;
}

/* The bundle's devpts mount at /dev/pts, NULL without one. */
static const crt_mount *devpts_mount(const crt_spec *spec) {
  for (size_t i = 0; i < spec->n_mounts; i++) {
    const crt_mount *m = &spec->mounts[i];
    if (m->type && !strcmp(m->type, "devpts") && !strcmp(m->destination, "/dev/pts")) return m;
  }
  return NULL;
}

static bool has_mount_record(const crt_ckpt_desc *d, const char *kind) {
  for (size_t i = 0; i < d->n_mounts; i++)
    if (!strcmp(d->mounts[i].kind, kind)) return true;
  return false;
}

/* The image against the bundle: every external the image needs is there. */
static int match_bundle(rctx *c, crt_err **err) {
  for (size_t i = 0; i < c->d.n_mounts; i++) {
    const crt_ckpt_mount *m = &c->d.mounts[i];
    if (!strcmp(m->kind, "bind") && !bind_at(c->spec, c->rootfs, m->key))
      return crt_error_kind(err, CRT_ERR_INVALID, 0,
                            "the image (of container %s) has a bind mount at %s that the bundle %s does not have",
                            c->d.id, m->key, c->bundle);
    if (!strcmp(m->kind, "devpts") && !devpts_mount(c->spec))
      return crt_error_kind(err, CRT_ERR_INVALID, 0,
                            "the image (of container %s) has a devpts at /dev/pts that the bundle %s does not mount",
                            c->d.id, c->bundle);
  }
  const crt_namespace *net = crt_spec_namespace(c->spec, CRT_NS_NETWORK);
  bool net_path = net && net->path && *net->path;
  if (c->d.ext_netns != net_path)
    return crt_error_kind(err, CRT_ERR_INVALID, 0, "the image (of container %s) %s a network namespace by path; the bundle %s %s",
                          c->d.id, c->d.ext_netns ? "joined" : "did not join", c->bundle,
                          net_path ? "joins one" : "does not");
  if (c->d.tty && !c->o->console_socket)
    return crt_error_kind(err, CRT_ERR_INVALID, 0, "the image (of container %s) has a terminal: --console-socket is required",
                          c->d.id);
  if (!c->d.tty && c->o->console_socket)
    return crt_error_kind(err, CRT_ERR_INVALID, 0, "--console-socket given, but the image (of container %s) has no terminal",
                          c->d.id);
  return 0;
}

/* <root>/<id>, made and locked; its state as create saves it, with no
 * process yet (so hooks and delete --force can read it). */
static int make_state(rctx *c, crt_err **err) {
  const crt_restore_opts *o = c->o;
  if (crt_mkdir_p(o->root, 0700, err) < 0 || crt_container_dir(o->root, o->id, c->dir, sizeof c->dir, err) < 0) {
    c->dir[0] = 0;
    return -1;
  }
  if (mkdir(c->dir, 0700) < 0) {
    int e = errno;
    c->dir[0] = 0;
    if (e == EEXIST) return crt_error_kind(err, CRT_ERR_EXISTS, 0, "container with given ID already exists");
    return crt_error(err, e, "mkdir %s", o->root);
  }
  if ((c->lock = crt_container_lock(o->root, o->id, err)) < 0) return -1;
  crt_state *s = c->s = calloc(1, sizeof *s);
  if (!s) return crt_error(err, ENOMEM, "container state");
  s->id = strdup(o->id);
  s->bundle = strdup(c->bundle);
  s->rootfs = strdup(c->rootfs);
  s->created = crt_state_time_now();
  s->owner = strdup("");
  s->dir = strdup(c->dir);
  s->systemd = o->systemd_cgroup;
  if (!s->id || !s->bundle || !s->rootfs || !s->created || !s->owner || !s->dir || crt_state_copy_annotations(s, &c->spec->annotations) < 0)
    return crt_error(err, ENOMEM, "container state");
  crt_cgroup_config cc = {.id = o->id, .spec = c->spec, .rootless = o->rootless};
  if (crt_cgroup_open(crt_cgroup_host(), NULL, s->systemd, &s->cg, err) < 0) return -1;
  if (crt_cgroup_resolve(s->cg, &cc, &s->cgroup_path, err) < 0) return -1;
  if (crt_state_save_spec(s, c->spec, err) < 0 || crt_state_save(o->root, s, err) < 0) return -1;
  if (crt_pathf(c->croot, sizeof c->croot, err, "%s/criu-root", c->dir) < 0) return -1;
  if (mkdir(c->croot, 0700) < 0) return crt_error(err, errno, "mkdir %s", c->croot);
  if (!c->d.tty) return 0;
  if (crt_pathf(c->cpts, sizeof c->cpts, err, "%s/criu-pts", c->dir) < 0) return -1;
  if (mkdir(c->cpts, 0700) < 0) return crt_error(err, errno, "mkdir %s", c->cpts);
  return 0;
}

/* A network namespace joined by path: criu gets it as the image's
 * external (runc: handleRestoringExternalNamespaces). */
static int open_netns(rctx *c, crt_err **err) {
  if (!c->d.ext_netns) return 0;
  const crt_namespace *net = crt_spec_namespace(c->spec, CRT_NS_NETWORK);
  if ((c->netns = open(net->path, O_RDONLY)) < 0) return crt_error(err, errno, "open network namespace %s", net->path);
  return 0;
}

/* 'x' with ' escaped: the action script is a shell command line. */
static void shell_quote(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++)
    if (*s == '\'') fputs("'\\''", f);
    else fputc(*s, f);
  fputc('\'', f);
}

/* criu execs its action script without a shell: a script in the state
 * directory re-runs crt for this container. */
static int write_action_script(const rctx *c, char *path, size_t len, crt_err **err) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  if (!f) return crt_error(err, ENOMEM, "action script");
  fputs("#!/bin/sh\n# criu's action script for crt restore\nexec ", f);
  shell_quote(f, c->o->self);
  fputs(" --root ", f);
  shell_quote(f, c->o->root);
  fputs(" restore --criu-notify ", f);
  shell_quote(f, c->o->id);
  fputs("\n", f);
  if (fclose(f) != 0) {
    free(buf);
    return crt_error(err, ENOMEM, "action script");
  }
  int rc = crt_pathf(path, len, err, "%s/criu-notify.sh", c->dir);
  if (rc >= 0) rc = crt_write_file_atomic(path, buf, n, 0700, err);
  free(buf);
  return rc;
}

/* The external mounts: bind mounts from the bundle's sources, cgroup
 * mounts from the new container's cgroup. */
static int mount_args(crt_args *a, const rctx *c, crt_err **err) {
  for (size_t i = 0; i < c->d.n_mounts; i++) {
    const crt_ckpt_mount *m = &c->d.mounts[i];
    if (!strcmp(m->kind, "bind")) {
      const crt_mount *bm = bind_at(c->spec, c->rootfs, m->key);
      crt_args_addf(a, "--external=mnt[%s]:%s", m->key, bm->source);
      continue;
    }
    if (!strcmp(m->kind, "console") || !strcmp(m->kind, "devpts")) continue; /* console_pty's */
    const char *cg = c->s->cgroup_path;
    if (!cg || !*cg)
      return crt_error_kind(err, CRT_ERR_INVALID, 0, "the image has a cgroup mount at %s, but the container has no cgroup",
                            m->key);
    crt_args_addf(a, "--external=mnt[%s]:/sys/fs/cgroup%s%s%s", m->key, *m->arg ? "/" : "", m->arg, cg);
  }
  return 0;
}

static int restore_args(crt_args *a, const rctx *c, const char *log, crt_err **err) {
  const crt_restore_opts *o = c->o;
  /* The cgroup is crt's, made from the config before criu runs; as in
   * runc 1.1 (whose restore leaves criu in its default, soft, mode), the
   * mode is not passed (strict would refuse the cgroup crt made), except
   * ignore: criu then leaves the tasks where it is itself, in the new
   * container's cgroup, whatever cgroups the image names (runc's "restore
   * into a different cgroup"). */
  crt_criu_opts co = o->c;
  if (!co.manage_cgroups_mode || strcmp(co.manage_cgroups_mode, "ignore") != 0) co.manage_cgroups_mode = NULL;
  crt_args_add(a, o->c.criu);
  crt_args_add(a, "restore");
  if (crt_ckpt_common_args(a, &co, c->images, c->work, log, err) < 0) return -1;
  crt_args_addf(a, "--root=%s", c->croot);
  crt_args_add(a, "--restore-detached");
  crt_args_add(a, "--restore-sibling");
  crt_args_add(a, "--evasive-devices");
  crt_args_addf(a, "--pidfile=%s/criu.pid", c->dir);
  char script[PATH_MAX + 32];
  if (write_action_script(c, script, sizeof script, err) < 0) return -1;
  crt_args_addf(a, "--action-script=%s", script);
  if (mount_args(a, c, err) < 0) return -1;
  for (int i = 0; i < 3; i++)
    if (c->d.stdio[i] && !strncmp(c->d.stdio[i], "pipe:", 5)) crt_args_addf(a, "--inherit-fd=fd[%d]:%s", i, c->d.stdio[i]);
  if (c->netns >= 0) crt_args_addf(a, "--inherit-fd=fd[%d]:extRootNetNS", c->netns);
  if (o->lsm_profile) crt_args_addf(a, "--lsm-profile=%s", o->lsm_profile);
  if (o->lsm_mount_context) crt_args_addf(a, "--lsm-mount-context=%s", o->lsm_mount_context);
  return 0;
}

/* runc's criuApplyCgroups: criu, already in the container's cgroup, is
 * told each hierarchy's path of its own (/proc/self/cgroup) as the root to
 * restore into: "--cgroup-root CTRL:PATH", the unified one without CTRL.
 * A hierarchy crt made no cgroup in (v1 ones on a cgroup2 mount) keeps
 * criu's own, existing cgroup. */
static int cgroup_root_args(crt_args *a, char *msg, size_t len) {
  crt_proc_cgroup *v = NULL;
  size_t n = 0;
  cleanup_err crt_err *e = NULL;
  if (crt_proc_cgroup_read(0, &v, &n, &e) < 0) {
    snprintf(msg, len, "%s", e->msg);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    char *ctrls = v[i].controllers;
    if (!*ctrls) crt_args_addf(a, "--cgroup-root=%s", v[i].path);
    for (char *save = NULL, *t = strtok_r(ctrls, ",", &save); t; t = strtok_r(NULL, ",", &save))
      crt_args_addf(a, "--cgroup-root=%s:%s", t, v[i].path);
  }
  crt_proc_cgroup_free(v, n);
  return 0;
}

/* A devpts instance of its own for the restored terminal, attached
 * nowhere (fsmount), with the container's /dev/pts options. */
static int devpts_instance(const char *data, unsigned long flags, crt_err **err) {
  cleanup_close int fs = fsopen("devpts", FSOPEN_CLOEXEC);
  if (fs < 0) return crt_error(err, errno, "fsopen(\"devpts\")");
  cleanup_free char *copy = strdup(data);
  if (!copy) return crt_error(err, ENOMEM, "devpts options");
  char *save = NULL;
  for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    char *v = strchr(t, '=');
    if (v) *v++ = 0;
    if (fsconfig(fs, v ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG, t, v, 0) < 0)
      return crt_error(err, errno, "devpts option %s%s%s", t, v ? "=" : "", v ? v : "");
  }
  if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) return crt_error(err, errno, "create a devpts instance");
  unsigned attr = (flags & MS_RDONLY ? MOUNT_ATTR_RDONLY : 0) | (flags & MS_NOSUID ? MOUNT_ATTR_NOSUID : 0) |
                  (flags & MS_NODEV ? MOUNT_ATTR_NODEV : 0) | (flags & MS_NOEXEC ? MOUNT_ATTR_NOEXEC : 0);
  int mnt = fsmount(fs, FSMOUNT_CLOEXEC, attr);
  if (mnt < 0) return crt_error(err, errno, "fsmount devpts");
  return mnt;
}

/* The restored terminal comes from a devpts instance of its own: its
 * master goes to the console socket; criu gets a clone of the instance for
 * the container's /dev/pts (an external mount of the image), the slave on
 * /dev/console and as the image's external tty, the processes' stdio;
 * once criu is done the instance itself replaces that clone
 * (attach_devpts).  So the restored console is a node of the container's
 * devpts, as at create, never of the host's.  (runc gets that pty from
 * criu's orphan-pts-master RPC notification, which the command line
 * lacks.) */
static int open_console(rctx *c, crt_err **err) {
  if (!c->d.tty) return 0;
  const crt_mount *m = devpts_mount(c->spec);
  cleanup_free char *data = crt_ckpt_devpts_data(c->spec, m);
  if (!data) return crt_error(err, ENOMEM, "devpts options");
  if ((c->pts = devpts_instance(data, m ? m->opts.flags : MS_NOSUID | MS_NOEXEC, err)) < 0) return -1;
  cleanup_close int master = openat(c->pts, "ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0 || unlockpt(master) < 0 || ioctl(master, TIOCGPTN, &c->pty) < 0)
    return crt_error(err, errno, "open a pty in a new devpts (%s)", data);
  /* not O_CLOEXEC: criu inherits it; by name before Linux 4.13 (our own
   * instance: nothing of the container's is there) */
  c->slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY);
  if (c->slave < 0 && (errno == EINVAL || errno == ENOTTY)) {
    char name[16];
    snprintf(name, sizeof name, "%d", c->pty);
    c->slave = openat(c->pts, name, O_RDWR | O_NOCTTY);
  }
  if (c->slave < 0) return crt_error(err, errno, "open the slave of pty %d", c->pty);
  cleanup_close int sock = crt_console_socket_connect(c->o->console_socket, err);
  if (sock < 0) return -1;
  struct iovec iov = {.iov_base = (void *)"/dev/ptmx", .iov_len = 9};
  if (crt_send_with_fd(sock, &iov, 1, master) != 9) return crt_error(err, errno, "send pty master over console socket");
  return 0;
}

/* In criu's child: a clone of the new devpts on <state>/criu-pts, the
 * path criu takes it from, and the terminal's arguments. */
static int console_args(const rctx *c, crt_args *args, char *msg, size_t len) {
  cleanup_close int tree = (int)syscall(SYS_open_tree, c->pts, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
  if (tree < 0 || move_mount(tree, "", AT_FDCWD, c->cpts, MOVE_MOUNT_F_EMPTY_PATH) < 0)
    return snprintf(msg, len, "mount the new devpts on %s: %s", c->cpts, strerror(errno)), -1;
  crt_args_addf(args, "--inherit-fd=fd[%d]:%s", c->slave, c->d.tty);
  if (has_mount_record(&c->d, "console")) crt_args_addf(args, "--external=mnt[/dev/console]:%s/%d", c->cpts, c->pty);
  if (has_mount_record(&c->d, "devpts")) crt_args_addf(args, "--external=mnt[/dev/pts]:%s", c->cpts);
  return 0;
}

/* In a child entering the restored container's mount namespace (setns
 * makes its root the container's): the devpts criu mounted on /dev/pts
 * (our instance, a clone) gives way to the instance the terminal was
 * opened on, so the processes' terminal fds read /dev/pts/N, as runc's. */
static int attach_devpts_child(const rctx *c) {
  char ns[64];
  snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", c->s->pid);
  cleanup_close int fd = open(ns, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || setns(fd, CLONE_NEWNS) < 0) return -1;
  struct stat here, ours;
  cleanup_close int t = open("/dev/pts", O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
  if (t < 0 || fstat(t, &here) < 0 || fstat(c->slave, &ours) < 0 || here.st_dev != ours.st_dev) return -1;
  if (umount2("/dev/pts", MNT_DETACH | UMOUNT_NOFOLLOW) < 0) return -1;
  return move_mount(c->pts, "", AT_FDCWD, "/dev/pts", MOVE_MOUNT_F_EMPTY_PATH);
}

/* A failure leaves criu's clone there: the same devpts, only the fd links
 * read /N; a warning, not a failed restore. */
static void attach_devpts(const rctx *c) {
  if (c->pts < 0 || !has_mount_record(&c->d, "devpts")) return;
  pid_t p = fork();
  if (p == 0) _exit(attach_devpts_child(c) < 0 ? 1 : 0);
  int st = 0;
  if (p < 0 || waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
    crt_warn("restore %s: the new devpts could not replace criu's mount of it on /dev/pts", c->o->id);
}

/* In criu's child: a mount namespace of its own, where the rootfs is bound
 * on criu-root; whatever criu leaves mounted dies with that namespace. */
static int child_setup(void *arg, crt_args *args, char *msg, size_t len) {
  const rctx *c = arg;
  if (c->s->cgroup_path && *c->s->cgroup_path && cgroup_root_args(args, msg, len) < 0) return -1;
  if (unshare(CLONE_NEWNS) < 0) {
    snprintf(msg, len, "unshare mount namespace for criu: %s", crt_strerror(errno));
    return -1;
  }
  if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) {
    snprintf(msg, len, "make / a slave mount for criu: %s", crt_strerror(errno));
    return -1;
  }
  if (mount(c->rootfs, c->croot, NULL, MS_BIND | MS_REC, NULL) < 0) {
    snprintf(msg, len, "bind rootfs %s on %s: %s", c->rootfs, c->croot, crt_strerror(errno));
    return -1;
  }
  return c->pts >= 0 ? console_args(c, args, msg, len) : 0;
}

/* In the parent, before criu runs: the container's cgroup, made with its
 * resources, criu moved into it (runc's criuApplyCgroups). */
static int enter_cgroup(void *arg, pid_t child, crt_err **err) {
  rctx *c = arg;
  crt_state *s = c->s;
  if (!s->cgroup_path || !*s->cgroup_path) return 0;
  crt_cgroup_config cc = {.id = s->id, .spec = c->spec, .rootless = c->o->rootless};
  cleanup_free char *entered = NULL;
  c->cgroup_made = true; /* from here on a failure removes it */
  if (crt_cgroup_enter(s->cg, &cc, child, &entered, err) < 0) return -1;
  if (strcmp(entered, s->cgroup_path))
    return crt_error(err, 0, "cgroup %s could not be made (got \"%s\"): criu needs it", s->cgroup_path, entered);
  return 0;
}

static int read_pid(const char *dir, pid_t *pid, crt_err **err) {
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/criu.pid", dir);
  cleanup_free char *buf = NULL;
  if (crt_read_file(path, 64, &buf, NULL, err) < 0) return crt_error_wrap(err, "criu's pid file");
  unlink(path);
  long v;
  if (crt_parse_long(buf, 1, INT_MAX, &v) < 0) return crt_error(err, 0, "criu's pid file %s: \"%s\" is no pid", path, buf);
  *pid = (pid_t)v;
  return 0;
}

static int run_criu(rctx *c, crt_err **err) {
  crt_args a = {0};
  cleanup_free char *log = NULL;
  if (asprintf(&log, "%s/restore.log", c->work) < 0) return crt_error(err, ENOMEM, "criu log");
  if (crt_mkdir_p(c->work, 0700, err) < 0) return -1;
  int rc = restore_args(&a, c, log, err);
  const char *config = crt_ckpt_config_file(c->spec);
  if (rc == 0 && config) rc = crt_ckpt_apply_config(&a, config, c->work, &log, err);
  crt_criu_run_opts ro = {.setup = child_setup, .setup_arg = c, .before_exec = enter_cgroup, .before_arg = c,
                          .log = log};
  if (rc == 0) rc = crt_criu_run(&a, &ro, err);
  crt_args_free(&a);
  if (rc == 0) rc = read_pid(c->dir, &c->s->pid, err);
  return rc;
}

/* The restored container recorded, announced and its poststart hooks run. */
static int finish(rctx *c, crt_err **err) {
  crt_state *s = c->s;
  s->start_time = crt_proc_start_time(s->pid, NULL);
  s->ready = true;
  if (crt_state_save(c->o->root, s, err) < 0) return -1;
  if (c->o->pid_file && crt_write_pid_file(c->o->pid_file, s->pid, err) < 0) return -1;
  if (!c->spec->hooks || !c->spec->hooks->poststart.len) return 0;
  cleanup_free char *json = crt_state_json(s, CRT_STATUS_RUNNING, false);
  crt_hook_place at = {.dir = s->bundle};
  return crt_hooks_run_at(&c->spec->hooks->poststart, "poststart", &at, json, err);
}

/* A failed restore leaves nothing: processes, cgroup, state. */
static void undo(rctx *c) {
  crt_state *s = c->s;
  bool spawned = s && s->pid > 0;
  if (spawned) {
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
  }
  cleanup_err crt_err *e = NULL;
  if (s && c->cgroup_made && s->cgroup_path && *s->cgroup_path) {
    crt_cgroup_kill(s->cg, SIGKILL, &e);
    crt_err_free(&e);
    if (s->systemd && crt_cgroup_stop_unit(s->cg, &e) < 0) crt_warn("%s", e->msg);
    crt_err_free(&e);
    if (crt_cgroup_destroy(s->cg, &e) < 0) crt_warn("%s", e->msg);
  }
  if (spawned && c->spec->hooks && c->spec->hooks->poststop.len) {
    cleanup_free char *json = crt_state_json(s, CRT_STATUS_STOPPED, false);
    crt_hooks_run_warn(&c->spec->hooks->poststop, "poststop", json);
  }
  if (c->dir[0] && crt_rm_rf(c->dir) < 0) crt_warn("remove %s: %s", c->dir, crt_strerror(errno));
}

static int restore(rctx *c, crt_err **err) {
  if (crt_container_id_check(c->o->id, err) < 0) return -1;
  if (geteuid() != 0) return crt_error_kind(err, CRT_ERR_INVALID, 0, "restore needs root (criu does)");
  if (load_images(c, err) < 0 || load_bundle(c, err) < 0 || match_bundle(c, err) < 0) return -1;
  if (crt_ckpt_criu_usable(&c->o->c, false, err) < 0) return -1;
  if (make_state(c, err) < 0 || open_console(c, err) < 0 || open_netns(c, err) < 0) return -1;
  if (run_criu(c, err) < 0) return -1;
  attach_devpts(c);
  return finish(c, err);
}

int crt_container_restore(const crt_restore_opts *o, pid_t *pid, crt_err **err) {
  rctx c = {.o = o, .lock = -1, .netns = -1, .pts = -1, .slave = -1};
  int rc = restore(&c, err);
  if (rc < 0) {
    crt_error_wrap(err, "restore %s", o->id);
    undo(&c);
  } else {
    *pid = c.s->pid;
    rmdir(c.croot);
    if (c.cpts[0]) rmdir(c.cpts);
    char script[PATH_MAX + 32];
    snprintf(script, sizeof script, "%s/criu-notify.sh", c.dir);
    unlink(script);
  }
  if (c.lock >= 0) close(c.lock);
  if (c.netns >= 0) close(c.netns);
  if (c.pts >= 0) close(c.pts);
  if (c.slave >= 0) close(c.slave);
  crt_ckpt_desc_free(&c.d);
  crt_state_free(c.s);
  crt_spec_free(c.spec);
  free(c.images);
  free(c.work);
  free(c.bundle);
  free(c.rootfs);
  return rc;
}

/* criu's action script.  setup-namespaces comes once the restored init
 * exists in its namespaces and before it runs: the spec's moment for the
 * prestart and createRuntime hooks (runc runs them there too). */
int crt_restore_notify(const char *root, const char *id, const char *action, crt_err **err) {
  if (!action || strcmp(action, "setup-namespaces")) return 0;
  crt_state *s = NULL;
  crt_spec *spec = NULL;
  int rc = -1;
  if (crt_state_load(root, id, &s, err) < 0 || crt_state_load_spec(s, &spec, err) < 0) goto out;
  const char *p = getenv("CRTOOLS_INIT_PID");
  long pid = 0;
  if (p && crt_parse_long(p, 1, INT_MAX, &pid) < 0) {
    crt_error(err, 0, "CRTOOLS_INIT_PID \"%s\" is no pid", p);
    goto out;
  }
  s->pid = (pid_t)pid;
  rc = 0;
  if (spec->hooks) {
    cleanup_free char *json = crt_state_json(s, CRT_STATUS_CREATED, false);
    crt_hook_place at = {.dir = s->bundle};
    rc = crt_hooks_run_at(&spec->hooks->prestart, "prestart", &at, json, err);
    if (rc == 0) rc = crt_hooks_run_at(&spec->hooks->create_runtime, "createRuntime", &at, json, err);
  }
out:
  if (rc < 0) crt_error_wrap(err, "restore %s", id);
  crt_spec_free(spec);
  crt_state_free(s);
  return rc;
}

int crt_container_restore_run(const crt_restore_opts *o, int *exit_code, crt_err **err) {
  *exit_code = 0;
  /* Orphans of the container land on us and are reaped (crt_wait_forward). */
  if (!o->detach && !o->no_subreaper) (void)prctl(PR_SET_CHILD_SUBREAPER, 1); /* cannot fail: it only sets a flag */
  pid_t pid = 0;
  if (crt_container_restore(o, &pid, err) < 0) return -1;
  if (o->detach) return 0;
  *exit_code = crt_wait_forward(pid);
  cleanup_err crt_err *e = NULL;
  if (crt_container_delete(o->root, o->id, true, &e) < 0) crt_log_error_msg(e->msg);
  return 0;
}
