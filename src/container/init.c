/* create's init side: the cloned process, from its new namespaces to the
 * exec FIFO (the stages of init_main), and the joiner of a two-stage
 * spawn.  The runtime side and the sync steps: create.c. */
#define _GNU_SOURCE
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "crt/exec_stub.h"
#include "crt/execfifo.h"
#include "crt/fs.h"
#include "crt/hooks.h"
#include "crt/log.h"
#include "crt/mounts.h"
#include "crt/namespaces.h"
#include "crt/process.h"
#include "crt/procfs.h"
#include "crt/rootfs.h"
#include "crt/seccomp.h"
#include "crt/str.h"
#include "crt/sync.h"
#include "crt/rootless.h"

static int write_offsets(const crt_spec *spec, crt_err **err) {
  const crt_linux *l = spec->linux_;
  char buf[256];
  for (size_t i = 0; l && i < l->n_time_offsets; i++) {
    int n = crt_fmt(buf, sizeof buf, "%s %lld %u\n", l->time_offsets[i].clock, (long long)l->time_offsets[i].secs,
                    l->time_offsets[i].nanosecs);
    if (n < 0) return crt_error(err, errno, "timeOffsets %.32s: too long", l->time_offsets[i].clock);
    if (crt_procfs_write(CRT_PROCFS_SELF, 0, "timens_offsets", buf, (size_t)n, err) < 0)
      return crt_error_wrap(err, "timeOffsets %s", l->time_offsets[i].clock);
  }
  return 0;
}

/* The runtime answers the requests in the order they were sent; the init
 * awaits each answer only when it needs it (the answer to CGROUP while it
 * mounts, say), so one awaited may come after others not yet awaited:
 * those are kept here until their turn. */
#define EARLY_MAX 4
static crt_sync_msg *early[EARLY_MAX];
static size_t n_early;

static bool is_answer(uint32_t type) {
  return type == CRT_SYNC_MAPS_DONE || type == CRT_SYNC_NETDEVS_DONE || type == CRT_SYNC_CGROUP_DONE ||
         type == CRT_SYNC_MOUNT_FD || type == CRT_SYNC_PRESTART_DONE || type == CRT_SYNC_SECCOMP_DONE ||
         type == CRT_SYNC_FIFO_FD;
}

/* The next message of type, from those kept or from the socket. */
static int await_msg(int sync, uint32_t type, crt_sync_msg *m, crt_err **err) {
  for (size_t i = 0; i < n_early; i++) {
    if (early[i]->type != type) continue;
    memcpy(m, early[i], offsetof(crt_sync_msg, data) + early[i]->len + 1);
    free(early[i]);
    memmove(early + i, early + i + 1, (--n_early - i) * sizeof *early);
    return 0;
  }
  for (;;) {
    if (crt_sync_recv(sync, m, err) < 0) return -1;
    if (m->type == type) return 0;
    if (!is_answer(m->type) || n_early == EARLY_MAX) break;
    size_t size = offsetof(crt_sync_msg, data) + m->len + 1;
    if (!(early[n_early] = malloc(size))) return crt_error(err, ENOMEM, "keep message %u", m->type);
    memcpy(early[n_early++], m, size);
  }
  if (m->type == CRT_SYNC_ERROR) return crt_error(err, 0, "%s", m->data);
  for (size_t i = 0; i < m->nfds; i++) close(m->fds[i]);
  return crt_error(err, 0, "unexpected message %u from the runtime (wanted %u)", m->type, type);
}

/* A request; its answer is awaited where the init needs it. */
static void ask(init_ctx *c, uint32_t type, const char *what) {
  if (crt_sync_send(c->sync, type, NULL, 0, -1) == 0) return;
  crt_err *err = NULL;
  crt_error(&err, errno, "ask the runtime to %s", what);
  crt_child_fail(&c->rep, err);
}

/* crt_rootfs_config.source_from_host: mounts[idx]'s source, made by the
 * runtime (crt_mount_source_clone). */
