/* create: fork the init into its namespaces, set up the rootfs and the
 * process, park it on the exec FIFO.  The parent (runtime side) and the
 * init talk over a SOCK_SEQPACKET socketpair, one message per step:
 *
 *   parent                          init
 *   [v2: mkdir the cgroup, open it]
 *   clone ------------------------> (in new namespaces; on v2 born in its
 *                                   cgroup: clone3 CLONE_INTO_CGROUP)
 *   write uid/gid maps, MAPS_DONE -> become root in the user ns
 *   cgroup: resources, device filter,
 *   join (v1, or v2 fallback),
 *   CGROUP_DONE ------------------> unshare cgroup ns, sysctl, hostname,
 *                                   mounts (born in the cgroup: all this
 *                                   while the parent configures it, and
 *                                   CGROUP_DONE is awaited here)
 *            <-------------------- PRESTART
 *   prestart + createRuntime hooks
 *   PRESTART_DONE ----------------> createContainer hooks, pivot_root,
 *                                   terminal, masked paths, user, caps
 *            <-------------------- READY
 *   state.json, pid file, exit      exec crt-stub, whose open(exec.fifo)
 *                                   blocks until `start`
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crt/cgroup.h"
#include "crt/cli.h"
#include "crt/container.h"
#include "crt/fs.h"
#include "crt/hooks.h"
#include "crt/lifecycle.h"
#include "crt/log.h"
#include "crt/process.h"
#include "crt/rootfs.h"
#include "crt/security.h"
#include "crt/stub.h"
#include "crt/sync.h"
#include "crt/terminal.h"
#include "crt/testpoint.h"

/* More would be a caller's mistake; bounded so that preserve + listen
 * cannot overflow. */
#define CRT_MAX_LISTEN_FDS (1 << 16)

typedef struct {
  const crt_spec *spec;
  const crt_create_opts *opts;
  const char *rootfs;
  const char *bundle;
  int sync;         /* our end */
  int fifo;         /* O_PATH fd of exec.fifo */
  int console;      /* console socket (or -1) */
  int lock;         /* the state dir's flock: the init must not hold it */
  int cgroup_fd;    /* v2: the prepared cgroup to clone the init into, or -1 */
  int *idmap_fds;   /* user ns: idmapped mount trees made here, per mount (or NULL) */
  bool cgroup_made; /* v2: made before the clone (configured after it) */
  const char *cgroup_path; /* the cgroup, when cgroup_made */
  const crt_state *state;  /* for the hooks run in the container: all but the pid */
  int listen_fds;   /* socket activation: fds passed on after the preserved ones */
  bool use_stub;    /* end in crt-stub (else crt runs from a sealed copy) */
  bool new_userns;
  bool new_cgroupns;
  bool new_mntns;
} init_ctx;

/* ---- the init side ---- */

static void init_fail(int sync, crt_err *err) {
  const char *m = err && err->msg ? err->msg : "unknown error";
  crt_sync_send(sync, CRT_SYNC_ERROR, m, strlen(m), -1);
  _exit(1);
}

#define TRY(expr)                        \
  do {                                   \
    if ((expr) < 0) init_fail(c->sync, err); \
  } while (0)

static int write_offsets(const crt_spec *spec, crt_err **err) {
  const crt_linux *l = spec->linux_;
  char buf[256];
  for (size_t i = 0; l && i < l->n_time_offsets; i++) {
    int n = snprintf(buf, sizeof buf, "%s %lld %u\n", l->time_offsets[i].clock, (long long)l->time_offsets[i].secs,
                     l->time_offsets[i].nanosecs);
    if (crt_write_file("/proc/self/timens_offsets", buf, (size_t)n, 0, err) < 0)
      return crt_error_wrap(err, "timeOffsets %s", l->time_offsets[i].clock);
  }
  return 0;
}

/* The state given to hooks run in the container's namespaces: its pid is
 * the one the container sees (config.md, state "pid"; runc passes 1). */
static char *container_view_json(const init_ctx *c, enum crt_status st) {
  crt_state v = *c->state;
  v.pid = getpid();
  return crt_state_json(&v, st, false);
}

