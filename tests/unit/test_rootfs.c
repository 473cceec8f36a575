#define _GNU_SOURCE
/* A real container filesystem: a child in new mount and pid namespaces runs
 * prepare/pivot/finalize on a busybox rootfs and checks the result from
 * inside; it reports "name ok" / "name FAIL why" lines through a pipe. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "crt/fs.h"
#include "crt/resolve.h"
#include "crt/rootfs.h"

#define PROC_MAGIC 0x9fa0
#define SYSFS_MAGIC_ 0x62656572
#define TMPFS_MAGIC_ 0x01021994

typedef struct {
  char dir[64];
  char rootfs[128];
  char hostfile[128];
  char escape[64]; /* name of the dir the hostile mounts must create inside */
  bool openat2;
  bool userns; /* run in a new user namespace (root mapped to root) */
} fixture;

static void write_str(const char *path, const char *s) {
  crt_err *err = NULL;
  if (crt_write_file(path, s, strlen(s), 0644, &err) < 0) fail_msg("%s", err->msg);
}

static void sub(char *buf, size_t n, const fixture *f, const char *rel) {
  if (snprintf(buf, n, "%s/%s", f->rootfs, rel) >= (int)n) fail_msg("path too long");
}

static int copy_file(const char *from, const char *to) {
  int in = open(from, O_RDONLY | O_CLOEXEC);
  int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  if (in < 0 || out < 0) return -1;
  char buf[65536];
  ssize_t r;
  while ((r = read(in, buf, sizeof buf)) > 0)
    if (crt_write_all(out, buf, (size_t)r) < 0) return -1;
  close(in);
  close(out);
  return r < 0 ? -1 : 0;
}

