#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/log.h"
#include "crt/namespaces.h"
#include "crt/numa.h"
#include "crt/process.h"
#include "crt/procfs.h"
#include "crt/spawn.h"

pid_t crt_raw_clone(unsigned long flags) {
  return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
}

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

struct crt_clone_args { /* struct clone_args of linux/sched.h, v2 */
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

pid_t crt_clone_into(unsigned long flags, int cgroup_fd, bool *in_cgroup) {
  /* set before each clone: the child gets its copy as it is then */
  *in_cgroup = cgroup_fd >= 0;
  if (cgroup_fd >= 0) {
    /* with CLONE_PARENT the child inherits our exit signal; clone3 then
     * insists on exit_signal 0 */
    struct crt_clone_args a = {.flags = flags | CLONE_INTO_CGROUP,
                               .exit_signal = (flags & CLONE_PARENT) ? 0 : SIGCHLD,
                               .cgroup = (uint64_t)cgroup_fd};
    pid_t pid = (pid_t)syscall(SYS_clone3, &a, sizeof a);
    if (pid >= 0) return pid;
    /* old kernel, a cgroup we may not enter from here (a joined cgroup or
     * user namespace): plain clone, the caller moves the pid */
    if (errno == ENOMEM || errno == EAGAIN) return -1;
    *in_cgroup = false;
  }
  return crt_raw_clone(flags);
}

int crt_ns_new_flags(const crt_spec *spec) {
  int flags = 0;
  for (enum crt_ns_type t = 0; t < CRT_NS_COUNT; t++)
    if (crt_spec_new_namespace(spec, t)) flags |= crt_ns_clone_flag(t);
  return flags;
}

static int setns_one(int fd, const crt_namespace *ns, crt_err **err) {
  if (setns(fd, crt_ns_clone_flag(ns->type)) < 0)
    return crt_error(err, errno, "setns %s namespace %s", crt_ns_name(ns->type), ns->path);
  return 0;
}

/* Every path is opened first (a joined mount namespace changes what the
 * next path names), then the namespaces are joined while we still hold the
 * host's capabilities, the user namespace last: one owned by an ancestor
 * (runc's "wrong userns owner" case, runc#4390) can only be joined before
 * it.  One that refuses (EPERM) is tried again from inside the user
 * namespace.  A joined user namespace makes us its root, as a new one does
 * once its maps are written. */
int crt_ns_join_paths(const crt_spec *spec, int skip, crt_err **err) {
  const crt_linux *l = spec->linux_;
  if (!l) return 0;
  int fds[64];
  size_t n = l->n_namespaces < 64 ? l->n_namespaces : 64;
  int rc = 0, user = -1;
  for (size_t i = 0; i < n; i++) {
    const crt_namespace *ns = &l->namespaces[i];
    fds[i] = -1;
    if (!ns->path || !*ns->path || rc < 0 || (crt_ns_clone_flag(ns->type) & skip)) continue;
    if ((fds[i] = open(ns->path, O_RDONLY | O_CLOEXEC)) < 0)
      rc = crt_error(err, errno, "open %s namespace %s", crt_ns_name(ns->type), ns->path);
    if (ns->type == CRT_NS_USER) user = (int)i;
  }
  for (size_t i = 0; i < n && rc == 0; i++) {
    if (fds[i] < 0 || (int)i == user) continue;
    if (setns(fds[i], crt_ns_clone_flag(l->namespaces[i].type)) == 0) {
      close(fds[i]);
      fds[i] = -1;
      continue;
    }
    if (user >= 0 && errno == EPERM) continue; /* again from inside the user namespace */
    rc = crt_error(err, errno, "setns %s namespace %s", crt_ns_name(l->namespaces[i].type), l->namespaces[i].path);
  }
  if (rc == 0 && user >= 0) {
    rc = setns_one(fds[user], &l->namespaces[user], err);
    close(fds[user]);
    fds[user] = -1;
    if (rc == 0 && (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0))
      rc = crt_error(err, errno, "become root in user namespace %s (is uid/gid 0 mapped?)", l->namespaces[user].path);
  }
  for (size_t i = 0; i < n; i++) {
    if (fds[i] < 0) continue;
    if (rc == 0) rc = setns_one(fds[i], &l->namespaces[i], err);
    close(fds[i]);
  }
  return rc;
}

int crt_ns_join_pid(pid_t pid, int defer, int *joined, int *deferred, crt_err **err) {
  static const enum crt_ns_type order[] = {CRT_NS_USER, CRT_NS_MOUNT, CRT_NS_CGROUP, CRT_NS_UTS, CRT_NS_IPC,
                                           CRT_NS_NETWORK, CRT_NS_PID, CRT_NS_TIME};
  int fds[CRT_NS_COUNT];
  *joined = 0;
  /* Open them all first: after joining the mount namespace /proc may differ. */
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    char path[64], self[64];
    struct stat a, b;
    fds[i] = -1;
    snprintf(path, sizeof path, "/proc/%d/ns/%s", pid, crt_ns_proc_name(order[i]));
    snprintf(self, sizeof self, "/proc/self/ns/%s", crt_ns_proc_name(order[i]));
    if (stat(path, &a) < 0) continue; /* kernel without it */
    if (stat(self, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) continue;
    fds[i] = open(path, O_RDONLY | O_CLOEXEC);
    if (fds[i] < 0) {
      int e = errno;
      for (size_t j = 0; j < i; j++)
        if (fds[j] >= 0) close(fds[j]);
      return crt_error(err, e, "open %s", path);
    }
  }
  int rc = 0;
  *deferred = -1;
  /* As crt_ns_join_paths: the user namespace (order[0]) after the others,
   * which are tried first with our own capabilities (a namespace the
   * container's user namespace does not own, runc#4390); one refused
   * (EPERM) is tried again from inside it. */
  for (int pass = 0; pass < 3; pass++)
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
      if (fds[i] < 0 || (pass == 1) != (i == 0)) continue;
      int flag = crt_ns_clone_flag(order[i]);
      if (flag & defer) {
        *deferred = fds[i];
        fds[i] = -1;
        continue;
      }
      if (rc == 0 && setns(fds[i], flag) == 0)
        *joined |= flag;
      else if (rc == 0 && pass == 0 && errno == EPERM && fds[0] >= 0)
        continue; /* again in pass 2 */
      else if (rc == 0)
        rc = crt_error(err, errno, "setns %s namespace of pid %d", crt_ns_name(order[i]), pid);
      close(fds[i]);
      fds[i] = -1;
    }
  return rc;
}