/* A config without process: the container exists (create succeeded, as
 * the spec allows) but start refuses it, so the init only waits to be
 * killed; it runs from crt's sealed copy (see crt_container_create). */
static void park_without_process(init_ctx *c) {
  prctl(PR_SET_PDEATHSIG, 0);
  crt_sync_send(c->sync, CRT_SYNC_READY, NULL, 0, -1);
  close(c->sync);
  close_range(3, ~0U, 0); /* nothing of the runtime's stays open */
  for (;;) pause();
}

/* After READY the parked init (crt-stub) still opens the exec FIFO, which
 * needs one free fd below RLIMIT_NOFILE.  Without one it would die unseen
 * after create reported success; runc fails create then ("too many open
 * files"), and so does crt, here, while errors still reach create.  The
 * sync socket is closed after READY, so its slot counts as free. */
static int check_fd_for_fifo(int sync, crt_err **err) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || (rlim_t)sync < rl.rlim_cur) return 0;
  int fd = fcntl(sync, F_DUPFD_CLOEXEC, 0);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  /* F_DUPFD says EINVAL when the limit is 0 */
  return crt_error(err, errno == EINVAL ? EMFILE : errno, "open the exec fifo with process.rlimits RLIMIT_NOFILE %llu",
                   (unsigned long long)rl.rlim_cur);
}

