/* The one reader of /proc/<pid>/cgroup and mountinfo (src/linux/procinfo.c). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/procinfo.h"
#include "../../src/linux/test_hooks.h"

/* Every line of the file, the controllers and path split at the first two
 * colons; the path of a controller's hierarchy found by name in a list. */
static void test_proc_cgroup_lines(void **state) {
  crt_proc_cgroup *v = NULL;
  size_t n = 0;
  crt_err *err = NULL;
  assert_int_equal(crt_proc_cgroup_read(0, &v, &n, &err), 0);
  assert_true(n > 0);
  char *raw = NULL;
  assert_int_equal(crt_read_file("/proc/self/cgroup", 1 << 20, &raw, NULL, &err), 0);
  for (size_t i = 0; i < n; i++) {
    char line[8192];
    snprintf(line, sizeof line, ":%s:%s\n", v[i].controllers, v[i].path);
    assert_non_null(strstr(raw, line));
    if (!*v[i].controllers || strchr(v[i].controllers, '=')) continue;
    char first[256];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(v[i].controllers, ","), v[i].controllers);
    char *p = crt_proc_cgroup_path(getpid(), first);
    assert_non_null(p);
    assert_string_equal(p, v[i].path);
    free(p);
  }
  assert_null(crt_proc_cgroup_path(0, "no-such-controller"));
  free(raw);
  crt_proc_cgroup_free(v, n);
}

/* In a child with its own mount namespace: a tmpfs on a path with a space
 * (mountinfo writes it "\040") is found under its real name. */
static int child_space_mount(void) {
  if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL) < 0) return 2;
  char dir[] = "/tmp/crt mountinfo.XXXXXX";
  if (!mkdtemp(dir)) return 3;
  int rc = 4;
  if (mount("tmpfs", dir, "tmpfs", 0, "size=4k") == 0 && mount(NULL, dir, NULL, MS_SHARED, NULL) == 0) {
    crt_mountinfo mi;
    crt_err *err = NULL;
    rc = crt_mountinfo_read(&mi, &err) == 0 ? 5 : 6;
    for (size_t i = 0; rc == 5 && i < mi.n; i++)
      if (strcmp(mi.v[i].target, dir) == 0 && strcmp(mi.v[i].fstype, "tmpfs") == 0 &&
          crt_mountinfo_has_tag(&mi.v[i], "shared") && !crt_mountinfo_has_tag(&mi.v[i], "master"))
        rc = 0;
    if (rc != 6) crt_mountinfo_free(&mi);
    umount2(dir, MNT_DETACH);
  }
  rmdir(dir);
  return rc;
}

static void test_mountinfo_unescapes_paths(void **state) {
  if (geteuid() != 0) skip();
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(child_space_mount());
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

/* Another process's table (checkpoint reads the container's): a child in
 * its own mount namespace mounts a tmpfs on a path with a space, and
 * /proc/CHILD/mountinfo read from here names it unescaped; our own table
 * by pid is the one crt_mountinfo_read gives; a reaped pid's is an error
 * naming its file. */
static void test_mountinfo_read_pid(void **state) {
  crt_mountinfo mi, self;
  crt_err *err = NULL;
  assert_int_equal(crt_mountinfo_read_pid(getpid(), &mi, &err), 0);
  assert_int_equal(crt_mountinfo_read(&self, &err), 0);
  assert_int_equal(mi.n, self.n);
  crt_mountinfo_free(&mi);
  crt_mountinfo_free(&self);
  if (geteuid() != 0) skip();
  char dir[] = "/tmp/crt mountinfo pid.XXXXXX";
  assert_non_null(mkdtemp(dir));
  int ready[2], go[2];
  assert_int_equal(pipe(ready), 0);
  assert_int_equal(pipe(go), 0);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    close(go[1]);
    char c = unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL) == 0 &&
             mount("tmpfs", dir, "tmpfs", 0, "size=4k") == 0;
    if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) < 0) _exit(1);
    _exit(0);
  }
  close(go[0]);
  close(ready[1]);
  char c = 0;
  assert_int_equal(read(ready[0], &c, 1), 1);
  close(ready[0]);
  assert_int_equal(c, 1);
  assert_int_equal(crt_mountinfo_read_pid(child, &mi, &err), 0);
  int found = 0;
  for (size_t i = 0; i < mi.n; i++) found += !strcmp(mi.v[i].target, dir) && !strcmp(mi.v[i].fstype, "tmpfs");
  crt_mountinfo_free(&mi);
  assert_int_equal(found, 1);
  close(go[1]);
  assert_int_equal(waitpid(child, NULL, 0), child);
  assert_int_equal(crt_mountinfo_read_pid(child, &mi, &err), -1);
  char want[64];
  snprintf(want, sizeof want, "/proc/%d/mountinfo", (int)child);
  assert_non_null(strstr(err->msg, want));
  crt_err_free(&err);
  rmdir(dir);
}