static int write_map(pid_t pid, const char *file, const crt_idmapv *m, crt_err **err) {
  char buf[8192];
  size_t off = 0;
  for (size_t i = 0; i < m->len; i++) {
    int n = snprintf(buf + off, sizeof buf - off, "%u %u %u\n", m->v[i].container_id, m->v[i].host_id, m->v[i].size);
    if (n < 0 || (size_t)n >= sizeof buf - off) return crt_error(err, E2BIG, "%s: too many mappings", file);
    off += (size_t)n;
  }
  if (crt_procfs_write(CRT_PROCFS_PID, pid, file, buf, off, err) < 0) return crt_error_wrap(err, "write %s mappings", file);
  return 0;
}

/* Whether the mapping is the one an unprivileged writer may write itself:
 * a single range of size 1 onto its own id. */
static bool self_map(const crt_idmapv *m, unsigned int id) {
  return m->len == 1 && m->v[0].size == 1 && m->v[0].host_id == id;
}

/* newuidmap/newgidmap (setuid root, from Debian's uidmap): they check the
 * ranges against /etc/subuid and /etc/subgid. */
static int run_idmap_helper(const char *tool, pid_t pid, const crt_idmapv *m, crt_err **err) {
  char *argv[2 + 3 * 340 + 1];
  char buf[3 * 340][16];
  if (m->len > 340) return crt_error(err, E2BIG, "%s: too many mappings", tool);
  size_t a = 0, b = 0;
  argv[a++] = (char *)tool;
  char spid[16];
  snprintf(spid, sizeof spid, "%d", (int)pid);
  argv[a++] = spid;
  for (size_t i = 0; i < m->len; i++) {
    unsigned int f[3] = {m->v[i].container_id, m->v[i].host_id, m->v[i].size};
    for (int k = 0; k < 3; k++) {
      snprintf(buf[b], sizeof buf[b], "%u", f[k]);
      argv[a++] = buf[b++];
    }
  }
  argv[a] = NULL;
  cleanup_err crt_err *e = NULL;
  if (crt_spawn(argv, &(crt_spawn_opts){0}, &e) == 0) return 0;
  if (e->errnum == ENOENT)
    return crt_error(err, ENOENT, "%s not found: mapping several ids as an unprivileged user needs Debian's uidmap", tool);
  if (e->errnum) return crt_err_move(err, &e);
  /* its refusal, in its words (on stderr) */
  return crt_error(err, 0, "%s (are the ranges in /etc/sub%cid?)", e->msg, tool[3]);
}

/* Whether /etc/subuid (or subgid) has a line for this user (name or id). */
static bool has_subids(const char *file, unsigned int id) {
  FILE *f = fopen(file, "re");
  if (!f) return false;
  struct passwd *pw = getpwuid(id);
  char line[512], sid[16];
  snprintf(sid, sizeof sid, "%u", id);
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!colon) continue;
    *colon = 0;
    found = !strcmp(line, sid) || (pw && !strcmp(line, pw->pw_name));
  }
  fclose(f);
  return found;
}

/* How a map is written, decided once per map: the setgroups rule depends
 * on it too. */
enum map_how { MAP_DIRECT, MAP_HELPER, MAP_SELF_ONLY };

