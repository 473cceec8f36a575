#define _GNU_SOURCE
/* create / start / kill / delete through the container layer
 * (include/crt/lifecycle.h, state.h) with a private state root: the
 * error kinds callers switch on, the state file and the lock, and a real
 * busybox container taken through its whole lifecycle (root only). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "crt/create.h"
#include "crt/initcheck.h"
#include "crt/procinfo.h"
#include "crt/cgroup.h"
#include "crt/state.h"
#include "crt/fs.h"
#include "crt/lifecycle.h"
#include "crt/str.h"

/* the fixtures' paths are short: a cut one is a broken test */
#define FMT(buf, ...) assert_true(crt_fmt(buf, sizeof buf, __VA_ARGS__) >= 0)


static char root[PATH_MAX];

static int make_root(void **state) {
  (void)state;
  snprintf(root, sizeof root, "/tmp/crt-unit-life.XXXXXX");
  return mkdtemp(root) ? 0 : -1;
}

static char bundle[PATH_MAX];

/* What a failed test left: its containers are killed, not leaked. */
static int remove_root(void **state) {
  (void)state;
  DIR *d = opendir(root);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    crt_err *err = NULL;
    if (e->d_name[0] != '.' && crt_container_delete(root, e->d_name, true, &err) < 0) crt_err_free(&err);
  }
  if (d) closedir(d);
  if (*bundle) crt_rm_rf(bundle);
  return crt_rm_rf(root);
}

/* Points fds 0-2 at /dev/null (saving them in saved[3]) or back: a
 * process left by a failed test must not hold the runner's output pipe. */
static void quiet_stdio(int saved[3], bool on) {
  fflush(stdout);
  fflush(stderr);
  int null = on ? open("/dev/null", O_RDWR | O_CLOEXEC) : -1;
  for (int fd = 0; fd < 3; fd++) {
    if (on) saved[fd] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    dup2(on ? null : saved[fd], fd);
    if (!on) close(saved[fd]);
  }
  if (null >= 0) close(null);
}

static bool exists(const char *id) {
  char dir[PATH_MAX];
  FMT(dir, "%s/%s", root, id);
  return access(dir, F_OK) == 0;
}

/* A process that stands in for a container's init. */
static pid_t spawn_sleeper(void) {
  pid_t p = fork();
  assert_true(p >= 0);
  if (p == 0) {
    int saved[3];
    quiet_stdio(saved, true);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (;;) pause();
  }
  return p;
}

/* p is gone, killed by SIGKILL: reaped already (wait_stopped reaps a
 * child it waits for, unless it saw the zombie first) or a zombie now. */
static void assert_killed(pid_t p) {
  int st;
  pid_t r = waitpid(p, &st, 0);
  bool zombie = false;
  if (r == -1) assert_int_equal(errno, ECHILD);
  if (r == -1) assert_true(crt_proc_start_time(p, &zombie) == 0 || zombie); /* not our child */
  else assert_true(r == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

static void reap(pid_t p) {
  kill(p, SIGKILL);
  waitpid(p, NULL, 0);
}

/* A state directory as create leaves it, for pid (0: long gone); created:
 * the exec FIFO is still there.  The saved config has no hooks. */
static void fake_container(const char *id, pid_t pid, bool ready, bool created) {
  char dir[PATH_MAX], path[PATH_MAX + 16];
  FMT(dir, "%s/%s", root, id);
  assert_int_equal(mkdir(dir, 0700), 0);
  crt_state s = {.id = (char *)id, .pid = pid, .bundle = "/b", .rootfs = "/b/rootfs", .created = "t", .owner = "",
                 .cgroup_path = "", .ready = ready, .dir = dir};
  s.start_time = crt_proc_start_time(pid, NULL);
  crt_err *err = NULL;
  assert_int_equal(crt_state_save(root, &s, &err), 0);
  free(s.rescue);
  snprintf(path, sizeof path, "%s/config.json", dir);
  static const char cfg[] = "{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"}}";
  assert_int_equal(crt_write_file_atomic(path, cfg, strlen(cfg), 0600, &err), 0);
  if (created) {
    snprintf(path, sizeof path, "%s/exec.fifo", dir);
    assert_int_equal(mkfifo(path, 0622), 0);
  }
}

