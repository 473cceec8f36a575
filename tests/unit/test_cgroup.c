/* cgroup manager against prepared directory trees that mimic v1 and v2
 * mounts: every resource file written with the translated value. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/cgroup/cgroup_internal.h"
#include "crt/cgroup.h"
#include "crt/fs.h"
#include "crt/spec.h"

static char tree[256];

static void touch(const char *dir, const char *file, const char *content) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fputs(content, f);
  fclose(f);
}

static char *slurp(const char *dir, const char *file) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  char *out = NULL;
  crt_err *e = NULL;
  if (crt_read_file(p, 1 << 20, &out, NULL, &e) < 0) {
    crt_err_free(&e);
    return strdup("<missing>");
  }
  return out;
}

#define assert_file(dir, file, want)       \
  do {                                     \
    char *got_ = slurp(dir, file);         \
    assert_string_equal(got_, want);       \
    free(got_);                            \
  } while (0)

static char *mkdirs(const char *rel) {
  char *p = NULL;
  assert_true(asprintf(&p, "%s%s", tree, rel) > 0);
  crt_err *e = NULL;
  assert_int_equal(crt_mkdir_p(p, 0755, &e), 0);
  return p;
}

static int setup(void **state) {
  snprintf(tree, sizeof tree, "/tmp/crt-t-cgtree-XXXXXX");
  if (!mkdtemp(tree)) return -1;
  return 0;
}

/* The tests' own root (no global override: a handle is opened on it),
 * and the handles a test opened, closed by teardown. */
static crt_cgroup_root root;
static crt_cgroup *opened[64];
static size_t n_opened;

static void use_root(enum crt_cgroup_mode mode) { root = (crt_cgroup_root){.dir = tree, .mode = mode, .foreign = true}; }

static crt_cgroup *open_at(const char *path, bool systemd) {
  crt_err *e = NULL;
  assert_true(n_opened < sizeof opened / sizeof opened[0]);
  assert_int_equal(crt_cgroup_open(&root, path, systemd, &opened[n_opened], &e), 0);
  return opened[n_opened++];
}

/* The handle of path (NULL: none yet) under the current root. */
static crt_cgroup *cg(const char *path) { return open_at(path, false); }

static int close_opened(void **state) {
  while (n_opened) crt_cgroup_close(opened[--n_opened]);
  return 0;
}

static int teardown(void **state) {
  crt_rm_rf(tree);
  return close_opened(state);
}

static const char *const v2_files[] = {"memory.max", "memory.low", "memory.swap.max", "cpu.weight", "cpu.max",
                                       "cpu.max.burst", "cpu.idle", "cpuset.cpus", "cpuset.mems", "pids.max",
                                       "io.weight", "io.max", "hugetlb.2MB.max", "rdma.max", "cgroup.procs",
                                       "memory.high", "cgroup.events", "cgroup.freeze", NULL};

static char *v2_tree(const char *path) {
  use_root(CRT_CGROUP_MODE_V2);
  touch(tree, "cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma\n");
  touch(tree, "cgroup.subtree_control", "");
  char *d = mkdirs(path);
  for (size_t i = 0; v2_files[i]; i++) touch(d, v2_files[i], "");
  return d;
}

static void test_v2_translations(void **state) {
  char *d = v2_tree("/c1");
  crt_resources r = {0};
  r.memory.limit = (crt_i64){true, 100 << 20};
  r.memory.swap = (crt_i64){true, 300 << 20};
  r.memory.reservation = (crt_i64){true, 50 << 20};
  r.cpu.shares = (crt_u64){true, 1024};
  r.cpu.quota = (crt_i64){true, 50000};
  r.cpu.period = (crt_u64){true, 100000};
  r.cpu.burst = (crt_u64){true, 1000};
  r.cpu.idle = (crt_i64){true, 1};
  r.cpu.cpus = "0-1";
  r.cpu.mems = "0";
  r.pids.limit = (crt_i64){true, 42};
  r.blkio.weight = (crt_u64){true, 500};
  crt_blkio_throttle t = {8, 0, 1048576};
  r.blkio.throttle_read_bps = &t;
  r.blkio.n_throttle_read_bps = 1;
  crt_hugepage_limit h = {"2MB", 4194304};
  r.hugepage_limits = &h;
  r.n_hugepage_limits = 1;
  crt_rdma rd = {"mlx4_0", {true, 3}, {true, 7}};
  r.rdma = &rd;
  r.n_rdma = 1;
  crt_kv kv = {"memory.high", "200000000"};
  r.unified = (crt_kvv){&kv, 1};
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_update(cg("/c1"), &r, &e), 0);
  assert_file(d, "memory.max", "104857600");
  assert_file(d, "memory.swap.max", "209715200"); /* swap - limit */
  assert_file(d, "memory.low", "52428800");
  assert_file(d, "cpu.weight", "39"); /* 1 + (1022*9999)/262142 */
  assert_file(d, "cpu.max", "50000 100000");
  assert_file(d, "cpu.max.burst", "1000");
  assert_file(d, "cpu.idle", "1");
  assert_file(d, "cpuset.cpus", "0-1");
  assert_file(d, "cpuset.mems", "0");
  assert_file(d, "pids.max", "42");
  assert_file(d, "io.weight", "4950"); /* 1 + (500-10)*9999/990 */
  assert_file(d, "io.max", "8:0 rbps=1048576");
  assert_file(d, "hugetlb.2MB.max", "4194304");
  assert_file(d, "rdma.max", "mlx4_0 hca_handle=3 hca_object=7");
  assert_file(d, "memory.high", "200000000");

  /* unlimited values */
  crt_resources u = {0};
  u.memory.limit = (crt_i64){true, -1};
  u.pids.limit = (crt_i64){true, -1};
  u.cpu.quota = (crt_i64){true, -1};
  assert_int_equal(crt_cgroup_update(cg("/c1"), &u, &e), 0);
  assert_file(d, "memory.max", "max");
  assert_file(d, "memory.swap.max", "max");
  assert_file(d, "pids.max", "max");
  assert_file(d, "cpu.max", "max");
  free(d);
}

static void test_v2_errors(void **state) {
  char *d = v2_tree("/c2");
  crt_err *e = NULL;
  crt_resources r = {0};
  r.memory.limit = (crt_i64){true, 200};
  r.memory.swap = (crt_i64){true, 100};
  assert_int_equal(crt_cgroup_update(cg("/c2"), &r, &e), -1);
  assert_non_null(strstr(e->msg, "should be >= memory.limit"));
  crt_err_free(&e);

  crt_resources n = {0};
  n.network.class_id = (crt_u64){true, 7};
  assert_int_equal(crt_cgroup_update(cg("/c2"), &n, &e), -1);
  assert_non_null(strstr(e->msg, "net_cls"));
  crt_err_free(&e);

  crt_resources rt = {0};
  rt.cpu.realtime_runtime = (crt_i64){true, 1000};
  assert_int_equal(crt_cgroup_update(cg("/c2"), &rt, &e), -1);
  crt_err_free(&e);

  crt_kv kv = {"memory.nosuch", "1"};
  crt_resources un = {0};
  un.unified = (crt_kvv){&kv, 1};
  assert_int_equal(crt_cgroup_update(cg("/c2"), &un, &e), -1);
  assert_non_null(strstr(e->msg, "cgroup: write memory.nosuch"));
  assert_int_equal(e->errnum, ENOENT);
  crt_err_free(&e);

  crt_kv bad = {"../escape", "1"};
  un.unified = (crt_kvv){&bad, 1};
  assert_int_equal(crt_cgroup_update(cg("/c2"), &un, &e), -1);
  assert_non_null(strstr(e->msg, "invalid key"));
  crt_err_free(&e);
  free(d);
}