static int ask_mount_source(void *arg, size_t idx, crt_err **err) {
  init_ctx *c = arg;
  char n[24];
  int len = snprintf(n, sizeof n, "%zu", idx);
  if (crt_sync_send(c->sync, CRT_SYNC_MOUNT_SOURCE, n, (size_t)len, -1) < 0)
    return crt_error(err, errno, "mounts[%zu]: ask the runtime for the source", idx);
  cleanup_free crt_sync_msg *m = malloc(sizeof *m);
  if (!m) return crt_error(err, ENOMEM, "mounts[%zu]", idx);
  if (await_msg(c->sync, CRT_SYNC_MOUNT_FD, m, err) < 0) return -1;
  if (m->fd < 0) return crt_error(err, 0, "mounts[%zu]: the runtime sent no source", idx);
  for (size_t i = 1; i < m->nfds; i++) close(m->fds[i]);
  return m->fd;
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
static void park_without_process(init_ctx *c, int log_prev) {
  crt_procfs_close();
  crt_log_release(log_prev);
  crt_sync_log_to(-1); /* create reads no LOG after READY */
  (void)prctl(PR_SET_PDEATHSIG, 0); /* cannot fail: 0 is a valid signal */
  if (crt_sync_send(c->sync, CRT_SYNC_READY, NULL, 0, -1) < 0) {
    crt_err *err = NULL;
    crt_error(&err, errno, "tell the runtime the init is ready");
    crt_child_fail(&c->rep, err);
  }
  close(c->sync);
  close_range(3, ~0U, 0); /* nothing of the runtime's stays open */
  for (;;) pause();
}

/* runc's parked init opens the exec FIFO after READY, so a process.rlimits
 * RLIMIT_NOFILE that leaves it no free fd fails runc's create ("too many
 * open files").  crt's parks on an fd it already has, but refuses the
 * same limits, as runc, while errors still reach create: the user's
 * program could open no file either.  The sync socket is closed after
 * READY, so its slot counts as free. */
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

/* The init's cgroup, in two steps: placed (in it on every hierarchy, its
 * cgroup namespace rooted there: what a cgroup mount and a device node
 * need, crt_rootfs_config.cgroup_join) and configured (the runtime's
 * answer to CGROUP: before PRESTART and the exec FIFO, so that nothing
 * runs unconfined).  An init the clone put into its cgroup for good is
 * placed from the start, and the runtime configures the cgroup while it
 * mounts; any other learns its place from the answer. */
typedef struct {
  init_ctx *c;
  crt_rootfs_config *rc; /* its cgroup_path: set when placed */
  crt_sync_msg *m;
  bool placed, configured;
} cgroup_wait;

/* "0" to each tasks file: this thread moves itself, no grace period.  The
 * host's cgroupfs fds are closed right after, joined or not. */
static int join_tasks_sent(crt_sync_msg *m, crt_err **err) {
  size_t at = strlen(m->data) + 1; /* after the path: the directories, one a line */
  char *dirs[CRT_SYNC_MAX_FDS];
  size_t n = 0;
  char *save = NULL;
  for (char *d = at < m->len ? strtok_r(m->data + at, "\n", &save) : NULL; d && n < CRT_SYNC_MAX_FDS;
       d = strtok_r(NULL, "\n", &save))
    dirs[n++] = d;
  crt_cgroup_tasks t = {.fds = m->fds, .dirs = dirs, .n = m->nfds};
  if (n == m->nfds) return crt_cgroup_tasks_join(&t, err);
  for (size_t i = 0; i < m->nfds; i++) close(m->fds[i]);
  return crt_error(err, 0, "cgroup: %zu tasks files for %zu hierarchies", m->nfds, n);
}

/* In the cgroup at path: the cgroup namespace rooted where we are. */
static int cgroup_placed(cgroup_wait *w, const char *path, crt_err **err) {
  if (!(w->rc->cgroup_path = strdup(path))) return crt_error(err, ENOMEM, "cgroup path");
  w->placed = true;
  if (crt_spec_new_namespace(w->c->spec, CRT_NS_CGROUP) && unshare(CLONE_NEWCGROUP) < 0)
    return crt_error(err, errno, "unshare cgroup namespace");
  CRT_STAGE(w->c->stages, "in the cgroup");
  return 0;
}

/* The answer to CGROUP: configured; unless placed already, in the cgroup
 * by the runtime, or (v1 made after the clone) by ourselves into the tasks
 * files that came with the answer. */
static int cgroup_configured(cgroup_wait *w, crt_err **err) {
  if (w->configured) return 0;
  w->configured = true;
  if (await_msg(w->c->sync, CRT_SYNC_CGROUP_DONE, w->m, err) < 0) return -1;
  if (w->placed) return 0;
  if (w->m->nfds && join_tasks_sent(w->m, err) < 0) return -1;
  return cgroup_placed(w, w->m->data, err);
}

/* crt_rootfs_config.cgroup_join: the first step that needs the cgroup
 * waits for the answer only when the init is not in it yet. */
static int join_cgroup(void *arg, crt_err **err) {
  cgroup_wait *w = arg;
  return w->placed ? 0 : cgroup_configured(w, err);
}

static bool has_netdevs(const crt_spec *spec) {
  return spec->linux_ && spec->linux_->net_devices.len;
}

/* Stage 1: the requests the runtime can serve at once, then the network
 * namespace, the v1 cgroup made before the clone, root in the user
 * namespace, and, when the clone put us into our cgroup for good, the
 * cgroup namespace. */
static void init_enter(init_ctx *c, cgroup_wait *cw, crt_sync_msg *m) {
  crt_err *err = NULL;
  const crt_child_report *r = &c->rep;
  /* fails only for an invalid signal.  The runtime cannot have died before
   * this: it waits on the sync socket for us (an early death of the
   * runtime is noticed when we await an answer: EOF). */
  (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (c->lock >= 0) close(c->lock);
  /* First thing, in the order we need the answers: the runtime works on
   * them (the cgroup: made, configured) while we make our namespaces and
   * mounts.  netDevices come with the network namespace of the clone
   * (never with one made ahead or by us: create.c), so they may be asked
   * before the setns below. */
  bool userns = crt_spec_new_namespace(c->spec, CRT_NS_USER);
  if (userns) ask(c, CRT_SYNC_MAPS, "write the uid/gid maps");
  if (has_netdevs(c->spec)) ask(c, CRT_SYNC_NETDEVS, "move the network devices");
  ask(c, CRT_SYNC_CGROUP, "put the init into its cgroup");
  ask(c, CRT_SYNC_FIFO, "make the exec FIFO");
  if (c->netns_fd >= 0) {
    if (setns(c->netns_fd, CLONE_NEWNET) < 0) {
      crt_error(&err, errno, "join the network namespace made for the container");
      crt_child_fail(r, err);
    }
    close(c->netns_fd);
  } else if (c->netns_by_init && unshare(CLONE_NEWNET) < 0) {
    crt_error(&err, errno, "make the network namespace");
    crt_child_fail(r, err);
  }
  /* a host cgroupfs directory: never held inside the container */
  if (c->cgroup_fd >= 0) close(c->cgroup_fd);
  /* v1: into the prepared cgroup by ourselves (the host's cgroupfs files,
   * closed right after) */
  CHILD_TRY(r, crt_cgroup_tasks_join(&c->cg_tasks, &err));
  if (userns) {
    CHILD_TRY(r, await_msg(c->sync, CRT_SYNC_MAPS_DONE, m, &err));
    if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) {
      crt_error(&err, errno, "become root in the user namespace (is uid/gid 0 mapped?)");
      crt_child_fail(r, err);
    }
  }
  /* cloned into the cgroup2 one (clone3 did not fall back), joined the
   * v1 ones just now */
  if (c->cgroup_path && (c->cgroup_fd < 0 || c->cloned_into_cgroup))
    CHILD_TRY(r, cgroup_placed(cw, c->cgroup_path, &err));
}

/* Stage 2: sysctls, hostname, lo, the mounts; then the runtime's prestart
 * and createRuntime hooks (asked only when there are some: nothing else
 * waits for our mounts), and the exec FIFO. */
static void init_mount(init_ctx *c, crt_rootfs_config *rc, bool mntns, crt_sync_msg *m) {
  crt_err *err = NULL;
  const crt_child_report *r = &c->rep;
  const crt_spec *spec = c->spec;
  /* crt's own procfs, where the config writes under /proc: made before
   * any config mount exists and kept until the last write to /proc
   * (crt_process_finalize); a failure here is reported by the first write
   * that needs it. */
  if (crt_proc_writes_wanted(spec, spec->process) && crt_procfs_prepare(&err) < 0) {
    crt_debug("procfs handle: %s", err->msg);
    crt_err_free(&err);
  }
  /* the devices before the sysctls that may name them */
  if (has_netdevs(spec)) CHILD_TRY(r, await_msg(c->sync, CRT_SYNC_NETDEVS_DONE, m, &err));
  /* lo before the sysctls, as runc (and as a network namespace made
   * ahead comes: crt_netns_ahead); sysctls before the prestart hooks:
   * network hooks rely on them. */
  CHILD_TRY(r, crt_loopback_up(spec, &err));
  CHILD_TRY(r, crt_set_sysctls(spec, &err));
  CHILD_TRY(r, crt_set_hostname(spec, &err));
  /* Relative bind sources are relative to the bundle, as in runc. */
  if (chdir(c->bundle) < 0) {
    crt_error(&err, errno, "chdir to bundle %s", c->bundle);
    crt_child_fail(r, err);
  }
  cgroup_wait *cw = rc->cgroup_join_arg;
  /* a shared rootfsPropagation: our mounts would reach the host's mount
   * table, where a failure to set up the cgroup after them would leave
   * them: so the cgroup first */
  if (crt_spec_rootfs_shared(spec)) CHILD_TRY(r, cgroup_configured(cw, &err));
  if (mntns) CHILD_TRY(r, crt_rootfs_prepare(rc, &err));
  CHILD_TRY(r, cgroup_configured(cw, &err));
  CRT_STAGE(c->stages, "mounts (sysctls, hostname, lo, rootfs mounted)");
  if (crt_hooks_runtime_create(spec->hooks)) {
    ask(c, CRT_SYNC_PRESTART, "run the prestart hooks");
    CHILD_TRY(r, await_msg(c->sync, CRT_SYNC_PRESTART_DONE, m, &err));
  }
  CHILD_TRY(r, await_msg(c->sync, CRT_SYNC_FIFO_FD, m, &err));
  c->fifo = m->fd; /* none: run's direct start */
  for (size_t i = 1; i < m->nfds; i++) close(m->fds[i]);
  CRT_STAGE(c->stages, "waited for the runtime's prestart and createRuntime hooks, the exec FIFO");
}

/* Stage 3: createContainer hooks, into the new root (and a missing cwd
 * made there). */
static void init_enter_root(init_ctx *c, crt_rootfs_config *rc, bool mntns) {
  crt_err *err = NULL;
  const crt_child_report *r = &c->rep;
  const crt_spec *spec = c->spec;
  const crt_process *p = spec->process;
  if (spec->hooks && spec->hooks->create_container.len) {
    cleanup_free char *json = container_view_json(c, CRT_STATUS_CREATED);
    if (!json) CHILD_TRY(r, crt_error(&err, ENOMEM, "createContainer hooks: state"));
    /* as in runc, whose init has taken process.env and sits in the rootfs */
    char *no_env[] = {NULL};
    crt_hook_place at = {.dir = c->rootfs, .env = p && p->env.v ? p->env.v : no_env};
    CHILD_TRY(r, crt_hooks_run_at(&spec->hooks->create_container, "createContainer", &at, json, &err));
  }
  CRT_STAGE(c->stages, "createContainer hooks (%zu)", spec->hooks ? spec->hooks->create_container.len : 0);
  if (mntns) {
    CHILD_TRY(r, crt_rootfs_pivot(rc, c->opts->no_pivot, &err));
    CHILD_TRY(r, crt_rootfs_reopen_dev_null(&err));
  } else {
    /* The host's mount namespace: nothing was mounted in root.path, so
     * the terminal is a pty of the host's /dev/ptmx, taken before the
     * chroot hides it (runc's host-mntns.bats runs with a terminal). */
    if (p) CHILD_TRY(r, crt_finalize_terminal(p, c->console, false, true, &err));
    if (chroot(c->rootfs) < 0 || chdir("/") < 0) {
      crt_error(&err, errno, "chroot %s", c->rootfs);
      crt_child_fail(r, err);
    }
  }
  /* A missing cwd is made, as runc does (root-owned, 0755): in the new
   * root, where no path resolves outside it, and before it turns
   * read-only.  exec does not do this (nor does runc). */
  if (p && p->cwd && *p->cwd) CHILD_TRY(r, crt_mkdir_p(p->cwd, 0755, &err));
}

/* The rest of stage 3: the terminal, the root made read-only and masked,
 * the session keyring. */
static void init_root_ready(init_ctx *c, crt_rootfs_config *rc, bool mntns) {
  crt_err *err = NULL;
  const crt_child_report *r = &c->rep;
  const crt_process *p = c->spec->process;
  if (p && mntns) CHILD_TRY(r, crt_finalize_terminal(p, c->console, true, true, &err));
  else if (!p && c->console >= 0) close(c->console);
  if (mntns) CHILD_TRY(r, crt_rootfs_finalize(rc, &err));
  if (!c->opts->no_new_keyring) CHILD_TRY(r, crt_new_session_keyring(c->opts->id, &err));
  CRT_STAGE(c->stages, "rootfs ready (pivot_root, terminal, read-only and masked paths)");
}

/* Closes every fd from `from` up, but a and b. */
static void close_fds_but(int from, int a, int b) {
  int lo = a < b ? a : b, hi = a < b ? b : a;
  for (int keep = lo;; keep = hi) {
    if (keep >= from) {
      if (keep > from) close_range((unsigned)from, (unsigned)keep - 1, 0);
      from = keep + 1;
    }
    if (keep == hi) break;
  }
  close_range((unsigned)from, ~0U, 0);
}

/* The parked init dies of HUP, INT, QUIT and TERM, as runc's (Go) init
 * and crt-stub's do (see there: an init must catch a signal for the
 * kernel to deliver it); the process's execve resets them. */
static void parked_signal(int sig) {
  signal(sig, SIG_DFL);
  raise(sig);
  _exit(2);
}

static void catch_park_signals(const crt_child_report *r) {
  static const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM};
  struct sigaction sa = {.sa_handler = parked_signal};
  crt_err *err = NULL;
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    if (sigaction(sigs[i], &sa, NULL) < 0) CHILD_TRY(r, crt_error(&err, errno, "sigaction for the parked init"));
}

