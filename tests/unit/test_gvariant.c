/* crt_gvariant_parse: the GVariant text of org.systemd.property.*
 * annotations, as runc (godbus's ParseVariant) reads them. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "crt/gvariant.h"

static void parse_ok(const char *in, const char *sig, crt_gvariant *v) {
  crt_err *err = NULL;
  print_message("%s\n", in);
  assert_int_equal(crt_gvariant_parse(in, v, &err), 0);
  assert_null(err);
  char s[3];
  crt_gvariant_signature(v, s);
  assert_string_equal(s, sig);
}

static void test_scalars(void **state) {
  crt_gvariant v;
  parse_ok("uint64 123456789", "t", &v);
  assert_int_equal(v.v[0].u, 123456789);
  crt_gvariant_free(&v);
  parse_ok("  'inactive-or-failed' ", "s", &v);
  assert_string_equal(v.v[0].s, "inactive-or-failed");
  crt_gvariant_free(&v);
  parse_ok("\"it's\\n\"", "s", &v);
  assert_string_equal(v.v[0].s, "it's\n");
  crt_gvariant_free(&v);
  parse_ok("42", "i", &v); /* a bare number is int32, as in GLib */
  assert_int_equal(v.v[0].i, 42);
  crt_gvariant_free(&v);
  parse_ok("@i -5", "i", &v);
  assert_int_equal(v.v[0].i, -5);
  crt_gvariant_free(&v);
  parse_ok("int64 -9223372036854775808", "x", &v);
  assert_true(v.v[0].i == INT64_MIN);
  crt_gvariant_free(&v);
  parse_ok("uint64 0xff", "t", &v);
  assert_int_equal(v.v[0].u, 255);
  crt_gvariant_free(&v);
  parse_ok("true", "b", &v);
  assert_int_equal(v.v[0].u, 1);
  crt_gvariant_free(&v);
  parse_ok("1.5", "d", &v);
  assert_true(v.v[0].d == 1.5);
  crt_gvariant_free(&v);
  parse_ok("objectpath '/a/b'", "o", &v);
  assert_string_equal(v.v[0].s, "/a/b");
  crt_gvariant_free(&v);
}

static void test_arrays(void **state) {
  crt_gvariant v;
  parse_ok("['a.service', 'b.service']", "as", &v);
  assert_int_equal(v.n, 2);
  assert_string_equal(v.v[1].s, "b.service");
  crt_gvariant_free(&v);
  parse_ok("@as []", "as", &v);
  assert_int_equal(v.n, 0);
  crt_gvariant_free(&v);
  parse_ok("[uint64 1, 2]", "at", &v);
  assert_int_equal(v.v[1].u, 2);
  crt_gvariant_free(&v);
  parse_ok("@au [7]", "au", &v);
  assert_int_equal(v.v[0].u, 7);
  crt_gvariant_free(&v);
}

static void test_refuses(void **state) {
  static const struct {
    const char *in, *msg;
  } bad[] = {
      {"uint64 -1", "number out of range for its type at offset 9"},
      {"byte 256", "number out of range for its type at offset 8"},
      {"5000000000", "number out of range for its type at offset 10"},
      {"'open", "unterminated string at offset 5"},
      {"[]", "cannot tell the type of an empty array (write @as []) at offset 2"},
      {"[1, 'a']", "expected an integer at offset 7"},
      {"(1, 2)", "unsupported value (structs, dictionaries and variants are not supported) at offset 0"},
      {"@a{sv} {}", "unsupported type annotation (only basic types and arrays of them) at offset 1"},
      {"1 2", "unexpected text after the value at offset 2"},
      {"", "expected a value at offset 0"},
      {"objectpath 'x'", "an object path starts with / at offset 14"},
      {"uint64 'x'", "expected an integer at offset 10"},
      {"12abc", "malformed number at offset 0"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    crt_err *err = NULL;
    crt_gvariant v;
    print_message("%s\n", bad[i].in);
    assert_int_equal(crt_gvariant_parse(bad[i].in, &v, &err), -1);
    assert_string_equal(err->msg, bad[i].msg);
    assert_null(v.v);
    crt_err_free(&err);
  }
}

static void test_seconds(void **state) {
  crt_gvariant v;
  crt_err *err = NULL;
  parse_ok("30", "i", &v);
  assert_int_equal(crt_gvariant_sec_to_usec(&v, &err), 0);
  assert_int_equal(v.type, 't');
  assert_int_equal(v.v[0].u, 30000000);
  crt_gvariant_free(&v);
  parse_ok("0.25", "d", &v);
  assert_int_equal(crt_gvariant_sec_to_usec(&v, &err), 0);
  assert_int_equal(v.v[0].u, 250000);
  crt_gvariant_free(&v);
  parse_ok("-1", "i", &v);
  assert_int_equal(crt_gvariant_sec_to_usec(&v, &err), -1);
  crt_err_free(&err);
  crt_gvariant_free(&v);
  parse_ok("'x'", "s", &v);
  assert_int_equal(crt_gvariant_sec_to_usec(&v, &err), -1);
  assert_string_equal(err->msg, "a time in seconds must be a number");
  crt_err_free(&err);
  crt_gvariant_free(&v);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_scalars), cmocka_unit_test(test_arrays),
                                     cmocka_unit_test(test_refuses), cmocka_unit_test(test_seconds)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
