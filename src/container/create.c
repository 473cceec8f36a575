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
#include "crt/container.h"
#include "crt/execfifo.h"
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
#include "finalize.h"

/* More would be a caller's mistake; bounded so that preserve + listen
 * cannot overflow. */
#define CRT_MAX_LISTEN_FDS (1 << 16)

typedef struct {
  const crt_spec *spec;
  const crt_create_opts *opts;
  const char *rootfs;
  const char *bundle;
  int sync;         /* our end */
  crt_child_report rep; /* in the init: errors go back on sync */
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
  bool born_in_cgroup; /* in the init: clone3 put it into the prepared cgroup */
} init_ctx;

/* ---- the init side ---- */

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
  if (crt_sync_send(c->sync, CRT_SYNC_READY, NULL, 0, -1) < 0) {
    crt_err *err = NULL;
    crt_error(&err, errno, "tell the runtime the init is ready");
    crt_child_fail(&c->rep, err);
  }
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

/* Stage 1: root in the user namespace, in the cgroup (and its namespace).
 * Returns the cgroup path the mounts use. */
static char *init_enter(init_ctx *c, crt_sync_msg *m) {
  crt_err *err = NULL;
  const crt_child_report *r = &c->rep;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (c->lock >= 0) close(c->lock);
  /* a host cgroupfs directory: never held inside the container */
  if (c->cgroup_fd >= 0) close(c->cgroup_fd);
  if (c->new_userns) {
    CHILD_TRY(r, crt_sync_expect(c->sync, CRT_SYNC_MAPS_DONE, m, &err));
    if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) {
      crt_error(&err, errno, "become root in the user namespace (is uid/gid 0 mapped?)");
      crt_child_fail(r, err);
    }
  }
  /* Born in its final cgroup (v2, made before the clone, clone3): the
   * parent's cgroup configuration overlaps our mounts, and CGROUP_DONE is
   * only awaited before the prestart hooks (init_mount).  Otherwise the
   * parent moves us into the cgroup first (the cgroup namespace is rooted
   * where we are). */
  if (!c->born_in_cgroup) CHILD_TRY(r, crt_sync_expect(c->sync, CRT_SYNC_CGROUP_DONE, m, &err));
  char *cgroup_path = strdup(c->born_in_cgroup ? c->cgroup_path : m->data);
  if (!cgroup_path) {
    crt_error(&err, ENOMEM, "cgroup path");
    crt_child_fail(r, err);
  }
  if (c->new_cgroupns && unshare(CLONE_NEWCGROUP) < 0) {
    crt_error(&err, errno, "unshare cgroup namespace");
    crt_child_fail(r, err);
  }
  return cgroup_path;
}

/* Stage 2: sysctls, hostname, lo, the mounts; then the runtime's prestart
 * and createRuntime hooks. */
static void init_mount(init_ctx *c, crt_rootfs_config *rc, bool mntns, crt_sync_msg *m) {
  crt_err *err = NULL;
  const crt_child_report *r = &c->rep;
  const crt_spec *spec = c->spec;
  /* Sysctls before the prestart hooks: network hooks rely on them. */
  CHILD_TRY(r, crt_set_sysctls(spec, &err));
  CHILD_TRY(r, crt_set_hostname(spec, &err));
  CHILD_TRY(r, crt_loopback_up(spec, &err));
  /* Relative bind sources are relative to the bundle, as in runc. */
  if (chdir(c->bundle) < 0) {
    crt_error(&err, errno, "chdir to bundle %s", c->bundle);
    crt_child_fail(r, err);
  }
  if (mntns) CHILD_TRY(r, crt_rootfs_prepare(rc, &err));
  crt_idmap_close(c->idmap_fds, spec->n_mounts); /* attached now */
  rc->idmap_fds = c->idmap_fds = NULL;
  if (c->born_in_cgroup) CHILD_TRY(r, crt_sync_expect(c->sync, CRT_SYNC_CGROUP_DONE, m, &err));
  if (crt_sync_send(c->sync, CRT_SYNC_PRESTART, NULL, 0, -1) < 0) {
    crt_error(&err, errno, "ask the runtime for the prestart hooks");
    crt_child_fail(r, err);
  }
  CHILD_TRY(r, crt_sync_expect(c->sync, CRT_SYNC_PRESTART_DONE, m, &err));
}

/* Stage 3: createContainer hooks, into the new root, the terminal, the
 * root made read-only and masked, the session keyring. */