/* rc is a failure of that kind with that message (a format). */
static void __attribute__((format(printf, 4, 5)))
expect_err(int rc, crt_err **err, enum crt_err_kind kind, const char *fmt, ...) {
  char want[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(want, sizeof want, fmt, ap);
  va_end(ap);
  assert_int_equal(rc, -1);
  assert_non_null(*err);
  assert_string_equal((*err)->msg, want);
  assert_int_equal((*err)->kind, kind);
  crt_err_free(err);
}

static void test_unknown_id_not_found(void **state) {
  (void)state;
  crt_err *err = NULL;
  crt_state *s = NULL;
  expect_err(crt_container_start(root, "nope", &err), &err, CRT_ERR_NOT_FOUND, "container does not exist");
  expect_err(crt_container_kill(root, "nope", SIGTERM, false, &err), &err, CRT_ERR_NOT_FOUND, "container does not exist");
  expect_err(crt_container_kill(root, "nope", SIGKILL, true, &err), &err, CRT_ERR_NOT_FOUND, "container does not exist");
  expect_err(crt_container_delete(root, "nope", false, &err), &err, CRT_ERR_NOT_FOUND, "container nope does not exist");
  expect_err(crt_state_load(root, "nope", &s, &err), &err, CRT_ERR_NOT_FOUND, "container does not exist");
  expect_err(crt_container_lock(root, "nope", &err), &err, CRT_ERR_NOT_FOUND, "container does not exist");
  assert_int_equal(crt_container_delete(root, "nope", true, &err), 0); /* as runc */
  assert_null(err);
}

static void test_invalid_id(void **state) {
  (void)state;
  crt_err *err = NULL;
  expect_err(crt_container_start(root, "..", &err), &err, CRT_ERR_INVALID, "invalid container ID format: ..");
  expect_err(crt_container_kill(root, "a/b", SIGTERM, false, &err), &err, CRT_ERR_INVALID,
             "invalid container ID format: a/b");
  expect_err(crt_container_delete(root, "", true, &err), &err, CRT_ERR_INVALID, "container id cannot be empty");
}

static void test_stopped_container(void **state) {
  (void)state;
  crt_err *err = NULL;
  pid_t gone = spawn_sleeper();
  reap(gone);
  fake_container("stopped", gone, true, false);
  expect_err(crt_container_start(root, "stopped", &err), &err, CRT_ERR_BAD_STATE,
             "start stopped: cannot start a container that has stopped");
  expect_err(crt_container_kill(root, "stopped", SIGTERM, false, &err), &err, CRT_ERR_BAD_STATE,
             "container not running");
  /* --all of a stopped container without a cgroup: nothing left to signal */
  assert_int_equal(crt_container_kill(root, "stopped", SIGTERM, true, &err), 0);
  assert_int_equal(crt_container_delete(root, "stopped", false, &err), 0);
  assert_null(err);
  assert_false(exists("stopped"));
}

static void test_running_container(void **state) {
  (void)state;
  crt_err *err = NULL;
  pid_t p = spawn_sleeper();
  fake_container("run", p, true, false);
  expect_err(crt_container_start(root, "run", &err), &err, CRT_ERR_BAD_STATE,
             "start run: cannot start an already running container");
  expect_err(crt_container_delete(root, "run", false, &err), &err, CRT_ERR_BAD_STATE,
             "delete run: cannot delete container run that is not stopped: running");
  assert_true(exists("run"));
  assert_int_equal(kill(p, 0), 0);
  assert_int_equal(crt_container_kill(root, "run", 0, false, &err), 0); /* existence check */
  assert_int_equal(crt_container_kill(root, "run", SIGKILL, false, &err), 0);
  int st;
  assert_int_equal(waitpid(p, &st, 0), p);
  assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  expect_err(crt_container_kill(root, "run", SIGTERM, false, &err), &err, CRT_ERR_BAD_STATE, "container not running");
  assert_int_equal(crt_container_delete(root, "run", false, &err), 0);
  assert_false(exists("run"));
}

static void test_created_and_creating(void **state) {
  (void)state;
  crt_err *err = NULL;
  pid_t p = spawn_sleeper(), q = spawn_sleeper();
  fake_container("made", p, true, true);
  fake_container("making", q, false, false);
  crt_state *s = NULL;
  assert_int_equal(crt_state_load(root, "made", &s, &err), 0);
  assert_int_equal(crt_state_status(s), CRT_STATUS_CREATED);
  crt_state_free(s);
  /* a creating one is not deleted without --force; a created one is, as
   * runc and crun do (docs/spec-conformance.md) */
  expect_err(crt_container_delete(root, "making", false, &err), &err, CRT_ERR_BAD_STATE,
             "delete making: cannot delete container making that is not stopped: creating");
  expect_err(crt_container_start(root, "making", &err), &err, CRT_ERR_BAD_STATE,
             "start making: cannot start a container that is still being created");
  assert_int_equal(crt_container_delete(root, "made", false, &err), 0);
  assert_int_equal(crt_container_delete(root, "making", true, &err), 0);
  assert_null(err);
  assert_false(exists("made") || exists("making"));
  /* delete --force killed and reaped both */
  assert_killed(p);
  assert_killed(q);
}

/* A directory without state.json (create died early) or with a damaged
 * one: an error of its own kind; delete --force removes it. */
static void test_no_state(void **state) {
  (void)state;
  crt_err *err = NULL;
  crt_state *s = NULL;
  char dir[PATH_MAX], path[PATH_MAX + 16];
  FMT(dir, "%s/half", root);
  assert_int_equal(mkdir(dir, 0700), 0);
  expect_err(crt_state_load(root, "half", &s, &err), &err, CRT_ERR_NO_STATE,
             "container \"half\" has no state yet (being created, or left half-created): no such file or directory");
  expect_err(crt_container_delete(root, "half", false, &err), &err, CRT_ERR_NO_STATE,
             "container \"half\" has no state yet (being created, or left half-created): no such file or directory");
  snprintf(path, sizeof path, "%s/state.json", dir);
  assert_int_equal(crt_write_file_atomic(path, "{\"id\":", 6, 0600, &err), 0);
  expect_err(crt_container_start(root, "half", &err), &err, CRT_ERR_NO_STATE,
             "%s: corrupt state file (use delete --force)", path);
  /* the rescue file still names the init to kill */
  pid_t p = spawn_sleeper();
  char line[64];
  int n = snprintf(line, sizeof line, "%d %llu \n", p, (unsigned long long)crt_proc_start_time(p, NULL));
  snprintf(path, sizeof path, "%s/init", dir);
  assert_int_equal(crt_write_file_atomic(path, line, (size_t)n, 0600, &err), 0);
  assert_int_equal(crt_container_delete(root, "half", true, &err), 0);
  assert_null(err);
  assert_false(exists("half"));
  assert_killed(p);
}

/* Runs fn with stderr going to a file; returns what was written. */
static char *capture_stderr(void (*fn)(void *), void *arg) {
  char tmpl[] = "/tmp/crt-unit-stderr.XXXXXX";
  int fd = mkstemp(tmpl);
  assert_true(fd >= 0);
  unlink(tmpl);
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  dup2(fd, STDERR_FILENO);
  fn(arg);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  char *out = NULL;
  size_t len = 0;
  lseek(fd, 0, SEEK_SET);
  crt_err *err = NULL;
  assert_int_equal(crt_read_fd(fd, 1 << 20, &out, &len, &err), 0);
  close(fd);
  return out;
}

static void force_delete_bad_cgroup(void *arg) {
  crt_err *err = NULL;
  *(int *)arg = crt_container_delete(root, "badcg", true, &err);
  crt_err_free(&err);
}

/* delete --force no longer drops the cgroup kill's error: it is warned
 * about, and the init (killed by pid) still goes, as with runc. */
static void test_force_delete_reports_kill_errors(void **state) {
  (void)state;
  pid_t p = spawn_sleeper();
  fake_container("badcg", p, true, false);
  char dir[PATH_MAX];
  FMT(dir, "%s/badcg", root);
  crt_state s = {.id = "badcg", .pid = p, .bundle = "/b", .rootfs = "/b/rootfs", .created = "t", .owner = "",
                 .cgroup_path = "/crt-unit-no-such-cgroup/x", .ready = true, .dir = dir};
  s.start_time = crt_proc_start_time(p, NULL);
  crt_err *err = NULL;
  assert_int_equal(crt_state_save(root, &s, &err), 0);
  free(s.rescue);
  int rc = -2;
  char *out = capture_stderr(force_delete_bad_cgroup, &rc);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(out, "delete badcg: cgroup: "));
  assert_non_null(strstr(out, "warn"));
  free(out);
  assert_false(exists("badcg"));
  assert_killed(p);
}

