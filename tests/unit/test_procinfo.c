/* The one reader of /proc/<pid>/cgroup and mountinfo (src/linux/procinfo.c). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_proc_cgroup_lines),
      cmocka_unit_test(test_mountinfo_unescapes_paths),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