/* Runs in the final init process; never returns. */
static void init_main(init_ctx *c) {
  crt_err *err = NULL;
  const crt_spec *spec = c->spec;
  const crt_process *p = spec->process;
  crt_sync_msg *m = malloc(sizeof *m);
  if (!m) _exit(1);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (c->lock >= 0) close(c->lock);
  /* a host cgroupfs directory: never held inside the container */
  if (c->cgroup_fd >= 0) close(c->cgroup_fd);
  if (c->new_userns) {
    TRY(crt_sync_expect(c->sync, CRT_SYNC_MAPS_DONE, m, &err));
    if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) {
      crt_error(&err, errno, "become root in the user namespace (is uid/gid 0 mapped?)");
      init_fail(c->sync, err);
    }
  }
  /* Born in its final cgroup (v2, made before the clone, clone3): the
   * parent's cgroup configuration overlaps our mounts, and CGROUP_DONE is
   * only awaited before the prestart hooks.  Otherwise the parent moves us
   * into the cgroup first (the cgroup namespace is rooted where we are). */
  bool early = c->cgroup_made && crt_born_in_cgroup;
  if (!early) TRY(crt_sync_expect(c->sync, CRT_SYNC_CGROUP_DONE, m, &err));
  char *cgroup_path = strdup(early ? c->cgroup_path : m->data);
  if (c->new_cgroupns && unshare(CLONE_NEWCGROUP) < 0) {
    crt_error(&err, errno, "unshare cgroup namespace");
    init_fail(c->sync, err);
  }
  /* Sysctls before the prestart hooks: network hooks rely on them. */
  TRY(crt_set_sysctls(spec, &err));
  TRY(crt_set_hostname(spec, &err));
  TRY(crt_loopback_up(spec, &err));
  /* Relative bind sources are relative to the bundle, as in runc. */
  if (chdir(c->bundle) < 0) {
    crt_error(&err, errno, "chdir to bundle %s", c->bundle);
    init_fail(c->sync, err);
  }
  crt_rootfs_config rc = {.spec = spec,
                          .rootfs = c->rootfs,
                          .userns = c->new_userns || crt_spec_namespace(spec, CRT_NS_USER),
                          .new_mount_ns = c->new_mntns,
                          .cgroup_path = cgroup_path,
                          .idmap_fds = c->idmap_fds};
  /* Without a mount namespace nothing may be mounted (it would be the
   * host's): the process is only chrooted into root.path, as in runc. */
  bool mntns = crt_spec_namespace(spec, CRT_NS_MOUNT) != NULL;
  if (mntns) TRY(crt_rootfs_prepare(&rc, &err));
  crt_idmap_close(c->idmap_fds, spec->n_mounts); /* attached now */
  rc.idmap_fds = c->idmap_fds = NULL;
  if (early) TRY(crt_sync_expect(c->sync, CRT_SYNC_CGROUP_DONE, m, &err));
  crt_sync_send(c->sync, CRT_SYNC_PRESTART, NULL, 0, -1);
  TRY(crt_sync_expect(c->sync, CRT_SYNC_PRESTART_DONE, m, &err));
  bool start_hooks = spec->hooks && spec->hooks->start_container.len;
  cleanup_free char *start_json = start_hooks ? container_view_json(c, CRT_STATUS_CREATED) : NULL;
  if (spec->hooks && spec->hooks->create_container.len) {
    cleanup_free char *json = container_view_json(c, CRT_STATUS_CREATED);
    if (crt_hooks_run(&spec->hooks->create_container, "createContainer", json, &err) < 0) init_fail(c->sync, err);
  }
  if (mntns) {
    TRY(crt_rootfs_pivot(&rc, c->opts->no_pivot, &err));
  } else if (chroot(c->rootfs) < 0 || chdir("/") < 0) {
    crt_error(&err, errno, "chroot %s", c->rootfs);
    init_fail(c->sync, err);
  }
  /* A missing cwd is made, as runc does (root-owned, 0755): in the new
   * root, where no path resolves outside it, and before it turns
   * read-only.  exec does not do this (nor does runc). */
  if (p && p->cwd && *p->cwd) TRY(crt_mkdir_p(p->cwd, 0755, &err));
  if (p && p->terminal) TRY(crt_terminal_setup(p, c->console, mntns, &err));
  else if (p) TRY(crt_new_session(&err));
  if (c->console >= 0) close(c->console);
  if (mntns) TRY(crt_rootfs_finalize(&rc, &err));
  if (!c->opts->no_new_keyring) TRY(crt_new_session_keyring(c->opts->id, &err));
  /* The exec FIFO is reopened through our fd table in the container's
   * procfs (see crt_proc_self_fd). */
  if (!p) park_without_process(c);
  int selffd = crt_proc_self_fd(&err);
  if (selffd < 0) init_fail(c->sync, err);
  cleanup_free char *exe = NULL;
  TRY(crt_find_executable(p, &exe, &err));
  /* made before any seccomp filter can refuse memfd_create */
  int stub = c->use_stub ? crt_stub_open(&err) : -1;
  if (c->use_stub && stub < 0) init_fail(c->sync, err);
  crt_seccomp_filter *filter = NULL;
  const crt_seccomp *sc = spec->linux_ ? spec->linux_->seccomp : NULL;
  if (sc) TRY(crt_seccomp_compile(sc, &filter, &err));
  TRY(crt_set_rlimits(p, &err));
  TRY(crt_set_process_attrs(spec, p, &err));
  /* Not dumpable from here to execve (after the last write to our own
   * /proc files): a process exec'd into the container may not open the
   * parked init's /proc/1/fd or /proc/1/exe. */
  prctl(PR_SET_DUMPABLE, 0);
  TRY(crt_caps_prepare(p->capabilities, &err));
  TRY(crt_set_cwd(p, "in config.json", &err)); /* as root: the user may not search the path yet */
  /* socket activation: LISTEN_FDS fds after the preserved ones stay open */
  int preserve = c->opts->preserve_fds + c->listen_fds;
  char listen_env[32] = "";
  const char *extra[3] = {NULL, NULL, NULL};
  if (c->listen_fds > 0) {
    snprintf(listen_env, sizeof listen_env, "LISTEN_FDS=%d", c->listen_fds);
    extra[0] = listen_env;
    extra[1] = "LISTEN_PID=1";
  }
  char **envp = crt_build_env(p, extra);
  int notify_fd = -1;
  bool late = filter && crt_seccomp_late(sc, p), stub_failed = false;
  /* Without no_new_privs loading needs CAP_SYS_ADMIN: before setuid drops
   * the effective set (as runc). */
  if (filter && !late) {
    if (p->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
      crt_error(&err, errno, "prctl(PR_SET_NO_NEW_PRIVS)");
      init_fail(c->sync, err);
    }
    TRY(crt_seccomp_load(filter, &notify_fd, &err));
    if (notify_fd >= 0) {
      crt_sync_send(c->sync, CRT_SYNC_SECCOMP_FD, NULL, 0, notify_fd);
      close(notify_fd);
      TRY(crt_sync_expect(c->sync, CRT_SYNC_SECCOMP_DONE, m, &err));
    }
  }
  TRY(crt_fix_stdio_owner(p->user.uid, &err));
  TRY(crt_set_user(p, rc.userns, &err));
  TRY(crt_caps_apply(p->capabilities, &err));
  if (p->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
    crt_error(&err, errno, "prctl(PR_SET_NO_NEW_PRIVS)");
    init_fail(c->sync, err);
  }
  TRY(crt_lsm_apply(p, &err));
  TRY(check_fd_for_fifo(c->sync, &err));
  /* From here on the runtime may exit: do not die with it. */
  prctl(PR_SET_PDEATHSIG, 0);
  crt_sync_send(c->sync, CRT_SYNC_READY, NULL, 0, -1);
  close(c->sync);
  if (stub >= 0) {
    /* The stub parks on the FIFO, loads a late filter and execs. */
    crt_reset_signals();
    crt_cloexec_fds_from(3 + preserve);
    crt_stub_args sa = {.stub = stub, .selffd = selffd, .fifo = c->fifo, .errfd = -1,
                        .filter = late ? filter : NULL, .exit_code = 1, .exe = exe, .argv = p->args.v, .envp = envp};
    stub_failed = crt_stub_exec(&sa, &err) < 0; /* only returns on failure: reported to start */
  }

  /* Parked until `start` opens the other end.  The write end is
   * O_CLOEXEC: start reads EOF exactly when execve has happened. */
  char fifo_name[32];
  snprintf(fifo_name, sizeof fifo_name, "%d", c->fifo);
  int wfd = openat(selffd, fifo_name, O_WRONLY | O_CLOEXEC);
  if (wfd < 0) _exit(1);
  close(c->fifo);
  close(selffd);
  if (write(wfd, "0", 1) != 1) _exit(1);
  if (stub_failed) goto fail_start;
  if (late && crt_seccomp_load(filter, &notify_fd, &err) < 0) goto fail_start;
  if (start_hooks && crt_hooks_run(&spec->hooks->start_container, "startContainer", start_json, &err) < 0) {
    /* start destroys the container after a failing hook (lifecycle step 7) */
    crt_write_all(wfd, CRT_FIFO_HOOK_FAILED, 1);
    goto fail_start;
  }
  crt_reset_signals();
  crt_cloexec_fds_from(3 + preserve);
  execve(exe, p->args.v, envp);
  crt_error(&err, errno, "exec %s", exe);