/* crt_state_check_init: the pid is the init only with the recorded start
 * time and the rescue file agreeing (the cgroup check: t_sec_state.sh). */
static void test_init_check(void **state) {
  (void)state;
  crt_err *err = NULL;
  pid_t p = spawn_sleeper();
  fake_container("chk", p, true, false);
  crt_state *s = NULL;
  assert_int_equal(crt_state_load(root, "chk", &s, &err), 0);
  assert_int_equal(crt_state_check_init(s, NULL), CRT_INIT_OK);
  uint64_t real = s->start_time, at = 0;
  s->start_time = real + 1;
  assert_int_equal(crt_state_check_init(s, &at), CRT_INIT_REUSED);
  assert_true(at == real);
  char why[512];
  crt_init_check_describe(s, CRT_INIT_REUSED, at, why, sizeof why);
  assert_non_null(strstr(why, "is not its init"));
  s->start_time = 0; /* nothing recorded proves nothing */
  assert_int_equal(crt_state_check_init(s, NULL), CRT_INIT_REUSED);
  assert_int_equal(crt_state_status(s), CRT_STATUS_STOPPED);
  s->start_time = real;
  /* the rescue file names another init: state.json was rewritten */
  char path[PATH_MAX + 16], line[64];
  snprintf(path, sizeof path, "%s/init", s->dir);
  int n = snprintf(line, sizeof line, "%d %llu \n", (int)p + 1, (unsigned long long)real);
  assert_int_equal(crt_write_file_atomic(path, line, (size_t)n, 0600, &err), 0);
  assert_int_equal(crt_state_check_init(s, NULL), CRT_INIT_UNRECORDED);
  assert_int_equal(crt_state_status(s), CRT_STATUS_STOPPED);
  expect_err(crt_container_kill(root, "chk", SIGKILL, false, &err), &err, CRT_ERR_BAD_STATE,
             "container not running: pid %d is not its init (state.json and the rescue file %s/init disagree)",
             (int)p, s->dir);
  assert_int_equal(kill(p, 0), 0); /* not signalled */
  n = snprintf(line, sizeof line, "%d %llu \n", (int)p, (unsigned long long)real);
  assert_int_equal(crt_write_file_atomic(path, line, (size_t)n, 0600, &err), 0);
  assert_int_equal(crt_state_check_init(s, NULL), CRT_INIT_OK);
  s->pid = 0;
  assert_int_equal(crt_state_check_init(s, NULL), CRT_INIT_NONE);
  s->pid = p;
  crt_state_free(s);
  kill(p, SIGKILL);
  reap(p);
  assert_int_equal(crt_state_load(root, "chk", &s, &err), 0);
  assert_int_equal(crt_state_check_init(s, NULL), CRT_INIT_GONE);
  crt_state_free(s);
  assert_int_equal(crt_container_delete(root, "chk", false, &err), 0);
  assert_null(err);
}

