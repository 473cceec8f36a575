#define _GNU_SOURCE
/* crt_err (src/util/error.c): messages that echo huge values are cut. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crt/error.h"

static char *repeat(const char *unit, size_t n) {
  size_t u = strlen(unit);
  char *s = malloc(u * n + 1);
  assert_non_null(s);
  for (size_t i = 0; i < n; i++) memcpy(s + i * u, unit, u);
  s[u * n] = 0;
  return s;
}

static void test_short_messages_unchanged(void **state) {
  (void)state;
  crt_err *err = NULL;
  crt_error(&err, 2, "open %s", "/x");
  assert_string_equal(err->msg, "open /x: no such file or directory");
  crt_error_wrap(&err, "create %s", "c1");
  assert_string_equal(err->msg, "create c1: open /x: no such file or directory");
  crt_err_free(&err);
}

/* A 1 MiB value: head and tail survive (the JSON path before it, strerror
 * after it), the middle is replaced by a marker saying how much went. */
static void test_huge_value_cut(void **state) {
  (void)state;
  char *big = repeat("A", 1 << 20);
  crt_err *err = NULL;
  crt_error(&err, 2, "config.json: .process.env[2]: invalid \"%s\"", big);
  assert_true(strlen(err->msg) <= CRT_MSG_MAX + 64);
  assert_true(strncmp(err->msg, "config.json: .process.env[2]: invalid \"AAA", 42) == 0);
  assert_non_null(strstr(err->msg, " bytes cut ...]AAA"));
  size_t len = strlen(err->msg);
  assert_string_equal(err->msg + len - 28, "\": no such file or directory");
  crt_error_wrap(&err, "create %s", big);
  assert_true(strlen(err->msg) <= 2 * CRT_MSG_MAX + 128);
  crt_err_free(&err);
  free(big);
}

/* Cuts never split a UTF-8 sequence: the JSON log must stay valid. */
static void test_cut_keeps_utf8(void **state) {
  (void)state;
  char *big = repeat("\xc3\xa9", 4000); /* é */
  char *m = crt_msg_cut(strdup(big));
  const char *mark = strstr(m, "[... ");
  assert_non_null(mark);
  assert_true((mark - m) % 2 == 0);
  const char *tail = strstr(mark, "...]") + 4;
  assert_true(strlen(tail) % 2 == 0);
  assert_int_equal((unsigned char)tail[0], 0xc3);
  free(m);
  free(big);
  assert_null(crt_msg_cut(NULL));
}

/* The kind is set where the error is made, survives wrapping, and is
 * replaced along with the message when an error is overwritten. */
static void test_kind_set_and_kept(void **state) {
  (void)state;
  crt_err *err = NULL;
  crt_error(&err, 2, "open %s", "/x");
  assert_int_equal(err->kind, CRT_ERR_SYSTEM);
  crt_error_kind(&err, CRT_ERR_NO_STATE, 2, "container \"%s\" has no state yet", "c1");
  assert_int_equal(err->kind, CRT_ERR_NO_STATE);
  assert_int_equal(err->errnum, 2);
  assert_string_equal(err->msg, "container \"c1\" has no state yet: no such file or directory");
  crt_error_wrap(&err, "delete %s", "c1");
  assert_int_equal(err->kind, CRT_ERR_NO_STATE);
  assert_string_equal(err->msg, "delete c1: container \"c1\" has no state yet: no such file or directory");
  crt_error_kind(&err, CRT_ERR_NOT_FOUND, 0, "container does not exist");
  assert_int_equal(err->kind, CRT_ERR_NOT_FOUND);
  assert_int_equal(err->errnum, 0);
  assert_string_equal(err->msg, "container does not exist");
  crt_error(&err, 0, "other");
  assert_int_equal(err->kind, CRT_ERR_SYSTEM);
  crt_err_free(&err);
  assert_int_equal(crt_error_kind(NULL, CRT_ERR_EXISTS, 0, "x"), -1);
}

/* crt_err_move frees what *err held (unit-asan's leak check sees a leak
 * otherwise), hands the local error on and clears it. */
static void test_move_frees_the_old_error(void **state) {
  crt_err *err = NULL, *local = NULL;
  crt_error(&err, 0, "old");
  crt_error(&local, EBUSY, "new");
  assert_int_equal(crt_err_move(&err, &local), -1);
  assert_null(local);
  assert_int_equal(err->errnum, EBUSY);
  assert_non_null(strstr(err->msg, "new"));
  crt_error(&local, 0, "dropped");
  assert_int_equal(crt_err_move(NULL, &local), -1);
  assert_null(local);
  crt_err_free(&err);
}

/* Go's syscall table (runc's words), not glibc's: clients match on them. */
static void test_errno_text_is_go(void **state) {
  (void)state;
  assert_string_equal(crt_strerror(ENOENT), "no such file or directory");
  assert_string_equal(crt_strerror(EPERM), "operation not permitted");
  assert_string_equal(crt_strerror(EBUSY), "device or resource busy");
  assert_string_equal(crt_strerror(EEXIST), "file exists");
  assert_string_equal(crt_strerror(EINVAL), "invalid argument");
  assert_string_equal(crt_strerror(EACCES), "permission denied");
  assert_string_equal(crt_strerror(ENOEXEC), "exec format error");
  assert_string_equal(crt_strerror(EISDIR), "is a directory");
  /* where Go's text is not glibc's lowered */
  assert_string_equal(crt_strerror(ESTALE), "stale NFS file handle");
  assert_string_equal(crt_strerror(EDOTDOT), "RFS specific error");
  assert_string_equal(crt_strerror(EREMOTEIO), "remote I/O error");
  assert_string_equal(crt_strerror(ERFKILL), "operation not possible due to RF-kill");
  /* no text in Go's table: its "errno N" */
  assert_string_equal(crt_strerror(41), "errno 41");
  assert_string_equal(crt_strerror(0), "errno 0");
  assert_string_equal(crt_strerror(133), "errno 133");
  assert_string_equal(crt_strerror(-3), "errno -3");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_short_messages_unchanged),
      cmocka_unit_test(test_huge_value_cut),
      cmocka_unit_test(test_cut_keeps_utf8),
      cmocka_unit_test(test_kind_set_and_kept),
      cmocka_unit_test(test_move_frees_the_old_error),
      cmocka_unit_test(test_errno_text_is_go),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
