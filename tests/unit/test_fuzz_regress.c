/* Replays tests/fuzz/regress/{config,mountopts,state,signal,mountinfo,gvariant}/ (inputs the
 * fuzzers crashed on, plus a seed each so that an empty directory cannot
 * pass) through the harness bodies in tests/fuzz/harness.h, so that `make
 * unit-asan` runs them under ASan/UBSan. */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../fuzz/harness.h"
#include "crt/fs.h"

/* Runs every file of tests/fuzz/regress/<name>/ through fn; returns how many. */
static int replay(const char *name, int (*fn)(const uint8_t *, size_t)) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s", __FILE__);
  char *slash = strrchr(dir, '/');
  assert_non_null(slash);
  snprintf(slash, sizeof dir - (size_t)(slash - dir), "/../fuzz/regress/%s", name);
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *buf = NULL;
    size_t len = 0;
    crt_err *err = NULL;
    if (crt_read_file(path, 1 << 20, &buf, &len, &err) < 0) fail_msg("%s", err->msg);
    print_message("replay %s/%s (%zu bytes)\n", name, e->d_name, len);
    assert_int_equal(fn((const uint8_t *)buf, len), 0);
    free(buf);
    n++;
  }
  closedir(d);
  return n;
}

static void test_regress_config(void **state) { assert_true(replay("config", fuzz_config_one) > 0); }
static void test_regress_mountopts(void **state) { assert_true(replay("mountopts", fuzz_mountopts_one) > 0); }
static void test_regress_state(void **state) { assert_true(replay("state", fuzz_state_one) > 0); }
static void test_regress_signal(void **state) { assert_true(replay("signal", fuzz_signal_one) > 0); }
static void test_regress_mountinfo(void **state) { assert_true(replay("mountinfo", fuzz_mountinfo_one) > 0); }
static void test_regress_gvariant(void **state) { assert_true(replay("gvariant", fuzz_gvariant_one) > 0); }

/* What the signal fuzzer found, spelled out, and runc 1.1's forms: it has
 * no RTMIN/RTMAX names and no aliases, and takes any strconv.Atoi number,
 * 0 included (`kill ID 0`). */
static void test_signal_runc_forms(void **state) {
  assert_int_equal(crt_parse_signal("RTMIN"), -1);
  assert_int_equal(crt_parse_signal("SIGRTMIN+1"), -1);
  assert_int_equal(crt_parse_signal("rtmax-2"), -1);
  /* Used to overflow int (UBSan) or wrap around into the RT range. */
  assert_int_equal(crt_parse_signal("RTMIN+2147483647"), -1);
  assert_int_equal(crt_parse_signal("RTMAX-4294967296"), -1);
  assert_int_equal(crt_parse_signal("IOT"), -1);
  assert_int_equal(crt_parse_signal("POLL"), -1);
  assert_int_equal(crt_parse_signal("IO"), SIGIO);
  assert_int_equal(crt_parse_signal("KILL"), SIGKILL);
  assert_int_equal(crt_parse_signal("sigterm"), SIGTERM);
  assert_int_equal(crt_parse_signal("SigUsr1"), SIGUSR1);
  assert_int_equal(crt_parse_signal("SIGSIGKILL"), -1);
  assert_int_equal(crt_parse_signal("9"), 9);
  assert_int_equal(crt_parse_signal("0"), 0);
  assert_int_equal(crt_parse_signal("+9"), 9);
  assert_int_equal(crt_parse_signal("-0"), 0);
  assert_int_equal(crt_parse_signal("009"), 9);
  assert_int_equal(crt_parse_signal("64"), SIGRTMAX);
  assert_int_equal(crt_parse_signal("65"), -1);
  assert_int_equal(crt_parse_signal("-1"), -1);
  assert_int_equal(crt_parse_signal(" 9"), -1);
  assert_int_equal(crt_parse_signal("+"), -1);
  assert_int_equal(crt_parse_signal("4294967305"), -1);
  assert_int_equal(crt_parse_signal("99999999999999999999999"), -1);
}

static const char state_head[] =
    "{\"id\":\"mycontainer\",\"pid\":1,\"bundle\":\"/b\",\"init_process_start\":2,\"cgroup_path\":\"\",";

/* Found by hand, not by the fuzzer (max_len 64 KiB): a state.json of
 * 500,000 nested arrays crashed `crt state` (yajl_tree_free recursion). */