static void test_formulas(void **state) {
  assert_int_equal(cg_shares_to_weight(2), 1);
  assert_int_equal(cg_shares_to_weight(262144), 10000);
  assert_int_equal(cg_shares_to_weight(1024), 39);
  assert_int_equal(cg_blkio_to_io_weight(10), 1);
  assert_int_equal(cg_blkio_to_io_weight(1000), 10000);
  long long out;
  crt_err *e = NULL;
  assert_int_equal(cg_swap_v2(-1, 100, &out, &e), 0);
  assert_int_equal(out, -1);
  assert_int_equal(cg_swap_v2(0, -1, &out, &e), 0);
  assert_int_equal(out, -1);
  assert_int_equal(cg_swap_v2(300, 100, &out, &e), 0);
  assert_int_equal(out, 200);
  assert_int_equal(cg_swap_v2(300, 0, &out, &e), -1);
  crt_err_free(&e);
}

static void test_v2_enter(void **state) {
  char *d = v2_tree("/a/b");
  char *a = mkdirs("/a");
  touch(a, "cgroup.controllers", "memory pids\n");
  touch(a, "cgroup.subtree_control", "");
  crt_linux l = {0};
  l.cgroups_path = "a/./b";
  crt_resources r = {0};
  r.pids.limit = (crt_i64){true, 10};
  l.resources = &r;
  crt_spec spec = {0};
  spec.linux_ = &l;
  /* rootless: no eBPF (the tree is not a cgroup fs) */
  crt_cgroup_config cfg = {.id = "c1", .spec = &spec, .rootless = true};
  char *path = NULL;
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_enter(cg(NULL), &cfg, 1234, &path, &e), 0);
  assert_string_equal(path, "/a/b");
  assert_file(d, "cgroup.procs", "1234");
  assert_file(d, "pids.max", "10");
  assert_file(tree, "cgroup.subtree_control", "+cpuset +cpu +io +memory +hugetlb +pids +rdma");
  assert_file(a, "cgroup.subtree_control", "+memory +pids");
  free(path);

  /* default path: the id; ".." cannot climb above the root */
  l.cgroups_path = NULL;
  free(mkdirs("/c1"));
  assert_int_equal(crt_cgroup_enter(cg(NULL), &cfg, 1, &path, &e), -1); /* /c1 (the id) lacks the files */
  assert_non_null(strstr(e->msg, "cgroup: write pids.max"));
  crt_err_free(&e);
  l.cgroups_path = "/../../x";
  char *x = mkdirs("/x");
  touch(x, "cgroup.procs", "");
  touch(x, "pids.max", "");
  assert_int_equal(crt_cgroup_enter(cg(NULL), &cfg, 7, &path, &e), 0);
  assert_string_equal(path, "/x");
  free(path);
  free(x);
  free(a);
  free(d);
}

static void test_v2_enter_undo(void **state) {
  free(v2_tree("/pre"));
  crt_linux l = {0};
  l.cgroups_path = "/new/leaf";
  crt_spec spec = {0};
  spec.linux_ = &l;
  crt_cgroup_config cfg = {.id = "c1", .spec = &spec, .rootless = true};
  char *path = NULL;
  crt_err *e = NULL;
  /* the new dirs lack cgroup.procs: enter fails and removes what it made */
  assert_int_equal(crt_cgroup_enter(cg(NULL), &cfg, 1, &path, &e), -1);
  crt_err_free(&e);
  char p[512];
  snprintf(p, sizeof p, "%s/new", tree);
  assert_int_equal(access(p, F_OK), -1);
  free(mkdirs("/pre"));
}

/* Rootless and no permission anywhere: success with no cgroup (""). */
static void test_rootless_skip(void **state) {
  free(v2_tree("/pre"));
  chmod(tree, 0755);
  pid_t c = fork();
  assert_true(c >= 0);
  if (c == 0) {
    if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0) _exit(2);
    crt_linux l = {.cgroups_path = "/rl"};
    crt_spec spec = {.linux_ = &l};
    crt_cgroup_config cfg = {.id = "c1", .spec = &spec, .rootless = true};
    char *path = NULL;
    crt_err *e = NULL;
    int rc = crt_cgroup_enter(cg(NULL), &cfg, getpid(), &path, &e);
    int ok = rc == 0 && path && *path == 0;
    free(path);
    crt_err_free(&e);
    cfg.rootless = false;
    rc = crt_cgroup_enter(cg(NULL), &cfg, getpid(), &path, &e);
    ok = ok && rc < 0 && e && e->errnum == EACCES;
    crt_err_free(&e);
    _exit(ok ? 0 : 1);
  }
  int st;
  assert_int_equal(waitpid(c, &st, 0), c);
  if (geteuid() == 0) assert_int_equal(WEXITSTATUS(st), 0);
}

/* What the root says, not a test switch, decides the questions a foreign
 * tree cannot answer the kernel's way: who is in a cgroup (its
 * cgroup.procs files, not /proc/PID/cgroup), where a relative path starts
 * (its top, not the caller's cgroup), and which directories are v1
 * hierarchies (any, not only cgroup mounts). */
static void test_foreign_root(void **state) {
  char *d = v2_tree("/fr");
  touch(d, "cgroup.procs", "424242\n");
  assert_int_equal(crt_cgroup_has_pid(cg("/fr"), 424242), 1);
  crt_linux l = {.cgroups_path = "rel/c"};
  crt_spec spec = {.linux_ = &l};
  crt_cgroup_config cfg = {.id = "c", .spec = &spec};
  char *path = NULL;
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_resolve_path(cg(NULL), &cfg, &path, &e), 0);
  assert_string_equal(path, "/rel/c");
  free(path);
  /* the same tree as the kernel's: /proc/424242/cgroup (no such process)
   * decides, the listing is not read */
  root.foreign = false;
  assert_int_equal(crt_cgroup_has_pid(cg("/fr"), 424242), -1);
  use_root(CRT_CGROUP_MODE_V1);
  free(mkdirs("/memory"));
  char **h = cg_v1_hierarchies(&root);
  assert_non_null(h[0]); /* a plain directory is a hierarchy of a foreign tree */
  cg_strv_free(h);
  root.foreign = false;
  h = cg_v1_hierarchies(&root);
  assert_null(h[0]); /* of the kernel's, only a cgroup mount */
  cg_strv_free(h);
  free(d);
}

