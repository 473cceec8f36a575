/* src/linux/procfs.c: the one way crt writes under /proc.  Paths are
 * checked, symlinks refused, and a mount over a procfs file either cannot
 * be seen (crt's own procfs, the clone of /proc) or is refused (/proc
 * itself): never written through.  Needs root (skipped otherwise). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <seccomp.h>

#include "crt/fs.h"
#include "crt/procfs.h"
#include "../../src/linux/test_hooks.h"

static bool root(void) {
  if (geteuid() == 0) return true;
  fprintf(stderr, "not root: skipped\n");
  return false;
}

static const struct {
  bool fsmount, clone;
  enum crt_procfs_kind kind;
} kinds[] = {
    {true, true, CRT_PROCFS_FSMOUNT},
    {false, true, CRT_PROCFS_CLONE},
    {false, false, CRT_PROCFS_PLAIN},
};

static void expect_error(int rc, crt_err **e, int errnum, const char *needle) {
  assert_int_equal(rc, -1);
  assert_non_null(*e);
  if (errnum) assert_int_equal((*e)->errnum, errnum);
  if (!strstr((*e)->msg, needle)) fail_msg("'%s' does not contain '%s'", (*e)->msg, needle);
  crt_err_free(e);
}

static void test_paths_beneath_proc_only(void **state) {
  crt_err *e = NULL;
  expect_error(crt_procfs_open(CRT_PROCFS_ROOT, 0, "../etc/passwd", O_RDONLY, &e), &e, EINVAL, "not a path beneath");
  expect_error(crt_procfs_open(CRT_PROCFS_ROOT, 0, "/etc/passwd", O_RDONLY, &e), &e, EINVAL, "not a path beneath");
  expect_error(crt_procfs_open(CRT_PROCFS_ROOT, 0, "sys/../../etc", O_RDONLY, &e), &e, EINVAL, "not a path beneath");
  expect_error(crt_procfs_open(CRT_PROCFS_ROOT, 0, "", O_RDONLY, &e), &e, EINVAL, "not a path beneath");
}

/* "self" is a symlink: through the root it is refused, as base SELF it
 * is read (our pid) and the rest looked up without it. */
static void test_symlinks_refused(void **state) {
  if (!root()) return;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    crt_procfs_test_allow(kinds[k].fsmount, kinds[k].clone);
    crt_err *e = NULL;
    expect_error(crt_procfs_open(CRT_PROCFS_ROOT, 0, "self/oom_score_adj", O_RDONLY, &e), &e, ELOOP, "a symlink");
    int fd = crt_procfs_open(CRT_PROCFS_SELF, 0, "oom_score_adj", O_RDONLY, &e);
    if (fd < 0) fail_msg("kind %zu: %s", k, e->msg);
    close(fd);
  }
  crt_procfs_test_allow(true, true);
}

static void test_handle_kinds_write(void **state) {
  if (!root()) return;
  char *cur = NULL;
  crt_err *e = NULL;
  assert_int_equal(crt_read_file("/proc/self/oom_score_adj", 64, &cur, NULL, &e), 0);
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    crt_procfs_test_allow(kinds[k].fsmount, kinds[k].clone);
    if (crt_procfs_prepare(&e) < 0) fail_msg("prepare: %s", e->msg);
    assert_int_equal(crt_procfs_kind(), kinds[k].kind);
    if (crt_procfs_write(CRT_PROCFS_SELF, 0, "oom_score_adj", cur, strlen(cur), &e) < 0) fail_msg("%s", e->msg);
    if (crt_procfs_write(CRT_PROCFS_PID, getpid(), "oom_score_adj", cur, strlen(cur), &e) < 0)
      fail_msg("%s", e->msg);
    crt_procfs_close();
    assert_int_equal(crt_procfs_kind(), CRT_PROCFS_NONE);
  }
  crt_procfs_test_allow(true, true);
  free(cur);
}

/* In a child with its own mount and UTS namespaces: a file of ours bound
 * over /proc/sys/kernel/hostname and over our oom_score_adj.  Returns
 * the failed step (0: all as expected). */
