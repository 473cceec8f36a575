/* crt_seccomp_load_point (src/linux/seccomp.c): where create's init and
 * exec's process load their seccomp filter (issue 30 item 3: a parked
 * init must carry it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "crt/seccomp.h"


#define STRV(...) \
  ((crt_strv){.v = (char *[]){__VA_ARGS__, NULL}, .len = sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)})

static crt_seccomp_syscall mkdir_eperm[] = {{.names = STRV("mkdir", "mkdirat"), .action = "SCMP_ACT_ERRNO"}};
/* a profile that allows only mkdir: the parked init's calls are refused */
static crt_seccomp_syscall only_mkdir[] = {{.names = STRV("mkdir"), .action = "SCMP_ACT_ALLOW"}};
static crt_seccomp_syscall write_with_args[] = {
    {.names = STRV("write"), .action = "SCMP_ACT_ALLOW", .args = (crt_seccomp_arg[]){{.index = 0}}, .n_args = 1}};
static crt_seccomp_syscall openat_errno[] = {{.names = STRV("openat"), .action = "SCMP_ACT_ERRNO"}};
static crt_seccomp_syscall stub_calls[] = {
    {.names = STRV("openat", "close", "write", "execve"), .action = "SCMP_ACT_ALLOW"}};

static const crt_seccomp deny_mkdir = {.default_action = "SCMP_ACT_ALLOW", .syscalls = mkdir_eperm, .n_syscalls = 1};
static const crt_seccomp allow_list_without = {
    .default_action = "SCMP_ACT_ERRNO", .syscalls = only_mkdir, .n_syscalls = 1};
static const crt_seccomp allow_list_with = {
    .default_action = "SCMP_ACT_KILL_PROCESS", .syscalls = stub_calls, .n_syscalls = 1};
static const crt_seccomp conditional_write = {
    .default_action = "SCMP_ACT_ALLOW", .syscalls = write_with_args, .n_syscalls = 1};
static const crt_seccomp no_openat = {.default_action = "SCMP_ACT_LOG", .syscalls = openat_errno, .n_syscalls = 1};
static const crt_seccomp notify = {.default_action = "SCMP_ACT_ALLOW", .listener_path = "/run/agent.sock",
                                   .syscalls = mkdir_eperm, .n_syscalls = 1};

static const crt_process nnp = {.no_new_privileges = true};
static const crt_process no_nnp = {.no_new_privileges = false};

static enum crt_seccomp_point at(const crt_seccomp *s, const crt_process *p, bool parks, bool stub) {
  const char *forbidden = NULL;
  enum crt_seccomp_point r = crt_seccomp_load_point(s, p, parks, stub, &forbidden);
  if (r != CRT_SECCOMP_REFUSED) assert_null(forbidden);
  return r;
}

static void test_no_seccomp(void **state) {
  (void)state;
  for (int parks = 0; parks < 2; parks++)
    for (int stub = 0; stub < 2; stub++) {
      assert_int_equal(at(NULL, &nnp, parks, stub), CRT_SECCOMP_NONE);
      assert_int_equal(at(NULL, &no_nnp, parks, stub), CRT_SECCOMP_NONE);
    }
  /* a config without process: nothing runs */
  assert_int_equal(at(&deny_mkdir, NULL, true, true), CRT_SECCOMP_NONE);
}

/* Without noNewPrivileges: needs CAP_SYS_ADMIN, before setuid, always
 * (even a profile the parked init could not live with: crt itself loads
 * it before READY, as runc). */
static void test_without_nnp_before_user(void **state) {
  (void)state;
  const crt_seccomp *all[] = {&deny_mkdir, &allow_list_without, &notify, &no_openat};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    for (int parks = 0; parks < 2; parks++)
      for (int stub = 0; stub < 2; stub++) assert_int_equal(at(all[i], &no_nnp, parks, stub), CRT_SECCOMP_BEFORE_USER);
}

/* The issue-30 case: NNP, no agent, create.  Before parking: in crt-stub,
 * or by crt after READY when the stub is not used. */
static void test_nnp_create_loads_before_parking(void **state) {
  (void)state;
  assert_int_equal(at(&deny_mkdir, &nnp, true, true), CRT_SECCOMP_STUB);
  assert_int_equal(at(&deny_mkdir, &nnp, true, false), CRT_SECCOMP_BEFORE_PARK);
  assert_int_equal(at(&allow_list_with, &nnp, true, true), CRT_SECCOMP_STUB);
  assert_int_equal(at(&allow_list_with, &nnp, true, false), CRT_SECCOMP_BEFORE_PARK);
}

/* A profile forbidding what the parked init does after loading it is
 * refused, with the call named: never an init parked without its filter. */
static void test_nnp_create_refuses_what_the_init_needs(void **state) {
  (void)state;
  const char *forbidden = NULL;
  assert_int_equal(crt_seccomp_load_point(&allow_list_without, &nnp, true, true, &forbidden), CRT_SECCOMP_REFUSED);
  assert_string_equal(forbidden, "openat");
  forbidden = NULL;
  assert_int_equal(crt_seccomp_load_point(&no_openat, &nnp, true, false, &forbidden), CRT_SECCOMP_REFUSED);
  assert_string_equal(forbidden, "openat");
  forbidden = NULL;
  /* a condition on write may refuse the init's write: refused too */
  assert_int_equal(crt_seccomp_load_point(&conditional_write, &nnp, true, true, &forbidden), CRT_SECCOMP_REFUSED);
  assert_string_equal(forbidden, "write");
  /* forbidden may be NULL */
  assert_int_equal(crt_seccomp_load_point(&no_openat, &nnp, true, true, NULL), CRT_SECCOMP_REFUSED);
}

/* exec does not park: the stub loads it right before execve, or crt after
 * the LSM label; the profile is the user's business. */
static void test_nnp_exec(void **state) {
  (void)state;
  assert_int_equal(at(&deny_mkdir, &nnp, false, true), CRT_SECCOMP_STUB);
  assert_int_equal(at(&deny_mkdir, &nnp, false, false), CRT_SECCOMP_AFTER_USER);
  assert_int_equal(at(&allow_list_without, &nnp, false, true), CRT_SECCOMP_STUB);
  assert_int_equal(at(&no_openat, &nnp, false, false), CRT_SECCOMP_AFTER_USER);
}

/* SCMP_ACT_NOTIFY: crt loads it to hand the fd over; create's init before
 * setuid (its fd reaches the agent before READY), exec's after the label. */
static void test_nnp_notify(void **state) {
  (void)state;
  assert_int_equal(at(&notify, &nnp, true, true), CRT_SECCOMP_BEFORE_USER);
  assert_int_equal(at(&notify, &nnp, true, false), CRT_SECCOMP_BEFORE_USER);
  assert_int_equal(at(&notify, &nnp, false, true), CRT_SECCOMP_AFTER_USER);
  assert_int_equal(at(&notify, &nnp, false, false), CRT_SECCOMP_AFTER_USER);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_seccomp),
      cmocka_unit_test(test_without_nnp_before_user),
      cmocka_unit_test(test_nnp_create_loads_before_parking),
      cmocka_unit_test(test_nnp_create_refuses_what_the_init_needs),
      cmocka_unit_test(test_nnp_exec),
      cmocka_unit_test(test_nnp_notify),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
