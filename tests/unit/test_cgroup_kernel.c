/* cgroup manager against the real kernel: (a) the host's v1 hierarchies
 * (memory, pids, freezer, devices, ...), (b) a private cgroup2 mount of the
 * unified hierarchy with freeze, cgroup.kill and the eBPF device filter.
 * Every cgroup is named crt-t-unit-<pid> and removed even on failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/cgroup/cgroup_internal.h"
#include "crt/cgroup.h"
#include "crt/fs.h"

/* ---- a child that runs commands on request, from inside the cgroup ---- */

typedef struct {
  pid_t pid;
  int cmd, res; /* our ends */
} worker;

static void worker_loop(int cmd, int res) {
  char c;
  while (read(cmd, &c, 1) == 1) {
    int r = 0;
    if (c == 'f') {
      pid_t p = fork();
      if (p == 0) _exit(0);
      if (p < 0) r = errno;
      else waitpid(p, NULL, 0);
    } else if (c == 'o') {
      int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
      if (fd < 0) r = errno;
      else close(fd);
    } else if (c == 'q') {
      _exit(0);
    }
    if (write(res, &r, sizeof r) != (ssize_t)sizeof r) _exit(1);
  }
  _exit(0);
}

static int worker_start(worker *w) {
  int a[2], b[2];
  if (pipe2(a, O_CLOEXEC) < 0 || pipe2(b, O_CLOEXEC) < 0) return -1;
  w->pid = fork();
  if (w->pid < 0) return -1;
  if (w->pid == 0) {
    close(a[1]);
    close(b[0]);
    worker_loop(a[0], b[1]);
  }
  close(a[0]);
  close(b[1]);
  w->cmd = a[1];
  w->res = b[0];
  return 0;
}

/* errno of the command in the worker, 0 on success, -1 if the worker died */
static int worker_do(worker *w, char c) {
  int r;
  if (write(w->cmd, &c, 1) != 1) return -1;
  if (read(w->res, &r, sizeof r) != (ssize_t)sizeof r) return -1;
  return r;
}

static void worker_stop(worker *w) {
  if (w->pid <= 0) return;
  kill(w->pid, SIGKILL);
  waitpid(w->pid, NULL, 0);
  close(w->cmd);
  close(w->res);
  w->pid = 0;
}

static char *readf(const char *dir, const char *file) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  char *out = NULL;
  crt_err *e = NULL;
  if (crt_read_file(p, 1 << 20, &out, NULL, &e) < 0) {
    crt_err_free(&e);
    return strdup("");
  }
  out[strcspn(out, "\n")] = 0;
  return out;
}

/* ---- (a) v1 ---- */

/* A handle of path under the host's root (the test's own, for the cgroup
 * made there). */
static crt_cgroup *host_cg(const char *path) {
  crt_cgroup *cg = NULL;
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_open(crt_cgroup_host(), path, false, &cg, &e), 0);
  return cg;
}

/* The cgroup's directory on the hierarchy of controller (NULL: the main one). */
static char *cg_dir(const crt_cgroup *cg, const char *controller) {
  return cg->fs.dir(&cg->fs, cg->path, controller);
}

/* Removes the cgroup a test made, and its handle. */
static void drop(crt_cgroup **cg) {
  crt_err *e = NULL;
  crt_cgroup_destroy(*cg, &e);
  crt_err_free(&e);
  crt_cgroup_close(*cg);
  *cg = NULL;
}

static char v1_path[64];
static crt_cgroup *v1cg;
static worker v1w;

static int v1_teardown(void **state) {
  worker_stop(&v1w);
  drop(&v1cg);
  return 0;
}

static bool v1_available(void) {
  return access("/sys/fs/cgroup/memory/cgroup.procs", F_OK) == 0 &&
         access("/sys/fs/cgroup/devices/devices.allow", F_OK) == 0 && geteuid() == 0;
}