static int overmount_child(const char *decoy) {
  char p[64];
  crt_err *e = NULL;
  if (unshare(CLONE_NEWNS | CLONE_NEWUTS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) return 1;
  snprintf(p, sizeof p, "/proc/%d/oom_score_adj", (int)getpid());
  if (mount(decoy, "/proc/sys/kernel/hostname", NULL, MS_BIND, NULL) < 0 || mount(decoy, p, NULL, MS_BIND, NULL) < 0)
    return 2;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    crt_procfs_test_allow(kinds[k].fsmount, kinds[k].clone);
    int rh = crt_procfs_write(CRT_PROCFS_ROOT, 0, "sys/kernel/hostname", "crt-procfs-t", 12, &e);
    int eh = rh < 0 ? e->errnum : 0;
    crt_err_free(&e);
    int ro = crt_procfs_write(CRT_PROCFS_SELF, 0, "oom_score_adj", "0", 1, &e);
    int eo = ro < 0 ? e->errnum : 0;
    crt_err_free(&e);
    char host[64] = "";
    gethostname(host, sizeof host);
    if (kinds[k].kind == CRT_PROCFS_PLAIN) {
      /* /proc itself: the overmounts are seen and refused */
      if (rh == 0 || eh != EXDEV || ro == 0 || eo != EXDEV) return 10 + (int)k;
    } else if (rh < 0 || ro < 0 || strcmp(host, "crt-procfs-t")) {
      return 20 + (int)k; /* crt's handle: the real files, written */
    }
  }
  char *now = NULL;
  if (crt_read_file(decoy, 64, &now, NULL, &e) < 0 || strcmp(now, "decoy\n")) return 3;
  free(now);
  return 0;
}

static void test_overmounts_never_written(void **state) {
  if (!root()) return;
  char decoy[] = "/tmp/crt-procfs-decoy.XXXXXX";
  int fd = mkstemp(decoy);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "decoy\n", 6), 6);
  close(fd);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(overmount_child(decoy));
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  char *now = NULL;
  crt_err *e = NULL;
  assert_int_equal(crt_read_file(decoy, 64, &now, NULL, &e), 0);
  unlink(decoy);
  assert_string_equal(now, "decoy\n");
  free(now);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

/* A seccomp profile older than openat2 refuses it with EPERM: through
 * crt's own handle (nothing mounted below its root) a walk refusing
 * symlinks does the lookup; through /proc itself it is refused, as an
 * overmount could not be told. */
static int no_openat2_child(void) {
  crt_err *e = NULL;
  crt_procfs_test_allow(true, true);
  if (crt_procfs_prepare(&e) < 0) return 1;
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(openat2), 0) < 0 || seccomp_load(ctx) < 0) return 2;
  seccomp_release(ctx);
  if (crt_procfs_write(CRT_PROCFS_SELF, 0, "oom_score_adj", "0", 1, &e) < 0) return 3;
  int r = crt_procfs_open(CRT_PROCFS_ROOT, 0, "self/oom_score_adj", O_RDONLY, &e);
  if (r >= 0 || e->errnum != ELOOP) return 4; /* the walk refuses symlinks too */
  crt_err_free(&e);
  crt_procfs_close();
  crt_procfs_test_allow(false, false);
  r = crt_procfs_open(CRT_PROCFS_SELF, 0, "oom_score_adj", O_WRONLY, &e);
  if (r >= 0 || e->errnum != EPERM) return 5;
  crt_err_free(&e);
  return 0;
}

static void test_without_openat2(void **state) {
  if (!root()) return;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(no_openat2_child());
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

/* reopen: the file an O_PATH fd holds, with new flags. */
static void test_reopen(void **state) {
  crt_err *e = NULL;
  int path = open("/dev/null", O_PATH | O_CLOEXEC);
  assert_true(path >= 0);
  int fd = crt_procfs_reopen(path, O_WRONLY, &e);
  if (fd < 0) fail_msg("%s", e->msg);
  assert_int_equal(write(fd, "x", 1), 1);
  close(fd);
  close(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_paths_beneath_proc_only), cmocka_unit_test(test_symlinks_refused),
      cmocka_unit_test(test_handle_kinds_write),      cmocka_unit_test(test_overmounts_never_written),
      cmocka_unit_test(test_without_openat2),         cmocka_unit_test(test_reopen),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
