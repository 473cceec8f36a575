#define _GNU_SOURCE
/* The hook runner (src/container/hooks.c) with real hooks (/bin/sh):
 * output larger than any pipe, a hook that closes its output and keeps
 * running (crt must sleep, not spin), timeouts, failures and their
 * messages, a hook killed by SIGSYS, and a state larger than a pipe. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "crt/procinfo.h"
#include "crt/state.h"
#include "crt/hooks.h"

static const char *state_json = "{\"ociVersion\":\"1.3.0\",\"id\":\"unit\",\"status\":\"creating\"}";

/* A hook running `sh -c script`, with a timeout in seconds (0: none). */
static int run_sh(const char *script, long long timeout, const char *state, crt_err **err) {
  char *argv[] = {"sh", "-c", (char *)script, NULL};
  crt_hook h = {.path = "/bin/sh", .args = {.v = argv, .len = 3}, .timeout = {.set = timeout > 0, .v = timeout}};
  crt_hookv hv = {.v = &h, .len = 1};
  return crt_hooks_run_at(&hv, "prestart", NULL, state ? state : state_json, err);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time (user + system) of this process, not of its children. */
static double self_cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* 8 MiB through a 64 KiB pipe: the hook's stdout blocks while crt reads,
 * it never sees EAGAIN (its write end is blocking). */
static void test_large_output(void **state) {
  (void)state;
  crt_err *err = NULL;
  int rc = run_sh("head -c 8388608 /dev/zero || exit 9", 0, NULL, &err);
  if (rc < 0) fail_msg("%s", err->msg);
  /* failing after 8 MiB: the message keeps the tail of the output */
  rc = run_sh("head -c 8388608 /dev/zero | tr '\\0' x || exit 9; echo; echo the-end; exit 4", 0, NULL, &err);
  assert_int_equal(rc, -1);
  assert_non_null(strstr(err->msg, "exit status 4, stdout: "));
  assert_non_null(strstr(err->msg, "xxx\nthe-end\n, stderr: "));
  assert_true(strlen(err->msg) < 8192);
  crt_err_free(&err);
}

/* The hook closes stdout and stderr, then runs on for a second: crt waits
 * on its exit without spinning. */
static void test_closed_output_no_busy_loop(void **state) {
  (void)state;
  crt_err *err = NULL;
  double t0 = now_s(), c0 = self_cpu_s();
  int rc = run_sh("exec >&- 2>&-; sleep 1", 0, NULL, &err);
  if (rc < 0) fail_msg("%s", err->msg);
  double wall = now_s() - t0, cpu = self_cpu_s() - c0;
  assert_true(wall >= 0.9);
  if (cpu > 0.1) fail_msg("crt used %.3f s of CPU while a hook without output slept 1 s", cpu);
  /* the same with a timeout set: waiting on the remaining time, not polling */
  c0 = self_cpu_s();
  rc = run_sh("exec >&- 2>&-; sleep 1", 30, NULL, &err);
  if (rc < 0) fail_msg("%s", err->msg);
  cpu = self_cpu_s() - c0;
  if (cpu > 0.1) fail_msg("crt used %.3f s of CPU (hook with a timeout)", cpu);
}

/* The timeout is time, not loop passes; the hook's children die too. */
static void test_timeout(void **state) {
  (void)state;
  crt_err *err = NULL;
  char pidfile[] = "/tmp/crt-unit-hook.XXXXXX";
  int fd = mkstemp(pidfile);
  assert_true(fd >= 0);
  close(fd);
  char script[256];
  snprintf(script, sizeof script, "sleep 30 & echo $! > %s; exec >&- 2>&-; sleep 30", pidfile);
  double t0 = now_s();
  int rc = run_sh(script, 1, NULL, &err);
  double wall = now_s() - t0;
  assert_int_equal(rc, -1);
  assert_non_null(strstr(err->msg, "error running prestart hook #0: hook ran past specified timeout of 1.0s"));
  assert_true(wall >= 0.9 && wall < 5);
  crt_err_free(&err);
  FILE *f = fopen(pidfile, "r");
  int child = 0;
  assert_non_null(f);
  assert_int_equal(fscanf(f, "%d", &child), 1);
  fclose(f);
  unlink(pidfile);
  /* the background sleep was in the hook's process group: killed (gone,
   * or a zombie until whoever inherited it reaps it) */
  bool zombie = false;
  for (int i = 0; i < 100 && crt_proc_start_time(child, &zombie) && !zombie; i++) usleep(10000);
  assert_true(crt_proc_start_time(child, &zombie) == 0 || zombie);
}

static void test_failure_message(void **state) {
  (void)state;
  crt_err *err = NULL;
  assert_int_equal(run_sh("echo out; echo err >&2; exit 3", 0, NULL, &err), -1);
  assert_string_equal(err->msg, "error running prestart hook #0: exit status 3, stdout: out\n, stderr: err\n");
  crt_err_free(&err);
  /* a hook that cannot be executed says why */
  crt_hook h = {.path = "/nonexistent/hook"};
  crt_hookv hv = {.v = &h, .len = 1};
  assert_int_equal(crt_hooks_run_at(&hv, "createRuntime", NULL, state_json, &err), -1);
  assert_string_equal(err->msg, "error running createRuntime hook #0: fork/exec /nonexistent/hook: no such file or directory");
  crt_err_free(&err);
}

/* runc (Go) names SIGSYS "bad system call"; a seccomp-killed hook says so.
 * Go keeps a name's capitals where its second letter is one too. */
static void test_killed_by_sigsys(void **state) {
  (void)state;
  crt_err *err = NULL;
  assert_int_equal(run_sh("ulimit -c 0; kill -SYS $$", 0, NULL, &err), -1);
  assert_non_null(strstr(err->msg, "error running prestart hook #0: signal: bad system call, stdout: , stderr: "));
  crt_err_free(&err);
  assert_int_equal(run_sh("echo x >&2; kill -IO $$", 0, NULL, &err), -1);
  assert_string_equal(err->msg, "error running prestart hook #0: signal: I/O possible, stdout: , stderr: x\n");
  crt_err_free(&err);
}

/* A state larger than a pipe: a hook reading it gets all of it, one not
 * reading it neither blocks crt nor fails. */
static void test_large_state(void **state) {
  (void)state;
  size_t n = 1 << 20;
  char *big = malloc(n + 1);
  assert_non_null(big);
  memset(big, 'a', n);
  big[n] = 0;
  crt_err *err = NULL;
  assert_int_equal(run_sh("test \"$(wc -c)\" = 1048576 || exit 7", 5, big, &err), 0);
  assert_int_equal(run_sh("exec <&-; sleep 0.2", 5, big, &err), 0);
  double t0 = now_s();
  assert_int_equal(run_sh("sleep 30", 1, big, &err), -1); /* never reads: the timeout still holds */
  assert_true(now_s() - t0 < 5);
  crt_err_free(&err);
  free(big);
}

int main(void) {
  signal(SIGPIPE, SIG_DFL);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_large_output),    cmocka_unit_test(test_closed_output_no_busy_loop),
      cmocka_unit_test(test_timeout),         cmocka_unit_test(test_failure_message),
      cmocka_unit_test(test_killed_by_sigsys), cmocka_unit_test(test_large_state),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
