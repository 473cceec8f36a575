#define _GNU_SOURCE
/* The test binary doubles as the program under test: with --helper-* it
 * calls crt_ensure_cloned_binary() like crt's main would and reports on
 * stdout; the cmocka tests spawn it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include "crt/cloned_binary.h"


#define WANT_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

static char self_path[PATH_MAX];
/* Pads this binary to about the size of crt (~300 KB) so that the cost
 * measured below is the one crt pays. */
__attribute__((used)) static const unsigned char pad[256 * 1024] = {1};

static void say(const char *s) {
  if (write(STDOUT_FILENO, s, strlen(s)) < 0) _exit(9);
}

/* Whether this process runs from crt's overlay seal: a read-only overlayfs
 * file (the mount is checked by crt_exe_is_sealed). */
static bool on_overlay(void) {
  struct statfs sf;
  return statfs("/proc/self/exe", &sf) == 0 && sf.f_type == OVERLAYFS_SUPER_MAGIC && (sf.f_flags & ST_RDONLY);
}

/* 0 when this process runs from a sealed, unwritable copy: the memfd or the
 * overlay, as CRT_TEST_WANT (memfd, overlay) says when set. */
static int check_protected(void) {
  const char *want = getenv("CRT_TEST_WANT");
  bool overlay = on_overlay();
  int fd = open("/proc/self/exe", O_WRONLY | O_CLOEXEC);
  if (fd >= 0 || (errno != ETXTBSY && errno != EPERM && !(overlay && errno == EROFS))) {
    say("exe opened for writing\n");
    return -1;
  }
  if (want && strcmp(want, overlay ? "overlay" : "memfd") != 0) {
    say(overlay ? "on the overlay\n" : "not on the overlay\n");
    return -1;
  }
  if (!crt_exe_is_sealed()) {
    say("crt_exe_is_sealed: no\n");
    return -1;
  }
  fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  int seals = fd >= 0 ? fcntl(fd, F_GET_SEALS) : -1;
  if (fd >= 0) close(fd);
  if (!overlay && (seals < 0 || (seals & WANT_SEALS) != WANT_SEALS)) {
    say("not sealed\n");
    return -1;
  }
  char link[PATH_MAX] = {0};
  const char *base = strrchr(self_path, '/');
  if (readlink("/proc/self/exe", link, sizeof link - 1) < 0 ||
      (overlay ? strcmp(link, base) : strncmp(link, "/memfd:crt", 10)) != 0) {
    say("exe is not the memfd or the overlay's file\n");
    return -1;
  }
  if (getenv("_CRT_CLONED_BINARY")) {
    say("marker leaked\n");
    return -1;
  }
  return 0;
}

static int helper(int argc, char **argv) {
  const char *mode = argv[1];
  if (strcmp(mode, "--helper-time") == 0) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ns = now.tv_sec * 1000000000LL + now.tv_nsec;
    const char *t0 = getenv("CRT_TEST_T0");
    if (t0 == NULL) {
      char b[32];
      snprintf(b, sizeof b, "%lld", ns);
      setenv("CRT_TEST_T0", b, 1);
    }
    crt_err *err = NULL;
    if (crt_ensure_cloned_binary(argv, &err) < 0) return 2;
    /* Only the re-executed image gets here (or an already-sealed one). */
    if (t0 == NULL) return 3;
    printf("ns=%lld\n", ns - strtoll(t0, NULL, 10));
    return 0;
  }
  say("start\n");
  int times = strcmp(mode, "--helper-twice") == 0 ? 2 : 1;
  for (int i = 0; i < times; i++) {
    crt_err *err = NULL;
    if (crt_ensure_cloned_binary(argv, &err) < 0) {
      say("error: ");
      say(err->msg);
      say("\n");
      crt_err_free(&err);
      return 2;
    }
  }
  if (check_protected() < 0) return 1;
  say("ok\n");
  if (strcmp(mode, "--helper-wait") == 0) {
    char c;
    while (read(STDIN_FILENO, &c, 1) > 0) {
    }
  }
  return 0;
}

/* ---- the parent side ---- */

struct run {
  pid_t pid;
  int out, in; /* helper's stdout (read end), stdin (write end) */
};

/* How the next spawn runs the helper: expecting which seal, and in a new
 * user namespace (no CAP_SYS_ADMIN over the mount namespace: no overlay). */
static const char *spawn_want;
static bool spawn_userns;

static void spawn(const char *mode, const char *marker, struct run *r) {
  int o[2], i[2];
  assert_int_equal(pipe2(o, O_CLOEXEC), 0);
  assert_int_equal(pipe2(i, O_CLOEXEC), 0);
  fflush(NULL);
  r->pid = fork();
  assert_true(r->pid >= 0);
  if (r->pid == 0) {
    dup2(o[1], STDOUT_FILENO);
    dup2(i[0], STDIN_FILENO);
    if (marker && strcmp(marker, "self") == 0) {
      char me[24];
      snprintf(me, sizeof me, "%d", (int)getpid());
      setenv("_CRT_CLONED_BINARY", me, 1);
    } else if (marker)
      setenv("_CRT_CLONED_BINARY", marker, 1);
    else
      unsetenv("_CRT_CLONED_BINARY");
    if (spawn_want) setenv("CRT_TEST_WANT", spawn_want, 1);
    if (spawn_userns && unshare(CLONE_NEWUSER) < 0) _exit(126);
    execl(self_path, self_path, mode, (char *)NULL);
    _exit(127);
  }
  close(o[1]);
  close(i[0]);
  r->out = o[0];
  r->in = i[1];
}