/* The mount id of "/" is in our table; one past the largest is not. */
static void test_mountinfo_has_id(void **state) {
  struct statx sx;
  assert_int_equal(statx(AT_FDCWD, "/", 0, STATX_MNT_ID, &sx), 0);
  if (!(sx.stx_mask & STATX_MNT_ID)) skip();
  assert_true(crt_mountinfo_has_id(sx.stx_mnt_id));
  char *raw = NULL;
  crt_err *err = NULL;
  assert_int_equal(crt_read_file("/proc/self/mountinfo", 1 << 24, &raw, NULL, &err), 0);
  unsigned long long max = 0;
  for (char *l = raw; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
    if (strtoull(l, NULL, 10) > max) max = strtoull(l, NULL, 10);
  free(raw);
  assert_false(crt_mountinfo_has_id(max + 1));
}

/* The hand-written mountinfo parser on lines proc(5) allows: optional
 * fields or none, octal escapes in root, target and super options, a
 * filter by type and mount point; lines it cannot read (no " - ", too few
 * fields) are skipped, not fatal. */
static void test_mountinfo_parse_lines(void **state) {
  static char text[] =
      "22 1 0:20 / /sys rw,nosuid shared:7 - sysfs sysfs rw\n"
      "30 22 0:25 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:12 master:3 - cgroup cgroup rw,cpu,cpuacct\n"
      "31 22 0:26 /kubepods /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "32 22 0:27 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd\n"
      "33 1 0:28 /a\\040b /mnt/with\\040space\\011tab rw - tmpfs none rw,size=4k\n"
      "34 1 0:29 / /tmp/cgroup-elsewhere rw - cgroup cgroup rw,pids\n"
      "garbage without the separator\n"
      "35 1 0:30 / /short rw -\n"
      "\n"
      "36 1 0:31 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw";
  FILE *f = fmemopen(text, strlen(text), "r");
  assert_non_null(f);
  crt_mountinfo mi;
  crt_err *err = NULL;
  assert_int_equal(crt_mountinfo_parse(f, NULL, NULL, &mi, &err), 0);
  assert_int_equal(mi.n, 7);
  assert_string_equal(mi.v[0].optional, "shared:7");
  assert_string_equal(mi.v[1].target, "/sys/fs/cgroup/cpu,cpuacct");
  assert_string_equal(mi.v[1].fs_opts, "rw,cpu,cpuacct");
  assert_true(crt_mountinfo_has_tag(&mi.v[1], "master") && crt_mountinfo_has_tag(&mi.v[1], "shared"));
  assert_string_equal(mi.v[2].root, "/kubepods");
  assert_string_equal(mi.v[2].optional, "");
  assert_string_equal(mi.v[4].root, "/a b");
  assert_string_equal(mi.v[4].target, "/mnt/with space\ttab");
  assert_string_equal(mi.v[4].fstype, "tmpfs");
  assert_string_equal(mi.v[6].fstype, "cgroup2");
  crt_mountinfo_free(&mi);
  rewind(f);
  assert_int_equal(crt_mountinfo_parse(f, "cgroup", "/sys/fs/cgroup/", &mi, &err), 0);
  assert_int_equal(mi.n, 3);
  assert_string_equal(mi.v[0].target, "/sys/fs/cgroup/cpu,cpuacct");
  assert_string_equal(mi.v[1].target, "/sys/fs/cgroup/memory");
  assert_string_equal(mi.v[2].fs_opts, "rw,xattr,name=systemd");
  crt_mountinfo_free(&mi);
  fclose(f);
}

/* What crt_cgroup_has_pid concludes from the full reader's lines: path
 * itself or a cgroup below it. */
static int under_by_full_reader(const char *path) {
  crt_proc_cgroup *v = NULL;
  size_t n = 0;
  crt_err *err = NULL;
  assert_int_equal(crt_proc_cgroup_read(getpid(), &v, &n, &err), 0);
  size_t len = strlen(path);
  int found = 0;
  for (size_t i = 0; i < n && !found; i++)
    found = strncmp(v[i].path, path, len) == 0 && (v[i].path[len] == 0 || v[i].path[len] == '/');
  crt_proc_cgroup_free(v, n);
  return found;
}

/* The one-read membership check agrees with the full reader on every path
 * of the file, each cut by a character (a sibling's prefix, not a parent),
 * each parent, and a cgroup nobody is in; it cannot tell without a path or
 * a live pid. */
static void test_proc_cgroup_under(void **state) {
  crt_proc_cgroup *v = NULL;
  size_t n = 0;
  crt_err *err = NULL;
  assert_int_equal(crt_proc_cgroup_read(getpid(), &v, &n, &err), 0);
  assert_true(n > 0);
  for (size_t i = 0; i < n; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s", v[i].path);
    assert_int_equal(crt_proc_cgroup_under(getpid(), p), 1);
    while (strlen(p) > 1) {
      p[strlen(p) - 1] = 0;
      assert_int_equal(crt_proc_cgroup_under(getpid(), p), under_by_full_reader(p));
    }
  }
  crt_proc_cgroup_free(v, n);
  assert_int_equal(crt_proc_cgroup_under(getpid(), "/crt-unit-no-such-cgroup"), 0);
  assert_int_equal(crt_proc_cgroup_under(getpid(), ""), -1);
  assert_int_equal(crt_proc_cgroup_under(getpid(), NULL), -1);
  assert_int_equal(crt_proc_cgroup_under(0, "/"), -1);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) _exit(0);
  assert_int_equal(waitpid(child, NULL, 0), child);
  assert_int_equal(crt_proc_cgroup_under(child, "/"), -1); /* gone: reaped */
}

