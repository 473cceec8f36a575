/* Process attributes applied inside the container before execve. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/log.h"
#include "crt/numa.h"
#include "crt/process.h"
#include "crt/procfs.h"
#include "crt/rootless.h"
#include "crt/str.h"
#include "../util/testpoint.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

/* The last entry wins, as in the environment crt_build_env makes. */
static const char *env_get(const crt_strv *env, const char *name) {
  size_t n = strlen(name);
  for (size_t i = env->len; i-- > 0;)
    if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=') return env->v[i] + n + 1;
  return NULL;
}

/* Go's exec.findExecutable, as runc's init runs it (as the process's
 * user, after its capabilities are set): 0, or the errno and whether
 * stat gave it ("stat PATH: " in Go's words). */
static int check_executable(const char *file, bool *from_stat) {
  struct stat st;
  *from_stat = stat(file, &st) < 0;
  if (*from_stat) return errno;
  if (S_ISDIR(st.st_mode)) return EISDIR;
  if (faccessat(AT_FDCWD, file, X_OK, AT_EACCESS) == 0) return 0;
  /* no faccessat2, or a seccomp filter refusing it: the mode decides */
  if (errno != ENOSYS && errno != EPERM) return errno;
  return st.st_mode & 0111 ? 0 : EACCES;
}

static int not_executable(const char *name, int e, bool from_stat, crt_err **err) {
  if (from_stat) return crt_error(err, e, "exec: \"%s\": stat %s", name, name);
  return crt_error(err, e, "exec: \"%s\"", name);
}

int crt_find_executable(const crt_process *p, char **out, crt_err **err) {
  const char *name = p->args.len ? p->args.v[0] : NULL;
  if (!name) return crt_error(err, 0, "exec: no command given in process.args");
  bool from_stat;
  if (strchr(name, '/')) {
    int e = check_executable(name, &from_stat);
    if (e) return not_executable(name, e, from_stat, err);
    *out = strdup(name);
    return 0;
  }
  /* the process's own PATH only, none without it (runc's init has no
   * other); an empty entry is the working directory */
  const char *path = env_get(&p->env, "PATH");
  cleanup_free char *copy = strdup(path ? path : "");
  if (!copy) return crt_error(err, ENOMEM, "exec: \"%s\"", name);
  for (char *dir = *copy ? copy : NULL, *next; dir; dir = next) {
    next = strchr(dir, ':');
    if (next) *next++ = 0;
    char full[PATH_MAX];
    /* a candidate too long for a path is none (as exec.LookPath's stat fails) */
    if (crt_fmt(full, sizeof full, "%s/%s", *dir ? dir : ".", name) < 0) continue;
    if (check_executable(full, &from_stat)) continue;
    /* Go >= 1.19 (runc 1.3's) refuses a program found through a relative
     * entry: the working directory should not pick it */
    if (full[0] != '/') return crt_error(err, 0, "exec: \"%s\": cannot run executable found relative to current directory", name);
    *out = strdup(full);
    return 0;
  }
  return crt_error(err, 0, "exec: \"%s\": executable file not found in $PATH", name);
}