static void init_enter_root(init_ctx *c, crt_rootfs_config *rc, bool mntns) {
  crt_err *err = NULL;
  const crt_child_report *r = &c->rep;
  const crt_spec *spec = c->spec;
  const crt_process *p = spec->process;
  if (spec->hooks && spec->hooks->create_container.len) {
    cleanup_free char *json = container_view_json(c, CRT_STATUS_CREATED);
    if (!json) CHILD_TRY(r, crt_error(&err, ENOMEM, "createContainer hooks: state"));
    CHILD_TRY(r, crt_hooks_run(&spec->hooks->create_container, "createContainer", json, &err));
  }
  if (mntns) {
    CHILD_TRY(r, crt_rootfs_pivot(rc, c->opts->no_pivot, &err));
  } else if (chroot(c->rootfs) < 0 || chdir("/") < 0) {
    crt_error(&err, errno, "chroot %s", c->rootfs);
    crt_child_fail(r, err);
  }
  /* A missing cwd is made, as runc does (root-owned, 0755): in the new
   * root, where no path resolves outside it, and before it turns
   * read-only.  exec does not do this (nor does runc). */
  if (p && p->cwd && *p->cwd) CHILD_TRY(r, crt_mkdir_p(p->cwd, 0755, &err));
  if (p) CHILD_TRY(r, crt_finalize_terminal(p, c->console, mntns, &err));
  else if (c->console >= 0) close(c->console);
  if (mntns) CHILD_TRY(r, crt_rootfs_finalize(rc, &err));
  if (!c->opts->no_new_keyring) CHILD_TRY(r, crt_new_session_keyring(c->opts->id, &err));
}

/* Stage 5: READY sent, parked on the exec FIFO until `start` opens it
 * (in crt-stub, or here when crt itself must run up to execve). */
static void init_park_and_exec(init_ctx *c, crt_finalized *fo, int selffd, const char *start_json, int preserve) {
  crt_err *err = NULL;
  const crt_process *p = c->spec->process;
  /* From here on the runtime may exit: do not die with it. */
  prctl(PR_SET_PDEATHSIG, 0);
  if (crt_sync_send(c->sync, CRT_SYNC_READY, NULL, 0, -1) < 0) {
    crt_error(&err, errno, "tell the runtime the init is ready");
    crt_child_fail(&c->rep, err);
  }
  close(c->sync);
  bool stub_failed = false;
  if (fo->stub >= 0) {
    /* The stub parks on the FIFO, loads a late filter and execs. */
    crt_reset_signals();
    crt_cloexec_fds_from(3 + preserve);
    crt_stub_args sa = {.stub = fo->stub, .selffd = selffd, .fifo = c->fifo, .errfd = -1,
                        .filter = fo->filter_pending ? fo->filter : NULL, .exit_code = 1, .exe = fo->exe,
                        .argv = p->args.v, .envp = fo->envp};
    stub_failed = crt_stub_exec(&sa, &err) < 0; /* only returns on failure: reported to start */
  }
  /* Parked until `start` opens the other end (see crt/execfifo.h). */
  int wfd = crt_exec_fifo_park(selffd, c->fifo);
  if (wfd < 0) _exit(1);
  int notify_fd = -1;
  bool hook_failed = false;
  if (stub_failed) goto fail_start;
  if (fo->filter_pending && crt_seccomp_load(fo->filter, &notify_fd, &err) < 0) goto fail_start;
  /* start destroys the container after a failing hook (lifecycle step 7) */
  hook_failed = start_json && crt_hooks_run(&c->spec->hooks->start_container, "startContainer", start_json, &err) < 0;
  if (hook_failed) goto fail_start;
  crt_reset_signals();
  crt_cloexec_fds_from(3 + preserve);
  execve(fo->exe, p->args.v, fo->envp);
  crt_error(&err, errno, "exec %s", fo->exe);
fail_start:
  crt_error_wrap(&err, "unable to start container process");
  crt_exec_fifo_fail(wfd, err->msg, hook_failed);
  _exit(1);
}