fail_start:
  crt_error_wrap(&err, "unable to start container process");
  crt_write_all(wfd, err->msg, strlen(err->msg));
  _exit(1);
}

/* Two-stage spawn: join namespaces by path (and unshare a time ns, which
 * clone() cannot create), then clone the init as our parent's child. */
static void joiner_main(init_ctx *c, int flags) {
  crt_err *err = NULL;
  if (crt_ns_join_paths(c->spec, &err) < 0) init_fail(c->sync, err);
  if (flags & CLONE_NEWTIME) {
    if (unshare(CLONE_NEWTIME) < 0) {
      crt_error(&err, errno, "unshare time namespace");
      init_fail(c->sync, err);
    }
    if (write_offsets(c->spec, &err) < 0) init_fail(c->sync, err);
    flags &= ~CLONE_NEWTIME;
  }
  pid_t pid = crt_clone_into((unsigned long)flags | CLONE_PARENT, c->cgroup_fd);
  if (pid < 0) {
    crt_error(&err, errno, "clone init");
    init_fail(c->sync, err);
  }
  if (pid == 0) init_main(c);
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%d", pid);
  crt_sync_send(c->sync, CRT_SYNC_PID, buf, (size_t)n, -1);
  _exit(0);
}

/* A pid namespace joined by path already has processes, which would see
 * the init while it still runs crt (CVE-2019-5736 with CAP_SYS_PTRACE). */
static bool joins_pid_ns(const crt_spec *spec) {
  const crt_namespace *ns = crt_spec_namespace(spec, CRT_NS_PID);
  return ns && ns->path && *ns->path;
}