int crt_set_rlimits(const crt_process *p, crt_err **err) {
  for (size_t i = 0; i < p->n_rlimits; i++) {
    struct rlimit rl = {.rlim_cur = p->rlimits[i].soft, .rlim_max = p->rlimits[i].hard};
    if (setrlimit(p->rlimits[i].resource, &rl) < 0) {
      crt_error(err, errno, "setrlimit %s (soft %llu, hard %llu)", p->rlimits[i].type,
                (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
      return crt_rootless_explain(err, "rlimit");
    }
  }
  return 0;
}

int crt_set_sysctls(const crt_spec *spec, crt_err **err) {
  if (!spec->linux_) return 0;
  const crt_kvv *s = &spec->linux_->sysctl;
  for (size_t i = 0; i < s->len; i++) {
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "sys/");
    for (const char *k = s->v[i].key; *k && n < (int)sizeof path - 1; k++) path[n++] = *k == '.' ? '/' : *k;
    path[n] = 0;
    if (strstr(s->v[i].key, "..") || strchr(s->v[i].key, '/'))
      return crt_error(err, 0, "sysctl %s: invalid name", s->v[i].key);
    if (crt_procfs_write(CRT_PROCFS_ROOT, 0, path, s->v[i].value, strlen(s->v[i].value), err) < 0) {
      crt_error_wrap(err, "sysctl %s=%s", s->v[i].key, s->v[i].value);
      return crt_rootless_explain(err, "sysctl");
    }
  }
  return 0;
}

int crt_set_hostname(const crt_spec *spec, crt_err **err) {
  if (spec->hostname && *spec->hostname && sethostname(spec->hostname, strlen(spec->hostname)) < 0)
    return crt_error(err, errno, "sethostname %.64s", spec->hostname);
  if (spec->domainname && *spec->domainname && setdomainname(spec->domainname, strlen(spec->domainname)) < 0)
    return crt_error(err, errno, "setdomainname %.64s", spec->domainname);
  return 0;
}

int crt_loopback_up(const crt_spec *spec, crt_err **err) {
  const crt_namespace *ns = crt_spec_namespace(spec, CRT_NS_NETWORK);
  if (!ns || (ns->path && *ns->path)) return 0;
  return crt_lo_up(err);
}

int crt_lo_up(crt_err **err) {
  cleanup_close int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return crt_error(err, errno, "bring up lo: socket");
  struct ifreq ifr = {0};
  snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
  if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) return crt_error(err, errno, "bring up lo: SIOCGIFFLAGS");
  if (ifr.ifr_flags & IFF_UP) return 0;
  ifr.ifr_flags |= IFF_UP;
  if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) return crt_error(err, errno, "bring up lo: SIOCSIFFLAGS");
  return 0;
}

static int set_personality(const crt_spec *spec, crt_err **err) {
  const crt_personality *pe = spec->linux_ ? spec->linux_->personality : NULL;
  if (!pe || !pe->domain) return 0;
  unsigned long v;
  if (strcmp(pe->domain, "LINUX") == 0) v = PER_LINUX;
  else if (strcmp(pe->domain, "LINUX32") == 0) v = PER_LINUX32;
  else return crt_error(err, 0, "personality: unknown domain %s", pe->domain);
  if (personality(v) < 0) return crt_error(err, errno, "personality %s", pe->domain);
  return 0;
}

struct crt_sched_attr {
  uint32_t size, sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime, sched_deadline, sched_period;
};

/* sched_setattr's EPERM for SCHED_DEADLINE when the affinity is not every
 * CPU: with a cpuset, in runc's words. */
static bool has_cpuset(const crt_spec *spec) {
  const crt_resources *r = spec && spec->linux_ ? spec->linux_->resources : NULL;
  return r && r->cpu.cpus && *r->cpu.cpus;
}

static int set_scheduler(const crt_spec *spec, const crt_process *p, crt_err **err) {
  const crt_scheduler *s = p->scheduler;
  if (!s) return 0;
  struct crt_sched_attr a = {.size = sizeof a,
                             .sched_policy = (uint32_t)s->policy_num,
                             .sched_nice = s->nice,
                             .sched_priority = (uint32_t)s->priority,
                             .sched_runtime = s->runtime,
                             .sched_deadline = s->deadline,
                             .sched_period = s->period};
  for (size_t i = 0; i < s->flags.len; i++) {
    const char *f = s->flags.v[i];
    if (!strcmp(f, "SCHED_FLAG_RESET_ON_FORK")) a.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
    else if (!strcmp(f, "SCHED_FLAG_RECLAIM")) a.sched_flags |= SCHED_FLAG_RECLAIM;
    else if (!strcmp(f, "SCHED_FLAG_DL_OVERRUN")) a.sched_flags |= SCHED_FLAG_DL_OVERRUN;
    else if (!strcmp(f, "SCHED_FLAG_KEEP_POLICY")) a.sched_flags |= SCHED_FLAG_KEEP_POLICY;
    else if (!strcmp(f, "SCHED_FLAG_KEEP_PARAMS")) a.sched_flags |= SCHED_FLAG_KEEP_PARAMS;
    else if (!strcmp(f, "SCHED_FLAG_UTIL_CLAMP_MIN")) a.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MIN;
    else if (!strcmp(f, "SCHED_FLAG_UTIL_CLAMP_MAX")) a.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MAX;
    else return crt_error(err, 0, "scheduler: unknown flag %s", f);
  }
  if (syscall(SYS_sched_setattr, 0, &a, 0) < 0) {
    if (errno == EPERM && has_cpuset(spec))
      return crt_error(err, 0, "process scheduler can't be used together with AllowedCPUs");
    return crt_error(err, errno, "sched_setattr %s", s->policy);
  }
  return 0;
}

