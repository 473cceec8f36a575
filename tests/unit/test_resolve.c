#define _GNU_SOURCE
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "crt/fs.h"
#include "crt/resolve.h"

typedef struct {
  char dir[64];
  int rootfd;
  char marker[64]; /* a name that must never appear in the host's "/" */
} tree;

static void mk(const tree *t, const char *rel, bool dir) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s/%s", t->dir, rel);
  if (dir) assert_int_equal(mkdir(p, 0755), 0);
  else {
    int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "inside", 6), 6);
    close(fd);
  }
}

static void ln(const tree *t, const char *target, const char *rel) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s/%s", t->dir, rel);
  assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state, bool openat2) {
  tree *t = calloc(1, sizeof *t);
  snprintf(t->dir, sizeof t->dir, "/tmp/crt-resolve-XXXXXX");
  assert_non_null(mkdtemp(t->dir));
  snprintf(t->marker, sizeof t->marker, "crt-resolve-marker-%d", getpid());
  t->rootfd = open(t->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  assert_true(t->rootfd >= 0);
  mk(t, "etc", true);
  mk(t, "etc/hostname", false);
  mk(t, "d", true);
  ln(t, "/", "toroot");
  ln(t, "../../../../..", "up");
  ln(t, "/etc/hostname", "abs");
  ln(t, "../etc", "d/rel");
  ln(t, "/nonexistent/sub", "dangling");
  ln(t, "loop2", "loop1");
  ln(t, "loop1", "loop2");
  ln(t, "/proc/self/root", "magic");
  crt_resolve_use_openat2(openat2);
  *state = t;
  return 0;
}
static int setup_openat2(void **state) { return setup(state, true); }
static int setup_walk(void **state) { return setup(state, false); }

static int teardown(void **state) {
  tree *t = *state;
  close(t->rootfd);
  assert_int_equal(crt_rm_rf(t->dir), 0);
  char host[PATH_MAX];
  snprintf(host, sizeof host, "/%s", t->marker);
  bool leaked = access(host, F_OK) == 0;
  if (leaked) crt_rm_rf(host);
  free(t);
  crt_resolve_use_openat2(true);
  assert_false(leaked);
  return 0;
}

/* fd and rel (inside the tree) name the same inode. */
static void same(const tree *t, int fd, const char *rel) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s/%s", t->dir, rel);
  struct stat a, b;
  assert_true(fd >= 0);
  assert_int_equal(fstat(fd, &a), 0);
  assert_int_equal(lstat(p, &b), 0);
  assert_int_equal(a.st_ino, b.st_ino);
  assert_int_equal(a.st_dev, b.st_dev);
}

static int open_ok(const tree *t, const char *path, int flags, int create) {
  crt_err *err = NULL;
  int fd = crt_open_in_root(t->rootfd, path, flags, create, &err);
  if (fd < 0) fail_msg("%s: %s", path, err->msg);
  return fd;
}

static void test_plain(void **state) {
  tree *t = *state;
  int fd = open_ok(t, "/etc/hostname", O_RDONLY, CRT_RESOLVE_NONE);
  char buf[16] = {0};
  assert_int_equal(read(fd, buf, sizeof buf - 1), 6);
  assert_string_equal(buf, "inside");
  close(fd);
  fd = open_ok(t, "/", O_PATH, CRT_RESOLVE_NONE);
  same(t, fd, ".");
  close(fd);
}

static void test_symlinks_stay_inside(void **state) {
  tree *t = *state;
  int fd = open_ok(t, "toroot", O_PATH | O_DIRECTORY, CRT_RESOLVE_NONE);
  same(t, fd, ".");
  close(fd);
  fd = open_ok(t, "up", O_PATH | O_DIRECTORY, CRT_RESOLVE_NONE);
  same(t, fd, ".");
  close(fd);
  fd = open_ok(t, "/../../../etc/hostname", O_PATH, CRT_RESOLVE_NONE);
  same(t, fd, "etc/hostname");
  close(fd);
  fd = open_ok(t, "abs", O_PATH, CRT_RESOLVE_NONE);
  same(t, fd, "etc/hostname");
  close(fd);
  fd = open_ok(t, "d/rel/hostname", O_PATH, CRT_RESOLVE_NONE);
  same(t, fd, "etc/hostname");
  close(fd);
  fd = open_ok(t, "up/toroot/up/etc", O_PATH | O_DIRECTORY, CRT_RESOLVE_NONE);
  same(t, fd, "etc");
  close(fd);
}

static void test_nofollow_last(void **state) {
  tree *t = *state;
  int fd = open_ok(t, "toroot", O_PATH | O_NOFOLLOW, CRT_RESOLVE_NONE);
  same(t, fd, "toroot");
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  close(fd);
}

static void test_errors(void **state) {
  tree *t = *state;
  crt_err *err = NULL;
  assert_true(crt_open_in_root(t->rootfd, "loop1", O_PATH, CRT_RESOLVE_NONE, &err) < 0);
  assert_int_equal(err->errnum, ELOOP);
  assert_non_null(strstr(err->msg, "loop1"));
  crt_err_free(&err);
  assert_true(crt_open_in_root(t->rootfd, "missing/x", O_PATH, CRT_RESOLVE_NONE, &err) < 0);
  assert_int_equal(err->errnum, ENOENT);
  crt_err_free(&err);
  assert_true(crt_open_in_root(t->rootfd, "etc/hostname/x", O_PATH, CRT_RESOLVE_NONE, &err) < 0);
  assert_int_equal(err->errnum, ENOTDIR);
  crt_err_free(&err);
  /* /proc/self/root resolved inside the tree does not exist there. */
  assert_true(crt_open_in_root(t->rootfd, "magic/etc", O_PATH, CRT_RESOLVE_NONE, &err) < 0);
  crt_err_free(&err);
}

static void test_create_through_hostile_links(void **state) {
  tree *t = *state;
  char rel[PATH_MAX], want[PATH_MAX];
  snprintf(rel, sizeof rel, "toroot/%s/a/b", t->marker);
  int fd = open_ok(t, rel, O_PATH | O_DIRECTORY, CRT_RESOLVE_MKDIR);
  snprintf(want, sizeof want, "%s/a/b", t->marker);
  same(t, fd, want);
  close(fd);
  snprintf(rel, sizeof rel, "up/../%s/file", t->marker);
  fd = open_ok(t, rel, O_PATH, CRT_RESOLVE_MKFILE);
  snprintf(want, sizeof want, "%s/file", t->marker);
  same(t, fd, want);
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  assert_true(S_ISREG(st.st_mode));
  close(fd);
}

static void test_create_dangling(void **state) {
  tree *t = *state;
  int fd = open_ok(t, "dangling", O_PATH | O_DIRECTORY, CRT_RESOLVE_MKDIR);
  same(t, fd, "nonexistent/sub");
  close(fd);
  fd = open_ok(t, "/new/dir/", O_PATH | O_DIRECTORY, CRT_RESOLVE_MKDIR);
  same(t, fd, "new/dir");
  close(fd);
  /* Existing ones are opened as they are. */
  fd = open_ok(t, "etc", O_PATH | O_DIRECTORY, CRT_RESOLVE_MKDIR);
  same(t, fd, "etc");
  close(fd);
}

#define BOTH(f) cmocka_unit_test_setup_teardown(f, setup_openat2, teardown), \
                cmocka_unit_test_setup_teardown(f, setup_walk, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      BOTH(test_plain),
      BOTH(test_symlinks_stay_inside),
      BOTH(test_nofollow_last),
      BOTH(test_errors),
      BOTH(test_create_through_hostile_links),
      BOTH(test_create_dangling),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