static void test_v2_freeze_pids_stats(void **state) {
  char *d = v2_tree("/f");
  char *sub = mkdirs("/f/sub");
  touch(d, "cgroup.procs", "10\n11\n");
  touch(sub, "cgroup.procs", "12\n");
  pid_t *pids = NULL;
  size_t n = 0;
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_pids(cg("/f"), &pids, &n, &e), 0);
  assert_int_equal(n, 3);
  assert_int_equal(pids[0] + pids[1] + pids[2], 33);
  free(pids);

  touch(d, "cgroup.events", "populated 1\nfrozen 1\n");
  assert_int_equal(crt_cgroup_freeze(cg("/f"), true, &e), 0);
  assert_file(d, "cgroup.freeze", "1");
  assert_int_equal(crt_cgroup_is_frozen(cg("/f")), 1);
  touch(d, "cgroup.events", "populated 1\nfrozen 0\n");
  assert_int_equal(crt_cgroup_is_frozen(cg("/f")), 0);
  assert_int_equal(crt_cgroup_freeze(cg("/f"), false, &e), 0);
  assert_file(d, "cgroup.freeze", "0");

  touch(d, "cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\nnr_periods 4\nnr_throttled 1\nthrottled_usec 9\n");
  touch(d, "memory.current", "4096\n");
  touch(d, "memory.max", "max\n");
  touch(d, "memory.events", "low 0\nhigh 0\nmax 2\noom 1\noom_kill 1\n");
  touch(d, "memory.stat", "anon 100\nfile 200\n");
  touch(d, "pids.current", "3\n");
  touch(d, "pids.max", "50\n");
  touch(d, "io.stat", "8:0 rbytes=10 wbytes=20 rios=1 wios=2 dbytes=0 dios=0\n");
  touch(d, "hugetlb.2MB.current", "0\n");
  touch(d, "hugetlb.2MB.max", "max\n");
  touch(d, "hugetlb.2MB.events", "max 4\n");
  crt_cgroup_stats st;
  assert_int_equal(crt_cgroup_get_stats(cg("/f"), &st, &e), 0);
  assert_int_equal(st.cpu_total, 5000);
  assert_int_equal(st.cpu_kernel, 2000);
  assert_int_equal(st.throttled_time, 9000);
  assert_int_equal(st.mem_usage, 4096);
  assert_int_equal(st.mem_limit, 0); /* max */
  assert_int_equal(st.mem_failcnt, 2);
  assert_int_equal(st.mem_cache, 200);
  assert_int_equal(st.n_mem_raw, 2);
  assert_int_equal(st.pids_current, 3);
  assert_int_equal(st.pids_limit, 50);
  assert_int_equal(st.n_io_bytes, 2);
  assert_string_equal(st.io_bytes[1].op, "Write");
  assert_int_equal(st.io_bytes[1].value, 20);
  assert_int_equal(st.n_hugetlb, 1);
  assert_string_equal(st.hugetlb[0].pagesize, "2MB");
  assert_int_equal(st.hugetlb[0].failcnt, 4);
  crt_cgroup_stats_free(&st);
  free(sub);
  free(d);
}

static const char *const v1_ctrl[] = {"memory", "cpu", "cpuacct", "cpuset", "pids", "blkio", "hugetlb", "net_cls",
                                      "net_prio", "freezer", "devices", NULL};
static const char *const v1_files[] = {
    "memory.limit_in_bytes", "memory.soft_limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.swappiness",
    "memory.oom_control", "memory.use_hierarchy", "memory.kmem.limit_in_bytes", "cpu.shares", "cpu.cfs_period_us",
    "cpu.cfs_quota_us", "cpu.rt_period_us", "cpu.rt_runtime_us", "cpu.cfs_burst_us", "cpu.idle", "cpuset.cpus",
    "cpuset.mems", "pids.max", "blkio.leaf_weight", "blkio.weight_device", "blkio.throttle.read_bps_device",
    "blkio.throttle.write_iops_device", "hugetlb.2MB.limit_in_bytes", "net_cls.classid", "net_prio.ifpriomap",
    "cgroup.procs", "freezer.state", "devices.allow", "devices.deny", NULL};

static void v1_tree(const char *path) {
  use_root(CRT_CGROUP_MODE_V1);
  for (size_t i = 0; v1_ctrl[i]; i++) {
    char rel[256];
    snprintf(rel, sizeof rel, "/%s%s", v1_ctrl[i], path);
    char *d = mkdirs(rel);
    for (size_t j = 0; v1_files[j]; j++) touch(d, v1_files[j], "");
    free(d);
  }
}

static char *v1dir(const char *ctrl, const char *path) {
  char *p = NULL;
  assert_true(asprintf(&p, "%s/%s%s", tree, ctrl, path) > 0);
  return p;
}

static void test_v1_resources(void **state) {
  v1_tree("/v1");
  crt_resources r = {0};
  r.memory.limit = (crt_i64){true, 1 << 20};
  r.memory.swap = (crt_i64){true, 2 << 20};
  r.memory.reservation = (crt_i64){true, 1 << 19};
  r.memory.kernel = (crt_i64){true, 1 << 22};
  r.memory.swappiness = (crt_u64){true, 10};
  r.memory.disable_oom_killer = (crt_bool){true, true};
  r.memory.use_hierarchy = (crt_bool){true, true};
  r.cpu.shares = (crt_u64){true, 512};
  r.cpu.quota = (crt_i64){true, 20000};
  r.cpu.period = (crt_u64){true, 50000};
  r.cpu.realtime_period = (crt_u64){true, 1000000};
  r.cpu.realtime_runtime = (crt_i64){true, 950000};
  r.cpu.cpus = "0";
  r.cpu.mems = "0";
  r.pids.limit = (crt_i64){true, -1};
  crt_blkio_weight_device wd = {8, 16, {true, 300}, {false, 0}};
  r.blkio.weight_device = &wd;
  r.blkio.n_weight_device = 1;
  crt_blkio_throttle t = {8, 0, 100};
  r.blkio.throttle_write_iops = &t;
  r.blkio.n_throttle_write_iops = 1;
  crt_hugepage_limit h = {"2MB", 2097152};
  r.hugepage_limits = &h;
  r.n_hugepage_limits = 1;
  r.network.class_id = (crt_u64){true, 0x100001};
  crt_net_priority pr = {"eth0", 5};
  r.network.priorities = &pr;
  r.network.n_priorities = 1;
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_update(cg("/v1"), &r, &e), 0);
  char *m = v1dir("memory", "/v1"), *c = v1dir("cpu", "/v1"), *cs = v1dir("cpuset", "/v1"),
       *p = v1dir("pids", "/v1"), *b = v1dir("blkio", "/v1"), *hu = v1dir("hugetlb", "/v1"),
       *nc = v1dir("net_cls", "/v1"), *np = v1dir("net_prio", "/v1");
  assert_file(m, "memory.limit_in_bytes", "1048576");
  assert_file(m, "memory.memsw.limit_in_bytes", "2097152"); /* limit+swap, as given */
  assert_file(m, "memory.soft_limit_in_bytes", "524288");
  assert_file(m, "memory.kmem.limit_in_bytes", "4194304");
  assert_file(m, "memory.swappiness", "10");
  assert_file(m, "memory.oom_control", "1");
  assert_file(m, "memory.use_hierarchy", "1");
  assert_file(c, "cpu.shares", "512");
  assert_file(c, "cpu.cfs_quota_us", "20000");
  assert_file(c, "cpu.cfs_period_us", "50000");
  assert_file(c, "cpu.rt_period_us", "1000000");
  assert_file(c, "cpu.rt_runtime_us", "950000");
  assert_file(cs, "cpuset.cpus", "0");
  assert_file(p, "pids.max", "max");
  assert_file(b, "blkio.weight_device", "8:16 300");
  assert_file(b, "blkio.throttle.write_iops_device", "8:0 100");
  assert_file(hu, "hugetlb.2MB.limit_in_bytes", "2097152");
  assert_file(nc, "net_cls.classid", "1048577");
  assert_file(np, "net_prio.ifpriomap", "eth0 5");
  free(m), free(c), free(cs), free(p), free(b), free(hu), free(nc), free(np);
  (void)e;
}

