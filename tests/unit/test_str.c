/* crt_fmt, crt_pathf and crt_parse_long: a cut or a bad number is an error. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "crt/str.h"

static void test_fmt(void **state) {
  char b[8];
  assert_int_equal(crt_fmt(b, sizeof b, "%s/%d", "ab", 42), 5);
  assert_string_equal(b, "ab/42");
  assert_int_equal(crt_fmt(b, sizeof b, "%s", "1234567"), 7);
  errno = 0;
  assert_int_equal(crt_fmt(b, sizeof b, "%s", "12345678"), -1);
  assert_int_equal(errno, ENAMETOOLONG);
}

static void test_pathf(void **state) {
  char b[8];
  crt_err *err = NULL;
  assert_int_equal(crt_pathf(b, sizeof b, &err, "/%s", "run"), 4);
  assert_null(err);
  assert_int_equal(crt_pathf(b, sizeof b, &err, "/%s/state.json", "run"), -1);
  assert_non_null(err);
  assert_int_equal(err->errnum, ENAMETOOLONG);
  assert_non_null(strstr(err->msg, "path too long: /run/st..."));
  crt_err_free(&err);
}

static void test_go_text(void **state) {
  (void)state;
  char b[32], small[4];
  assert_string_equal(crt_go_text(b, sizeof b, "Operation not permitted"), "operation not permitted");
  assert_string_equal(crt_go_text(b, sizeof b, "bad system call"), "bad system call");
  assert_string_equal(crt_go_text(b, sizeof b, ""), "");
  assert_string_equal(crt_go_text(small, sizeof small, "Broken pipe"), "bro");
  assert_string_equal(crt_go_text(b, 0, "X"), "");
}

static void test_parse_long(void **state) {
  long v = 7;
  assert_int_equal(crt_parse_long("123", 0, 1000, &v), 0);
  assert_int_equal(v, 123);
  assert_int_equal(crt_parse_long("123\n", 0, 1000, &v), 0);
  assert_int_equal(crt_parse_long("-5", -10, 10, &v), 0);
  assert_int_equal(v, -5);
  static const char *bad[] = {"", "x", "12x", " 12", "+1", "-1", "1\n\n", "12 ", NULL};
  for (int i = 0; bad[i]; i++) {
    errno = 0;
    assert_int_equal(crt_parse_long(bad[i], 0, 1000, &v), -1);
    assert_int_equal(errno, EINVAL);
  }
  assert_int_equal(crt_parse_long("1001", 0, 1000, &v), -1);
  assert_int_equal(errno, ERANGE);
  assert_int_equal(crt_parse_long("0", 1, INT_MAX, &v), -1);
  assert_int_equal(errno, ERANGE);
  assert_int_equal(crt_parse_long("99999999999999999999", 0, LONG_MAX, &v), -1);
  assert_int_equal(errno, ERANGE);
  assert_int_equal(v, -5);
  assert_int_equal(crt_parse_long(NULL, 0, 1, &v), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fmt),
      cmocka_unit_test(test_pathf),
      cmocka_unit_test(test_parse_long),
      cmocka_unit_test(test_go_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
