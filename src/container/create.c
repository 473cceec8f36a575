/* create: fork the init into its namespaces, set up the rootfs and the
 * process, park it on the exec FIFO.  This file is the runtime side; the
 * init's is init.c, which holds the order of the steps: it asks for each
 * service when it needs it (crt/wire.h), and drive_init answers each
 * request in one dispatch.  What the runtime does before the clone (the
 * cgroup made, a network namespace made ahead) and after READY (the
 * state saved) is here.  The table of messages: docs/architecture.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "crt/cloned_binary.h"
#include "crt/create.h"
#include "crt/exec_stub.h"
#include "crt/mounts.h"
#include "crt/namespaces.h"
#include "crt/netdev.h"
#include "crt/numa.h"
#include "crt/process.h"
#include "crt/procinfo.h"
#include "crt/cgroup.h"
#include "crt/seccomp.h"
#include "crt/state.h"
#include "crt/str.h"
#include "crt/execfifo.h"
#include "crt/fs.h"
#include "crt/hooks.h"
#include "crt/log.h"
#include "crt/rootless.h"
#include "crt/sync.h"
#include "crt/terminal.h"
#include "../util/testpoint.h"
#include "init.h"

/* More would be a caller's mistake; bounded so that preserve + listen
 * cannot overflow. */
#define CRT_MAX_LISTEN_FDS (1 << 16)

/* The runtime's side of one create.  The init is given an init_ctx made
 * from it at the clone (spawn), and reads nothing else of it. */
typedef struct {
  const crt_spec *spec;
  const crt_create_opts *opts;
  const char *rootfs;
  const char *bundle;
  crt_state *state;
  int sync;         /* our end */
  int fifo;         /* exec.fifo, O_RDWR, its pipe full (crt/execfifo.h; none when direct) */
  int console;      /* console socket (or -1) */
  int lock;         /* the state dir's flock */
  int mntns;        /* the init's mount namespace, opened at its first MOUNT_SOURCE */
  int cgroup_fd;    /* cgroup2 (v2, hybrid's unified): the prepared cgroup to clone the init into, or -1 */
  crt_netns_ahead netns_ahead; /* the thread making the network namespace */
  int netns_fd;     /* that namespace, which the init joins first (not cloned with CLONE_NEWNET), or -1 */
  bool netns_by_init; /* the init unshares its network namespace itself, while we make the v1 cgroup */
  crt_cgroup_tasks cg_tasks; /* v1: the prepared cgroup's tasks files (joined by the init itself) */
  bool v1_self_joined; /* the init joins the v1 hierarchies itself: we move it into none */
  bool v1_late;     /* the v1 hierarchies are made after the clone, at the init's CGROUP request */
  bool cgroup_failed; /* making the v1 cgroup after the clone failed */
  bool cgroup_unchecked; /* a cgroup already there is checked after the clone (pure v1) */
  bool cgroup_made; /* made before the clone (v2: configured after it) */
  unsigned answered; /* the requests served, a bit per type: each is served once */
  int listen_fds;
  bool use_stub;
  bool direct;      /* run: no exec FIFO, no park (direct_wanted) */
  int pidns_fd;     /* a pid namespace joined by path that the init enters only after pivot_root, or -1 */
  bool pid_late;    /* so it does (pidns_late): the container's process comes with a PID message */
  bool pid_taken;   /* the process forked into that pid namespace is s->pid; the first init reaped */
  int pidfd_sock;   /* --pidfd-socket, connected; sent the container process's pidfd */
  crt_stages *stages;
} create_ctx;

/* A pid namespace joined by path already has processes, which would see
 * the container's process while it still runs crt (CVE-2019-5736 with
 * CAP_SYS_PTRACE): the init, or the process it forks there (pidns_late). */
static bool joins_pid_ns(const crt_spec *spec) {
  const crt_namespace *ns = crt_spec_namespace(spec, CRT_NS_PID);
  return ns && ns->path && *ns->path;
}

/* The user namespace a nsfs fd's namespace belongs to is the one at
 * path. */