static void test_v1_errors(void **state) {
  v1_tree("/v1e");
  crt_err *e = NULL;
  crt_resources r = {0};
  r.blkio.weight = (crt_u64){true, 500};
  assert_int_equal(crt_cgroup_update(cg("/v1e"), &r, &e), -1);
  assert_string_equal(e->msg, "cgroup: write blkio.weight: no such file or directory");
  crt_err_free(&e);

  crt_kv kv = {"memory.high", "1"};
  crt_resources u = {0};
  u.unified = (crt_kvv){&kv, 1};
  assert_int_equal(crt_cgroup_update(cg("/v1e"), &u, &e), -1);
  assert_non_null(strstr(e->msg, "requires cgroup v2"));
  crt_err_free(&e);

  /* kernelTCP without the file: a warning, not an error */
  crt_resources k = {0};
  k.memory.kernel_tcp = (crt_i64){true, 1};
  assert_int_equal(crt_cgroup_update(cg("/v1e"), &k, &e), 0);
}

static void test_v1_enter(void **state) {
  v1_tree("/e1");
  crt_linux l = {0};
  l.cgroups_path = "/e1";
  crt_resources r = {0};
  r.memory.limit = (crt_i64){true, 4096};
  l.resources = &r;
  crt_spec spec = {0};
  spec.linux_ = &l;
  crt_cgroup_config cfg = {.id = "x", .spec = &spec};
  char *path = NULL;
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_enter(cg(NULL), &cfg, 4321, &path, &e), 0);
  assert_string_equal(path, "/e1");
  for (size_t i = 0; v1_ctrl[i]; i++) {
    char *d = v1dir(v1_ctrl[i], "/e1");
    assert_file(d, "cgroup.procs", "4321");
    free(d);
  }
  char *m = v1dir("memory", "/e1"), *dv = v1dir("devices", "/e1");
  assert_file(m, "memory.limit_in_bytes", "4096");
  /* one write per rule through one open file (the test tree's regular
   * files keep them all): runc's AllowedDevices in order, /dev/ptmx last */
  assert_file(dv, "devices.allow",
              "c *:* mb *:* mc 1:3 rwmc 1:8 rwmc 1:7 rwmc 5:0 rwmc 1:5 rwmc 1:9 rwmc 136:* rwmc 5:2 rwm");
  assert_file(dv, "devices.deny", "a");
  free(m), free(dv);
  free(path);
}

/* v1 made before the clone (crt_cgroup_prepare: resources and devices, no
 * pid), then joined by the process itself: "0" to every hierarchy's tasks
 * file, never a pid to cgroup.procs (the write that waits for an RCU grace
 * period); crt_cgroup_join after it moves nobody on v1. */
static void test_v1_prepare_and_self_join(void **state) {
  v1_tree("/e2");
  for (size_t i = 0; v1_ctrl[i]; i++) {
    char *d = v1dir(v1_ctrl[i], "/e2");
    touch(d, "tasks", "");
    free(d);
  }
  crt_linux l = {0};
  crt_resources r = {0};
  r.memory.limit = (crt_i64){true, 8192};
  l.resources = &r;
  crt_spec spec = {0};
  spec.linux_ = &l;
  crt_cgroup_config cfg = {.id = "x", .spec = &spec};
  assert_true(crt_cgroup_prepares(cg(NULL), &cfg));
  cfg.rootless = true;
  assert_false(crt_cgroup_prepares(cg(NULL), &cfg)); /* rootless v1: crt_cgroup_enter after the clone */
  cfg.rootless = false;
  enum crt_cgroup_prepared got;
  int fd = 0;
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_prepare(cg("/e2"), &cfg, &got, &fd, &e), 0);
  assert_int_equal(got, CRT_CGROUP_PREPARED);
  assert_int_equal(fd, -1); /* no cgroup2 hierarchy to clone into */
  char *m = v1dir("memory", "/e2");
  assert_file(m, "memory.limit_in_bytes", "8192");
  assert_file(m, "cgroup.procs", "");
  free(m);
  crt_cgroup_tasks t;
  assert_int_equal(crt_cgroup_open_tasks(cg("/e2"), &t, &e), 0);
  assert_true(t.n >= 9);
  assert_int_equal(crt_cgroup_tasks_join(&t, &e), 0);
  crt_cgroup_tasks_free(&t);
  assert_int_equal(crt_cgroup_join(cg("/e2"), NULL, 4321, true, &e), 0);
  for (size_t i = 0; v1_ctrl[i]; i++) {
    char *d = v1dir(v1_ctrl[i], "/e2");
    assert_file(d, "tasks", "0");
    assert_file(d, "cgroup.procs", "");
    free(d);
  }
  /* not joined by itself: moved by pid */
  assert_int_equal(crt_cgroup_join(cg("/e2"), NULL, 4321, false, &e), 0);
  char *p = v1dir("pids", "/e2");
  assert_file(p, "cgroup.procs", "4321");
  free(p);
}

/* v1_late (create.c): crt_cgroup_prepare makes nothing in the v1
 * hierarchies (the clone needs none of them); crt_cgroup_prepare_v1, after
 * the clone, writes the resources and opens every hierarchy's tasks file
 * for the process to join itself.  Not on v2, rootless or systemd. */
static void test_v1_prepare_late(void **state) {
  use_root(CRT_CGROUP_MODE_V1);
  crt_linux l = {0};
  crt_resources r = {0};
  r.memory.limit = (crt_i64){true, 16384};
  l.resources = &r;
  crt_spec spec = {0};
  spec.linux_ = &l;
  crt_cgroup_config cfg = {.id = "x", .spec = &spec, .v1_late = true};
  assert_true(crt_cgroup_v1_late(cg(NULL), &cfg));
  cfg.rootless = true;
  assert_false(crt_cgroup_v1_late(cg(NULL), &cfg));
  cfg.rootless = false;
  assert_false(crt_cgroup_v1_late(open_at(NULL, true), &cfg)); /* systemd */
  enum crt_cgroup_prepared got;
  int fd = 0;
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_prepare(cg("/e3"), &cfg, &got, &fd, &e), 0);
  assert_int_equal(got, CRT_CGROUP_PREPARED);
  assert_int_equal(fd, -1);
  char *m = v1dir("memory", "/e3");
  assert_int_equal(access(m, F_OK), -1); /* nothing made before the clone */
  v1_tree("/e3");                          /* the directories with the files the kernel would show */
  for (size_t i = 0; v1_ctrl[i]; i++) {
    char *d = v1dir(v1_ctrl[i], "/e3");
    touch(d, "tasks", "");
    free(d);
  }
  crt_cgroup_tasks t;
  assert_int_equal(crt_cgroup_prepare_v1(cg("/e3"), &cfg, &t, &e), 0);
  assert_file(m, "memory.limit_in_bytes", "16384");
  assert_true(t.n >= 9);
  assert_int_equal(crt_cgroup_tasks_join(&t, &e), 0);
  crt_cgroup_tasks_free(&t);
  assert_file(m, "tasks", "0");
  assert_file(m, "cgroup.procs", "");
  free(m);
  use_root(CRT_CGROUP_MODE_V2);
  assert_false(crt_cgroup_v1_late(cg(NULL), &cfg));
}