/* state.json is replaced by rename: a reader holding the old file sees it
 * whole, and a concurrent reader never sees a partial one. */
static void test_state_saved_atomically(void **state) {
  (void)state;
  pid_t p = spawn_sleeper();
  fake_container("atomic", p, true, false);
  char path[PATH_MAX];
  FMT(path, "%s/atomic/state.json", root);
  struct stat before, after;
  assert_int_equal(stat(path, &before), 0);
  assert_int_equal(before.st_mode & 0777, 0600);
  int old = open(path, O_RDONLY | O_CLOEXEC);
  assert_true(old >= 0);
  crt_err *err = NULL;
  crt_state *s = NULL;
  assert_int_equal(crt_state_load(root, "atomic", &s, &err), 0);
  static char big[64 << 10];
  memset(big, 'v', sizeof big - 1);
  crt_kv kv = {.key = "big", .value = big};
  crt_kvv saved = s->annotations;
  s->annotations = (crt_kvv){.v = &kv, .len = 1};
  pid_t writer = fork();
  assert_true(writer >= 0);
  if (writer == 0) {
    for (int i = 0; i < 400; i++) {
      s->annotations.len = (size_t)(i % 2);
      if (crt_state_save(root, s, &err) < 0) _exit(1);
    }
    _exit(0);
  }
  int reads = 0, st;
  while (waitpid(writer, &st, WNOHANG) == 0) {
    crt_state *r = NULL;
    assert_int_equal(crt_state_load(root, "atomic", &r, &err), 0);
    assert_int_equal(r->pid, p);
    crt_state_free(r);
    reads++;
  }
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  assert_true(reads > 0);
  s->annotations = saved;
  crt_state_free(s);
  assert_int_equal(stat(path, &after), 0);
  assert_true(after.st_ino != before.st_ino);
  char buf[64] = "";
  assert_true(read(old, buf, sizeof buf - 1) > 0);
  assert_int_equal(strncmp(buf, "{\"ociVersion\"", 13), 0);
  close(old);
  /* no temporary file is left beside it */
  FMT(path, "%s/atomic", root);
  char cmd[PATH_MAX + 64];
  snprintf(cmd, sizeof cmd, "test $(ls -A %s | grep -c tmp) = 0", path);
  assert_int_equal(system(cmd), 0);
  reap(p);
  assert_int_equal(crt_container_delete(root, "atomic", false, &err), 0);
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The lock is an exclusive flock on the state directory, not inherited
 * by exec'd children, and delete waits for whoever holds it. */
static void test_lock(void **state) {
  (void)state;
  pid_t gone = spawn_sleeper();
  reap(gone);
  fake_container("locked", gone, true, false);
  crt_err *err = NULL;
  int fd = crt_container_lock(root, "locked", &err);
  assert_true(fd >= 0);
  assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  char dir[PATH_MAX];
  FMT(dir, "%s/locked", root);
  int other = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_true(other >= 0);
  assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);
  assert_int_equal(errno, EWOULDBLOCK);
  close(fd);
  assert_int_equal(flock(other, LOCK_EX | LOCK_NB), 0);
  int go[2];
  assert_int_equal(pipe(go), 0);
  pid_t holder = fork();
  assert_true(holder >= 0);
  if (holder == 0) { /* other's lock, held 300 ms */
    close(go[0]);
    if (write(go[1], "x", 1) != 1) _exit(1);
    struct timespec ts = {0, 300 * 1000000};
    nanosleep(&ts, NULL);
    _exit(0);
  }
  close(other); /* the child's copy keeps the lock */
  close(go[1]);
  char c;
  assert_int_equal(read(go[0], &c, 1), 1);
  close(go[0]);
  long long t0 = now_ms();
  assert_int_equal(crt_container_delete(root, "locked", false, &err), 0);
  assert_true(now_ms() - t0 >= 200);
  waitpid(holder, NULL, 0);
  assert_false(exists("locked"));
}