/* Runs in the final init process; never returns. */
static void init_main(init_ctx *c) {
  crt_err *err = NULL;
  const crt_child_report *r = &c->rep;
  const crt_spec *spec = c->spec;
  const crt_process *p = spec->process;
  crt_sync_msg *m = malloc(sizeof *m);
  if (!m) _exit(1);
  c->born_in_cgroup = c->cgroup_made && crt_born_in_cgroup;
  crt_rootfs_config rc = {.spec = spec,
                          .rootfs = c->rootfs,
                          .userns = c->new_userns || crt_spec_namespace(spec, CRT_NS_USER),
                          .new_mount_ns = c->new_mntns,
                          .cgroup_path = init_enter(c, m),
                          .idmap_fds = c->idmap_fds};
  /* Without a mount namespace nothing may be mounted (it would be the
   * host's): the process is only chrooted into root.path, as in runc. */
  bool mntns = crt_spec_namespace(spec, CRT_NS_MOUNT) != NULL;
  init_mount(c, &rc, mntns, m);
  bool start_hooks = spec->hooks && spec->hooks->start_container.len;
  cleanup_free char *start_json = start_hooks ? container_view_json(c, CRT_STATUS_CREATED) : NULL;
  if (start_hooks && !start_json) CHILD_TRY(r, crt_error(&err, ENOMEM, "startContainer hooks: state"));
  init_enter_root(c, &rc, mntns);
  if (!p) park_without_process(c);
  /* Stage 4: the process itself.  The exec FIFO is reopened through our
   * fd table in the container's procfs (see crt_proc_self_fd). */
  int selffd = crt_proc_self_fd(&err);
  if (selffd < 0) crt_child_fail(r, err);
  /* socket activation: LISTEN_FDS fds after the preserved ones stay open */
  int preserve = c->opts->preserve_fds + c->listen_fds;
  char listen_env[32] = "";
  const char *extra[3] = {NULL, NULL, NULL};
  if (c->listen_fds > 0) {
    snprintf(listen_env, sizeof listen_env, "LISTEN_FDS=%d", c->listen_fds);
    extra[0] = listen_env;
    extra[1] = "LISTEN_PID=1";
  }
  crt_finalize_in fin = {.spec = spec, .p = p, .cwd_origin = "in config.json", .extra_env = extra,
                         .userns = rc.userns, .use_stub = c->use_stub, .parks = true, .sync = c->sync};
  crt_finalized fo;
  CHILD_TRY(r, crt_process_finalize(&fin, &fo, &err));
  CHILD_TRY(r, check_fd_for_fifo(c->sync, &err));
  init_park_and_exec(c, &fo, selffd, start_json, preserve);
}

static void init_entry(void *c) {
  init_main(c);
}

/* Two-stage spawn: join namespaces by path (and unshare a time ns, which
 * clone() cannot create), then clone the init as our parent's child. */
static void joiner_main(init_ctx *c, int flags) {
  crt_err *err = NULL;
  CHILD_TRY(&c->rep, crt_ns_join_paths(c->spec, &err));
  if (flags & CLONE_NEWTIME) {
    if (unshare(CLONE_NEWTIME) < 0) {
      crt_error(&err, errno, "unshare time namespace");
      crt_child_fail(&c->rep, err);
    }
    CHILD_TRY(&c->rep, write_offsets(c->spec, &err));
    flags &= ~CLONE_NEWTIME;
  }
  crt_joiner_clone((unsigned long)flags, c->cgroup_fd, "clone init", &c->rep, init_entry, c);
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
  if (!out) return NULL;
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
    crt_kv *kv = &s->annotations.v[i];
    kv->key = strdup(spec->annotations.v[i].key);
    kv->value = strdup(spec->annotations.v[i].value);
    s->annotations.len = i + 1; /* freed with the state, even half made */
    if (!kv->key || !kv->value) return -1;
  }
  return 0;
}