/* Stage 5: READY sent, the seccomp filter loaded (crt_seccomp_load_point:
 * by crt-stub or here), parked on the exec FIFO until `start` opens it.
 * create waits for the sync socket to close, which happens only once the
 * filter is loaded: a failure until then is create's (issue 30). */
static void init_park_and_exec(init_ctx *c, crt_finalized *fo, const char *start_json, int preserve) {
  crt_err *err = NULL;
  const crt_process *p = c->spec->process;
  bool direct = c->fifo < 0;
  /* The unmasked procfs handle must not stay reachable through the parked
   * init's /proc/1/fd. */
  crt_procfs_close();
  /* From here on the runtime may exit: do not die with it.  (0 is a valid
   * signal: this prctl cannot fail.) */
  (void)prctl(PR_SET_PDEATHSIG, 0);
  crt_sync_log_to(-1); /* create reads no LOG after READY */
  if (crt_sync_send(c->sync, CRT_SYNC_READY, NULL, 0, -1) < 0) {
    crt_error(&err, errno, "tell the runtime the init is ready");
    crt_child_fail(&c->rep, err);
  }
  if (fo->stub >= 0) {
    /* The stub loads the filter, closes the sync socket, parks and execs;
     * direct: execs at once, the sync socket closing at that execve or
     * carrying its failure. */
    crt_reset_signals();
    crt_cloexec_fds_from(3 + preserve);
    crt_stub_args sa = {.stub = fo->stub, .fifo = c->fifo, .hold = direct ? -1 : c->sync,
                        .errfd = direct ? c->sync : -1,
                        .filter = fo->seccomp_at == CRT_SECCOMP_STUB ? fo->filter : NULL, .exit_code = 1,
                        .exe = fo->exe, .argv = p->args.v, .envp = fo->envp};
    crt_stub_exec(&sa, &err); /* only returns on failure */
    crt_child_fail(&c->rep, err);
  }
  /* the runtime sends no FIFO only where the stub execs (create.c:
   * direct_wanted): never park without one */
  if (direct) CHILD_TRY(&c->rep, crt_error(&err, 0, "run without the exec FIFO needs crt-stub"));
  /* Parked, the init holds the FIFO and what it passes on (stdio, the
   * preserved fds), no other fd of the caller's or of ours (they are
   * O_CLOEXEC, or the caller's, for the execve to drop); before the
   * filter, which need not allow close_range. */
  close_fds_but(3 + preserve, c->fifo, c->sync);
  catch_park_signals(&c->rep);
  if (fo->seccomp_at == CRT_SECCOMP_BEFORE_PARK) CHILD_TRY(&c->rep, crt_seccomp_load(fo->filter, NULL, &err));
  close(c->sync);
  /* Parked until `start` drains the FIFO (see crt/execfifo.h). */
  if (crt_exec_fifo_park(c->fifo) < 0) _exit(1);
  /* start destroys the container after a failing hook (lifecycle step 7) */
  crt_hook_place at = {.env = fo->envp}; /* the process's environment, as runc's */
  bool hook_failed = start_json &&
                     crt_hooks_run_at(&c->spec->hooks->start_container, "startContainer", &at, start_json, &err) < 0;
  if (!hook_failed) {
    crt_reset_signals();
    crt_cloexec_fds_from(3 + preserve);
    execve(fo->exe, p->args.v, fo->envp);
    crt_error(&err, errno, "exec %s", fo->exe);
  }
  crt_error_wrap(&err, "unable to start container process");
  crt_exec_fifo_fail(c->fifo, err->msg, hook_failed);
  _exit(1);
}