static int finish(struct run *r, char *buf, size_t len) {
  close(r->in);
  size_t have = 0;
  ssize_t n;
  while (have < len - 1 && (n = read(r->out, buf + have, len - 1 - have)) > 0) have += (size_t)n;
  buf[have] = 0;
  close(r->out);
  int st;
  assert_int_equal(waitpid(r->pid, &st, 0), r->pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void expect_run(const char *mode, const char *marker, int want_rc, const char *want_out) {
  struct run r;
  spawn(mode, marker, &r);
  char buf[1024];
  int rc = finish(&r, buf, sizeof buf);
  assert_string_equal(buf, want_out);
  assert_int_equal(rc, want_rc);
}

static void test_runs_from_sealed_copy(void **state) {
  /* "start" twice: the original run and exactly one re-exec. */
  expect_run("--helper-once", NULL, 0, "start\nstart\nok\n");
}

static void test_calling_twice_does_not_loop(void **state) { expect_run("--helper-twice", NULL, 0, "start\nstart\nok\n"); }

static void test_marker_alone_is_not_trusted(void **state) {
  /* A forged marker does not skip the copy... */
  expect_run("--helper-once", "12345", 0, "start\nstart\nok\n");
  /* ...and one that claims we already re-executed ourselves is refused
   * rather than looping or running unprotected. */
  expect_run("--helper-once", "self", 2,
             "start\nerror: re-executed from a sealed copy of crt, but /proc/self/exe is not sealed\n");
}

/* What the container would try: open /proc/PID/exe of a running crt. */
static void test_other_process_cannot_write_exe(void **state) {
  struct run r;
  spawn("--helper-wait", NULL, &r);
  char buf[64] = {0};
  size_t have = 0;
  while (have < 15 && strstr(buf, "ok\n") == NULL) {
    ssize_t n = read(r.out, buf + have, sizeof buf - 1 - have);
    if (n <= 0) break;
    have += (size_t)n;
  }
  assert_string_equal(buf, "start\nstart\nok\n");
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/exe", (int)r.pid);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  int e = errno;
  if (fd >= 0) close(fd);
  assert_true(fd < 0);
  assert_true(e == ETXTBSY || e == EPERM || e == EROFS);
  fd = open(path, O_RDWR | O_CLOEXEC);
  e = errno;
  if (fd >= 0) close(fd);
  assert_true(fd < 0);
  assert_true(e == ETXTBSY || e == EPERM || e == EROFS);
  /* And it is not the file on disk, or that file only through a read-only
   * overlay (which keeps the inode number and maybe the device). */
  struct stat a, b;
  struct statfs sf;
  assert_int_equal(stat(path, &a), 0);
  assert_int_equal(stat(self_path, &b), 0);
  assert_int_equal(statfs(path, &sf), 0);
  if (sf.f_type == OVERLAYFS_SUPER_MAGIC)
    assert_true(sf.f_flags & ST_RDONLY);
  else
    assert_false(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
  char rest[64];
  assert_int_equal(finish(&r, rest, sizeof rest), 0);
}

/* With CAP_SYS_ADMIN: the overlay seal, no copy. */
static void test_overlay_seal_when_privileged(void **state) {
  if (geteuid() != 0) skip();
  spawn_want = "overlay";
  expect_run("--helper-once", NULL, 0, "start\nstart\nok\n");
  spawn_want = NULL;
}

/* Without it (a user namespace of our own, as rootless): the memfd copy. */
static void test_memfd_fallback_in_userns(void **state) {
  spawn_want = "memfd";
  spawn_userns = true;
  expect_run("--helper-once", NULL, 0, "start\nstart\nok\n");
  spawn_want = NULL;
  spawn_userns = false;
}

/* Cost of the copy + re-exec, measured from inside: the helper stamps the
 * time before the call, and the re-executed image reads it back. */
static double clone_ms(void) {
  struct run r;
  spawn("--helper-time", NULL, &r);
  char buf[256];
  int rc = finish(&r, buf, sizeof buf);
  assert_int_equal(rc, 0);
  const char *t = strstr(buf, "ns=");
  assert_non_null(t);
  return (double)strtoll(t + 3, NULL, 10) / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median_clone_ms(double *best) {
  double v[15];
  for (int i = 0; i < 15; i++) v[i] = clone_ms();
  qsort(v, 15, sizeof v[0], cmp_double);
  *best = v[0];
  return v[7];
}

static void test_cost(void **state) {
  struct stat st;
  assert_int_equal(stat(self_path, &st), 0);
  double best, med = median_clone_ms(&best);
  printf("cloned binary: seal + re-exec of a %lld KB binary (%s): best %.2f ms, median %.2f ms\n",
         (long long)st.st_size / 1024, geteuid() == 0 ? "overlay" : "memfd", best, med);
  /* A loose bound: the point is the printout, not flaking on a busy VM. */
  assert_true(best < 50);
  spawn_userns = true;
  med = median_clone_ms(&best);
  spawn_userns = false;
  printf("cloned binary: the same in a user namespace (memfd copy): best %.2f ms, median %.2f ms\n", best, med);
  assert_true(best < 50);
}

int main(int argc, char **argv) {
  if (argc > 1 && strncmp(argv[1], "--helper-", 9) == 0) {
    snprintf(self_path, sizeof self_path, "%s", argv[0]);
    return helper(argc, argv);
  }
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
  if (n < 0) return 1;
  self_path[n] = 0;
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_runs_from_sealed_copy),
    cmocka_unit_test(test_calling_twice_does_not_loop),
    cmocka_unit_test(test_marker_alone_is_not_trusted),
    cmocka_unit_test(test_other_process_cannot_write_exe),
    cmocka_unit_test(test_overlay_seal_when_privileged),
    cmocka_unit_test(test_memfd_fallback_in_userns),
    cmocka_unit_test(test_cost),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