static bool owned_by(int ns_fd, const char *path) {
  struct stat a, b;
  cleanup_close int owner = ioctl(ns_fd, NS_GET_USERNS);
  return owner >= 0 && fstat(owner, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Whether procfs takes the pidns= option (added to Linux in 2025): the
 * init, not in the pid namespace when it mounts the container's /proc,
 * shows that one's processes there only through it. */
static bool procfs_takes_pidns(int pidns) {
  cleanup_close int fs = fsopen("proc", FSOPEN_CLOEXEC);
  return fs >= 0 && fsconfig(fs, FSCONFIG_SET_FD, "pidns", NULL, pidns) == 0;
}

/* A pid namespace joined by path holds other containers' processes, which
 * see every process in it, its /proc/PID/root and cwd included: the init
 * would show them the host's filesystem until pivot_root (a sibling with
 * CAP_SYS_PTRACE can write host files through it).  So the init stays
 * outside it, and after pivot_root forks the container's process into
 * it (init.c, enter_pid_ns).  Returns the namespace's fd for that, or -1
 * where the init could not join it late: from a new user namespace (it
 * has no capability over the pid namespace's owner), from a joined one
 * that does not own it, or on a kernel whose procfs cannot show another
 * pid namespace than the mounter's; then the joiner joins it, as before.
 * An open that fails here is the joiner's error to report. */
static int pidns_late(const crt_spec *spec) {
  const crt_namespace *pid = crt_spec_namespace(spec, CRT_NS_PID), *user = crt_spec_namespace(spec, CRT_NS_USER);
  if (!pid || !pid->path || !*pid->path || (user && (!user->path || !*user->path))) return -1;
  int fd = open(pid->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  if ((!user || owned_by(fd, user->path)) && procfs_takes_pidns(fd)) return fd;
  close(fd);
  return -1;
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

/* The cgroup is the init's from the clone on every hierarchy: made before
 * it, the cgroup2 one cloned into (unless clone3 falls back: the init
 * checks), the v1 ones joined by their tasks files first thing.  The rest
 * (systemd, rootless, v1 made after the clone) the init learns from the
 * answer to CGROUP. */
static const char *cgroup_at_clone(const create_ctx *c) {
  if (!c->cgroup_made || c->v1_late) return NULL;
  return c->cgroup_fd >= 0 || crt_cgroup_mode(c->state->cg) == CRT_CGROUP_MODE_V1 ? c->state->cgroup_path : NULL;
}

/* What the init is given: nothing of ours but these. */
static init_ctx init_inputs(const create_ctx *c, int child_sync) {
  return (init_ctx){.spec = c->spec, .opts = c->opts, .rootfs = c->rootfs, .bundle = c->bundle, .state = c->state,
                    .sync = child_sync, .rep = {.sync = child_sync, .errpipe = -1, .exit_code = 1},
                    .console = c->console, .lock = c->lock, .cgroup_fd = c->cgroup_fd,
                    .cgroup_path = cgroup_at_clone(c), .netns_fd = c->netns_fd,
                    .netns_by_init = c->netns_by_init, .cg_tasks = c->cg_tasks, .listen_fds = c->listen_fds,
                    .use_stub = c->use_stub, .stages = c->stages, .fifo = -1, .pidns_fd = c->pidns_fd};
}

static int spawn(create_ctx *c, int child_sync, pid_t *out, crt_err **err) {
  int flags = crt_ns_new_flags(c->spec) & ~CLONE_NEWCGROUP;
  bool two = needs_two_stage(c->spec);
  init_ctx in = init_inputs(c, child_sync);
  /* made ahead (the init joins it) or made by the init */
  int made = c->netns_fd >= 0 || c->netns_by_init ? CLONE_NEWNET : 0;
  pid_t pid = two ? crt_raw_clone(0)
                  : crt_clone_into((unsigned long)(flags & ~CLONE_NEWTIME & ~made), c->cgroup_fd, &in.cloned_into_cgroup);
  if (pid < 0) {
    int e = errno;
    close(child_sync);
    return crt_error(err, e, "clone");
  }
  if (pid == 0) {
    close(c->sync);
    crt_init_run(&in, two, flags);
  }
  close(child_sync);
  if (!two) {
    *out = pid;
    return 0;
  }
  return crt_joiner_wait(c->sync, pid, out, err);
}

/* runtime.md (v1.3) ties `creating` to lifecycle step 2 and `created` to
 * "after step 2": the hooks of steps 3-5 see `created`, as crun sends. */
static int run_create_hooks(const crt_spec *spec, crt_state *s, crt_stages *st, crt_err **err) {
  cleanup_free char *json = crt_state_json(s, CRT_STATUS_CREATED, false);
  const crt_hooks *h = spec->hooks;
  crt_hook_place at = {.dir = s->bundle}; /* runc's create runs in the bundle */
  if (h && crt_hooks_run_at(&h->prestart, "prestart", &at, json, err) < 0) return -1;
  CRT_STAGE(st, "prestart hooks (%zu)", h ? h->prestart.len : 0);
  if (h && crt_hooks_run_at(&h->create_runtime, "createRuntime", &at, json, err) < 0) return -1;
  CRT_STAGE(st, "createRuntime hooks (%zu)", h ? h->create_runtime.len : 0);
  return 0;
}

static crt_cgroup_config cgroup_config(const crt_create_opts *o, const crt_spec *spec) {
  return (crt_cgroup_config){.id = o->id, .spec = spec, .rootless = o->rootless};
}

/* One step's message to the init, with n fds.  When the init is gone,
 * the error it sent before it exited is the one drive_init reports
 * (prefer_init_error). */
static int tell_init_fds(create_ctx *c, uint32_t type, const char *payload, size_t len, const int *fds, size_t n,
                         const char *step, crt_err **err) {
  if (crt_sync_send_fds(c->sync, type, payload, len, fds, n) == 0) return 0;
  return crt_error(err, errno, "%s", step);
}

static int tell_init_fd(create_ctx *c, uint32_t type, const char *payload, int fd, const char *step, crt_err **err) {
  return tell_init_fds(c, type, payload, payload ? strlen(payload) : 0, &fd, fd >= 0 ? 1 : 0, step, err);
}

static int tell_init(create_ctx *c, uint32_t type, const char *payload, const char *step, crt_err **err) {
  return tell_init_fd(c, type, payload, -1, step, err);
}

static const crt_resources *resources_of(const crt_spec *spec) {
  return spec->linux_ ? spec->linux_->resources : NULL;
}

/* Rootless and no cgroup could be made or joined: fine, unless a limit
 * needs one (runc: "container could not join or create cgroup"). */
static int no_cgroup(const create_ctx *c, crt_err **err) {
  const char *what = c->opts->rootless ? crt_rootless_cgroup_demand(resources_of(c->spec)) : NULL;
  if (!what) return 0;
  return crt_error(err, EPERM,
                   "linux.resources.%s: rootless, the container has no cgroup (no permission to make or join one "
                   "under /sys/fs/cgroup): drop the limit, or give the user a delegated cgroup v2 subtree and set "
                   "linux.cgroupsPath inside it",
                   what);
}

/* The init into its cgroup: configured (v2, made before the clone), or
 * made and entered now. */
static int place_in_cgroup(create_ctx *c, crt_state *s, crt_err **err) {
  crt_cgroup_config cc = cgroup_config(c->opts, c->spec);
  if (c->cgroup_made) {
    /* prepared: the init was born in the cgroup2 one unless clone3 fell
     * back, and joined the v1 ones itself */
    if (crt_cgroup_configure(c->state->cg, &cc, err) < 0) return -1;
    return crt_cgroup_join(c->state->cg, NULL, s->pid, c->v1_self_joined, err);
  }
  if (!*s->cgroup_path) return no_cgroup(c, err);
  char *entered = NULL;
  if (crt_cgroup_enter(c->state->cg, &cc, s->pid, &entered, err) < 0) {
    const char *what = c->opts->rootless ? crt_rootless_cgroup_demand(resources_of(c->spec)) : NULL;
    if (what) crt_error_wrap(err, "linux.resources.%s needs the container's cgroup, which rootless crt could not make", what);
    return -1;
  }
  if (strcmp(entered, s->cgroup_path) == 0) {
    free(entered);
    return 0;
  }
  /* e.g. rootless: nothing made */
  free(s->cgroup_path);
  s->cgroup_path = entered;
  if (crt_state_save(c->opts->root, s, err) < 0) return -1;
  return *entered ? 0 : no_cgroup(c, err);
}

/* v1_late: the v1 hierarchies made and configured now, while the init
 * makes its first mounts (it waits for CGROUP_DONE only where it needs its
 * cgroup).  A failure fails create as it did before the clone: same
 * message, the init killed before it joined, nothing left (undo_create),
 * and no poststop hooks (the container never had its cgroup). */
static int prepare_v1_late(create_ctx *c, crt_state *s, crt_err **err) {
  crt_cgroup_config cc = cgroup_config(c->opts, c->spec);
  if (crt_cgroup_prepare_v1(c->state->cg, &cc, &c->cg_tasks, err) == 0) return 0;
  c->cgroup_failed = true;
  return -1;
}

/* The answer to CGROUP: the init in its cgroup, configured; with the
 * tasks files of a v1 cgroup made only now (v1_late), which the init joins
 * itself, their directories (for its errors) one a line.  The path is
 * the one the init mounts and roots its cgroup namespace at. */
static int answer_cgroup(create_ctx *c, crt_state *s, crt_err **err) {
  if (c->v1_late && prepare_v1_late(c, s, err) < 0) return -1;
  if (place_in_cgroup(c, s, err) < 0) return -1;
  crt_test_point("create:cgroup");
  size_t len = strlen(s->cgroup_path) + 2;
  for (size_t i = 0; i < c->cg_tasks.n; i++) len += strlen(c->cg_tasks.dirs[i]) + 1;
  cleanup_free char *payload = calloc(1, len);
  if (!payload) return crt_error(err, ENOMEM, "create");
  strcpy(payload, s->cgroup_path);
  /* the path, then a NUL, then the directories */
  char *dirs = payload + strlen(payload) + 1;
  for (size_t i = 0; i < c->cg_tasks.n; i++) strcat(strcat(dirs, c->cg_tasks.dirs[i]), "\n");
  int rc = tell_init_fds(c, CRT_SYNC_CGROUP_DONE, payload, len - 1, c->cg_tasks.fds, c->cg_tasks.n,
                         "tell the init it is in its cgroup", err);
  crt_cgroup_tasks_free(&c->cg_tasks);
  CRT_STAGE(c->stages, "cgroup joined and configured%s", c->v1_late ? " (v1 made now, tasks files handed over)" : "");
  return rc;
}

/* SECCOMP_FD: the notify fd to the agent at listenerPath. */
static int serve_seccomp_fd(create_ctx *c, crt_state *s, crt_sync_msg *m, crt_err **err) {
  cleanup_free char *sj = crt_state_json(s, CRT_STATUS_CREATING, false);
  int rc = crt_seccomp_send_listener(c->spec->linux_->seccomp, m->fd, s->pid, sj, err);
  close(m->fd);
  if (rc < 0) return -1;
  return tell_init(c, CRT_SYNC_SECCOMP_DONE, NULL, "tell the init its seccomp agent has the notify fd", err);
}

/* MOUNT_SOURCE: a bind's source, cloned in the init's mount namespace. */
static int serve_mount_source(create_ctx *c, crt_state *s, crt_sync_msg *m, crt_err **err) {
  char *end = NULL;
  errno = 0;
  unsigned long idx = strtoul(m->data, &end, 10);
  if (errno || end == m->data || *end) return crt_error(err, 0, "bad mount source request \"%s\" from init", m->data);
  if (c->mntns < 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)s->pid);
    if ((c->mntns = open(path, O_RDONLY | O_CLOEXEC)) < 0) return crt_error(err, errno, "open %s", path);
  }
  cleanup_close int tree = crt_mount_source_clone(c->spec, idx, c->bundle, c->mntns, err);
  if (tree < 0) return -1;
  return tell_init_fd(c, CRT_SYNC_MOUNT_FD, NULL, tree, "hand the init a mount source", err);
}

/* After READY the init loads its seccomp filter (crt_seccomp_load_point)
 * and only then closes its end of the sync socket: until that EOF the
 * container is not created, so a created container's init always carries
 * its filter.  A failure until then arrives as an ERROR message (crt) or
 * a crt-stub failure record.  direct: the socket closes at the process's
 * execve (O_CLOEXEC), and that execve's failure is such a record. */
static int await_parked(create_ctx *c, crt_err **err) {
  char buf[CRT_SYNC_MAX + 8];
  ssize_t n;
  do n = recv(c->sync, buf, sizeof buf - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n == 0) return 0;
  if (n < 0) return crt_error(err, errno, "read from init while it parks");
  buf[n] = 0;
  cleanup_free char *stub = crt_stub_message(buf);
  if (stub) return crt_error(err, 0, "%s", stub);
  uint32_t type = 0;
  memcpy(&type, buf, (size_t)n < sizeof type ? (size_t)n : sizeof type);
  if ((size_t)n > sizeof type && type == CRT_SYNC_ERROR) return crt_error(err, 0, "%s", buf + sizeof type);
  return crt_error(err, 0, "unexpected message %u from init while it parks", type);
}

static int answer_maps(create_ctx *c, crt_state *s, crt_err **err) {
  if (crt_ns_write_maps(s->pid, c->spec, err) < 0) return -1;
  /* before the init becomes root in its namespace (crt_oom_score_adj_early) */
  if (crt_oom_score_adj_early(s->pid, c->spec->process, err) < 0) return -1;
  CRT_STAGE(c->stages, "uid/gid maps written");
  return tell_init(c, CRT_SYNC_MAPS_DONE, NULL, "tell the init its uid/gid maps are written", err);
}

static int answer_netdevs(create_ctx *c, crt_state *s, crt_err **err) {
  if (crt_netdev_move(s->pid, &c->spec->linux_->net_devices, err) < 0) return -1;
  CRT_STAGE(c->stages, "network devices moved");
  return tell_init(c, CRT_SYNC_NETDEVS_DONE, NULL, "tell the init its network devices are there", err);
}

/* PRESTART: the init's mounts are done (asked only with such hooks). */
static int answer_prestart(create_ctx *c, crt_state *s, crt_err **err) {
  CRT_STAGE(c->stages, "waited for the init's mounts");
  if (run_create_hooks(c->spec, s, c->stages, err) < 0) return -1;
  return tell_init(c, CRT_SYNC_PRESTART_DONE, NULL, "tell the init the prestart hooks ran", err);
}

/* FIFO: the exec FIFO the init parks on, none for run's direct start. */
static int answer_fifo(create_ctx *c, crt_state *s, crt_err **err) {
  crt_test_point("create:fifo");
  if (!c->direct && crt_exec_fifo_create(s->dir, &c->fifo, err) < 0) return -1;
  int sent = tell_init_fd(c, CRT_SYNC_FIFO_FD, NULL, c->fifo, "hand the init the exec FIFO", err);
  /* a writer of ours would keep start from ever reading EOF */
  if (c->fifo >= 0) close(c->fifo);
  c->fifo = -1;
  if (sent < 0) return -1;
  /* The copy later commands read, and the temp file of the state saved
   * with READY, made while the init mounts (a state dir without them is
   * one delete --force already handles). */
  return crt_state_save_spec(s, c->spec, err) < 0 || crt_state_save_ahead(s, err) < 0 ? -1 : 0;
}

/* Hooks that run while the container is being created (the init's state
 * on their stdin; they may also ask `crt state`). */
static bool hooks_before_ready(const create_ctx *c) {
  const crt_hooks *h = c->spec->hooks;
  return crt_hooks_runtime_create(h) || (h && h->create_container.len);
}

/* PID: the init forked the container's process into the pid namespace
 * joined by path (pidns_late) and exits.  From here on the process is the
 * container's pid (state.json, the rescue file, --pidfd-socket, every
 * later command); the first init, our child as the process is, is reaped
 * now. */
static int take_container_pid(create_ctx *c, crt_state *s, crt_sync_msg *m, crt_err **err) {
  long v;
  if (!c->pid_late || c->pid_taken) return crt_error(err, 0, "unexpected message %u from init", m->type);
  if (crt_parse_long(m->data, 1, INT_MAX, &v) < 0)
    return crt_error(err, EPROTO, "the init's process in the pid namespace: \"%s\" is no pid", m->data);
  pid_t first = s->pid;
  s->pid = (pid_t)v;
  c->pid_taken = true;
  waitpid(first, NULL, 0);
  s->start_time = crt_proc_start_time(s->pid, NULL);
  CRT_STAGE(c->stages, "the process forked into the joined pid namespace (pid %d)", (int)s->pid);
  int saved = hooks_before_ready(c) ? crt_state_save(c->opts->root, s, err)
                                    : crt_state_save_rescue(c->opts->root, s, err);
  if (saved < 0) return -1;
  return c->pidfd_sock >= 0 ? crt_pidfd_send(c->pidfd_sock, s->pid, "standard", err) : 0;
}

/* Which requests this container's init may make, and how many times:
 * MAPS only with a new user namespace, MOUNT_SOURCE with any (joined by
 * path too), NETDEVS only with netDevices, PRESTART only with such hooks;
 * each once but MOUNT_SOURCE. */
static bool request_allowed(create_ctx *c, uint32_t type) {
  const crt_spec *spec = c->spec;
  bool userns = crt_spec_new_namespace(spec, CRT_NS_USER);
  const crt_hooks *h = spec->hooks;
  bool ok = type == CRT_SYNC_CGROUP || type == CRT_SYNC_FIFO || type == CRT_SYNC_SECCOMP_FD ||
            (type == CRT_SYNC_PRESTART && crt_hooks_runtime_create(h)) || (userns && type == CRT_SYNC_MAPS) ||
            (crt_spec_namespace(spec, CRT_NS_USER) && type == CRT_SYNC_MOUNT_SOURCE) ||
            (type == CRT_SYNC_NETDEVS && spec->linux_ && spec->linux_->net_devices.len);
  if (!ok || type >= 32) return false;
  if (type == CRT_SYNC_MOUNT_SOURCE) return true;
  if (c->answered & (1u << type)) return false;
  c->answered |= 1u << type;
  return true;
}

static int answer(create_ctx *c, crt_state *s, crt_sync_msg *m, crt_err **err) {
  if (!request_allowed(c, m->type)) {
    for (size_t i = 0; i < m->nfds; i++) close(m->fds[i]);
    return crt_error(err, 0, "unexpected message %u from init", m->type);
  }
  switch (m->type) {
  case CRT_SYNC_MAPS: return answer_maps(c, s, err);
  case CRT_SYNC_NETDEVS: return answer_netdevs(c, s, err);
  case CRT_SYNC_CGROUP: return answer_cgroup(c, s, err);
  case CRT_SYNC_MOUNT_SOURCE: return serve_mount_source(c, s, m, err);
  case CRT_SYNC_PRESTART: return answer_prestart(c, s, err);
  case CRT_SYNC_FIFO: return answer_fifo(c, s, err);
  case CRT_SYNC_SECCOMP_FD: return serve_seccomp_fd(c, s, m, err);
  }
  return crt_error(err, 0, "unexpected message %u from init", m->type);
}

/* A service failed: if the init failed first (its pid gone under a cgroup
 * join, an answer refused with EPIPE), its ERROR is queued behind its
 * requests, and it is the error to report.  Not waited for: an init alive
 * and waiting sends nothing more; one gone leaves its queue, then EOF. */
static void prefer_init_error(create_ctx *c, crt_sync_msg *m, crt_err **err) {
  int fl = fcntl(c->sync, F_GETFL);
  if (fl < 0 || fcntl(c->sync, F_SETFL, fl | O_NONBLOCK) < 0) return;
  cleanup_err crt_err *rerr = NULL;
  while (crt_sync_recv(c->sync, m, &rerr) == 0) {
    for (size_t i = 0; i < m->nfds; i++) close(m->fds[i]);
    if (m->type == CRT_SYNC_ERROR) {
      crt_error(err, 0, "%s", m->data);
      break;
    }
  }
  (void)fcntl(c->sync, F_SETFL, fl);
}

/* The runtime's part once the init exists: the init's requests answered
 * as they come (init.c decides their order), until READY; then the park
 * (or the direct start's execve) awaited. */
static int drive_init(create_ctx *c, crt_state *s, crt_err **err) {
  cleanup_free crt_sync_msg *m = malloc(sizeof *m);
  if (!m) return crt_error(err, ENOMEM, "create");
  for (;;) {
    if (crt_sync_recv(c->sync, m, err) < 0) return -1;
    if (m->type == CRT_SYNC_READY) break;
    if (m->type == CRT_SYNC_ERROR) return crt_error(err, 0, "%s", m->data);
    if ((m->type == CRT_SYNC_PID ? take_container_pid(c, s, m, err) : answer(c, s, m, err)) < 0) {
      prefer_init_error(c, m, err);
      return -1;
    }
  }
  if (!(c->answered & (1u << CRT_SYNC_CGROUP)) || !(c->answered & (1u << CRT_SYNC_FIFO)))
    return crt_error(err, 0, "the init was ready before it asked for its cgroup and the exec FIFO");
  if (c->pid_late && !c->pid_taken)
    return crt_error(err, 0, "the init was ready before it forked the process into the joined pid namespace");
  if (await_parked(c, err) < 0) return -1;
  CRT_STAGE(c->stages, "waited for the init: createContainer hooks, rootfs ready, process set up, filter loaded%s",
            c->direct ? ", execve" : "");
  /* what "still parked" means for crt_state_status, saved with READY */
  return c->direct ? 0 : crt_exec_fifo_parked_id(s->pid, &s->parked_exe, err);
}

/* The v1 hierarchies made after the clone (prepare_v1_late), where that is
 * simple; kept before it with a user namespace (the init joins first
 * thing, as before: its maps come first and its mounts differ), and with
 * a shared rootfsPropagation (the init's mounts before the join would
 * reach the host's mount table, and a cgroup failure after them would
 * leave them there). */
static bool v1_late_wanted(const create_ctx *c) {
  crt_cgroup_config cc = cgroup_config(c->opts, c->spec);
  return crt_cgroup_v1_late(c->state->cg, &cc) && !crt_spec_namespace(c->spec, CRT_NS_USER) && !crt_spec_rootfs_shared(c->spec);
}

/* Pure v1 with the cgroup made after the clone: nothing of the cgroup
 * exists before the clone. */
static bool nothing_made_before_clone(const create_ctx *c) {
  return c->v1_late && crt_cgroup_mode(c->state->cg) == CRT_CGROUP_MODE_V1;
}

/* The cgroup is made before the init, which is then cloned straight into
 * it (cgroup2), or joins it by itself (v1: crt_cgroup_open_tasks; v1_late:
 * made after the clone, only hybrid's unified directory now).  The rescue
 * file names it first, so that a crash here leaves nothing that delete
 * --force cannot find. */
static int prepare_cgroup(create_ctx *c, crt_state *s, crt_err **err) {
  crt_cgroup_config cc = cgroup_config(c->opts, c->spec);
  if (!crt_cgroup_prepares(c->state->cg, &cc)) return 0;
  cc.v1_late = c->v1_late; /* decided with the config (crt_container_create) */
  /* v1_late on pure v1 makes nothing before the clone: the rescue file is
   * written once, after it, with the init's pid, still before the cgroup
   * exists (start_init) */
  if (!nothing_made_before_clone(c) && crt_state_save_rescue(c->opts->root, s, err) < 0) return -1;
  enum crt_cgroup_prepared got;
  if (crt_cgroup_prepare(c->state->cg, &cc, &got, &c->cgroup_fd, err) < 0) return -1;
  c->cgroup_made = got == CRT_CGROUP_PREPARED;
  if (got == CRT_CGROUP_NONE) s->cgroup_path[0] = 0; /* rootless: no cgroup */
  c->v1_late = c->v1_late && c->cgroup_made;
  if (c->cgroup_made && !c->v1_late && crt_cgroup_open_tasks(c->state->cg, &c->cg_tasks, err) < 0) return -1;
  c->v1_self_joined = c->cg_tasks.n > 0 || c->v1_late;
  return 0;
}

/* runtime.md lifecycle: a failing prestart, createRuntime or
 * createContainer hook (or any later failure of create) stops the
 * container, destroys it (step 12) and runs the poststop hooks (step 13),
 * as runc does for every create failure once the init exists. */
static void undo_create(const char *dir, crt_state *s, const crt_spec *spec, bool poststop) {
  bool spawned = s->pid > 0;
  if (spawned) {
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
  }
  if (s->cgroup_path && *s->cgroup_path) {
    cleanup_err crt_err *e = NULL;
    if (s->systemd && crt_cgroup_stop_unit(s->cg, &e) < 0) {
      crt_warn("%s", e->msg);
      crt_err_free(&e);
    }
    if (crt_cgroup_destroy(s->cg, &e) < 0) crt_warn("%s", e->msg);
  }
  if (spawned && poststop && spec->hooks && spec->hooks->poststop.len) {
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
  if (crt_pathf(cfg, sizeof cfg, err, "%s/config.json", *bundle) < 0) return -1;
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
    if (errno == EEXIST) crt_error_kind(err, CRT_ERR_EXISTS, 0, "container with given ID already exists");
    else crt_error(err, errno, "mkdir %s", dir);
    dir[0] = 0;
    return -1;
  }
  if ((*lock = crt_container_lock(o->root, o->id, err)) < 0) return -1;
  crt_test_point("create:dir");
  return 0;
}

/* crt_netns_ahead's conditions.  A namespace made ahead is owned by our
 * user namespace and is the init's only once it joined it: not for a
 * container with a user namespace, nor with netDevices (moved by the
 * init's pid right after the clone), nor for a joiner (two-stage) or a
 * rootless runtime. */
static bool netns_ahead_wanted(const create_ctx *c) {
  const crt_spec *spec = c->spec;
  return crt_spec_new_namespace(spec, CRT_NS_NETWORK) && !crt_spec_namespace(spec, CRT_NS_USER) && !needs_two_stage(spec) &&
         !(spec->linux_ && spec->linux_->net_devices.len) && !c->opts->rootless;
}

/* Stage 4: the console, the sync socketpair (*child: the init's end). */
static int open_channels(create_ctx *c, int *ours_tty, int *child, crt_err **err) {
  const crt_spec *spec = c->spec;
  const crt_create_opts *o = c->opts;
  if (crt_console_open(spec->process && spec->process->terminal, o->console_socket, !o->foreground_tty, &c->console,
                       ours_tty, err) < 0)
    return -1;
  int sp[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) return crt_error(err, errno, "socketpair");
  c->sync = sp[0];
  *child = sp[1];
  return 0;
}

/* Stage 5: the state before the init exists (on disk: the rescue file
 * alone, prepare_cgroup). */
static int new_state(create_ctx *c, const char *dir, crt_state *s, crt_err **err) {
  s->id = strdup(c->opts->id);
  s->bundle = strdup(c->bundle);
  s->rootfs = strdup(c->rootfs);
  s->owner = strdup("");
  s->dir = strdup(dir);
  s->systemd = c->opts->systemd_cgroup;
  if (!s->id || !s->bundle || !s->rootfs || !s->owner || !s->dir || crt_state_copy_annotations(s, &c->spec->annotations) < 0)
    return crt_error(err, ENOMEM, "container state");
  crt_cgroup_config cc = cgroup_config(c->opts, c->spec);
  /* with nothing made before the clone (pure v1, v1_late), what exists
   * there is checked after it (start_init), off the clone's path */
  if ((c->cgroup_unchecked = nothing_made_before_clone(c)))
    return crt_cgroup_resolve_path(c->state->cg, &cc, &s->cgroup_path, err);
  return crt_cgroup_resolve(c->state->cg, &cc, &s->cgroup_path, err);
}

/* run without the park (crt_create_opts.start_now): the init goes on to
 * the process's execve once it is set up, as crun's run does; no exec FIFO,
 * no `start` round trip.  Only where crt-stub does the execve, so that the
 * process never execs from crt's binary (CVE-2019-5736), and without a
 * terminal, whose master run must set up before the process may write. */
static bool direct_wanted(const crt_create_opts *o, const crt_spec *spec, bool use_stub) {
  return o->start_now && use_stub && spec->process && !spec->process->terminal;
}

/* Stage 6: the init cloned, the rescue file (or state.json) naming it. */
static int start_init(create_ctx *c, crt_state *s, int *child_sync, crt_err **err) {
  if (prepare_cgroup(c, s, err) < 0) return -1;
  int cs = *child_sync;
  *child_sync = -1; /* spawn closes it */
  if (c->netns_ahead.started && (c->netns_fd = crt_netns_ahead_take(&c->netns_ahead, err)) < 0) {
    close(cs);
    return -1;
  }
  CRT_STAGE(c->stages, "clone prepared (cgroup, network namespace)");
  if (spawn(c, cs, &s->pid, err) < 0) return -1;
  if (crt_cpu_move_off(s->pid, err) < 0) return -1;
  CRT_STAGE(c->stages, "clone (init pid %d)", (int)s->pid);
  if (c->cgroup_fd >= 0) close(c->cgroup_fd);
  if (c->netns_fd >= 0) close(c->netns_fd);
  if (c->pidns_fd >= 0) close(c->pidns_fd); /* the init's copy is the one it joins */
  c->cgroup_fd = c->netns_fd = c->pidns_fd = -1;
  crt_cgroup_tasks_free(&c->cg_tasks);
  s->start_time = crt_proc_start_time(s->pid, NULL);
  /* as runc, once the init exists (and off the clone's path: the first
   * gmtime reads /etc/localtime) */
  if (!(s->created = crt_state_time_now())) return crt_error(err, ENOMEM, "container state");
  /* refused before the rescue file names it: nothing of it is destroyed */
  if (c->cgroup_unchecked && *s->cgroup_path && crt_cgroup_check_existing(c->state->cg, err) < 0) {
    free(crt_steal(s->cgroup_path));
    return -1;
  }
  /* state.json ("creating", the init's pid) now only for a hook run
   * before READY, which may ask `state`: otherwise it is first written with
   * READY, as runc does (one file less on the state root; `state` says
   * "being created" meanwhile).  The rescue file names the init either way,
   * and the cgroup (v1_late: before the init's CGROUP request makes it). */
  int saved = hooks_before_ready(c) ? crt_state_save(c->opts->root, s, err)
                                          : crt_state_save_rescue(c->opts->root, s, err);
  if (saved < 0) return -1;
  crt_test_point("create:spawned");
  return 0;
}

/* The network namespace's thread joined and its namespace dropped, if
 * create failed before the clone: first thing, before undo_create, which
 * may fork (never with a second thread alive). */
static void drop_netns_ahead(create_ctx *c) {
  if (c->netns_ahead.started) {
    cleanup_err crt_err *e = NULL;
    c->netns_fd = crt_netns_ahead_take(&c->netns_ahead, &e);
  }
  if (c->netns_fd >= 0) close(c->netns_fd);
  c->netns_fd = -1;
}

static void close_ctx(create_ctx *c) {
  if (c->sync >= 0) close(c->sync);
  if (c->cgroup_fd >= 0) close(c->cgroup_fd);
  crt_cgroup_tasks_free(&c->cg_tasks);
  if (c->mntns >= 0) close(c->mntns);
  if (c->pidns_fd >= 0) close(c->pidns_fd);
  if (c->fifo >= 0) close(c->fifo);
  if (c->console >= 0) close(c->console);
  if (c->lock >= 0) close(c->lock);
}

/* A filter the parked init could not carry (it forbids a call the init
 * makes after loading it) is refused before anything exists: an init
 * parked without it could be made to run any system call (issue 30). */
static int refuse_unparkable_filter(const crt_spec *spec, bool use_stub, crt_err **err) {
  const crt_seccomp *sc = spec->linux_ ? spec->linux_->seccomp : NULL;
  const char *forbidden = "?";
  if (crt_seccomp_load_point(sc, spec->process, true, use_stub, &forbidden) != CRT_SECCOMP_REFUSED) return 0;
  return crt_error_kind(err, CRT_ERR_INVALID, 0,
                        "linux.seccomp: with noNewPrivileges the filter is loaded before the init waits for start, "
                        "which then still calls openat, close, write and execve; the profile forbids %s",
                        forbidden);
}

/* run's create: the state, spec and lock go to the caller as they are, so
 * that start and delete need not read them back (crt_held). */
static int hand_over(create_ctx *c, crt_state **s, crt_spec **spec, crt_held *h, crt_err **err) {
  *h = (crt_held){.root = c->opts->root, .state = *s, .lock = c->lock};
  if (crt_held_mark(h, err) < 0) {
    *h = (crt_held){.lock = -1};
    return -1;
  }
  c->lock = -1;
  *s = NULL;
  h->spec = *spec;
  *spec = NULL;
  /* c->spec, which close_ctx reads, stays valid: the caller frees it */
  return 0;
}

int crt_container_create(const crt_create_opts *o, crt_create_result *res, crt_err **err) {
  crt_stages st = {0};
  CRT_STAGES_BEGIN(&st, "create");
  res->pid = 0;
  res->tty_sock = -1;
  res->started = false;
  res->held = (crt_held){.lock = -1};
  cleanup_free char *bundle = NULL;
  crt_spec *spec = NULL;
  if (load_bundle(o, &bundle, &spec, err) < 0) return -1;
  /* crt-stub finishes most inits; the others need crt itself up to the
   * user's execve, so crt runs from a sealed copy (CVE-2019-5736), as it
   * does when the init is visible to other processes while it runs crt. */
  bool use_stub = crt_stub_usable(spec->linux_ ? spec->linux_->seccomp : NULL, spec->process,
                                  spec->hooks && spec->hooks->start_container.len);
  if (refuse_unparkable_filter(spec, use_stub, err) < 0 ||
      ((!use_stub || joins_pid_ns(spec) || !spec->process) && crt_ensure_cloned_binary(o->argv, err) < 0)) {
    crt_error_wrap(err, "create %s", o->id);
    crt_spec_free(spec);
    return -1;
  }
  int rc = -1, ours_tty = -1, child_sync = -1;
  cleanup_close int pidfd_sock = -1;
  create_ctx c = {.spec = spec, .opts = o, .bundle = bundle, .sync = -1, .fifo = -1, .console = -1, .lock = -1,
                .cgroup_fd = -1, .netns_fd = -1, .mntns = -1, .use_stub = use_stub, .direct = direct_wanted(o, spec, use_stub),
                .pidns_fd = -1, .pidfd_sock = -1, .listen_fds = listen_fds(), .stages = &st};
  crt_state *s = calloc(1, sizeof *s);
  cleanup_free char *rootfs = NULL;
  char dir[PATH_MAX] = "";
  if (!s) {
    crt_error(err, ENOMEM, "container state");
    goto out;
  }
  c.state = s; /* filled by new_state; its cgroup handle first, which v1_late_wanted asks */
  if (crt_cgroup_open(crt_cgroup_host(), NULL, o->systemd_cgroup, &s->cg, err) < 0) goto out;
  if (check_bundle(spec, bundle, &rootfs, err) < 0) goto out;
  c.rootfs = rootfs;
  /* A new network namespace takes ~0.5 ms to make: made by a thread while
   * we make the state dir (and the cgroup), joined before the clone (no
   * thread may run at a fork); or, with the v1 cgroup made after the
   * clone, by the init itself while we make that cgroup, which it waits
   * for anyway.  Else (the thread did not start): cloned with it. */
  c.v1_late = v1_late_wanted(&c); /* until prepare_cgroup: wanted; then also made */
  if (netns_ahead_wanted(&c) && !(c.netns_by_init = c.v1_late)) crt_netns_ahead_start(&c.netns_ahead);
  CRT_STAGE(&st, "config loaded");
  /* connected before anything is made, as runc does */
  if (o->pidfd_socket && (pidfd_sock = crt_unix_connect(o->pidfd_socket, "--pidfd-socket", err)) < 0) goto out;
  if (make_state_dir(o, dir, sizeof dir, &c.lock, err) < 0) goto out;
  if (open_channels(&c, &ours_tty, &child_sync, err) < 0) goto out;
  if (new_state(&c, dir, s, err) < 0) goto out;
  CRT_STAGE(&st, "state dir ready");
  c.pidfd_sock = pidfd_sock; /* closed by us, used by the init's PID message too */
  c.pid_late = (c.pidns_fd = pidns_late(spec)) >= 0;
  if (start_init(&c, s, &child_sync, err) < 0) goto out;
  /* the process in a pid namespace joined late: once it exists */
  if (!c.pid_late && pidfd_sock >= 0 && crt_pidfd_send(pidfd_sock, s->pid, "standard", err) < 0) goto out;
  if (drive_init(&c, s, err) < 0) goto out;
  crt_test_point("create:ready");
  s->ready = true;
  if (crt_state_save(o->root, s, err) < 0) goto out;
  if (o->pid_file && crt_write_pid_file(o->pid_file, s->pid, err) < 0) goto out;
  res->pid = s->pid;
  res->started = c.direct;
  if (o->hold && hand_over(&c, &s, &spec, &res->held, err) < 0) goto out;
  CRT_STAGE(&st, "state saved");
  CRT_STAGES_TOTAL(&st);
  res->tty_sock = ours_tty;
  ours_tty = -1;
  rc = 0;
out:
  drop_netns_ahead(&c);
  if (rc < 0) {
    crt_error_wrap(err, "create %s", o->id);
    if (dir[0]) undo_create(dir, s, spec, !c.cgroup_failed);
  }
  close_ctx(&c);
  if (child_sync >= 0) close(child_sync);
  if (ours_tty >= 0) close(ours_tty);
  crt_state_free(s);
  crt_spec_free(spec);
  return rc;
}