static bool needs_two_stage(const crt_spec *spec) {
  const crt_linux *l = spec->linux_;
  for (size_t i = 0; l && i < l->n_namespaces; i++) {
    if (l->namespaces[i].path && *l->namespaces[i].path) return true;
    if (l->namespaces[i].type == CRT_NS_TIME) return true;
  }
  return false;
}

/* ---- the runtime side ---- */

static char *now_rfc3339(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char buf[64], *out = NULL;
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  if (asprintf(&out, "%s.%09ldZ", buf, ts.tv_nsec) < 0) return NULL;
  return out;
}

static char *abs_path(const char *base, const char *p) {
  char *out = NULL;
  if (p[0] == '/') out = strdup(p);
  else if (asprintf(&out, "%s/%s", base, p) < 0) return NULL;
  char *r = realpath(out, NULL);
  if (r) {
    free(out);
    return r;
  }
  return out;
}

static int copy_annotations(crt_state *s, const crt_spec *spec) {
  if (!spec->annotations.len) return 0;
  s->annotations.v = calloc(spec->annotations.len, sizeof(crt_kv));
  if (!s->annotations.v) return -1;
  for (size_t i = 0; i < spec->annotations.len; i++) {
    s->annotations.v[i].key = strdup(spec->annotations.v[i].key);
    s->annotations.v[i].value = strdup(spec->annotations.v[i].value);
  }
  s->annotations.len = spec->annotations.len;
  return 0;
}

static int spawn(init_ctx *c, int child_sync, pid_t *out, crt_err **err) {
  int flags = crt_ns_new_flags(c->spec) & ~CLONE_NEWCGROUP;
  bool two = needs_two_stage(c->spec);
  int sync_parent = c->sync;
  c->sync = child_sync;
  pid_t pid = two ? crt_raw_clone(0) : crt_clone_into((unsigned long)(flags & ~CLONE_NEWTIME), c->cgroup_fd);
  if (pid < 0) return crt_error(err, errno, "clone");
  if (pid == 0) {
    close(sync_parent);
    if (two) joiner_main(c, flags);
    init_main(c);
  }
  c->sync = sync_parent;
  close(child_sync);
  if (!two) {
    *out = pid;
    return 0;
  }
  crt_sync_msg *m = malloc(sizeof *m);
  int rc = crt_sync_expect(c->sync, CRT_SYNC_PID, m, err);
  int st;
  waitpid(pid, &st, 0);
  if (rc == 0) *out = (pid_t)atoi(m->data);
  free(m);
  return rc;
}

/* runtime.md (v1.3) ties `creating` to lifecycle step 2 and `created` to
 * "after step 2": the hooks of steps 3-5 see `created`, as crun sends. */
static int run_create_hooks(const crt_spec *spec, crt_state *s, crt_err **err) {
  cleanup_free char *json = crt_state_json(s, CRT_STATUS_CREATED, false);
  if (!spec->hooks) return 0;
  if (crt_hooks_run(&spec->hooks->prestart, "prestart", json, err) < 0) return -1;
  return crt_hooks_run(&spec->hooks->create_runtime, "createRuntime", json, err);
}

static int write_pid_file(const char *path, pid_t pid, crt_err **err) {
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%d", pid);
  return crt_write_file_atomic(path, buf, (size_t)n, 0644, err);
}

static crt_cgroup_config cgroup_config(const crt_state *s, const crt_spec *spec) {
  return (crt_cgroup_config){.id = s->id,
                             .spec = spec,
                             .systemd = crt_g.systemd_cgroup,
                             .rootless = geteuid() != 0 || !strcmp(crt_g.rootless, "true")};
}