static void test_v1_real(void **state) {
  if (!v1_available()) skip();
  if (crt_cgroup_host()->mode == CRT_CGROUP_MODE_V2) skip();
  snprintf(v1_path, sizeof v1_path, "/crt-t-unit-%d", (int)getpid());
  v1cg = host_cg(v1_path);
  assert_int_equal(worker_start(&v1w), 0);

  crt_resources r = {0};
  r.memory.limit = (crt_i64){true, 64 << 20};
  r.pids.limit = (crt_i64){true, 1};
  crt_hugepage_limit huge = {"2MB", 4 << 20};
  r.hugepage_limits = &huge;
  r.n_hugepage_limits = 1;
  crt_device_rule deny_all = {.allow = false, .access = "rwm"};
  r.devices = &deny_all;
  r.n_devices = 1;
  crt_linux l = {.cgroups_path = v1_path, .resources = &r};
  crt_spec spec = {.linux_ = &l};
  crt_cgroup_config cfg = {.id = "t", .spec = &spec};
  char *path = NULL;
  crt_err *e = NULL;
  int rc = crt_cgroup_enter(v1cg, &cfg, v1w.pid, &path, &e);
  if (rc < 0) fail_msg("enter: %s", e->msg);
  assert_string_equal(path, v1_path);
  free(path);

  char *mem = cg_dir(v1cg, "memory"), *pids = cg_dir(v1cg, "pids"),
       *dev = cg_dir(v1cg, "devices"), *cpuset = cg_dir(v1cg, "cpuset");
  char *s = readf(mem, "memory.limit_in_bytes");
  assert_string_equal(s, "67108864");
  free(s);
  s = readf(pids, "pids.max");
  assert_string_equal(s, "1");
  free(s);
  if (crt_cgroup_mode(v1cg) == CRT_CGROUP_MODE_HYBRID && access("/sys/fs/cgroup/hugetlb", F_OK) != 0) {
    /* this host has hugetlb only on the unified hierarchy */
    char u[256];
    snprintf(u, sizeof u, "/sys/fs/cgroup/unified%s", v1_path);
    s = readf(u, "hugetlb.2MB.max");
    assert_string_equal(s, "4194304");
    free(s);
    s = readf(u, "cgroup.procs");
    assert_int_equal(atoi(s), v1w.pid);
    free(s);
  }
  s = readf(cpuset, "cpuset.cpus"); /* copied from the parent */
  assert_true(strlen(s) > 0);
  free(s);
  char want[32];
  snprintf(want, sizeof want, "%d", (int)v1w.pid);
  s = readf(mem, "cgroup.procs");
  assert_string_equal(s, want);
  free(s);
  pid_t *list = NULL;
  size_t n = 0;
  assert_int_equal(crt_cgroup_pids(v1cg, &list, &n, &e), 0);
  assert_int_equal(n, 1);
  assert_int_equal(list[0], v1w.pid);
  free(list);

  /* pids.max=1: the worker cannot fork */
  assert_int_equal(worker_do(&v1w, 'f'), EAGAIN);
  crt_resources more = {0};
  more.pids.limit = (crt_i64){true, 10};
  assert_int_equal(crt_cgroup_update(v1cg, &more, &e), 0);
  assert_int_equal(worker_do(&v1w, 'f'), 0);

  /* devices: the default rules allow /dev/null; a deny-all list does not */
  assert_int_equal(worker_do(&v1w, 'o'), 0);
  assert_int_equal(cg_v1_devices(dev, &deny_all, 1, &e), 0);
  assert_int_equal(worker_do(&v1w, 'o'), EPERM);
  crt_device_rule allow_null[] = {deny_all, {.allow = true, .type = "c", .major = {true, 1}, .minor = {true, 3}, .access = "rw"}};
  assert_int_equal(cg_v1_devices(dev, allow_null, 2, &e), 0);
  assert_int_equal(worker_do(&v1w, 'o'), 0);
  s = readf(dev, "devices.list");
  assert_string_equal(s, "c 1:3 rw");
  free(s);

  /* freezer */
  assert_int_equal(crt_cgroup_is_frozen(v1cg), 0);
  assert_int_equal(crt_cgroup_freeze(v1cg, true, &e), 0);
  assert_int_equal(crt_cgroup_is_frozen(v1cg), 1);
  assert_int_equal(crt_cgroup_freeze(v1cg, false, &e), 0);
  assert_int_equal(crt_cgroup_is_frozen(v1cg), 0);
  assert_int_equal(worker_do(&v1w, 'o'), 0);

  /* stats read from the live cgroup */
  crt_cgroup_stats st;
  assert_int_equal(crt_cgroup_get_stats(v1cg, &st, &e), 0);
  assert_int_equal(st.mem_limit, 64 << 20);
  assert_int_equal(st.pids_current, 1);
  assert_int_equal(st.pids_limit, 10);
  assert_true(st.mem_usage > 0);
  crt_cgroup_stats_free(&st);

  /* kill through the cgroup, paused (it must be thawed to die), then
   * nothing may be left */
  assert_int_equal(crt_cgroup_freeze(v1cg, true, &e), 0);
  assert_int_equal(crt_cgroup_kill(v1cg, SIGKILL, &e), 0);
  int status;
  assert_int_equal(waitpid(v1w.pid, &status, 0), v1w.pid);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  close(v1w.cmd);
  close(v1w.res);
  v1w.pid = 0;
  assert_int_equal(crt_cgroup_destroy(v1cg, &e), 0);
  assert_int_equal(access(mem, F_OK), -1);
  assert_int_equal(access(dev, F_OK), -1);
  char u[256];
  snprintf(u, sizeof u, "/sys/fs/cgroup/unified%s", v1_path);
  assert_int_equal(access(u, F_OK), -1);
  /* already gone is not an error */
  assert_int_equal(crt_cgroup_destroy(v1cg, &e), 0);
  free(mem), free(pids), free(dev), free(cpuset);
}