/* runc's ensureParent: an empty pre-existing parent cpuset is filled from
 * its own parent, and the new child from it; the hierarchies follow a
 * change of root despite their cache. */
static void test_v1_empty_parent_cpuset(void **state) {
  v1_tree("/p/c");
  char *top = v1dir("cpuset", ""), *p = v1dir("cpuset", "/p"), *c = v1dir("cpuset", "/p/c");
  touch(top, "cpuset.cpus", "0-1\n");
  touch(top, "cpuset.mems", "0\n");
  touch(p, "cpuset.cpus", "\n");
  touch(p, "cpuset.mems", "");
  char **h = cg_v1_hierarchies(&root);
  assert_non_null(h);
  assert_non_null(h[0]);
  assert_ptr_equal(strstr(h[0], tree), h[0]);
  cg_strv_free(h);
  crt_err *e = NULL;
  assert_int_equal(cg_v1_enter(&cg(NULL)->fs, "/p/c", NULL, false, 99, &e), 0);
  assert_file(p, "cpuset.cpus", "0-1");
  assert_file(p, "cpuset.mems", "0");
  assert_file(c, "cpuset.cpus", "0-1");
  free(top), free(p), free(c);
}

/* A handle takes its root's layout's driver (a copy, with the handle's
 * root); systemd wraps it, replacing only the path, start and stop. */
static void test_driver_table(void **state) {
  use_root(CRT_CGROUP_MODE_V2);
  crt_cgroup *v2 = cg("/a");
  assert_ptr_equal(v2->fs.apply, cg_driver_v2.apply);
  assert_ptr_equal(v2->drv.resolve, cg_driver_v2.resolve);
  assert_ptr_equal(v2->fs.root, &v2->root);
  assert_string_equal(v2->fs.root->dir, tree);
  assert_true(v2->root.foreign);
  const cg_driver *sd = &open_at("/a", true)->drv;
  assert_ptr_equal(sd->apply, cg_driver_v2.apply);
  assert_ptr_equal(sd->stats, cg_driver_v2.stats);
  assert_ptr_not_equal(sd->resolve, cg_driver_v2.resolve);
  assert_non_null(sd->start);
  assert_non_null(sd->stop);
  assert_null(sd->prepare);
  use_root(CRT_CGROUP_MODE_HYBRID);
  crt_cgroup *hy = cg("/a");
  assert_ptr_equal(hy->fs.apply, cg_driver_hybrid.apply);
  assert_ptr_equal(open_at("/a", true)->drv.apply, cg_driver_hybrid.apply);
  assert_string_equal(hy->fs.unified, "unified");
  assert_int_equal(crt_cgroup_mode(hy), CRT_CGROUP_MODE_HYBRID);
  use_root(CRT_CGROUP_MODE_V1);
  const cg_driver *v1 = &cg("/a")->drv;
  assert_ptr_equal(v1->apply, cg_driver_v1.apply);
  assert_null(v1->unified);
  assert_non_null(v1->prepare); /* made before the clone, joined by the process itself */
  assert_null(v1->configure);
  assert_null(v1->kill_all);
  /* the first handle kept its own root and driver */
  assert_ptr_equal(v2->fs.apply, cg_driver_v2.apply);
  assert_int_equal(crt_cgroup_mode(v2), CRT_CGROUP_MODE_V2);
  assert_string_equal(crt_cgroup_path(v2), "/a");
}

/* exec --cgroup: runc's getSubCgroupPaths refusals; a controller form
 * only where there are v1 hierarchies for it to name. */
static void test_exec_sub_cgroup(void **state) {
  (void)state;
  crt_err *e = NULL;
  use_root(CRT_CGROUP_MODE_HYBRID);
  const char *const hiers[] = {"cpu", "memory", "pids", "systemd"};
  char d[PATH_MAX];
  for (size_t i = 0; i < 4; i++) {
    snprintf(d, sizeof d, "%s/%s", tree, hiers[i]);
    assert_int_equal(mkdir(d, 0755), 0);
  }
  assert_int_equal(crt_cgroup_sub_check(&root, "foo", &e), 0);
  assert_int_equal(crt_cgroup_sub_check(&root, "cpu,memory:a\npids:b\nname=systemd:c", &e), 0);
  /* a controller no hierarchy has: runc's exec.bats "whaaat:/" */
  assert_int_equal(crt_cgroup_sub_check(&root, "whaaat:/", &e), -1);
  assert_string_equal(e->msg, "unknown controller whaaat in SubCgroupPaths");
  crt_err_free(&e);
  assert_int_equal(crt_cgroup_sub_check(&root, "foo\npids:b", &e), -1);
  assert_non_null(strstr(e->msg, "missing <controller>: prefix"));
  crt_err_free(&e);
  assert_int_equal(crt_cgroup_sub_check(&root, "cpu,:a", &e), -1);
  assert_non_null(strstr(e->msg, "empty <controller> prefix"));
  crt_err_free(&e);
  assert_int_equal(crt_cgroup_sub_check(&root, "cpu:a\ncpu:b", &e), -1);
  assert_non_null(strstr(e->msg, "controller cpu specified multiple times"));
  crt_err_free(&e);
  assert_int_equal(crt_cgroup_sub_check(&root, "pids:../x", &e), -1);
  assert_string_equal(e->msg, "cgroup: bad sub cgroup path: ../x is not a sub cgroup path of the container's");
  crt_err_free(&e);
  char *s = cg_sub_for("cpu,memory:a\npids:b", "cpu,cpuacct");
  assert_string_equal(s, "a");
  free(s);
  assert_null(cg_sub_for("cpu,memory:a\npids:b", "blkio"));
  assert_null(cg_sub_for("pids:b", ""));
  s = cg_sub_for("foo", "");
  assert_string_equal(s, "foo");
  free(s);
  use_root(CRT_CGROUP_MODE_V2);
  assert_int_equal(crt_cgroup_sub_check(&root, "foo", &e), 0);
  assert_int_equal(crt_cgroup_sub_check(&root, "memory:foo", &e), -1);
  assert_string_equal(e->msg, "unknown controller memory in SubCgroupPaths");
  crt_err_free(&e);
}