/* ---- a real container (root, /bin/busybox) ---- */

static bool can_run_containers(void) {
  return geteuid() == 0 && access("/bin/busybox", X_OK) == 0;
}

static void make_bundle(const char *args) {
  char cmd[3 * PATH_MAX];
  FMT(bundle, "%s.bundle", root);
  FMT(cmd,
           "set -e; mkdir -p %s/rootfs/bin %s/rootfs/proc %s/rootfs/dev; cp /bin/busybox %s/rootfs/bin/busybox; "
           "ln -sf busybox %s/rootfs/bin/sh; ln -sf busybox %s/rootfs/bin/sleep",
           bundle, bundle, bundle, bundle, bundle, bundle);
  assert_int_equal(system(cmd), 0);
  char cfg[1024], path[PATH_MAX + 16];
  int n = snprintf(cfg, sizeof cfg,
                   "{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"},"
                   "\"process\":{\"terminal\":false,\"user\":{\"uid\":0,\"gid\":0},\"cwd\":\"/\","
                   "\"env\":[\"PATH=/bin\"],\"args\":%s},"
                   "\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"mount\"},{\"type\":\"ipc\"},"
                   "{\"type\":\"uts\"}]}}",
                   args);
  snprintf(path, sizeof path, "%s/config.json", bundle);
  crt_err *err = NULL;
  assert_int_equal(crt_write_file_atomic(path, cfg, (size_t)n, 0644, &err), 0);
}

static enum crt_status status_of(const char *id) {
  crt_err *err = NULL;
  crt_state *s = NULL;
  assert_int_equal(crt_state_load(root, id, &s, &err), 0);
  enum crt_status st = crt_state_status(s);
  crt_state_free(s);
  return st;
}