/* OOM notification on v1: a child over its memory+swap limit is killed and
 * the eventfd reports it. */
static char oom_path[64];
static crt_cgroup *oomcg;

static int oom_teardown(void **state) {
  drop(&oomcg);
  return 0;
}

static void test_v1_oom_event(void **state) {
  if (!v1_available() || access("/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes", F_OK) != 0) skip();
  if (crt_cgroup_host()->mode == CRT_CGROUP_MODE_V2) skip();
  snprintf(oom_path, sizeof oom_path, "/crt-t-unit-oom-%d", (int)getpid());
  oomcg = host_cg(oom_path);
  int go[2];
  assert_int_equal(pipe2(go, O_CLOEXEC), 0);
  pid_t c = fork();
  assert_true(c >= 0);
  if (c == 0) {
    char b;
    close(go[1]);
    if (read(go[0], &b, 1) != 1) _exit(3);
    for (size_t total = 0; total < (256u << 20); total += 1 << 20) {
      char *p = malloc(1 << 20);
      if (!p) _exit(4);
      memset(p, 1, 1 << 20);
    }
    _exit(5);
  }
  close(go[0]);
  crt_resources r = {0};
  r.memory.limit = (crt_i64){true, 16 << 20};
  r.memory.swap = (crt_i64){true, 16 << 20};
  crt_linux l = {.cgroups_path = oom_path, .resources = &r};
  crt_spec spec = {.linux_ = &l};
  crt_cgroup_config cfg = {.id = "t", .spec = &spec};
  char *path = NULL;
  crt_err *e = NULL;
  if (crt_cgroup_enter(oomcg, &cfg, c, &path, &e) < 0) {
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    fail_msg("enter: %s", e->msg);
  }
  free(path);
  int fd = crt_cgroup_oom_fd(oomcg, &e);
  assert_true(fd >= 0);
  assert_int_equal(write(go[1], "x", 1), 1);
  close(go[1]);
  int st;
  assert_int_equal(waitpid(c, &st, 0), c);
  assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  unsigned long long last = 0;
  assert_true(crt_cgroup_oom_read(oomcg, fd, &last) >= 1);
  close(fd);
  assert_int_equal(crt_cgroup_destroy(oomcg, &e), 0);
}

