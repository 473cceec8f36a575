/* The rootless rule (include/crt/rootless.h): which uid_map means "a user
 * namespace", and which state root each caller gets. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "crt/error.h"
#include "crt/rootless.h"

static void test_uid_map(void **state) {
  assert_false(crt_uid_map_in_userns("         0          0 4294967295\n"));
  assert_false(crt_uid_map_in_userns("0 0 4294967295"));
  assert_true(crt_uid_map_in_userns("         0       1001          1\n")); /* rootless podman */
  assert_true(crt_uid_map_in_userns("0 0 1\n"));                           /* unshare -r as root */
  assert_true(crt_uid_map_in_userns("0 0 4294967294\n"));
  assert_true(crt_uid_map_in_userns("1000 1000 1\n"));
  assert_true(crt_uid_map_in_userns(""));        /* made, not mapped yet */
  assert_false(crt_uid_map_in_userns("garbage")); /* as runc: unreadable is not one */
}

static const char *root(bool euid0, bool userns, const char *xdg, const char *user) {
  static char buf[256];
  return crt_rootless_state_root(euid0, userns, xdg, user, buf, sizeof buf);
}

static void test_state_root(void **state) {
  /* real root: /run, even with XDG_RUNTIME_DIR=/run/user/0 */
  assert_string_equal(root(true, false, "/run/user/0", "root"), "/run/crt");
  assert_string_equal(root(true, false, "/run/user/0", NULL), "/run/crt");
  /* a non-zero euid, in or out of a user namespace */
  assert_string_equal(root(false, false, "/run/user/1001", "u"), "/run/user/1001/crt");
  assert_string_equal(root(false, true, "/run/user/1001", "root"), "/run/user/1001/crt");
  /* euid 0 in a user namespace: the XDG dir unless USER says root */
  assert_string_equal(root(true, true, "/run/user/1001", NULL), "/run/user/1001/crt");
  assert_string_equal(root(true, true, "/run/user/1001", "alice"), "/run/user/1001/crt");
  assert_string_equal(root(true, true, "/run/user/1001", "root"), "/run/crt");
  /* no XDG_RUNTIME_DIR */
  assert_string_equal(root(false, false, NULL, "u"), "/run/crt");
  assert_string_equal(root(true, true, "", NULL), "/run/crt");
}

/* The hint names what to do, only for permission errors, only rootless. */
static void test_explain(void **state) {
  crt_err *err = NULL;
  crt_error(&err, EPERM, "setrlimit RLIMIT_NOFILE");
  crt_rootless_explain(&err, "rlimit");
  if (crt_rootless()) assert_non_null(strstr(err->msg, "rootless: a hard limit cannot be raised"));
  else assert_string_equal(err->msg, "setrlimit RLIMIT_NOFILE: operation not permitted");
  crt_err_free(&err);
  crt_error(&err, EINVAL, "setrlimit RLIMIT_NOFILE");
  crt_rootless_explain(&err, "rlimit");
  assert_string_equal(err->msg, "setrlimit RLIMIT_NOFILE: invalid argument");
  crt_err_free(&err);
  assert_string_equal(crt_rootless_hint("no such thing", EPERM), "");
}

/* Which limits need a cgroup: none of an empty resources, devices alone. */
static void test_cgroup_demand(void **state) {
  crt_resources r;
  memset(&r, 0, sizeof r);
  assert_null(crt_rootless_cgroup_demand(NULL));
  assert_null(crt_rootless_cgroup_demand(&r));
  crt_device_rule dev = {0};
  r.devices = &dev;
  r.n_devices = 1;
  r.has_memory = true; /* "memory": {} */
  assert_null(crt_rootless_cgroup_demand(&r));
  r.pids.limit = (crt_i64){.set = true, .v = 50};
  assert_string_equal(crt_rootless_cgroup_demand(&r), "pids.limit");
  r.memory.limit = (crt_i64){.set = true, .v = 1 << 26};
  assert_string_equal(crt_rootless_cgroup_demand(&r), "memory.limit");
  memset(&r, 0, sizeof r);
  r.cpu.cpus = "0-1";
  assert_string_equal(crt_rootless_cgroup_demand(&r), "cpu.cpus");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_uid_map), cmocka_unit_test(test_state_root),
                                     cmocka_unit_test(test_explain), cmocka_unit_test(test_cgroup_demand)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