/* The container's cgroup, a handle of the test's own (the state's goes
 * with it). */
static crt_cgroup *cgroup_of(const char *id) {
  crt_err *err = NULL;
  crt_state *s = NULL;
  assert_int_equal(crt_state_load(root, id, &s, &err), 0);
  crt_cgroup *cg = NULL;
  assert_int_equal(crt_cgroup_open(crt_cgroup_host(), s->cgroup_path, s->systemd, &cg, &err), 0);
  crt_state_free(s);
  return cg;
}

static pid_t create(const char *id, crt_err **err) {
  crt_create_opts o = {.root = root, .id = id, .bundle = bundle};
  crt_create_result res;
  int saved[3];
  quiet_stdio(saved, true); /* the container's stdio */
  int rc = crt_container_create(&o, &res, err);
  quiet_stdio(saved, false);
  if (rc < 0) return -1;
  assert_int_equal(res.tty_sock, -1);
  return res.pid;
}

static void wait_status(const char *id, enum crt_status want) {
  for (int i = 0; i < 500 && status_of(id) != want; i++) {
    crt_state *s = NULL;
    crt_err *err = NULL;
    assert_int_equal(crt_state_load(root, id, &s, &err), 0);
    waitpid(s->pid, NULL, WNOHANG); /* the init is our child */
    crt_state_free(s);
    usleep(10000);
  }
  assert_int_equal(status_of(id), want);
}

static void test_real_lifecycle(void **state) {
  (void)state;
  if (!can_run_containers()) skip();
  make_bundle("[\"sh\",\"-c\",\"echo started > /dev/null; exec sleep 100\"]");
  char id[64];
  snprintf(id, sizeof id, "crt-unit-%d-life", (int)getpid()); /* cgroups are machine-wide */
  crt_err *err = NULL;
  pid_t pid = create(id, &err);
  assert_true(pid > 0);
  assert_null(err);
  assert_int_equal(status_of(id), CRT_STATUS_CREATED);
  crt_cgroup *cg = cgroup_of(id);
  assert_true(!*crt_cgroup_path(cg) || crt_cgroup_exists(cg));
  expect_err(create(id, &err), &err, CRT_ERR_EXISTS, "create %s: container with given ID already exists", id);
  assert_int_equal(crt_container_start(root, id, &err), 0);
  assert_null(err);
  assert_int_equal(status_of(id), CRT_STATUS_RUNNING);
  char exe[64], target[PATH_MAX] = "";
  snprintf(exe, sizeof exe, "/proc/%d/exe", pid);
  for (int i = 0; i < 200 && strstr(target, "busybox") == NULL; i++) {
    ssize_t n = readlink(exe, target, sizeof target - 1);
    target[n > 0 ? n : 0] = 0;
    usleep(10000);
  }
  assert_non_null(strstr(target, "busybox")); /* the user's process, exec'd */
  expect_err(crt_container_start(root, id, &err), &err, CRT_ERR_BAD_STATE,
             "start %s: cannot start an already running container", id);
  expect_err(crt_container_delete(root, id, false, &err), &err, CRT_ERR_BAD_STATE,
             "delete %s: cannot delete container %s that is not stopped: running", id, id);
  assert_int_equal(crt_container_kill(root, id, SIGKILL, false, &err), 0);
  wait_status(id, CRT_STATUS_STOPPED);
  expect_err(crt_container_kill(root, id, SIGTERM, false, &err), &err, CRT_ERR_BAD_STATE, "container not running");
  expect_err(crt_container_start(root, id, &err), &err, CRT_ERR_BAD_STATE,
             "start %s: cannot start a container that has stopped", id);
  assert_int_equal(crt_container_delete(root, id, false, &err), 0);
  assert_null(err);
  assert_false(exists(id));
  assert_false(crt_cgroup_exists(cg));
  crt_cgroup_close(cg);
}

/* run's delete trusts what create handed over only while state.json is
 * the file create wrote (crt_held_current): after a delete --force and a
 * new container of the same id it reads the disk instead of taking the
 * new one for run's. */