static int spawn(init_ctx *c, int child_sync, pid_t *out, crt_err **err) {
  int flags = crt_ns_new_flags(c->spec) & ~CLONE_NEWCGROUP;
  bool two = needs_two_stage(c->spec);
  int sync_parent = c->sync;
  c->sync = child_sync;
  c->rep = (crt_child_report){.sync = child_sync, .errpipe = -1, .exit_code = 1};
  pid_t pid = two ? crt_raw_clone(0) : crt_clone_into((unsigned long)(flags & ~CLONE_NEWTIME), c->cgroup_fd);
  if (pid < 0) {
    int e = errno;
    c->sync = sync_parent;
    close(child_sync);
    return crt_error(err, e, "clone");
  }
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
  return crt_joiner_wait(c->sync, pid, out, err);
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

static crt_cgroup_config cgroup_config(const crt_create_opts *o, const crt_state *s, const crt_spec *spec) {
  return (crt_cgroup_config){.id = s->id, .spec = spec, .systemd = o->systemd_cgroup, .rootless = o->rootless};
}

/* One step's message to the init.  It fails when the init is gone: the
 * error the init sent before it exited is then the one to report. */
static int tell_init(init_ctx *c, uint32_t type, const char *payload, const char *step, crt_err **err) {
  if (crt_sync_send(c->sync, type, payload, payload ? strlen(payload) : 0, -1) == 0) return 0;
  int e = errno;
  cleanup_free crt_sync_msg *m = NULL;
  /* the peer closed: recv returns what it queued, then EOF, never blocks */
  if ((e == EPIPE || e == ECONNRESET) && (m = malloc(sizeof *m))) {
    cleanup_err crt_err *rerr = NULL;
    if (crt_sync_recv(c->sync, m, &rerr) == 0 && m->type == CRT_SYNC_ERROR) return crt_error(err, 0, "%s", m->data);
  }
  return crt_error(err, e, "%s", step);
}

/* The init into its cgroup: configured (v2, made before the clone), or
 * made and entered now. */
static int place_in_cgroup(init_ctx *c, crt_state *s, crt_err **err) {
  crt_cgroup_config cc = cgroup_config(c->opts, s, c->spec);
  if (c->cgroup_made) {
    /* v2, prepared: the init was born in it unless clone3 fell back */
    if (crt_cgroup_configure(&cc, s->cgroup_path, err) < 0) return -1;
    return crt_cgroup_join(s->cgroup_path, NULL, s->pid, err);
  }
  if (!*s->cgroup_path) return 0;
  char *entered = NULL;
  if (crt_cgroup_enter(&cc, s->pid, &entered, err) < 0) return -1;
  if (strcmp(entered, s->cgroup_path) == 0) {
    free(entered);
    return 0;
  }
  /* e.g. rootless: nothing made */
  free(s->cgroup_path);
  s->cgroup_path = entered;
  return crt_state_save(c->opts->root, s, err);
}

/* Until READY: the init may hand over a seccomp notify fd first. */
static int await_ready(init_ctx *c, crt_state *s, crt_sync_msg *m, crt_err **err) {
  for (;;) {
    if (crt_sync_recv(c->sync, m, err) < 0) return -1;
    if (m->type == CRT_SYNC_READY) return 0;
    if (m->type == CRT_SYNC_ERROR) return crt_error(err, 0, "%s", m->data);
    if (m->type != CRT_SYNC_SECCOMP_FD) return crt_error(err, 0, "unexpected message %u from init", m->type);
    cleanup_free char *sj = crt_state_json(s, CRT_STATUS_CREATING, false);
    int rc = crt_seccomp_send_listener(c->spec->linux_->seccomp, m->fd, s->pid, sj, err);
    close(m->fd);
    if (rc < 0) return -1;
    if (tell_init(c, CRT_SYNC_SECCOMP_DONE, NULL, "tell the init its seccomp agent has the notify fd", err) < 0)
      return -1;
  }
}

/* The parent's part, after the init exists. */
static int drive_init(init_ctx *c, crt_state *s, crt_err **err) {
  const crt_spec *spec = c->spec;
  cleanup_free crt_sync_msg *m = malloc(sizeof *m);
  if (!m) return crt_error(err, ENOMEM, "create");
  if (c->new_userns) {
    if (crt_ns_write_maps(s->pid, spec, err) < 0) return -1;
    if (tell_init(c, CRT_SYNC_MAPS_DONE, NULL, "tell the init its uid/gid maps are written", err) < 0) return -1;
  }
  if (spec->linux_ && crt_netdev_move(s->pid, &spec->linux_->net_devices, err) < 0) return -1;
  /* state.json already names the planned cgroup (see crt_container_create):
   * a crash from here on leaves nothing delete --force cannot find. */
  if (place_in_cgroup(c, s, err) < 0) return -1;
  crt_test_point("create:cgroup");
  if (tell_init(c, CRT_SYNC_CGROUP_DONE, s->cgroup_path, "tell the init it is in its cgroup", err) < 0) return -1;
  if (crt_sync_expect(c->sync, CRT_SYNC_PRESTART, m, err) < 0) return -1;
  crt_test_point("create:prestart");
  if (run_create_hooks(spec, s, err) < 0) return -1;
  if (tell_init(c, CRT_SYNC_PRESTART_DONE, NULL, "tell the init the prestart hooks ran", err) < 0) return -1;
  return await_ready(c, s, m, err);
}

/* On cgroup v2 the cgroup is made before the init, which is then cloned
 * straight into it.  The rescue file names it first, so that a crash here
 * leaves nothing that delete --force cannot find. */
static int prepare_cgroup(init_ctx *c, crt_state *s, crt_err **err) {
  if (crt_cgroup_mode() != CRT_CGROUP_MODE_V2 || c->opts->systemd_cgroup) return 0;
  if (crt_state_save_rescue(c->opts->root, s, err) < 0) return -1;
  crt_cgroup_config cc = cgroup_config(c->opts, s, c->spec);
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

/* Stage 1 of create: the bundle's config.json. */
static int load_bundle(const crt_create_opts *o, char **bundle, crt_spec **spec, crt_err **err) {
  if (crt_container_id_check(o->id, err) < 0) return -1;
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return crt_error(err, errno, "getcwd");
  *bundle = abs_path(cwd, o->bundle ? o->bundle : ".");
  if (!*bundle) return crt_error(err, ENOMEM, "bundle path");
  char cfg[PATH_MAX];
  snprintf(cfg, sizeof cfg, "%s/config.json", *bundle);
  return crt_spec_load(cfg, spec, err);
}

/* Stage 2: what the spec leaves to the runtime to check, and the rootfs. */
static int check_bundle(const crt_spec *spec, const char *bundle, char **rootfs, crt_err **err) {
  if (crt_spec_validate_for_create(spec, err) < 0) return -1;
  if (spec->linux_ && spec->linux_->memory_policy && crt_mempolicy_validate(spec->linux_->memory_policy, err) < 0)
    return crt_error_wrap(err, "config.json");
  *rootfs = abs_path(bundle, spec->root->path);
  if (!*rootfs) return crt_error(err, ENOMEM, "rootfs path");
  struct stat st;
  if (stat(*rootfs, &st) < 0) return crt_error(err, errno, "rootfs %s", *rootfs);
  if (!S_ISDIR(st.st_mode)) return crt_error(err, ENOTDIR, "rootfs %s", *rootfs);
  if (!crt_spec_namespace(spec, CRT_NS_MOUNT) && spec->n_mounts)
    crt_warn("config.json: .linux.namespaces: no mount namespace: mounts, masked and read-only paths are not applied");
  return 0;
}

/* Stage 3: <root>/<id>, locked.  dir stays "" unless this call made it. */
static int make_state_dir(const crt_create_opts *o, char *dir, size_t len, int *lock, crt_err **err) {
  if (crt_mkdir_p(o->root, 0700, err) < 0) return -1;
  if (crt_container_dir(o->root, o->id, dir, len, err) < 0) {
    dir[0] = 0;
    return -1;
  }
  if (mkdir(dir, 0700) < 0) {
    if (errno == EEXIST) crt_error(err, 0, "container with id exists: %s", o->id);
    else crt_error(err, errno, "mkdir %s", dir);
    dir[0] = 0;
    return -1;
  }
  if ((*lock = crt_container_lock(o->root, o->id, err)) < 0) return -1;
  crt_test_point("create:dir");
  return 0;
}

static bool new_ns(const crt_spec *spec, enum crt_ns_type t) {
  const crt_namespace *ns = crt_spec_namespace(spec, t);
  return ns && !ns->path;
}

/* Stage 4: the console, the sync socketpair (*child: the init's end). */
static int open_channels(init_ctx *c, int *ours_tty, int *child, crt_err **err) {
  const crt_spec *spec = c->spec;
  const crt_create_opts *o = c->opts;
  if (crt_console_open(spec->process && spec->process->terminal, o->console_socket, !o->foreground_tty, &c->console,
                       ours_tty, err) < 0)
    return -1;
  int sp[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return crt_error(err, errno, "socketpair");
  c->sync = sp[0];
  *child = sp[1];
  c->new_userns = new_ns(spec, CRT_NS_USER);
  c->new_cgroupns = new_ns(spec, CRT_NS_CGROUP);
  c->new_mntns = new_ns(spec, CRT_NS_MOUNT);
  return 0;
}

/* Stage 5: the state as saved before the init exists. */
static int new_state(const init_ctx *c, const char *dir, crt_state *s, crt_err **err) {
  s->id = strdup(c->opts->id);
  s->bundle = strdup(c->bundle);
  s->rootfs = strdup(c->rootfs);
  s->created = now_rfc3339();
  s->owner = strdup("");
  s->dir = strdup(dir);
  s->systemd = c->opts->systemd_cgroup;
  if (!s->id || !s->bundle || !s->rootfs || !s->created || !s->owner || !s->dir || copy_annotations(s, c->spec) < 0)
    return crt_error(err, ENOMEM, "container state");
  crt_cgroup_config cc = cgroup_config(c->opts, s, c->spec);
  if (crt_cgroup_resolve(&cc, &s->cgroup_path, err) < 0) return -1;
  return crt_state_save_spec(s, c->spec, err);
}

/* Stage 6: the init cloned, state.json naming it. */
static int start_init(init_ctx *c, crt_state *s, int *child_sync, crt_err **err) {
  if (c->new_userns && crt_idmap_prepare(c->spec, c->bundle, &c->idmap_fds, err) < 0) return -1;
  if (prepare_cgroup(c, s, err) < 0) return -1;
  c->cgroup_path = s->cgroup_path;
  c->state = s;
  int cs = *child_sync;
  *child_sync = -1; /* spawn closes it */
  if (spawn(c, cs, &s->pid, err) < 0) return -1;
  if (c->cgroup_fd >= 0) close(c->cgroup_fd);
  c->cgroup_fd = -1;
  crt_idmap_close(c->idmap_fds, c->spec->n_mounts);
  c->idmap_fds = NULL;
  s->start_time = crt_proc_start_time(s->pid, NULL);
  if (crt_state_save(c->opts->root, s, err) < 0) return -1;
  crt_test_point("create:spawned");
  return 0;
}

static void close_ctx(init_ctx *c) {
  if (c->sync >= 0) close(c->sync);
  if (c->cgroup_fd >= 0) close(c->cgroup_fd);
  crt_idmap_close(c->idmap_fds, c->spec->n_mounts);
  if (c->fifo >= 0) close(c->fifo);
  if (c->console >= 0) close(c->console);
  if (c->lock >= 0) close(c->lock);
}

int crt_container_create(const crt_create_opts *o, crt_create_result *res, crt_err **err) {
  res->pid = 0;
  res->tty_sock = -1;
  cleanup_free char *bundle = NULL;
  crt_spec *spec = NULL;
  if (load_bundle(o, &bundle, &spec, err) < 0) return -1;
  /* crt-stub finishes most inits; the others need crt itself up to the
   * user's execve, so crt runs from a sealed copy (CVE-2019-5736), as it
   * does when the init is visible to other processes while it runs crt. */
  bool use_stub = crt_stub_usable(spec->linux_ ? spec->linux_->seccomp : NULL, spec->process,
                                  spec->hooks && spec->hooks->start_container.len);
  if ((!use_stub || joins_pid_ns(spec) || !spec->process) && crt_ensure_cloned_binary(o->argv, err) < 0) {
    crt_spec_free(spec);
    return -1;
  }
  int rc = -1, ours_tty = -1, child_sync = -1;
  init_ctx c = {.spec = spec, .opts = o, .bundle = bundle, .sync = -1, .fifo = -1, .console = -1, .lock = -1,
                .cgroup_fd = -1, .use_stub = use_stub, .listen_fds = listen_fds()};
  crt_state *s = calloc(1, sizeof *s);
  cleanup_free char *rootfs = NULL;
  char dir[PATH_MAX] = "";
  if (!s) {
    crt_error(err, ENOMEM, "container state");
    goto out;
  }
  if (check_bundle(spec, bundle, &rootfs, err) < 0) goto out;
  c.rootfs = rootfs;
  if (make_state_dir(o, dir, sizeof dir, &c.lock, err) < 0) goto out;
  if (crt_exec_fifo_create(dir, &c.fifo, err) < 0) goto out;
  if (open_channels(&c, &ours_tty, &child_sync, err) < 0) goto out;
  if (new_state(&c, dir, s, err) < 0) goto out;
  if (start_init(&c, s, &child_sync, err) < 0) goto out;
  if (drive_init(&c, s, err) < 0) goto out;
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
    if (dir[0]) undo_create(dir, s, spec);
  }
  close_ctx(&c);
  if (child_sync >= 0) close(child_sync);
  if (ours_tty >= 0) close(ours_tty);
  crt_state_free(s);
  crt_spec_free(spec);
  return rc;
}