static void test_device_rules(void **state) {
  crt_device_rule user[] = {{.allow = false, .access = "rwm"}, {.allow = true, .type = "b", .major = {true, 8},
                                                                .minor = {false, 0}, .access = "r"}};
  crt_device dev = {.type = "c", .path = "/dev/fuse", .major = 10, .minor = 229};
  crt_resources r = {.devices = user, .n_devices = 2};
  crt_linux l = {.resources = &r, .devices = &dev, .n_devices = 1};
  crt_spec spec = {.linux_ = &l};
  crt_device_rule *rules = NULL;
  size_t n = 0;
  crt_err *e = NULL;
  assert_int_equal(cg_device_rules(&spec, &rules, &n, &e), 0);
  /* linux.devices (/dev/fuse) makes a node, not a rule (runc) */
  assert_int_equal(n, 2 + 10);
  assert_false(rules[0].allow);
  assert_string_equal(rules[0].type, "a");
  assert_string_equal(rules[1].access, "r");
  assert_true(rules[2].allow); /* c *:* m */
  assert_false(rules[2].major.set);
  for (size_t i = 0; i < n; i++) assert_false(rules[i].major.set && rules[i].major.v == 10);

  void *insns = NULL;
  size_t ni = 0;
  assert_int_equal(cg_ebpf_build(rules, n, &insns, &ni, &e), 0);
  /* the deny-all rule matches everything: no default block after it */
  assert_true(ni > 6);
  free(insns);
  crt_device_rule badr = {.allow = true, .type = "x", .access = "rwm"};
  assert_int_equal(cg_ebpf_build(&badr, 1, &insns, &ni, &e), -1);
  assert_non_null(strstr(e->msg, "invalid type"));
  crt_err_free(&e);
  cg_device_rules_free(rules, n);
}

/* Every field dockerd sends as 0 when it was not asked for, plus runc's
 * other "unset" values (swappiness -1, pids 0). */
static crt_resources docker_zeros(crt_blkio_weight_device *wd) {
  crt_resources r = {0};
  r.memory.limit = (crt_i64){true, 0};
  r.memory.reservation = (crt_i64){true, 0};
  r.memory.swap = (crt_i64){true, 0};
  r.memory.kernel = (crt_i64){true, 0};
  r.memory.kernel_tcp = (crt_i64){true, 0};
  r.memory.swappiness = (crt_u64){true, UINT64_MAX};
  r.cpu.shares = (crt_u64){true, 0};
  r.cpu.period = (crt_u64){true, 0};
  r.cpu.quota = (crt_i64){true, 0};
  r.cpu.realtime_period = (crt_u64){true, 0};
  r.cpu.realtime_runtime = (crt_i64){true, 0};
  r.pids.limit = (crt_i64){true, 0};
  r.blkio.weight = (crt_u64){true, 0};
  r.blkio.leaf_weight = (crt_u64){true, 0};
  *wd = (crt_blkio_weight_device){8, 0, {true, 0}, {true, 0}};
  r.blkio.weight_device = wd;
  r.blkio.n_weight_device = 1;
  r.network.class_id = (crt_u64){true, 0};
  return r;
}

static void fill(const char *dir, const char *const *files) {
  for (size_t i = 0; files[i]; i++) touch(dir, files[i], "old");
}

static void assert_all(const char *dir, const char *const *files, const char *want) {
  for (size_t i = 0; files[i]; i++) {
    char *got = slurp(dir, files[i]);
    if (strcmp(got, want) != 0) fail_msg("%s/%s: expected '%s', got '%s'", dir, files[i], want, got);
    free(got);
  }
}

/* dockerd's zeros on v1: nothing is written, and blkio.weight (absent on
 * this kind of kernel) is not needed. */
static void test_v1_zero_means_unset(void **state) {
  v1_tree("/z1");
  static const char *const mem[] = {"memory.limit_in_bytes", "memory.soft_limit_in_bytes",
                                    "memory.memsw.limit_in_bytes", "memory.kmem.limit_in_bytes",
                                    "memory.swappiness", NULL};
  static const char *const cpu[] = {"cpu.shares", "cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.rt_period_us",
                                    "cpu.rt_runtime_us", NULL};
  static const char *const blkio[] = {"blkio.leaf_weight", "blkio.weight_device", NULL};
  static const char *const pids[] = {"pids.max", NULL};
  static const char *const net[] = {"net_cls.classid", NULL};
  char *m = v1dir("memory", "/z1"), *c = v1dir("cpu", "/z1"), *b = v1dir("blkio", "/z1"), *p = v1dir("pids", "/z1"),
       *n = v1dir("net_cls", "/z1");
  fill(m, mem), fill(c, cpu), fill(b, blkio), fill(p, pids), fill(n, net);
  crt_blkio_weight_device wd;
  crt_resources r = docker_zeros(&wd);
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_update(cg("/z1"), &r, &e), 0);
  assert_all(m, mem, "old"), assert_all(c, cpu, "old"), assert_all(b, blkio, "old"), assert_all(p, pids, "old"),
      assert_all(n, net, "old");
  /* memory -1 without swap: both unlimited (runc) */
  crt_resources u = {0};
  u.memory.limit = (crt_i64){true, -1};
  assert_int_equal(crt_cgroup_update(cg("/z1"), &u, &e), 0);
  assert_file(m, "memory.limit_in_bytes", "-1");
  assert_file(m, "memory.memsw.limit_in_bytes", "-1");
  free(m), free(c), free(b), free(p), free(n);
}

static void test_v2_zero_means_unset(void **state) {
  char *d = v2_tree("/z2");
  static const char *const files[] = {"memory.max", "memory.low", "memory.swap.max", "cpu.weight", "cpu.max",
                                      "pids.max", "io.weight", NULL};
  fill(d, files);
  crt_blkio_weight_device wd;
  crt_resources r = docker_zeros(&wd);
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_update(cg("/z2"), &r, &e), 0);
  assert_all(d, files, "old");
  /* swap equal to the limit disables swap (runc writes "0") */
  crt_resources s = {0};
  s.memory.limit = (crt_i64){true, 1 << 20};
  s.memory.swap = (crt_i64){true, 1 << 20};
  assert_int_equal(crt_cgroup_update(cg("/z2"), &s, &e), 0);
  assert_file(d, "memory.swap.max", "0");
  assert_file(d, "memory.max", "1048576");
  free(d);
}

/* A value the kernel would refuse is caught before anything is written;
 * a write that still fails puts back what the update already changed,
 * and the error names the file. */