/* What the init's last stages need of init_main's. */
typedef struct {
  init_ctx *c;
  crt_rootfs_config *rc;
  bool mntns;
  int log_prev; /* crt_log_hold's */
} init_rest;

/* From the terminal to the user's program (the rest of stage 3, stages 4
 * and 5): in the init, or in the process it forked into a pid namespace
 * joined by path.  Never returns. */
static void init_finish(init_rest *x) {
  crt_err *err = NULL;
  init_ctx *c = x->c;
  const crt_child_report *r = &c->rep;
  const crt_spec *spec = c->spec;
  const crt_process *p = spec->process;
  /* the hooks' pid is ours as the container sees it */
  bool start_hooks = spec->hooks && spec->hooks->start_container.len;
  cleanup_free char *start_json = start_hooks ? container_view_json(c, CRT_STATUS_CREATED) : NULL;
  if (start_hooks && !start_json) CHILD_TRY(r, crt_error(&err, ENOMEM, "startContainer hooks: state"));
  init_root_ready(c, x->rc, x->mntns);
  if (!p) park_without_process(c, x->log_prev);
  /* Stage 4: the process itself. */
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
                         .userns = x->rc->userns, .use_stub = c->use_stub, .parks = true, .sync = c->sync};
  crt_finalized fo;
  CHILD_TRY(r, crt_process_finalize(&fin, &fo, &err));
  CRT_STAGE(c->stages, "process set up (user, capabilities, seccomp)");
  CRT_STAGES_TOTAL(c->stages);
  crt_log_release(x->log_prev);
  if (c->fifo >= 0) CHILD_TRY(r, check_fd_for_fifo(c->sync, &err));
  init_park_and_exec(c, &fo, start_json, preserve);
}