/* The parent's part, after the init exists. */
static int drive_init(init_ctx *c, crt_state *s, const char *dir, crt_err **err) {
  const crt_spec *spec = c->spec;
  cleanup_free crt_sync_msg *m = malloc(sizeof *m);
  if (!m) return crt_error(err, ENOMEM, "create");
  if (c->new_userns) {
    if (crt_ns_write_maps(s->pid, spec, err) < 0) return -1;
    crt_sync_send(c->sync, CRT_SYNC_MAPS_DONE, NULL, 0, -1);
  }
  if (spec->linux_ && crt_netdev_move(s->pid, &spec->linux_->net_devices, err) < 0) return -1;
  /* state.json already names the planned cgroup (see crt_container_create):
   * a crash from here on leaves nothing delete --force cannot find. */
  if (c->cgroup_made) {
    /* v2, prepared: the init was born in it unless clone3 fell back */
    crt_cgroup_config cc = cgroup_config(s, spec);
    if (crt_cgroup_configure(&cc, s->cgroup_path, err) < 0) return -1;
    if (crt_cgroup_join(s->cgroup_path, NULL, s->pid, err) < 0) return -1;
  } else if (*s->cgroup_path) {
    crt_cgroup_config cc = cgroup_config(s, spec);
    char *entered = NULL;
    if (crt_cgroup_enter(&cc, s->pid, &entered, err) < 0) return -1;
    if (strcmp(entered, s->cgroup_path) != 0) { /* e.g. rootless: nothing made */
      free(s->cgroup_path);
      s->cgroup_path = entered;
      if (crt_state_save(c->opts->root, s, err) < 0) return -1;
    } else {
      free(entered);
    }
  }
  crt_test_point("create:cgroup");
  crt_sync_send(c->sync, CRT_SYNC_CGROUP_DONE, s->cgroup_path, strlen(s->cgroup_path), -1);
  if (crt_sync_expect(c->sync, CRT_SYNC_PRESTART, m, err) < 0) return -1;
  crt_test_point("create:prestart");
  if (run_create_hooks(spec, s, err) < 0) return -1;
  crt_sync_send(c->sync, CRT_SYNC_PRESTART_DONE, NULL, 0, -1);
  for (;;) {
    if (crt_sync_recv(c->sync, m, err) < 0) return -1;
    if (m->type == CRT_SYNC_READY) break;
    if (m->type == CRT_SYNC_ERROR) return crt_error(err, 0, "%s", m->data);
    if (m->type == CRT_SYNC_SECCOMP_FD) {
      cleanup_free char *sj = crt_state_json(s, CRT_STATUS_CREATING, false);
      int rc = crt_seccomp_send_listener(spec->linux_->seccomp, m->fd, s->pid, sj, err);
      close(m->fd);
      if (rc < 0) return -1;
      crt_sync_send(c->sync, CRT_SYNC_SECCOMP_DONE, NULL, 0, -1);
      continue;
    }
    return crt_error(err, 0, "unexpected message %u from init", m->type);
  }
  (void)dir;
  return 0;
}

/* On cgroup v2 the cgroup is made before the init, which is then cloned
 * straight into it.  The rescue file names it first, so that a crash here
 * leaves nothing that delete --force cannot find. */
static int prepare_cgroup(init_ctx *c, crt_state *s, crt_err **err) {
  if (crt_cgroup_mode() != CRT_CGROUP_MODE_V2 || crt_g.systemd_cgroup) return 0;
  if (crt_state_save_rescue(c->opts->root, s, err) < 0) return -1;
  crt_cgroup_config cc = cgroup_config(s, c->spec);
  enum crt_cgroup_prepared got;
  if (crt_cgroup_prepare(&cc, s->cgroup_path, &got, &c->cgroup_fd, err) < 0) return -1;
  c->cgroup_made = got == CRT_CGROUP_PREPARED;
  if (got == CRT_CGROUP_NONE) s->cgroup_path[0] = 0; /* rootless: no cgroup */
  return 0;
}

/* runtime.md lifecycle: a failing prestart, createRuntime or
 * createContainer hook (or any later failure of create) stops the
 * container, destroys it (step 12) and runs the poststop hooks (step 13),
 * as runc does for every create failure once the init exists. */
static void undo_create(const char *dir, crt_state *s, const crt_spec *spec) {
  bool spawned = s->pid > 0;
  if (spawned) {
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
  }
  if (s->cgroup_path && *s->cgroup_path) {
    cleanup_err crt_err *e = NULL;
    if (s->systemd && crt_cgroup_stop_unit(s->cgroup_path, &e) < 0) {
      crt_warn("%s", e->msg);
      crt_err_free(&e);
    }
    if (crt_cgroup_destroy(s->cgroup_path, &e) < 0) crt_warn("%s", e->msg);
  }
  if (spawned && spec->hooks && spec->hooks->poststop.len) {
    cleanup_free char *json = crt_state_json(s, CRT_STATUS_STOPPED, false);
    crt_hooks_run_warn(&spec->hooks->poststop, "poststop", json);
  }
  crt_rm_rf(dir);
}