static void test_real_held_state_rechecked(void **state) {
  (void)state;
  if (!can_run_containers()) skip();
  make_bundle("[\"sleep\",\"100\"]");
  char id[64];
  snprintf(id, sizeof id, "crt-unit-%d-held", (int)getpid());
  crt_err *err = NULL;
  crt_create_opts o = {.root = root, .id = id, .bundle = bundle, .hold = true};
  crt_create_result res;
  int saved[3];
  quiet_stdio(saved, true);
  int rc = crt_container_create(&o, &res, &err);
  quiet_stdio(saved, false);
  assert_int_equal(rc, 0);
  assert_true(res.held.lock >= 0 && res.held.state && res.held.spec);
  assert_true(crt_held_current(&res.held, res.held.lock));
  close(res.held.lock);
  res.held.lock = -1;
  assert_int_equal(crt_container_delete(root, id, true, &err), 0);
  waitpid(res.pid, NULL, 0);
  pid_t pid2 = create(id, &err);
  assert_true(pid2 > 0);
  int lock = crt_container_lock(root, id, &err);
  assert_true(lock >= 0);
  assert_false(crt_held_current(&res.held, lock));
  close(lock);
  crt_held_release(&res.held);
  assert_int_equal(crt_container_delete(root, id, true, &err), 0);
  assert_false(exists(id));
  waitpid(pid2, NULL, 0);
}

/* crt_container_run detached: created and started in one call, running
 * when it returns, its lock released (a delete can take it). */
static void test_real_run_detached(void **state) {
  (void)state;
  if (!can_run_containers()) skip();
  make_bundle("[\"sleep\",\"100\"]");
  char id[64];
  snprintf(id, sizeof id, "crt-unit-%d-run", (int)getpid());
  crt_err *err = NULL;
  crt_run_opts o = {.create = {.root = root, .id = id, .bundle = bundle}, .detach = true};
  int code = -1, saved[3];
  quiet_stdio(saved, true);
  int rc = crt_container_run(&o, &code, &err);
  quiet_stdio(saved, false);
  assert_int_equal(rc, 0);
  assert_null(err);
  assert_int_equal(code, 0);
  assert_int_equal(status_of(id), CRT_STATUS_RUNNING);
  expect_err(crt_container_start(root, id, &err), &err, CRT_ERR_BAD_STATE,
             "start %s: cannot start an already running container", id);
  assert_int_equal(crt_container_delete(root, id, true, &err), 0);
  assert_false(exists(id));
}

/* delete --force of a paused container: thawed so that SIGKILL lands. */
static void test_real_force_delete_paused(void **state) {
  (void)state;
  if (!can_run_containers()) skip();
  make_bundle("[\"sleep\",\"100\"]");
  char id[64];
  snprintf(id, sizeof id, "crt-unit-%d-frozen", (int)getpid());
  crt_err *err = NULL;
  pid_t pid = create(id, &err);
  assert_true(pid > 0);
  assert_int_equal(crt_container_start(root, id, &err), 0);
  crt_cgroup *cg = cgroup_of(id);
  if (!*crt_cgroup_path(cg) || crt_cgroup_freeze(cg, true, &err) < 0) {
    crt_err_free(&err);
    assert_int_equal(crt_container_delete(root, id, true, &err), 0);
    crt_cgroup_close(cg);
    skip(); /* no freezer here */
  }
  assert_int_equal(status_of(id), CRT_STATUS_PAUSED);
  expect_err(crt_container_delete(root, id, false, &err), &err, CRT_ERR_BAD_STATE,
             "delete %s: cannot delete container %s that is not stopped: paused", id, id);
  assert_int_equal(crt_container_delete(root, id, true, &err), 0);
  assert_null(err);
  assert_false(exists(id));
  assert_false(crt_cgroup_exists(cg));
  assert_killed(pid);
  crt_cgroup_close(cg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unknown_id_not_found),
      cmocka_unit_test(test_invalid_id),
      cmocka_unit_test(test_stopped_container),
      cmocka_unit_test(test_running_container),
      cmocka_unit_test(test_created_and_creating),
      cmocka_unit_test(test_no_state),
      cmocka_unit_test(test_force_delete_reports_kill_errors),
      cmocka_unit_test(test_init_check),
      cmocka_unit_test(test_state_saved_atomically),
      cmocka_unit_test(test_lock),
      cmocka_unit_test(test_real_lifecycle),
      cmocka_unit_test(test_real_force_delete_paused),
      cmocka_unit_test(test_real_held_state_rechecked), cmocka_unit_test(test_real_run_detached),
  };
  return cmocka_run_group_tests(tests, make_root, remove_root);
}
