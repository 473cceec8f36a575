/* crt_parse_id_list: the one parser of "0-3,7" CPU and node lists. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "crt/idlist.h"

#define BITS 256
#define WORDS (BITS / (8 * sizeof(unsigned long)))

static bool has(const unsigned long *m, unsigned i) { return m[i / (8 * sizeof *m)] >> (i % (8 * sizeof *m)) & 1; }

static void test_accepts(void **state) {
  unsigned long m[WORDS];
  crt_err *err = NULL;
  assert_int_equal(crt_parse_id_list("0-3,7", m, BITS, &err), 0);
  for (unsigned i = 0; i < BITS; i++) assert_int_equal(has(m, i), i <= 3 || i == 7);
  assert_int_equal(crt_parse_id_list("255", m, BITS, &err), 0);
  assert_true(has(m, 255) && !has(m, 0));
  assert_int_equal(crt_parse_id_list("5-5,1", m, BITS, &err), 0);
  assert_true(has(m, 5) && has(m, 1) && !has(m, 4));
  assert_null(err);
}

static void test_refuses(void **state) {
  static const struct {
    const char *in, *msg;
  } bad[] = {
      {"", "empty list"},
      {"a", "\"a\": not a list like 0-3,7"},
      {"1,,2", "\"1,,2\": not a list like 0-3,7"},
      {"1,", "\"1,\": not a list like 0-3,7"},
      {",1", "\",1\": not a list like 0-3,7"},
      {"-1", "\"-1\": not a list like 0-3,7"},
      {"+1", "\"+1\": not a list like 0-3,7"},
      {" 1", "\" 1\": not a list like 0-3,7"},
      {"1 ", "\"1 \": not a list like 0-3,7"},
      {"3-1", "\"3-1\": bad range"},
      {"1-", "\"1-\": bad range"},
      {"1--2", "\"1--2\": bad range"},
      {"1-+2", "\"1-+2\": bad range"},
      {"0-256", "\"0-256\": 256 is out of range (at most 255)"},
      {"99999999999999999999999", "\"99999999999999999999999\": not a list like 0-3,7"},
  };
  unsigned long m[WORDS];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    crt_err *err = NULL;
    print_message("%s\n", bad[i].in);
    assert_int_equal(crt_parse_id_list(bad[i].in, m, BITS, &err), -1);
    assert_string_equal(err->msg, bad[i].msg);
    crt_err_free(&err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_accepts), cmocka_unit_test(test_refuses)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