/* ---- (b) v2 in a private cgroup2 mount ---- */

static char v2_name[64], v2_mnt[64];

#define CHECK(cond, ...)                                       \
  do {                                                         \
    if (!(cond)) {                                             \
      dprintf(report, "line %d: %s: ", __LINE__, #cond);       \
      dprintf(report, __VA_ARGS__);                            \
      goto out;                                                \
    }                                                          \
  } while (0)

static void v2_child(int report) {
  worker w = {0};
  crt_err *e = NULL;
  int ok = 1;
  if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
    dprintf(report, "unshare/private: %s", strerror(errno));
    _exit(1);
  }
  if (mkdir(v2_mnt, 0700) < 0 || mount("none", v2_mnt, "cgroup2", 0, NULL) < 0) {
    dprintf(report, "mount cgroup2 on %s: %s", v2_mnt, strerror(errno));
    _exit(1);
  }
  /* a cgroup2 mount of this test's own: foreign, as the host's
   * /proc/PID/cgroup does not name its paths from there */
  crt_cgroup_root root = {.dir = v2_mnt, .mode = CRT_CGROUP_MODE_V2, .foreign = true};
  crt_cgroup *v2cg = NULL;
  if (crt_cgroup_open(&root, v2_name, false, &v2cg, &e) < 0) _exit(1);
  CHECK(worker_start(&w) == 0, "fork");
  crt_device_rule deny_all = {.allow = false, .access = "rwm"};
  crt_resources r = {.devices = &deny_all, .n_devices = 1};
  crt_linux l = {.cgroups_path = v2_name, .resources = &r};
  crt_spec spec = {.linux_ = &l};
  crt_cgroup_config cfg = {.id = "t", .spec = &spec};
  char *path = NULL;
  CHECK(crt_cgroup_enter(v2cg, &cfg, w.pid, &path, &e) == 0, "enter: %s", e->msg);
  free(path);
  char *dir = cg_dir(v2cg, NULL);
  char *procs = readf(dir, "cgroup.procs");
  CHECK(atoi(procs) == w.pid, "cgroup.procs %s", procs);
  free(procs);

  /* the default rules allow /dev/null */
  CHECK(worker_do(&w, 'o') == 0, "open /dev/null with the default rules");
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CHECK(dfd >= 0, "open %s", dir);
  CHECK(cg_ebpf_devices(dfd, &deny_all, 1, &e) == 0, "%s", e->msg);
  int rc = worker_do(&w, 'o');
  CHECK(rc == EPERM, "open /dev/null denied: got %d", rc);
  crt_device_rule allow_null[] = {deny_all, {.allow = true, .type = "c", .major = {true, 1}, .minor = {true, 3}, .access = "rw"}};
  CHECK(cg_ebpf_devices(dfd, allow_null, 2, &e) == 0, "%s", e->msg);
  CHECK(worker_do(&w, 'o') == 0, "open /dev/null allowed");
  /* last match wins: a later deny of 1:3 overrides the allow.  As runc, a
   * rule matches only when the requested access is a subset of its own, so
   * a deny of "w" alone would not catch this read-write open. */
  crt_device_rule later_deny[] = {allow_null[0], allow_null[1], {.allow = false, .type = "c", .major = {true, 1}, .minor = {true, 3}, .access = "rw"}};
  CHECK(cg_ebpf_devices(dfd, later_deny, 3, &e) == 0, "%s", e->msg);
  CHECK(worker_do(&w, 'o') == EPERM, "later deny wins");
  /* one program attached at a time: the old ones were replaced */
  uint32_t ids[8];
  union bpf_attr q;
  memset(&q, 0, sizeof q);
  q.query.target_fd = (uint32_t)dfd;
  q.query.attach_type = BPF_CGROUP_DEVICE;
  q.query.prog_ids = (uint64_t)(uintptr_t)ids;
  q.query.prog_cnt = 8;
  CHECK(syscall(SYS_bpf, BPF_PROG_QUERY, &q, sizeof q) == 0 && q.query.prog_cnt == 1, "prog count %u", q.query.prog_cnt);
  close(dfd);

  /* a program the verifier refuses: r0 is never set */
  struct bpf_insn bad = {.code = BPF_JMP | BPF_EXIT};
  rc = cg_ebpf_load(&bad, 1, &e);
  CHECK(rc < 0 && e && strstr(e->msg, "verifier log:") && strstr(e->msg, "R0"), "verifier: %s", e ? e->msg : "none");
  crt_err_free(&e);

  /* freeze / thaw */
  CHECK(crt_cgroup_freeze(v2cg, true, &e) == 0, "freeze: %s", e->msg);
  char *ev = readf(dir, "cgroup.events");
  free(ev);
  CHECK(crt_cgroup_is_frozen(v2cg) == 1, "frozen");
  CHECK(crt_cgroup_freeze(v2cg, false, &e) == 0, "thaw: %s", e->msg);
  CHECK(crt_cgroup_is_frozen(v2cg) == 0, "thawed");
  CHECK(worker_do(&w, 'f') == 0, "fork after thaw");

  /* cgroup.kill */
  CHECK(access("/proc/self/ns", F_OK) == 0 && crt_cgroup_kill(v2cg, SIGKILL, &e) == 0, "kill: %s", e ? e->msg : "");
  int status;
  CHECK(waitpid(w.pid, &status, 0) == w.pid && WIFSIGNALED(status), "worker killed");
  w.pid = 0;
  CHECK(crt_cgroup_destroy(v2cg, &e) == 0, "destroy: %s", e->msg);
  CHECK(access(dir, F_OK) < 0, "%s removed", dir);
  free(dir);
  ok = 0;
out:
  if (w.pid > 0) {
    kill(w.pid, SIGKILL);
    waitpid(w.pid, NULL, 0);
  }
  drop(&v2cg);
  umount2(v2_mnt, MNT_DETACH);
  rmdir(v2_mnt);
  _exit(ok);
}