static int set_ioprio(const crt_process *p, crt_err **err) {
  if (!p->io_priority) return 0;
  int ioprio = (p->io_priority->class_num << 13) | (int)p->io_priority->priority;
  if (syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, ioprio) < 0)
    return crt_error(err, errno, "ioprio_set %s %lld", p->io_priority->class_name, (long long)p->io_priority->priority);
  return 0;
}

bool crt_proc_writes_wanted(const crt_spec *spec, const crt_process *p) {
  const crt_linux *l = spec->linux_;
  if (l && (l->sysctl.len || l->n_time_offsets)) return true;
  return p && (p->terminal || p->oom_score_adj.set || (p->apparmor_profile && *p->apparmor_profile) ||
               (p->selinux_label && *p->selinux_label));
}

/* The becoming root of a user namespace (a uid change) leaves a process
 * not dumpable, and its /proc files then belong to the host's root: in
 * the namespace it may no longer write its oom_score_adj.  So the runtime
 * (or the joiner, before it joins) writes it while it can, as runc's
 * nsexec does first thing, and the late write is skipped when the value
 * is in place already. */
int crt_oom_score_adj_early(pid_t pid, const crt_process *p, crt_err **err) {
  if (!p || !p->oom_score_adj.set) return 0;
  char path[48], buf[32];
  if (pid > 0) snprintf(path, sizeof path, "/proc/%d/oom_score_adj", (int)pid);
  else snprintf(path, sizeof path, "/proc/self/oom_score_adj");
  int n = snprintf(buf, sizeof buf, "%lld", (long long)p->oom_score_adj.v);
  cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, buf, (size_t)n) != n) {
    crt_error(err, errno, "set oomScoreAdj %s: %s", buf, path);
    return crt_rootless_explain(err, "oom_score_adj");
  }
  return 0;
}

static bool oom_score_adj_is(long long v) {
  char buf[32];
  cleanup_close int fd = open("/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC);
  ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
  if (n <= 0) return false;
  buf[n] = 0;
  char *end = NULL;
  long long cur = strtoll(buf, &end, 10);
  return end != buf && (*end == '\n' || !*end) && cur == v;
}

int crt_set_process_attrs(const crt_spec *spec, const crt_process *p, crt_err **err) {
  if (p->oom_score_adj.set && !oom_score_adj_is(p->oom_score_adj.v)) {
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)p->oom_score_adj.v);
    if (crt_procfs_write(CRT_PROCFS_SELF, 0, "oom_score_adj", buf, (size_t)n, err) < 0) {
      crt_error_wrap(err, "set oomScoreAdj %s", buf);
      return crt_rootless_explain(err, "oom_score_adj");
    }
  }
  if (set_personality(spec, err) < 0 || set_scheduler(spec, p, err) < 0 || set_ioprio(p, err) < 0) return -1;
  if (crt_set_mempolicy(spec, err) < 0) return -1;
  if (p->user.umask.set) umask((mode_t)p->user.umask.v);
  return 0;
}

int crt_set_user(const crt_process *p, bool userns, crt_err **err) {
  const crt_user *u = &p->user;
  gid_t *groups = u->n_additional_gids ? (gid_t *)u->additional_gids : NULL;
  if (setgroups(u->n_additional_gids, groups) < 0) {
    /* In a user namespace with setgroups denied only an empty list fails
     * harmlessly; a configured list is a real error. */
    if (!(userns && errno == EPERM && u->n_additional_gids == 0)) {
      crt_error(err, errno, "setgroups");
      return crt_rootless_explain(err, "setgroups");
    }
  }
  if (setresgid(u->gid, u->gid, u->gid) < 0) return crt_error(err, errno, "setgid %u", u->gid);
  if (setresuid(u->uid, u->uid, u->uid) < 0) return crt_error(err, errno, "setuid %u", u->uid);
  return 0;
}