/* sd_listen_fds(3)'s rule, as runc: the fds are ours only when LISTEN_PID
 * names this process; otherwise the variables were inherited from a
 * socket-activated ancestor and its fds are not for the container. */
static int listen_fds(void) {
  const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
  if (!pid || !fds) return 0;
  char *end;
  errno = 0;
  long p = strtol(pid, &end, 10);
  if (errno || *end || end == pid || p != (long)getpid()) return 0;
  long n = strtol(fds, &end, 10);
  if (errno || *end || end == fds || n <= 0 || n > CRT_MAX_LISTEN_FDS) return 0;
  return (int)n;
}

static int open_console(const crt_create_opts *o, const crt_spec *spec, int *console, int *ours, crt_err **err) {
  *console = *ours = -1;
  if (!spec->process || !spec->process->terminal) {
    if (o->console_socket) return crt_error(err, 0, "cannot use console socket if runtime will not create a terminal");
    return 0;
  }
  if (o->console_socket) {
    *console = crt_console_socket_connect(o->console_socket, err);
    return *console < 0 ? -1 : 0;
  }
  if (!o->foreground_tty) return crt_error(err, 0, "cannot allocate tty if runc will detach without setting console socket");
  int sp[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) return crt_error(err, errno, "socketpair");
  *ours = sp[0];
  *console = sp[1];
  return 0;
}