/* The process forked into the joined pid namespace: the runtime's child,
 * which dies with it until READY, as the init did. */
static void finish_entry(void *x) {
  /* fails only for an invalid signal; a runtime gone already is noticed
   * at our next message (EPIPE) */
  (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
  init_finish(x);
}

/* A pid namespace joined by path (create.c: pidns_late) is entered only
 * now, in the new root: its other processes see every process in it, and
 * through /proc/PID/root, /cwd and /fd whatever that process can reach.
 * setns moves only our children, so the process forked now is the first
 * of ours there; it holds no host path (root and cwd in the container's
 * root, the procfs handle and the log closed, the host's directories
 * closed long ago) and finishes the init's work; we tell the runtime its
 * pid and exit (crt_joiner_clone).  Never returns. */
static void enter_pid_ns(init_rest *x) {
  crt_err *err = NULL;
  init_ctx *c = x->c;
  /* made in the host's pid namespace, reaching its /proc/1/root */
  crt_procfs_close();
  CRT_STAGE(c->stages, "rootfs entered; next: the process forked into the pid namespace");
  /* the --log file (or a copy): a host file; the process logs nothing,
   * its errors reach the runtime as ERROR */
  crt_log_release(x->log_prev);
  crt_log_detach();
  if (setns(c->pidns_fd, CLONE_NEWPID) < 0) {
    const crt_namespace *ns = crt_spec_namespace(c->spec, CRT_NS_PID);
    crt_error(&err, errno, "setns pid namespace %s", ns && ns->path ? ns->path : "?");
    crt_child_fail(&c->rep, err);
  }
  close(c->pidns_fd);
  c->pidns_fd = -1;
  crt_joiner_clone(0, -1, NULL, "fork the container's process into its pid namespace", &c->rep, finish_entry, x);
}

/* Runs in the final init process; never returns. */
static void init_main(init_ctx *c) {
  const crt_spec *spec = c->spec;
  crt_sync_msg *m = malloc(sizeof *m);
  if (!m) _exit(1);
  /* our warnings to create's log, never onto the container's stdio */
  crt_sync_log_to(c->sync);
  /* --debug: our own clock, our lines to create's log until READY */
  crt_stages st = {0};
  int log_prev = crt_log_hold();
  CRT_STAGES_BEGIN(&st, "init");
  c->stages = &st;
  /* Without a mount namespace nothing may be mounted (it would be the
   * host's): the process is only chrooted into root.path (runc mounts
   * the config's mounts on the host and leaves them there). */
  bool mntns = crt_spec_namespace(spec, CRT_NS_MOUNT) != NULL;
  bool new_userns = crt_spec_new_namespace(spec, CRT_NS_USER);
  crt_rootfs_config rc = {.spec = spec,
                          .rootfs = c->rootfs,
                          .userns = new_userns || crt_spec_namespace(spec, CRT_NS_USER) || crt_in_userns(),
                          .new_mount_ns = crt_spec_new_namespace(spec, CRT_NS_MOUNT),
                          /* any user namespace, joined by path too (a pod's) */
                          .source_from_host = crt_spec_namespace(spec, CRT_NS_USER) ? ask_mount_source : NULL,
                          .source_arg = c,
                          .host_binds = !c->opts->rootless,
                          .cgroup_join = join_cgroup};
  cgroup_wait cw = {.c = c, .rc = &rc, .m = m};
  rc.cgroup_join_arg = &cw;
  char pidns[40];
  if (c->pidns_fd >= 0) {
    snprintf(pidns, sizeof pidns, "/proc/self/fd/%d", c->pidns_fd); /* resolved in our mount namespace */
    rc.proc_pidns = pidns;
  }
  init_enter(c, &cw, m);
  CRT_STAGE(&st, "namespaces joined (network, root in the user namespace)");
  init_mount(c, &rc, mntns, m);
  init_enter_root(c, &rc, mntns);
  init_rest rest = {.c = c, .rc = &rc, .mntns = mntns, .log_prev = log_prev};
  if (c->pidns_fd >= 0) enter_pid_ns(&rest);
  init_finish(&rest);
}

static void init_entry(void *c) {
  init_main(c);
}

/* Two-stage spawn: join namespaces by path (and unshare a time ns, which
 * clone() cannot create), then clone the init as our parent's child. */
static void joiner_main(init_ctx *c, int flags) {
  crt_err *err = NULL;
  /* still the host's root: the init inherits it (crt_oom_score_adj_early) */
  if (crt_spec_namespace(c->spec, CRT_NS_USER)) CHILD_TRY(&c->rep, crt_oom_score_adj_early(0, c->spec->process, &err));
  /* a pid namespace the init enters late: never the joiner */
  CHILD_TRY(&c->rep, crt_ns_join_paths(c->spec, c->pidns_fd >= 0 ? CLONE_NEWPID : 0, &err));
  if (flags & CLONE_NEWTIME) {
    if (unshare(CLONE_NEWTIME) < 0) {
      crt_error(&err, errno, "unshare time namespace");
      crt_child_fail(&c->rep, err);
    }
    CHILD_TRY(&c->rep, write_offsets(c->spec, &err));
    flags &= ~CLONE_NEWTIME;
  }
  crt_joiner_clone((unsigned long)flags, c->cgroup_fd, &c->cloned_into_cgroup, "clone init", &c->rep, init_entry, c);
}

void crt_init_run(init_ctx *c, bool joiner, int flags) {
  if (joiner) joiner_main(c, flags);
  init_main(c);
  _exit(1); /* init_main never returns */
}