static void test_state_deep_nesting(void **state) {
  size_t n = 500000, len = sizeof state_head - 1 + 4 + 2 * n + 1;
  char *buf = malloc(len + 1);
  assert_non_null(buf);
  char *p = stpcpy(buf, state_head);
  p = stpcpy(p, "\"a\":");
  memset(p, '[', n);
  memset(p + n, ']', n);
  strcpy(p + 2 * n, "}");
  crt_state *s = NULL;
  crt_err *err = NULL;
  assert_int_equal(crt_state_parse(buf, strlen(buf), "mycontainer", "/d", "/d/state.json", &s, &err), -1);
  assert_string_equal(err->msg, "/d/state.json: corrupt state file (use delete --force)");
  assert_int_equal(err->kind, CRT_ERR_NO_STATE);
  crt_err_free(&err);
  assert_int_equal(fuzz_state_one((const uint8_t *)buf, strlen(buf)), 0);
  /* 64 levels are fine; brackets inside strings do not count. */
  p = stpcpy(buf, state_head);
  p = stpcpy(p, "\"annotations\":{\"k\":\"");
  memset(p, '[', 100);
  p = stpcpy(p + 100, "\"},\"a\":");
  memset(p, '[', 62);
  memset(p + 62, ']', 62);
  strcpy(p + 124, "}");
  assert_int_equal(crt_state_parse(buf, strlen(buf), "mycontainer", "/d", "/d/state.json", &s, &err), 0);
  assert_int_equal(s->annotations.len, 1);
  assert_int_equal(strlen(s->annotations.v[0].value), 100);
  crt_state_free(s);
  free(buf);
}

/* The split of crt_state_load: the buffer need not be NUL-terminated, and
 * parsing stops at a NUL as it did on the file's contents. */
static void test_state_parse(void **state) {
  static const char ok[] = "{\"id\":\"c\",\"pid\":7,\"bundle\":\"/b\",\"init_process_start\":9,"
                           "\"cgroup_path\":\"/cg\",\"ready\":true,\"annotations\":{\"a\":\"b\",\"n\":1}}";
  char *buf = malloc(sizeof ok - 1);
  assert_non_null(buf);
  memcpy(buf, ok, sizeof ok - 1);
  crt_state *s = NULL;
  crt_err *err = NULL;
  assert_int_equal(crt_state_parse(buf, sizeof ok - 1, "c", "/r/c", "/r/c/state.json", &s, &err), 0);
  assert_string_equal(s->id, "c");
  assert_string_equal(s->dir, "/r/c");
  assert_int_equal(s->pid, 7);
  assert_int_equal(s->start_time, 9);
  assert_string_equal(s->cgroup_path, "/cg");
  assert_string_equal(s->rootfs, "");
  assert_true(s->ready);
  assert_false(s->systemd);
  assert_int_equal(s->annotations.len, 2);
  assert_string_equal(s->annotations.v[1].value, "");
  crt_state_free(s);
  free(buf);
  assert_int_equal(crt_state_parse(ok, sizeof ok - 1, "d", "/r/d", "/r/d/state.json", &s, &err), -1);
  assert_string_equal(err->msg, "/r/d/state.json: corrupt state file: .id (use delete --force)");
  crt_err_free(&err);
  static const char nul[] = "{\"id\":\"c\"}\0garbage";
  assert_int_equal(crt_state_parse(nul, sizeof nul - 1, "c", "/r/c", "P", &s, &err), -1);
  assert_string_equal(err->msg, "P: corrupt state file: .pid (use delete --force)");
  assert_int_equal(err->kind, CRT_ERR_NO_STATE);
  crt_err_free(&err);
  /* pids outside pid_t, negative numbers */
  static const struct { const char *json, *msg; } bad[] = {
      {"{\"id\":\"c\",\"pid\":4294967297,\"bundle\":\"/b\",\"init_process_start\":9,\"cgroup_path\":\"\"}",
       "P: corrupt state file: .pid (use delete --force)"},
      {"{\"id\":\"c\",\"pid\":-1,\"bundle\":\"/b\",\"init_process_start\":9,\"cgroup_path\":\"\"}",
       "P: corrupt state file: .pid (use delete --force)"},
      {"{\"id\":\"c\",\"pid\":7,\"bundle\":\"/b\",\"init_process_start\":-9,\"cgroup_path\":\"\"}",
       "P: corrupt state file: .init_process_start (use delete --force)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(crt_state_parse(bad[i].json, strlen(bad[i].json), "c", "/r/c", "P", &s, &err), -1);
    assert_string_equal(err->msg, bad[i].msg);
    crt_err_free(&err);
  }
  assert_int_equal(crt_state_parse("", 0, "c", "/r/c", "P", &s, &err), -1);
  assert_string_equal(err->msg, "P: corrupt state file (use delete --force)");
  crt_err_free(&err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_regress_config),
      cmocka_unit_test(test_regress_mountopts),
      cmocka_unit_test(test_regress_state),
      cmocka_unit_test(test_regress_signal),
      cmocka_unit_test(test_regress_mountinfo),
      cmocka_unit_test(test_regress_gvariant),
      cmocka_unit_test(test_signal_runc_forms),
      cmocka_unit_test(test_state_deep_nesting),
      cmocka_unit_test(test_state_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