/* cpuset.cpus or cpuset.mems of a new v1 cpuset cgroup: its parent's. */
static void copy_cpuset_file(const char *from, const char *to, const char *name) {
  char a[PATH_MAX], b[PATH_MAX], *v = NULL;
  crt_err *err = NULL;
  snprintf(a, sizeof a, "%s/%s", from, name);
  snprintf(b, sizeof b, "%s/%s", to, name);
  assert_int_equal(crt_read_file(a, 1 << 16, &v, NULL, &err), 0);
  assert_int_equal(crt_write_file(b, v, strlen(v), 0644, &err), 0);
  free(v);
}

/* A child in a v1 cpuset cgroup "/crt-unit-cs-PID/sub": that path and its
 * parent prove membership (the full reader agrees), a sibling's prefix,
 * another cgroup, "/" and no path do not. */
static void test_proc_cpuset_under(void **state) {
  const char *h = "/sys/fs/cgroup/cpuset";
  struct stat st;
  if (geteuid() != 0 || stat(h, &st) < 0) skip(); /* only v1 has its own cpuset hierarchy */
  char top[PATH_MAX], sub[PATH_MAX], rel[128], relsub[160], procs[PATH_MAX + 16];
  snprintf(rel, sizeof rel, "/crt-unit-cs-%d", (int)getpid());
  snprintf(relsub, sizeof relsub, "%s/sub", rel);
  snprintf(top, sizeof top, "%s%s", h, rel);
  snprintf(sub, sizeof sub, "%s%s", h, relsub);
  assert_int_equal(mkdir(top, 0755), 0);
  assert_int_equal(mkdir(sub, 0755), 0);
  copy_cpuset_file(h, top, "cpuset.cpus");
  copy_cpuset_file(h, top, "cpuset.mems");
  copy_cpuset_file(top, sub, "cpuset.cpus");
  copy_cpuset_file(top, sub, "cpuset.mems");
  int go[2];
  assert_int_equal(pipe(go), 0);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    char c;
    close(go[1]);
    _exit(read(go[0], &c, 1) < 0);
  }
  close(go[0]);
  char pid[32];
  snprintf(pid, sizeof pid, "%d", (int)child);
  snprintf(procs, sizeof procs, "%s/cgroup.procs", sub);
  crt_err *err = NULL;
  assert_int_equal(crt_write_file(procs, pid, strlen(pid), 0644, &err), 0);
  assert_int_equal(crt_proc_cpuset_under(child, relsub), 1);
  assert_int_equal(crt_proc_cpuset_under(child, rel), 1);
  char prefix[160];
  snprintf(prefix, sizeof prefix, "%.*s", (int)strlen(rel) - 1, rel); /* "/crt-unit-cs-12" of "-123" */
  assert_int_equal(crt_proc_cpuset_under(child, prefix), 0);
  assert_int_equal(crt_proc_cpuset_under(child, "/crt-unit-no-such-cgroup"), 0);
  assert_int_equal(crt_proc_cpuset_under(child, "/"), -1);
  assert_int_equal(crt_proc_cpuset_under(child, ""), -1);
  assert_int_equal(crt_proc_cpuset_under(child, NULL), -1);
  assert_int_equal(crt_proc_cpuset_under(0, rel), -1);
  assert_int_equal(crt_proc_cgroup_under(child, relsub), 1); /* what the shortcut stands for */
  close(go[1]);
  assert_int_equal(waitpid(child, NULL, 0), child);
  assert_int_equal(crt_proc_cpuset_under(child, rel), -1); /* reaped */
  assert_int_equal(rmdir(sub), 0);
  assert_int_equal(rmdir(top), 0);
}