static int setup(void **state, bool openat2) {
  fixture *f = calloc(1, sizeof *f);
  f->openat2 = openat2;
  snprintf(f->dir, sizeof f->dir, "/tmp/crt-rootfs-XXXXXX");
  assert_non_null(mkdtemp(f->dir));
  snprintf(f->rootfs, sizeof f->rootfs, "%s/root", f->dir);
  snprintf(f->hostfile, sizeof f->hostfile, "%s/hostfile", f->dir);
  snprintf(f->escape, sizeof f->escape, "crt-escape-%d", getpid());
  write_str(f->hostfile, "from the host\n");
  char p[PATH_MAX];
  const char *dirs[] = {"", "bin", "etc", "proc", "sys", "dev", "tmp"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    sub(p, sizeof p, f, dirs[i]);
    assert_int_equal(mkdir(p, 0755), 0);
  }
  sub(p, sizeof p, f, "bin/busybox");
  assert_int_equal(copy_file("/bin/busybox", p), 0);
  const char *applets[] = {"sh", "cat", "ls", "touch"};
  for (size_t i = 0; i < sizeof applets / sizeof applets[0]; i++) {
    char l[64];
    snprintf(l, sizeof l, "bin/%s", applets[i]);
    sub(p, sizeof p, f, l);
    assert_int_equal(symlink("busybox", p), 0);
  }
  /* Hostile destinations: both point at the host's "/" if followed naively. */
  sub(p, sizeof p, f, "evil");
  assert_int_equal(symlink("/", p), 0);
  sub(p, sizeof p, f, "up");
  assert_int_equal(symlink("../../../../../../..", p), 0);
  sub(p, sizeof p, f, "etc/passwd");
  write_str(p, "root:x:0:0::/:/bin/sh\n");
  sub(p, sizeof p, f, "etc/sub");
  assert_int_equal(mkdir(p, 0700), 0);
  sub(p, sizeof p, f, "etc/sub/link");
  assert_int_equal(symlink("../passwd", p), 0);
  snprintf(p, sizeof p, "%s/idsrc", f->dir);
  assert_int_equal(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/idsrc/owned", f->dir);
  write_str(p, "x");
  *state = f;
  return 0;
}
static int setup_openat2(void **state) { return setup(state, true); }
static int setup_walk(void **state) { return setup(state, false); }
static int setup_userns(void **state) {
  setup(state, true);
  ((fixture *)*state)->userns = true;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  assert_int_equal(crt_rm_rf(f->dir), 0);
  free(f);
  return 0;
}

/* ---- inside the container ---- */

static FILE *report;

static void check(const char *name, bool ok, const char *fmt, ...) {
  if (ok) {
    fprintf(report, "%s ok\n", name);
    return;
  }
  char why[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  fprintf(report, "%s FAIL %s (errno %s)\n", name, why, strerror(errno));
}

static long fs_type(const char *path) {
  struct statfs sf;
  return statfs(path, &sf) == 0 ? (long)sf.f_type : -1;
}

static bool read_only(const char *path) {
  struct statvfs sv;
  return statvfs(path, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

static ssize_t file_size_read(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[4096];
  ssize_t total = 0, r;
  while ((r = read(fd, buf, sizeof buf)) > 0) total += r;
  close(fd);
  return r < 0 ? -1 : total;
}

/* The mountinfo line of "/" has no shared:/master: tag. */
static bool root_private(void) {
  FILE *mi = fopen("/proc/self/mountinfo", "re");
  if (!mi) return false;
  char line[4096];
  bool ok = false;
  while (fgets(line, sizeof line, mi)) {
    char mp[1024];
    if (sscanf(line, "%*s %*s %*s %*s %1023s", mp) != 1 || strcmp(mp, "/")) continue;
    char *dash = strstr(line, " - ");
    if (dash) *dash = 0;
    ok = !strstr(line, "shared:") && !strstr(line, "master:");
  }
  fclose(mi);
  return ok;
}

static void checks_inside(const fixture *f) {
  check("proc_is_procfs", fs_type("/proc") == PROC_MAGIC, "/proc f_type %lx", fs_type("/proc"));
  check("pid_ns", getpid() == 1, "pid %d", getpid());
  if (f->userns) {
    /* Really in the user namespace: mknod is refused, so /dev/null was bound. */
    errno = 0;
    bool refused = mknod("/dev/crt-probe", S_IFCHR | 0600, makedev(1, 3)) < 0 && errno == EPERM;
    check("in_userns", refused, "mknod allowed");
    unlink("/dev/crt-probe");
  }
  check("sys_is_sysfs_ro", fs_type("/sys") == SYSFS_MAGIC_ && read_only("/sys"), "/sys");
  check("dev_is_tmpfs", fs_type("/dev") == TMPFS_MAGIC_, "/dev");
  check("shm_is_tmpfs", fs_type("/dev/shm") == TMPFS_MAGIC_, "/dev/shm");
  check("devpts", access("/dev/pts/ptmx", F_OK) == 0, "/dev/pts/ptmx");
  struct stat st;
  check("dev_null", stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
                        minor(st.st_rdev) == 3 && (st.st_mode & 0777) == 0666,
        "/dev/null mode %o", st.st_mode);
  int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  check("dev_null_writable", fd >= 0 && write(fd, "x", 1) == 1, "write /dev/null");
  if (fd >= 0) close(fd);
  check("dev_tty", stat("/dev/tty", &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 5, "/dev/tty");
  char l[64] = {0};
  check("ptmx_link", readlink("/dev/ptmx", l, sizeof l - 1) > 0 && !strcmp(l, "pts/ptmx"), "/dev/ptmx -> %s", l);
  memset(l, 0, sizeof l);
  check("fd_link", readlink("/dev/fd", l, sizeof l - 1) > 0 && !strcmp(l, "/proc/self/fd"), "/dev/fd -> %s", l);
  check("core_link", (access("/proc/kcore", F_OK) == 0) == (lstat("/dev/core", &st) == 0), "/dev/core");
  if (f->userns)
    check("spec_device", stat("/dev/kmsg", &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1, "/dev/kmsg");
  else
    check("spec_device", stat("/dev/crtnull", &st) == 0 && S_ISCHR(st.st_mode) && (st.st_mode & 07777) == 0600 &&
                             st.st_uid == 1 && st.st_gid == 2 && minor(st.st_rdev) == 3,
          "/dev/crtnull mode %o uid %d", st.st_mode, st.st_uid);
  check("mqueue", fs_type("/dev/mqueue") == 0x19800202, "/dev/mqueue");
  check("cgroup_tmpfs_ro", fs_type("/sys/fs/cgroup") == TMPFS_MAGIC_ && read_only("/sys/fs/cgroup"),
        "/sys/fs/cgroup");
  check("cgroup_memory", access("/sys/fs/cgroup/memory", F_OK) != 0 ||
                             (fs_type("/sys/fs/cgroup/memory") == 0x27e0eb && read_only("/sys/fs/cgroup/memory")),
        "/sys/fs/cgroup/memory");
  /* Masked: every listed file that exists reads empty; a dir is an empty ro tmpfs. */
  const char *masked[] = {"/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug"};
  for (size_t i = 0; i < sizeof masked / sizeof masked[0]; i++)
    if (access(masked[i], F_OK) == 0) check(masked[i], file_size_read(masked[i]) == 0, "%s not empty", masked[i]);
  if (access("/sys/firmware", F_OK) == 0)
    check("masked_dir", fs_type("/sys/firmware") == TMPFS_MAGIC_ && read_only("/sys/firmware"), "/sys/firmware");
  errno = 0;
  fd = open("/proc/sys/kernel/hostname", O_WRONLY | O_CLOEXEC);
  bool erofs = fd < 0 ? errno == EROFS : (write(fd, "x", 1) < 0 && errno == EROFS);
  check("proc_sys_ro", erofs, "write /proc/sys/kernel/hostname");
  if (fd >= 0) close(fd);
  errno = 0;
  fd = open("/newfile", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  check("root_readonly", fd < 0 && errno == EROFS, "create /newfile");
  if (fd >= 0) close(fd);
  char buf[64] = {0};
  fd = open("/etc/hostfile", O_RDONLY | O_CLOEXEC);
  check("bind_file", fd >= 0 && read(fd, buf, sizeof buf - 1) > 0 && !strcmp(buf, "from the host\n"), "/etc/hostfile");
  if (fd >= 0) close(fd);
  check("bind_file_ro", read_only("/etc/hostfile"), "/etc/hostfile not ro");
  memset(buf, 0, sizeof buf);
  fd = open("/etc/sub/link", O_RDONLY | O_CLOEXEC);
  check("tmpcopyup", fs_type("/etc") == TMPFS_MAGIC_ && fd >= 0 && read(fd, buf, sizeof buf - 1) > 0 &&
                         !strncmp(buf, "root:x:", 7) && stat("/etc/sub", &st) == 0 && (st.st_mode & 0777) == 0700,
        "/etc copy-up");
  if (fd >= 0) close(fd);
  if (!f->userns)
    check("idmapped", stat("/idmapped/owned", &st) == 0 && st.st_uid == 1000 && st.st_gid == 1000,
          "/idmapped/owned uid %d", (int)st.st_uid);
  char p[PATH_MAX];
  snprintf(p, sizeof p, "/%s", f->escape);
  check("symlink_root_dest", fs_type(p) == TMPFS_MAGIC_, "%s not the tmpfs", p);
  snprintf(p, sizeof p, "/%s-up", f->escape);
  check("symlink_up_dest", access(p, F_OK) == 0 && read_only(p), "%s", p);
  /* The old root is gone. */
  check("old_root_gone", access(f->hostfile, F_OK) != 0, "%s visible", f->hostfile);
  if (!f->openat2) check("root_private", root_private(), "/ still has propagation");
  /* busybox runs in there. */
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    execl("/bin/sh", "sh", "-c", "cat /etc/hostfile && ls /proc/self/fd && exec true", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  check("busybox_runs", WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
}

static char *opt_list[][10] = {
    {NULL},
    {"nosuid", "strictatime", "mode=755", "size=65536k", NULL},
    {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", NULL},
    {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k", NULL},
    {"nosuid", "noexec", "nodev", NULL},
    {"nosuid", "noexec", "nodev", "ro", NULL},
    {"nosuid", "noexec", "nodev", "relatime", "ro", NULL},
    {"bind", "ro", "nosuid", NULL},
    {"size=1m", NULL},
    {"bind", "ro", NULL},
    {"tmpcopyup", "mode=755", NULL},
    {"rbind", "idmap", NULL},
};

static crt_strv strv(char **v) {
  crt_strv s = {v, 0};
  while (v[s.len]) s.len++;
  return s;
}

/* What the spec parser does for each mount: its options parsed once. */
static void parse_opts(crt_mount *m, size_t n) {
  crt_err *err = NULL;
  for (size_t i = 0; i < n; i++)
    if (crt_mount_opts_parse(&m[i].options, &m[i].opts, &err) < 0) abort();
}

static int run_container(const fixture *f) {
  char dest1[128], dest2[128];
  snprintf(dest1, sizeof dest1, "/evil/%s", f->escape);
  snprintf(dest2, sizeof dest2, "/up/%s-up", f->escape);
  char idsrc[128];
  snprintf(idsrc, sizeof idsrc, "%s/idsrc", f->dir);
  crt_idmap idm = {.container_id = 0, .host_id = 1000, .size = 1};
  crt_mount mounts[] = {
      {.destination = "/proc", .source = "proc", .type = "proc", .options = strv(opt_list[0])},
      {.destination = "/dev", .source = "tmpfs", .type = "tmpfs", .options = strv(opt_list[1])},
      {.destination = "/dev/pts", .source = "devpts", .type = "devpts", .options = strv(opt_list[2])},
      {.destination = "/dev/shm", .source = "shm", .type = "tmpfs", .options = strv(opt_list[3])},
      {.destination = "/dev/mqueue", .source = "mqueue", .type = "mqueue", .options = strv(opt_list[4])},
      {.destination = "/sys", .source = "sysfs", .type = "sysfs", .options = strv(opt_list[5])},
      {.destination = "/sys/fs/cgroup", .source = "cgroup", .type = "cgroup", .options = strv(opt_list[6])},
      {.destination = "/etc", .source = "tmpfs", .type = "tmpfs", .options = strv(opt_list[10])},
      {.destination = "/etc/hostfile", .source = (char *)f->hostfile, .type = "bind", .options = strv(opt_list[7])},
      {.destination = dest1, .source = "tmpfs", .type = "tmpfs", .options = strv(opt_list[8])},
      {.destination = dest2, .source = (char *)f->dir, .type = "none", .options = strv(opt_list[9])},
      {.destination = "/idmapped", .source = idsrc, .type = "bind", .options = strv(opt_list[11]),
       .uid_mappings = {&idm, 1}, .gid_mappings = {&idm, 1}},
  };
  /* A nested user namespace cannot map ids its own does not have. */
  size_t n_mounts = sizeof mounts / sizeof mounts[0] - (f->userns ? 1 : 0);
  static char *masked[] = {"/proc/acpi",       "/proc/asound",      "/proc/kcore",   "/proc/keys",
                           "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug",
                           "/sys/firmware",    "/proc/scsi",        NULL};
  static char *ro[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger", NULL};
  crt_device dev = {.type = "c", .path = "/dev/crtnull", .major = 1, .minor = 3,
                    .file_mode = {true, 0600}, .uid = {true, 1}, .gid = {true, 2}};
  /* In a user namespace devices are bound from the host: use one it has. */
  if (f->userns) dev = (crt_device){.type = "c", .path = "/dev/kmsg", .major = 1, .minor = 11};
  crt_linux lx = {.masked_paths = strv(masked), .readonly_paths = strv(ro), .devices = &dev, .n_devices = 1};
  /* The walk variant also covers no_pivot and rootfsPropagation. */
  if (!f->openat2) {
    lx.rootfs_propagation = "rprivate";
    lx.rootfs_propagation_flags = MS_PRIVATE | MS_REC;
  }
  crt_root root = {.path = (char *)f->rootfs, .readonly = true};
  crt_spec spec = {.root = &root, .mounts = mounts, .n_mounts = n_mounts, .linux_ = &lx};
  parse_opts(mounts, n_mounts);
  crt_rootfs_config cfg = {.spec = &spec, .rootfs = f->rootfs, .new_mount_ns = true, .userns = f->userns};
  crt_err *err = NULL;
  crt_resolve_use_openat2(f->openat2);
  if (crt_rootfs_prepare(&cfg, &err) < 0 || crt_rootfs_pivot(&cfg, !f->openat2, &err) < 0 ||
      crt_rootfs_finalize(&cfg, &err) < 0) {
    fprintf(report, "setup FAIL %s\n", err->msg);
    crt_err_free(&err);
    return 1;
  }
  fprintf(report, "setup ok\n");
  checks_inside(f);
  return 0;
}

/* A new user namespace mapping root to root: no mknod, locked mount flags. */
static int enter_userns(void) {
  crt_err *err = NULL;
  if (unshare(CLONE_NEWUSER) < 0) return -1;
  if (crt_write_file("/proc/self/setgroups", "deny", 4, 0, &err) < 0 ||
      crt_write_file("/proc/self/uid_map", "0 0 1\n", 6, 0, &err) < 0 ||
      crt_write_file("/proc/self/gid_map", "0 0 1\n", 6, 0, &err) < 0) {
    crt_err_free(&err);
    return -1;
  }
  return 0;
}

/* Forks a child in new mount+pid namespaces; its pid 1 runs fn.  Returns
 * what it wrote to the report pipe (malloc'd). */
static char *in_container(const fixture *f, int (*fn)(const fixture *)) {
  int fds[2];
  assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    /* Never outlive the test, even when it is killed. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    alarm(20);
    if (f->userns && enter_userns() < 0) _exit(5);
    if (unshare(CLONE_NEWNS | CLONE_NEWPID | (f->userns ? CLONE_NEWIPC : 0)) < 0) _exit(2);
    pid_t init = fork();
    if (init == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      alarm(20);
      report = fdopen(fds[1], "w");
      setvbuf(report, NULL, _IONBF, 0);
      _exit(fn(f));
    }
    int st = 0;
    if (init < 0 || waitpid(init, &st, 0) < 0) _exit(3);
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 4);
  }
  close(fds[1]);
  char *out = NULL;
  size_t len = 0;
  crt_err *err = NULL;
  if (crt_read_fd(fds[0], 1 << 20, &out, &len, &err) < 0) fail_msg("%s", err->msg);
  close(fds[0]);
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  if (!WIFEXITED(st)) fail_msg("container child died: %d\n%s", st, out);
  return out;
}

static void expect_ok(const char *out, const char *name) {
  char key[128];
  snprintf(key, sizeof key, "%s ok\n", name);
  if (!strstr(out, key)) fail_msg("%s not ok:\n%s", name, out);
}

static void test_container(void **state) {
  fixture *f = *state;
  char *out = in_container(f, run_container);
  if (strstr(out, "FAIL")) fail_msg("%s", out);
  const char *names[] = {"setup",        "proc_is_procfs",  "pid_ns",          "sys_is_sysfs_ro",
                         "dev_is_tmpfs", "shm_is_tmpfs",    "devpts",          "dev_null",
                         "dev_null_writable", "dev_tty",    "ptmx_link",       "fd_link",
                         "core_link",    "spec_device",     "mqueue",          "cgroup_tmpfs_ro",
                         "cgroup_memory", "proc_sys_ro",    "root_readonly",   "bind_file",
                         "bind_file_ro", "symlink_root_dest", "symlink_up_dest", "old_root_gone",
                         "busybox_runs", "tmpcopyup"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) expect_ok(out, names[i]);
  if (f->userns) expect_ok(out, "in_userns");
  if (!f->openat2) expect_ok(out, "root_private");
  if (!f->userns) expect_ok(out, "idmapped");
  free(out);
  /* The hostile destinations were created inside the rootfs, not on the host. */
  char p[PATH_MAX];
  snprintf(p, sizeof p, "/%s", f->escape);
  assert_int_not_equal(access(p, F_OK), 0);
  snprintf(p, sizeof p, "/%s-up", f->escape);
  assert_int_not_equal(access(p, F_OK), 0);
  snprintf(p, sizeof p, "%s/%s", f->rootfs, f->escape);
  assert_int_equal(access(p, F_OK), 0);
  /* Nothing stayed mounted on the host: the rootfs is an ordinary dir again. */
  struct stat a, b;
  assert_int_equal(stat(f->rootfs, &a), 0);
  assert_int_equal(stat(f->dir, &b), 0);
  assert_int_equal(a.st_dev, b.st_dev);
  snprintf(p, sizeof p, "%s/proc/self", f->rootfs);
  assert_int_not_equal(access(p, F_OK), 0);
}

static int proc_on_symlink(const fixture *f) {
  crt_mount mounts[] = {{.destination = "/proc", .source = "proc", .type = "proc", .options = strv(opt_list[0])}};
  crt_spec spec = {.mounts = mounts, .n_mounts = 1};
  parse_opts(mounts, 1);
  crt_rootfs_config cfg = {.spec = &spec, .rootfs = f->rootfs};
  crt_err *err = NULL;
  crt_resolve_use_openat2(f->openat2);
  if (crt_rootfs_prepare(&cfg, &err) == 0) {
    fprintf(report, "proc_symlink FAIL accepted\n");
    return 1;
  }
  fprintf(report, "error: %s\n", err->msg);
  crt_err_free(&err);
  return 0;
}

static void test_proc_on_symlink_refused(void **state) {
  fixture *f = *state;
  char p[PATH_MAX];
  sub(p, sizeof p, f, "proc");
  assert_int_equal(rmdir(p), 0);
  assert_int_equal(symlink("/etc", p), 0);
  char *out = in_container(f, proc_on_symlink);
  assert_non_null(strstr(out, "error: mounts[0]: error mounting \"proc\" to rootfs at \"/proc\": filesystem \"proc\" must be mounted on "
                            "ordinary directory"));
  free(out);
}

static int bad_source(const fixture *f) {
  static char *bind[] = {"rbind", NULL};
  crt_mount mounts[] = {
      {.destination = "/tmp", .source = "tmpfs", .type = "tmpfs", .options = strv(opt_list[0])},
      {.destination = "/x", .source = "/nonexistent-crt-src", .type = "bind", .options = strv(bind)},
  };
  crt_spec spec = {.mounts = mounts, .n_mounts = 2};
  parse_opts(mounts, 2);
  crt_rootfs_config cfg = {.spec = &spec, .rootfs = f->rootfs};
  crt_err *err = NULL;
  if (crt_rootfs_prepare(&cfg, &err) == 0) return 1;
  fprintf(report, "error: %s\n", err->msg);
  crt_err_free(&err);
  return 0;
}

static void test_error_names_mount(void **state) {
  char *out = in_container(*state, bad_source);
  assert_non_null(strstr(out, "error: mounts[1]: source \"/nonexistent-crt-src\": no such file or directory"));
  free(out);
}

int main(void) {
  if (geteuid() != 0) {
    fprintf(stderr, "test_rootfs needs root\n");
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_container, setup_openat2, teardown),
      cmocka_unit_test_setup_teardown(test_container, setup_walk, teardown),
      cmocka_unit_test_setup_teardown(test_container, setup_userns, teardown),
      cmocka_unit_test_setup_teardown(test_proc_on_symlink_refused, setup_openat2, teardown),
      cmocka_unit_test_setup_teardown(test_proc_on_symlink_refused, setup_walk, teardown),
      cmocka_unit_test_setup_teardown(test_error_names_mount, setup_openat2, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