int crt_new_session(crt_err **err) {
  if (setsid() < 0) return crt_error(err, errno, "setsid");
  return 0;
}

int crt_fix_stdio_owner(uid_t uid, crt_err **err) {
  struct stat null;
  if (stat("/dev/null", &null) < 0) null.st_rdev = (dev_t)-1;
  for (int fd = 0; fd < 3; fd++) {
    struct stat st;
    if (fstat(fd, &st) < 0) {
      if (errno == EBADF) continue;
      return crt_error(err, errno, "stat stdio fd %d", fd);
    }
    if (st.st_uid == uid || (S_ISCHR(st.st_mode) && st.st_rdev == null.st_rdev)) continue;
    /* The gid is kept: devpts gives the tty group (gid=5).  EINVAL and
     * EPERM mean an owner or group that the user namespace does not map:
     * left as it is, as runc does. */
    if (fchown(fd, uid, st.st_gid) < 0 && errno != EINVAL && errno != EPERM)
      return crt_error(err, errno, "chown stdio fd %d to uid %u", fd, (unsigned)uid);
  }
  return 0;
}

int crt_set_cwd(const crt_process *p, const char *origin, crt_err **err) {
  const char *cwd = p->cwd && *p->cwd ? p->cwd : "/";
  if (chdir(cwd) < 0) return crt_error(err, errno, "chdir to cwd (\"%s\") set %s", cwd, origin);
  /* CVE-2024-21626: a cwd reached through a leaked fd lies outside the
   * root; getcwd then reports "(unreachable)" or fails. */
  char buf[PATH_MAX];
  if (!getcwd(buf, sizeof buf) || buf[0] != '/')
    return crt_error(err, 0, "cwd \"%s\" is outside the container root", cwd);
  return 0;
}

/* The image's /etc/passwd is the image's to make: a FIFO, a device
 * (/dev/zero), a huge file or a line without end must not hang or spin
 * the init or an exec.  runc 1.3 reads it with a bufio.Scanner (64 KiB per
 * line) and, when that fails, leaves HOME at "/"; crt does the same, and
 * also stops after PASSWD_READ_MAX bytes without a match (runc would read
 * on to the end). */
#define PASSWD_LINE_MAX (64 * 1024)
#define PASSWD_READ_MAX (16 * 1024 * 1024)

/* The home field of a passwd line whose uid is uid, or NULL. */
static char *passwd_line_home(char *line, uid_t uid) {
  char *fields[7] = {0};
  int n = 0;
  for (char *s = line, *tok; n < 7 && (tok = strsep(&s, ":")); n++) fields[n] = tok;
  if (n >= 6 && strtoul(fields[2], NULL, 10) == uid) return strdup(fields[5]);
  return NULL;
}

/* The first matching line's home in fd, read a line of at most
 * PASSWD_LINE_MAX bytes at a time; NULL at the end, on a read error, on
 * an overlong line or past PASSWD_READ_MAX (why: crt --debug). */
static char *passwd_scan(int fd, uid_t uid) {
  char *buf = malloc(PASSWD_LINE_MAX + 1);
  if (!buf) return NULL;
  size_t have = 0, total = 0;
  bool eof = false;
  char *home = NULL;
  while (!home) {
    char *nl = memchr(buf, '\n', have);
    if (!nl && !eof) {
      if (have == PASSWD_LINE_MAX || total >= PASSWD_READ_MAX) {
        crt_debug("/etc/passwd: %s: HOME=/", have == PASSWD_LINE_MAX ? "line too long" : "too large");
        break;
      }
      ssize_t r = read(fd, buf + have, PASSWD_LINE_MAX - have);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        crt_debug("/etc/passwd: read: %s: HOME=/", strerror(errno));
        break;
      }
      eof = r == 0;
      have += (size_t)r;
      total += (size_t)r;
      continue;
    }
    if (!nl && !have) break; /* the end */
    if (!nl) nl = buf + have; /* the last line, without a newline */
    *nl = 0;
    home = passwd_line_home(buf, uid);
    size_t used = nl < buf + have ? (size_t)(nl + 1 - buf) : have;
    memmove(buf, buf + used, have - used);
    have -= used;
  }
  free(buf);
  return home;
}