/* --pid-file's writer (src/util/fs.c): the decimal pid and nothing else,
 * mode 0644 (less the umask), replacing what was there; a missing directory is an error. */
static void test_write_pid_file(void **state) {
  char dir[] = "/tmp/crt-pid-file.XXXXXX", path[PATH_MAX], *got = NULL;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/pid", dir);
  crt_err *err = NULL;
  assert_int_equal(crt_write_file(path, "999999 old", 10, 0600, &err), 0);
  assert_int_equal(crt_write_pid_file(path, 4242, &err), 0);
  assert_int_equal(crt_read_file(path, 64, &got, NULL, &err), 0);
  assert_string_equal(got, "4242");
  free(got);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  mode_t mask = umask(0);
  umask(mask);
  assert_int_equal(st.st_mode & 07777, 0644 & ~mask);
  unlink(path);
  rmdir(dir);
  assert_int_equal(crt_write_pid_file(path, 1, &err), -1);
  assert_non_null(err);
  crt_err_free(&err);
}

/* One read: the whole file when it fits, len - 1 bytes when it may go on,
 * -1 with errno when it cannot be read. */
static void test_read_small(void **state) {
  char dir[] = "/tmp/crt-read-small.XXXXXX", path[PATH_MAX], buf[8];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/f", dir);
  crt_err *err = NULL;
  assert_int_equal(crt_write_file(path, "12345", 5, 0600, &err), 0);
  assert_int_equal(crt_read_small(path, buf, sizeof buf), 5);
  assert_string_equal(buf, "12345");
  assert_int_equal(crt_write_file(path, "1234567890", 10, 0600, &err), 0);
  assert_int_equal(crt_read_small(path, buf, sizeof buf), (ssize_t)sizeof buf - 1);
  assert_string_equal(buf, "1234567");
  assert_int_equal(crt_read_small(dir, buf, sizeof buf), -1);
  assert_int_equal(errno, EISDIR);
  unlink(path);
  assert_int_equal(crt_read_small(path, buf, sizeof buf), -1);
  assert_int_equal(errno, ENOENT);
  rmdir(dir);
}