static void test_update_all_or_nothing(void **state) {
  v1_tree("/rb");
  char *m = v1dir("memory", "/rb"), *c = v1dir("cpu", "/rb"), *dv = v1dir("devices", "/rb");
  touch(m, "memory.limit_in_bytes", "1000\n");
  touch(m, "memory.soft_limit_in_bytes", "500\n");
  crt_resources bad = {0};
  bad.memory.limit = (crt_i64){true, 4096};
  bad.cpu.period = (crt_u64){true, 10};
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_update(cg("/rb"), &bad, &e), -1);
  assert_string_equal(e->msg, "cgroup: invalid cpu.period 10 (1000-1000000 us, or 0 to leave it)");
  crt_err_free(&e);
  assert_file(m, "memory.limit_in_bytes", "1000\n");

  /* cpu.cfs_period_us cannot be written (a directory here) */
  char cp[1024];
  snprintf(cp, sizeof cp, "%s/cpu.cfs_period_us", c);
  assert_int_equal(unlink(cp), 0);
  assert_int_equal(mkdir(cp, 0755), 0);
  crt_resources r = {0};
  r.memory.limit = (crt_i64){true, 4096};
  r.memory.reservation = (crt_i64){true, 2048};
  r.cpu.period = (crt_u64){true, 100000};
  assert_int_equal(crt_cgroup_update(cg("/rb"), &r, &e), -1);
  assert_non_null(strstr(e->msg, "cgroup: write cpu.cfs_period_us"));
  assert_non_null(strstr(e->msg, "the 2 file(s) already written were restored"));
  crt_err_free(&e);
  assert_file(m, "memory.limit_in_bytes", "1000");
  assert_file(m, "memory.soft_limit_in_bytes", "500");

  /* device rules fail half-way: the devices.list snapshot comes back */
  touch(dv, "devices.list", "c 1:3 rwm\n");
  char da[1024];
  snprintf(da, sizeof da, "%s/devices.allow", dv);
  assert_int_equal(unlink(da), 0);
  crt_device_rule deny_all = {.allow = false, .access = "rwm"};
  crt_resources d = {.devices = &deny_all, .n_devices = 1};
  d.memory.limit = (crt_i64){true, 8192};
  assert_int_equal(crt_cgroup_update(cg("/rb"), &d, &e), -1);
  assert_non_null(strstr(e->msg, "cgroup: write devices.allow"));
  crt_err_free(&e);
  assert_file(m, "memory.limit_in_bytes", "1000");
  assert_file(dv, "devices.deny", "a");
  free(m), free(c), free(dv);
}

/* update's device rules are the defaults then the update's, so a deny-all
 * denies everything (v1: devices.deny a is the last write). */
static void test_update_devices_deny_all(void **state) {
  v1_tree("/ud");
  char *dv = v1dir("devices", "/ud");
  crt_device_rule deny_all = {.allow = false, .access = "rwm"};
  crt_resources r = {.devices = &deny_all, .n_devices = 1};
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_update(cg("/ud"), &r, &e), 0);
  /* the reset to deny-all, then the update's deny-all as the last write */
  assert_file(dv, "devices.deny", "aa");
  crt_device_rule *rules = NULL;
  size_t n = 0;
  assert_int_equal(cg_update_device_rules(&r, &rules, &n, &e), 0);
  assert_int_equal(n, 10 + 1);
  assert_false(rules[n - 1].allow);
  assert_string_equal(rules[n - 1].type, "a");
  cg_device_rules_free(rules, n);
  free(dv);
}

static void test_systemd_and_mode(void **state) {
  root = *crt_cgroup_host();
  assert_false(root.foreign); /* a unit test is never the test build */
  enum crt_cgroup_mode m = root.mode;
  assert_true(m == CRT_CGROUP_MODE_V1 || m == CRT_CGROUP_MODE_HYBRID || m == CRT_CGROUP_MODE_V2);
  crt_linux l = {.cgroups_path = "system.slice:crt:c1"};
  crt_spec spec = {.linux_ = &l};
  crt_cgroup_config cfg = {.id = "c1", .spec = &spec};
  char *path = NULL;
  crt_err *e = NULL;
  assert_int_equal(crt_cgroup_enter(open_at(NULL, true), &cfg, 1, &path, &e), -1);
  if (access("/run/systemd/system", F_OK) != 0)
    assert_string_equal(e->msg,
                        "systemd cgroup manager: systemd is not running (no /run/systemd/system): no such file or directory");
  crt_err_free(&e);
  l.cgroups_path = "bad";
  assert_int_equal(crt_cgroup_enter(open_at(NULL, true), &cfg, 1, &path, &e), -1);
  assert_non_null(strstr(e->msg, "slice:prefix:name"));
  crt_err_free(&e);
}

/* cgroupsPath "slice:prefix:name" → the unit's cgroup, as systemd lays
 * out nested slices. */
static void test_systemd_paths(void **state) {
  static const struct { const char *in; bool rootless; const char *out; } ok[] = {
      {"system.slice:crt:c1", false, "/system.slice/crt-c1.scope"},
      {"a-b-c.slice:p:n", false, "/a.slice/a-b.slice/a-b-c.slice/p-n.scope"},
      {"-.slice:p:n", false, "/p-n.scope"},
      {":p:n", false, "/system.slice/p-n.scope"},
      {":p:n", true, "/user.slice/p-n.scope"},
      {"", false, "/system.slice/crt-ID.scope"},
      {NULL, false, "/system.slice/crt-ID.scope"},
      {"x.slice:p:n.slice", false, "/x.slice/n.slice"},
      {"machine.slice::n", false, "/machine.slice/n.scope"},
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    char *p = NULL;
    crt_err *e = NULL;
    assert_int_equal(cg_systemd_path(ok[i].in, "ID", ok[i].rootless, &p, &e), 0);
    assert_string_equal(p, ok[i].out);
    free(p);
  }
  static const char *bad[] = {"a--b.slice:p:n", "-a.slice:p:n", "a-.slice:p:n", "nope:p:n", "a:b",
                              "a.slice:b:c:d", "a.slice:p:", "a/b.slice:p:n", ".slice:p:n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *p = NULL;
    crt_err *e = NULL;
    assert_int_equal(cg_systemd_path(bad[i], "ID", false, &p, &e), -1);
    assert_non_null(strstr(e->msg, "systemd cgroup manager"));
    assert_null(p);
    crt_err_free(&e);
  }
}

/* runc's OwnerUID: the cgroup goes to the host uid of the process's user
 * only with a cgroup namespace and a read-write "cgroup" mount on
 * /sys/fs/cgroup; an unmapped user gets nothing. */
static void test_systemd_owner(void **state) {
  static const struct {
    const char *ns, *mount_opts, *extra;
    bool owned;
    uid_t uid;
  } cases[] = {
      {"{'type':'cgroup'},{'type':'user'}", "['nosuid','rw']", "", true, 100000},
      {"{'type':'cgroup'},{'type':'user'}", "['nosuid','ro']", "", false, 0},
      {"{'type':'cgroup'},{'type':'user'}", "['ro','rw']", "", true, 100000},
      {"{'type':'user'}", "['rw']", "", false, 0},
      {"{'type':'cgroup'},{'type':'user'}", "['rw']", ",'process':{'cwd':'/','args':['sh'],'user':{'uid':5,'gid':0}}", true,
       100005},
      {"{'type':'cgroup'},{'type':'user'}", "['rw']", ",'process':{'cwd':'/','args':['sh'],'user':{'uid':70000,'gid':0}}",
       false, 0},
      {"{'type':'cgroup'}", "['rw']", ",'process':{'cwd':'/','args':['sh'],'user':{'uid':7,'gid':0}}", true, 7},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char json[1024];
    snprintf(json, sizeof json,
             "{'ociVersion':'1.2.0','mounts':[{'destination':'/sys/fs/cgroup/','type':'cgroup','source':'cgroup',"
             "'options':%s}],'linux':{'namespaces':[%s],'uidMappings':[{'containerID':0,'hostID':100000,"
             "'size':65536}],'gidMappings':[{'containerID':0,'hostID':100000,'size':65536}]}%s}",
             cases[i].mount_opts, cases[i].ns, cases[i].extra);
    for (char *c = json; *c; c++)
      if (*c == '\'') *c = '"';
    crt_spec *sp = NULL;
    crt_err *e = NULL;
    if (crt_spec_parse(json, strlen(json), "t", &sp, &e) < 0) fail_msg("case %zu: %s", i, e->msg);
    uid_t uid = 0;
    assert_int_equal(cg_systemd_owner(sp, &uid), cases[i].owned);
    if (cases[i].owned) assert_int_equal(uid, cases[i].uid);
    crt_spec_free(sp);
  }
}