/* Whether fd is a regular file, and the one `want` names (if given). */
static bool regular_file(int fd, const struct stat *want, struct stat *st) {
  return fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
         (!want || (st->st_dev == want->st_dev && st->st_ino == want->st_ino));
}

/* HOME of uid from the image's /etc/passwd (inside the container's root
 * by now: a symlink resolves in it), or NULL.  Looked at through O_PATH
 * first, so that opening never touches a device (opening one can act:
 * a watchdog starts); then opened O_NONBLOCK (a FIFO swapped in meanwhile
 * does not wait for a writer) and read only if it is the same file. */
static char *home_for(uid_t uid) {
  struct stat seen, st;
  int probe = open("/etc/passwd", O_PATH | O_CLOEXEC);
  if (probe < 0) return NULL;
  bool regular = regular_file(probe, NULL, &seen);
  close(probe);
  int fd = regular ? open("/etc/passwd", O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) : -1;
  char *home = NULL;
  if (fd >= 0 && regular_file(fd, &seen, &st))
    home = passwd_scan(fd, uid);
  else if (!regular || fd >= 0)
    crt_debug("/etc/passwd: not a regular file: HOME=/");
  if (fd >= 0) close(fd);
  return home;
}

static size_t env_key_len(const char *entry) {
  const char *eq = strchr(entry, '=');
  return eq ? (size_t)(eq - entry) : strlen(entry);
}

/* True when a later entry of env[0..n) names the same key as env[i]. */
static bool env_overridden(char **env, size_t n, size_t i) {
  size_t k = env_key_len(env[i]);
  for (size_t j = i + 1; j < n; j++)
    if (env_key_len(env[j]) == k && strncmp(env[j], env[i], k) == 0) return true;
  return false;
}

/* runc >= 1.2: a key named twice keeps its last value, once, at the place
 * of that last entry; a missing or empty HOME comes from /etc/passwd. */
char **crt_build_env(const crt_process *p, const char **extra) {
  size_t nextra = 0;
  while (extra && extra[nextra]) nextra++;
  size_t total = p->env.len + nextra;
  char **env = calloc(total + 2, sizeof(char *));
  if (!env) return NULL;
  for (size_t i = 0; i < p->env.len; i++) env[i] = p->env.v[i];
  for (size_t i = 0; i < nextra; i++) env[p->env.len + i] = (char *)extra[i];
  size_t n = 0;
  bool has_home = false;
  for (size_t i = 0; i < total; i++) {
    if (env_overridden(env, total, i)) continue;
    if (strcmp(env[i], "HOME=") == 0) continue;
    if (strncmp(env[i], "HOME=", 5) == 0) has_home = true;
    env[n++] = env[i];
  }
  if (!has_home) {
    /* the test build's pause point of a process still running crt inside
     * the container's mount namespace (t_security's exec tests) */
    crt_test_point("env:home");
    char *home = home_for(p->user.uid);
    char *h = NULL;
    if (asprintf(&h, "HOME=%s", home && *home ? home : "/") > 0) env[n++] = h;
    free(home);
  }
  env[n] = NULL;
  return env;
}

void crt_reset_signals(void) {
  struct sigaction dfl = {.sa_handler = SIG_DFL};
  for (int s = 1; s < NSIG; s++) sigaction(s, &dfl, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
}

int crt_new_session_keyring(const char *id, crt_err **err) {
  /* ids are up to 1024 bytes; a cut name would join another container's keyring */
  char name[2048];
  if (crt_fmt(name, sizeof name, "_ses.%s", id) < 0)
    return crt_error(err, ENAMETOOLONG, "join session keyring: container id too long");
  /* KEYCTL_JOIN_SESSION_KEYRING = 1 */
  if (syscall(SYS_keyctl, 1, name, 0, 0, 0) < 0) {
    if (errno == ENOSYS || errno == EACCES || errno == EPERM) return 0; /* keyrings unavailable: runc ignores */
    return crt_error(err, errno, "join session keyring");
  }
  return 0;
}
