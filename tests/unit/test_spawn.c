/* crt_spawn: output collected, exit status and exec failure worded, no
 * fd of crt in the program. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "crt/spawn.h"

static void test_stdout_collected(void **state) {
  char *argv[] = {"sh", "-c", "echo one; echo two; echo noise >&2", NULL};
  char *out = NULL;
  crt_err *err = NULL;
  assert_int_equal(crt_spawn(argv, &(crt_spawn_opts){.out = &out, .out_max = 1024}, &err), 0);
  assert_null(err);
  assert_string_equal(out, "one\ntwo\n");
  free(out);
  char *quiet[] = {"true", NULL};
  assert_int_equal(crt_spawn(quiet, &(crt_spawn_opts){.out = &out, .out_max = 1024}, &err), 0);
  assert_string_equal(out, "");
  free(out);
}

static void test_status_has_stderr(void **state) {
  char *argv[] = {"sh", "-c", "echo 'sh: first' >&2; echo; echo 'second line'; exit 3", NULL};
  crt_err *err = NULL;
  assert_int_equal(crt_spawn(argv, &(crt_spawn_opts){0}, &err), -1);
  /* without out, stdout goes with stderr; lines joined */
  assert_string_equal(err->msg, "sh: exited with status 3: sh: first second line");
  crt_err_free(&err);
  char *out = NULL;
  assert_int_equal(crt_spawn(argv, &(crt_spawn_opts){.name = "the tool", .out = &out, .out_max = 64}, &err), -1);
  assert_string_equal(err->msg, "the tool: exited with status 3: sh: first");
  assert_null(out);
  crt_err_free(&err);
  char *silent[] = {"false", NULL};
  assert_int_equal(crt_spawn(silent, &(crt_spawn_opts){0}, &err), -1);
  assert_string_equal(err->msg, "false: exited with status 1");
  crt_err_free(&err);
  char *killed[] = {"sh", "-c", "kill -9 $$", NULL};
  assert_int_equal(crt_spawn(killed, &(crt_spawn_opts){0}, &err), -1);
  assert_string_equal(err->msg, "sh: killed by signal 9");
  crt_err_free(&err);
}

static void test_exec_failure(void **state) {
  char *argv[] = {"/nonexistent/tool", NULL};
  crt_err *err = NULL;
  assert_int_equal(crt_spawn(argv, &(crt_spawn_opts){0}, &err), -1);
  assert_int_equal(err->errnum, ENOENT);
  assert_string_equal(err->msg, "exec /nonexistent/tool: no such file or directory");
  crt_err_free(&err);
  assert_int_equal(crt_spawn(argv, &(crt_spawn_opts){.name = "tool check"}, &err), -1);
  assert_string_equal(err->msg, "tool check: exec /nonexistent/tool: no such file or directory");
  crt_err_free(&err);
}

static void test_output_bounded(void **state) {
  char *argv[] = {"sh", "-c", "head -c 100000 /dev/zero; head -c 100000 /dev/zero >&2", NULL};
  char *out = NULL;
  crt_err *err = NULL;
  assert_int_equal(crt_spawn(argv, &(crt_spawn_opts){.out = &out, .out_max = 4096}, &err), -1);
  assert_int_equal(err->errnum, E2BIG);
  assert_non_null(strstr(err->msg, "sh: more than 4096 bytes of output"));
  assert_null(out);
  crt_err_free(&err);
}

/* Neither a plain fd nor an O_CLOEXEC one reaches the program; its stdin
 * is /dev/null, and a blocked or ignored signal is not passed on. */
static void test_child_state(void **state) {
  int plain = open("/dev/null", O_RDONLY);
  int cloexec = open("/dev/null", O_RDONLY | O_CLOEXEC);
  assert_true(plain > 2 && cloexec > 2);
  char script[256];
  snprintf(script, sizeof script,
           "[ -e /proc/self/fd/%d ] && echo leak %d; [ -e /proc/self/fd/%d ] && echo leak %d; "
           "readlink /proc/self/fd/0; grep SigBlk /proc/self/status; "
           "ign=0x$(sed -n 's/^SigIgn:\\t//p' /proc/self/status); [ $((ign & 0x1000)) = 0 ] && echo SIGPIPE default",
           plain, plain, cloexec, cloexec);
  char *argv[] = {"sh", "-c", script, NULL};
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, &old);
  struct sigaction ign = {.sa_handler = SIG_IGN}, oldpipe;
  sigaction(SIGPIPE, &ign, &oldpipe);
  char *out = NULL;
  crt_err *err = NULL;
  assert_int_equal(crt_spawn(argv, &(crt_spawn_opts){.out = &out, .out_max = 4096}, &err), 0);
  sigprocmask(SIG_SETMASK, &old, NULL);
  sigaction(SIGPIPE, &oldpipe, NULL);
  assert_string_equal(out, "/dev/null\nSigBlk:\t0000000000000000\nSIGPIPE default\n");
  free(out);
  close(plain);
  close(cloexec);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stdout_collected), cmocka_unit_test(test_status_has_stderr),
      cmocka_unit_test(test_exec_failure),     cmocka_unit_test(test_output_bounded),
      cmocka_unit_test(test_child_state),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