static int v2_teardown(void **state) {
  /* the same hierarchy is the host's unified mount */
  char d[256];
  snprintf(d, sizeof d, "/sys/fs/cgroup/unified%s", v2_name);
  if (access(d, F_OK) == 0) {
    char k[300];
    snprintf(k, sizeof k, "%s/cgroup.kill", d);
    crt_err *e = NULL;
    crt_write_file(k, "1", 1, 0644, &e);
    crt_err_free(&e);
    for (int i = 0; i < 100 && rmdir(d) < 0 && errno == EBUSY; i++) usleep(10000);
  }
  rmdir(v2_mnt);
  return 0;
}

static void test_v2_real(void **state) {
  if (geteuid() != 0 || access("/sys/fs/cgroup/unified/cgroup.procs", F_OK) != 0) skip();
  snprintf(v2_name, sizeof v2_name, "/crt-t-unit-v2-%d", (int)getpid());
  snprintf(v2_mnt, sizeof v2_mnt, "/tmp/crt-t-cg2-%d", (int)getpid());
  int p[2];
  assert_int_equal(pipe2(p, O_CLOEXEC), 0);
  pid_t c = fork();
  assert_true(c >= 0);
  if (c == 0) {
    close(p[0]);
    v2_child(p[1]);
  }
  close(p[1]);
  char msg[4096] = "";
  ssize_t n = crt_read_all(p[0], msg, sizeof msg - 1);
  close(p[0]);
  if (n > 0) msg[n] = 0;
  int status;
  assert_int_equal(waitpid(c, &status, 0), c);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail_msg("v2 child: %s", msg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_v1_real, v1_teardown),
      cmocka_unit_test_teardown(test_v1_oom_event, oom_teardown),
      cmocka_unit_test_teardown(test_v2_real, v2_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