/* An anchored path is opened relative to the directory as it was opened:
 * a rename after crt_anchor_dir does not change what it names; the
 * longest anchor wins; a path only sharing the prefix is not under it;
 * after crt_anchors_drop paths resolve from the root again. */
static void test_anchored_paths(void **state) {
  char d[] = "/tmp/crt-anchor.XXXXXX", p[PATH_MAX + 64], q[PATH_MAX + 64];
  assert_non_null(mkdtemp(d));
  crt_err *err = NULL;
  snprintf(p, sizeof p, "%s/a", d);
  assert_int_equal(mkdir(p, 0700), 0);
  snprintf(p, sizeof p, "%s/a/f", d);
  assert_int_equal(crt_write_file(p, "x", 1, 0600, &err), 0);
  snprintf(p, sizeof p, "%sx", d); /* a sibling sharing the prefix */
  assert_int_equal(mkdir(p, 0700), 0);
  snprintf(p, sizeof p, "%sx/f", d);
  assert_int_equal(crt_write_file(p, "y", 1, 0600, &err), 0);

  snprintf(p, sizeof p, "%s/", d);
  crt_anchor_dir(p);
  snprintf(p, sizeof p, "%s/a", d);
  crt_anchor_dir(p);
  /* d/a moves to d/b, then d to d.moved: only the anchors still name them */
  snprintf(p, sizeof p, "%s/a", d);
  snprintf(q, sizeof q, "%s/b", d);
  assert_int_equal(rename(p, q), 0);
  snprintf(q, sizeof q, "%s.moved", d);
  assert_int_equal(rename(d, q), 0);

  char buf[8];
  struct stat st;
  snprintf(p, sizeof p, "%s/a/f", d);
  int fd = crt_anchored_open(p, O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  assert_int_equal(read(fd, buf, sizeof buf), 1);
  assert_int_equal(buf[0], 'x');
  close(fd);
  assert_int_equal(crt_anchored_stat(p, &st), 0);
  snprintf(p, sizeof p, "%s/b/f", d); /* under d: d/b */
  assert_int_equal(crt_anchored_stat(p, &st), 0);
  snprintf(p, sizeof p, "%s//b//f", d); /* doubled slashes: still under the anchor d */
  assert_int_equal(crt_anchored_stat(p, &st), 0);
  snprintf(p, sizeof p, "%sx/f", d);
  fd = crt_anchored_open(p, O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  assert_int_equal(read(fd, buf, sizeof buf), 1);
  assert_int_equal(buf[0], 'y');
  close(fd);

  crt_anchors_drop();
  snprintf(p, sizeof p, "%s/a/f", d);
  assert_int_equal(crt_anchored_stat(p, &st), -1);
  assert_int_equal(errno, ENOENT);

  snprintf(p, sizeof p, "%s.moved/b/f", d);
  unlink(p);
  snprintf(p, sizeof p, "%s.moved/b", d);
  rmdir(p);
  snprintf(p, sizeof p, "%s.moved", d);
  rmdir(p);
  snprintf(p, sizeof p, "%sx/f", d);
  unlink(p);
  snprintf(p, sizeof p, "%sx", d);
  rmdir(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_proc_cgroup_lines),
      cmocka_unit_test(test_proc_cgroup_under),
      cmocka_unit_test(test_proc_cpuset_under),
      cmocka_unit_test(test_read_small),
      cmocka_unit_test(test_write_pid_file),
      cmocka_unit_test(test_anchored_paths),
      cmocka_unit_test(test_mountinfo_unescapes_paths),
      cmocka_unit_test(test_mountinfo_parse_lines),
      cmocka_unit_test(test_mountinfo_read_pid),
      cmocka_unit_test(test_mountinfo_has_id),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