static void test_parse_size(void **state) {
  long long v;
  assert_int_equal(crt_cgroup_parse_size("1024", &v), 0);
  assert_int_equal(v, 1024);
  assert_int_equal(crt_cgroup_parse_size("100M", &v), 0);
  assert_int_equal(v, 100LL << 20);
  assert_int_equal(crt_cgroup_parse_size("1g", &v), 0);
  assert_int_equal(v, 1LL << 30);
  assert_int_equal(crt_cgroup_parse_size("1.5GiB", &v), 0);
  assert_int_equal(v, 3LL << 29);
  assert_int_equal(crt_cgroup_parse_size("2 kb", &v), 0);
  assert_int_equal(v, 2048);
  assert_int_equal(crt_cgroup_parse_size("-1", &v), 0);
  assert_int_equal(v, -1);
  assert_int_equal(crt_cgroup_parse_size("10x", &v), -1);
  assert_int_equal(crt_cgroup_parse_size("", &v), -1);
  assert_int_equal(crt_cgroup_parse_size("-5", &v), -1);
}

static void test_parse_resources_json(void **state) {
  crt_resources r;
  crt_err *e = NULL;
  const char *j = "{\"memory\":{\"limit\":1048576,\"swap\":-1,\"checkBeforeUpdate\":true},"
                  "\"cpu\":{\"shares\":512,\"quota\":-1,\"cpus\":\"0-1\"},\"blockIO\":{\"weight\":300},"
                  "\"pids\":{\"limit\":20},\"unified\":{\"memory.high\":\"4096\"}}";
  assert_int_equal(crt_cgroup_parse_resources_json(j, "r.json", &r, &e), 0);
  assert_true(r.memory.limit.set);
  assert_int_equal(r.memory.limit.v, 1048576);
  assert_int_equal(r.memory.swap.v, -1);
  assert_true(r.memory.check_before_update.v);
  assert_false(r.memory.reservation.set);
  assert_int_equal(r.cpu.shares.v, 512);
  assert_int_equal(r.cpu.quota.v, -1);
  assert_string_equal(r.cpu.cpus, "0-1");
  assert_int_equal(r.blkio.weight.v, 300);
  assert_int_equal(r.pids.limit.v, 20);
  assert_int_equal(r.unified.len, 1);
  assert_string_equal(r.unified.v[0].key, "memory.high");
  crt_cgroup_resources_clear(&r);
  assert_int_equal(crt_cgroup_parse_resources_json("{\"cpu\":{\"shares\":\"x\"}}", "r.json", &r, &e), -1);
  assert_string_equal(e->msg, "r.json: .cpu.shares: expected number, got string");
  crt_err_free(&e);
  assert_int_equal(crt_cgroup_parse_resources_json("{", "r.json", &r, &e), -1);
  assert_non_null(strstr(e->msg, "invalid JSON"));
  crt_err_free(&e);
  /* device rules */
  assert_int_equal(crt_cgroup_parse_resources_json(
                       "{\"devices\":[{\"allow\":false,\"access\":\"rwm\"},"
                       "{\"allow\":true,\"type\":\"b\",\"major\":8,\"minor\":0,\"access\":\"r\"}]}",
                       "r.json", &r, &e),
                   0);
  assert_int_equal(r.n_devices, 2);
  assert_false(r.devices[0].allow);
  assert_null(r.devices[0].type);
  assert_false(r.devices[0].major.set);
  assert_string_equal(r.devices[1].type, "b");
  assert_int_equal(r.devices[1].major.v, 8);
  assert_true(r.devices[1].minor.set);
  assert_string_equal(r.devices[1].access, "r");
  crt_cgroup_resources_clear(&r);
  /* runc's reading: r, w and m kept in canonical order, other letters dropped */
  assert_int_equal(crt_cgroup_parse_resources_json(
                       "{\"devices\":[{\"allow\":true,\"access\":\"rwa\"},{\"allow\":true,\"access\":\"mxr\"}]}",
                       "r.json", &r, &e),
                   0);
  assert_string_equal(r.devices[0].access, "rw");
  assert_string_equal(r.devices[1].access, "rm");
  crt_cgroup_resources_clear(&r);
  static const struct { const char *in, *msg; } bad[] = {
      {"{\"devices\":{}}", "r.json: .devices: expected array, got object"},
      {"{\"devices\":[{\"type\":\"c\"}]}", "r.json: .devices[0].allow: missing required field"},
      {"{\"devices\":[{\"allow\":true,\"type\":\"x\"}]}", "r.json: .devices[0].type: unknown device type \"x\" (expected a, c or b)"},
      {"{\"devices\":[{\"allow\":true,\"access\":\"ax\"}]}", "r.json: .devices[0].access: invalid access \"ax\" (expected a combination of r, w and m)"},
      {"{\"devices\":[{\"allow\":true,\"access\":\"\"}]}", "r.json: .devices[0].access: invalid access \"\" (expected a combination of r, w and m)"},
      {"{\"devices\":[{\"allow\":true,\"major\":\"8\"}]}", "r.json: .devices[0].major: expected number, got string"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(crt_cgroup_parse_resources_json(bad[i].in, "r.json", &r, &e), -1);
    assert_string_equal(e->msg, bad[i].msg);
    crt_err_free(&e);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_v2_translations, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v2_errors, setup, teardown),
      cmocka_unit_test(test_formulas),
      cmocka_unit_test_setup_teardown(test_v2_enter, setup, teardown),
      cmocka_unit_test_setup_teardown(test_foreign_root, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v2_enter_undo, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rootless_skip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v2_freeze_pids_stats, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v1_resources, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v1_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v1_enter, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v1_empty_parent_cpuset, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v1_prepare_and_self_join, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v1_prepare_late, setup, teardown),
      cmocka_unit_test_setup_teardown(test_driver_table, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exec_sub_cgroup, setup, teardown),
      cmocka_unit_test(test_device_rules),
      cmocka_unit_test_setup_teardown(test_v1_zero_means_unset, setup, teardown),
      cmocka_unit_test_setup_teardown(test_v2_zero_means_unset, setup, teardown),
      cmocka_unit_test_setup_teardown(test_update_all_or_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_update_devices_deny_all, setup, teardown),
      cmocka_unit_test_teardown(test_systemd_and_mode, close_opened),
      cmocka_unit_test(test_systemd_paths),
      cmocka_unit_test(test_systemd_owner),
      cmocka_unit_test(test_parse_size),
      cmocka_unit_test(test_parse_resources_json),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