static enum map_how map_how(const crt_idmapv *m, bool uid) {
  if (geteuid() == 0 || self_map(m, uid ? geteuid() : getegid())) return MAP_DIRECT;
  return has_subids(uid ? "/etc/subuid" : "/etc/subgid", geteuid()) ? MAP_HELPER : MAP_SELF_ONLY;
}

static int write_one(pid_t pid, bool uid, const crt_idmapv *m, enum map_how how, crt_err **err) {
  const char *file = uid ? "uid_map" : "gid_map";
  if (how == MAP_DIRECT) return write_map(pid, file, m, err);
  if (how == MAP_HELPER) return run_idmap_helper(uid ? "newuidmap" : "newgidmap", pid, m, err);
  /* No subordinate ids: only our own id can be mapped. */
  unsigned int me = uid ? geteuid() : getegid();
  crt_idmap one = {.container_id = 0, .host_id = me, .size = 1};
  for (size_t i = 0; i < m->len; i++)
    if (me >= m->v[i].host_id && me - m->v[i].host_id < m->v[i].size)
      one.container_id = m->v[i].container_id + (me - m->v[i].host_id);
  crt_warn("no %s range for this user in /etc/sub%cid: mapping only %u to %u", uid ? "uid" : "gid", uid ? 'u' : 'g',
           one.container_id, me);
  crt_idmapv v = {.v = &one, .len = 1};
  return write_map(pid, file, &v, err);
}

int crt_ns_write_maps(pid_t pid, const crt_spec *spec, crt_err **err) {
  const crt_linux *l = spec->linux_;
  if (!l) return 0;
  if (l->uid_mappings.len && write_one(pid, true, &l->uid_mappings, map_how(&l->uid_mappings, true), err) < 0)
    return -1;
  if (!l->gid_mappings.len) return 0;
  enum map_how how = map_how(&l->gid_mappings, false);
  /* setgroups is denied only where the kernel requires it: an unprivileged
   * process writing gid_map itself (newgidmap is privileged).  It must be
   * written before gid_map. */
  if (geteuid() != 0 && how != MAP_HELPER) {
    if (crt_procfs_write(CRT_PROCFS_PID, pid, "setgroups", "deny", 4, err) < 0) return -1;
  }
  return write_one(pid, false, &l->gid_mappings, how, err);
}

/* The processes of init's pid namespace, for a container without a cgroup
 * (rootless): every /proc entry whose ns/pid is init's.  Without a pid
 * namespace of its own only init can be told apart. */
int crt_ns_pids(pid_t init, pid_t **pids, size_t *n, crt_err **err) {
  *pids = NULL;
  *n = 0;
  char path[64], want[64] = "", self[64] = "", got[64];
  snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)init);
  ssize_t wl = readlink(path, want, sizeof want - 1);
  ssize_t sl = readlink("/proc/self/ns/pid", self, sizeof self - 1);
  size_t cap = 16;
  pid_t *v = malloc(cap * sizeof *v);
  if (!v) return crt_error(err, ENOMEM, "pids");
  if (wl <= 0 || (sl == wl && !memcmp(want, self, (size_t)wl))) {
    v[(*n)++] = init;
    *pids = v;
    return 0;
  }
  DIR *d = opendir("/proc");
  if (!d) {
    free(v);
    return crt_error(err, errno, "open /proc");
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end || pid <= 0) continue;
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", pid);
    ssize_t gl = readlink(path, got, sizeof got - 1);
    if (gl != wl || memcmp(got, want, (size_t)wl)) continue;
    if (*n == cap) {
      pid_t *nv = realloc(v, (cap *= 2) * sizeof *v);
      if (!nv) {
        closedir(d);
        free(v);
        *n = 0;
        return crt_error(err, ENOMEM, "pids");
      }
      v = nv;
    }
    v[(*n)++] = (pid_t)pid;
  }
  closedir(d);
  *pids = v;
  return 0;
}

static void *netns_ahead_main(void *arg) {
  crt_netns_ahead *a = arg;
  /* unshare applies to this thread alone; the fd keeps the namespace
   * once the thread is gone */
  if (unshare(CLONE_NEWNET) < 0 || (a->fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) < 0) {
    a->err = errno;
    return NULL;
  }
  /* lo up here too (0.1 ms); a failure is the init's to report when it
   * tries again (crt_loopback_up) */
  crt_err *e = NULL;
  if (crt_lo_up(&e) < 0) crt_err_free(&e);
  return NULL;
}

bool crt_netns_ahead_start(crt_netns_ahead *a) {
  *a = (crt_netns_ahead){.fd = -1};
  a->started = crt_thread_start_beside(&a->thread, netns_ahead_main, a) == 0;
  return a->started;
}

int crt_netns_ahead_take(crt_netns_ahead *a, crt_err **err) {
  if (!a->started) return crt_error(err, EINVAL, "network namespace made ahead: no thread");
  pthread_join(a->thread, NULL);
  a->started = false;
  if (a->fd < 0) return crt_error(err, a->err, "make the network namespace");
  int fd = a->fd;
  a->fd = -1;
  return fd;
}