int crt_container_create(const crt_create_opts *o, crt_create_result *res, crt_err **err) {
  res->pid = 0;
  res->tty_sock = -1;
  if (crt_container_id_check(o->id, err) < 0) return -1;
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return crt_error(err, errno, "getcwd");
  cleanup_free char *bundle = abs_path(cwd, o->bundle ? o->bundle : ".");
  char cfg[PATH_MAX];
  snprintf(cfg, sizeof cfg, "%s/config.json", bundle);
  crt_spec *spec = NULL;
  if (crt_spec_load(cfg, &spec, err) < 0) return -1;
  /* crt-stub finishes most inits; the others need crt itself up to the
   * user's execve, so crt runs from a sealed copy (CVE-2019-5736), as it
   * does when the init is visible to other processes while it runs crt. */
  bool use_stub = crt_stub_usable(spec->linux_ ? spec->linux_->seccomp : NULL, spec->process,
                                  spec->hooks && spec->hooks->start_container.len);
  if ((!use_stub || joins_pid_ns(spec) || !spec->process) && crt_ensure_cloned_binary(crt_g.argv0, err) < 0) {
    crt_spec_free(spec);
    return -1;
  }
  int rc = -1;
  init_ctx c = {.spec = spec, .opts = o, .sync = -1, .fifo = -1, .console = -1, .lock = -1, .cgroup_fd = -1,
                .use_stub = use_stub, .listen_fds = listen_fds()};
  crt_state *s = calloc(1, sizeof *s);
  cleanup_free char *rootfs = NULL;
  char dir[PATH_MAX] = "";
  int lock = -1, ours_tty = -1;
  bool made_dir = false;
  if (crt_spec_validate_for_create(spec, err) < 0) goto out;
  if (spec->linux_ && spec->linux_->memory_policy && crt_mempolicy_validate(spec->linux_->memory_policy, err) < 0) {
    crt_error_wrap(err, "config.json");
    goto out;
  }
  rootfs = abs_path(bundle, spec->root->path);
  struct stat st;
  if (stat(rootfs, &st) < 0) {
    crt_error(err, errno, "rootfs %s", rootfs);
    goto out;
  }
  if (!S_ISDIR(st.st_mode)) {
    crt_error(err, ENOTDIR, "rootfs %s", rootfs);
    goto out;
  }
  if (!crt_spec_namespace(spec, CRT_NS_MOUNT) && spec->n_mounts)
    crt_warn("config.json: .linux.namespaces: no mount namespace: mounts, masked and read-only paths are not applied");
  if (crt_mkdir_p(o->root, 0700, err) < 0) goto out;
  if (crt_container_dir(o->root, o->id, dir, sizeof dir, err) < 0) goto out;
  if (mkdir(dir, 0700) < 0) {
    if (errno == EEXIST) crt_error_kind(err, CRT_ERR_EXISTS, 0, "container with id exists: %s", o->id);
    else crt_error(err, errno, "mkdir %s", dir);
    dir[0] = 0;
    goto out;
  }
  made_dir = true;
  if ((lock = crt_container_lock(o->root, o->id, err)) < 0) goto out;
  c.lock = lock;
  crt_test_point("create:dir");
  char fifo[PATH_MAX + 16];
  snprintf(fifo, sizeof fifo, "%s/exec.fifo", dir);
  mode_t old = umask(0);
  int mr = mkfifo(fifo, 0622);
  umask(old);
  if (mr < 0) {
    crt_error(err, errno, "mkfifo %s", fifo);
    goto out;
  }
  c.fifo = open(fifo, O_PATH | O_CLOEXEC);
  if (c.fifo < 0) {
    crt_error(err, errno, "open %s", fifo);
    goto out;
  }
  if (open_console(o, spec, &c.console, &ours_tty, err) < 0) goto out;
  int sp[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
    crt_error(err, errno, "socketpair");
    goto out;
  }
  c.sync = sp[0];
  c.rootfs = rootfs;
  c.bundle = bundle;
  const crt_namespace *uns = crt_spec_namespace(spec, CRT_NS_USER);
  c.new_userns = uns && !uns->path;
  const crt_namespace *cns = crt_spec_namespace(spec, CRT_NS_CGROUP);
  c.new_cgroupns = cns && !cns->path;
  const crt_namespace *mns = crt_spec_namespace(spec, CRT_NS_MOUNT);
  c.new_mntns = mns && !mns->path;

  s->id = strdup(o->id);
  s->bundle = strdup(bundle);
  s->rootfs = strdup(rootfs);
  s->created = now_rfc3339();
  s->owner = strdup("");
  s->dir = strdup(dir);
  s->systemd = crt_g.systemd_cgroup;
  copy_annotations(s, spec);
  crt_cgroup_config cc = cgroup_config(s, spec);
  if (crt_cgroup_resolve(&cc, &s->cgroup_path, err) < 0) goto out;
  if (crt_state_save_spec(s, spec, err) < 0) goto out;
  if (c.new_userns && crt_idmap_prepare(spec, bundle, &c.idmap_fds, err) < 0) goto out;
  if (prepare_cgroup(&c, s, err) < 0) goto out;
  c.cgroup_path = s->cgroup_path;
  c.state = s;
  if (spawn(&c, sp[1], &s->pid, err) < 0) goto out;
  if (c.cgroup_fd >= 0) close(c.cgroup_fd);
  c.cgroup_fd = -1;
  crt_idmap_close(c.idmap_fds, spec->n_mounts);
  c.idmap_fds = NULL;
  s->start_time = crt_proc_start_time(s->pid, NULL);
  if (crt_state_save(o->root, s, err) < 0) goto out;
  crt_test_point("create:spawned");
  if (drive_init(&c, s, dir, err) < 0) goto out;
  crt_test_point("create:ready");
  s->ready = true;
  if (crt_state_save(o->root, s, err) < 0) goto out;
  if (o->pid_file && write_pid_file(o->pid_file, s->pid, err) < 0) goto out;
  res->pid = s->pid;
  res->tty_sock = ours_tty;
  ours_tty = -1;
  rc = 0;
out:
  if (rc < 0) {
    crt_error_wrap(err, "create %s", o->id);
    if (made_dir) undo_create(dir, s, spec);
  }
  if (c.sync >= 0) close(c.sync);
  if (c.cgroup_fd >= 0) close(c.cgroup_fd);
  crt_idmap_close(c.idmap_fds, spec->n_mounts);
  if (c.fifo >= 0) close(c.fifo);
  if (c.console >= 0) close(c.console);
  if (ours_tty >= 0) close(ours_tty);
  if (lock >= 0) close(lock);
  crt_state_free(s);
  crt_spec_free(spec);
  return rc;
}
