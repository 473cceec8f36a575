/* The spec model's coverage: a config.json with every field of the
 * runtime-spec (v1.3) Linux config set to a non-default value
 * (tests/unit/data/config-max.json) survives parse -> generate -> parse.
 * A field the parser, the model or the generator does not carry shows up
 * here by its JSON path (the parser ignores keys it does not know), so a
 * new field needs this fixture too.  Values are non-zero and booleans true:
 * like runc's omitempty, the generator leaves out false flags and the
 * zeros the model has no "set" bit for (scheduler.priority, seccomp
 * valueTwo), which mean the same as absent. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "crt/fs.h"
#include "crt/spec.h"

static char *fixture(void) {
  char here[] = __FILE__;
  char path[4096];
  snprintf(path, sizeof path, "%s/data/config-max.json", dirname(here));
  char *buf = NULL;
  crt_err *err = NULL;
  if (crt_read_file(path, 1 << 20, &buf, NULL, &err) < 0) fail_msg("%s", err->msg);
  return buf;
}

static yajl_val tree(const char *json) {
  char e[256];
  yajl_val v = yajl_tree_parse(json, e, sizeof e);
  if (!v) fail_msg("not JSON: %s", e);
  return v;
}

typedef struct {
  char text[4096];
  int n;
} diffs;

static void note(diffs *d, const char *path, const char *what) {
  if (d->n++ < 20)
    snprintf(d->text + strlen(d->text), sizeof d->text - strlen(d->text), "\n  %s: %s", path, what);
}

static yajl_val member(yajl_val o, const char *k) {
  for (size_t i = 0; i < o->u.object.len; i++)
    if (strcmp(o->u.object.keys[i], k) == 0) return o->u.object.values[i];
  return NULL;
}

static void compare(yajl_val a, yajl_val b, const char *path, diffs *d);

static void compare_objects(yajl_val a, yajl_val b, const char *path, diffs *d) {
  char sub[1024];
  for (size_t i = 0; i < a->u.object.len; i++) {
    snprintf(sub, sizeof sub, "%s.%s", path, a->u.object.keys[i]);
    yajl_val bv = member(b, a->u.object.keys[i]);
    if (!bv) note(d, sub, "lost");
    else compare(a->u.object.values[i], bv, sub, d);
  }
  for (size_t i = 0; i < b->u.object.len; i++)
    if (!member(a, b->u.object.keys[i])) {
      snprintf(sub, sizeof sub, "%s.%s", path, b->u.object.keys[i]);
      note(d, sub, "added");
    }
}

/* Structural equality; numbers by their text, key order ignored. */
static void compare(yajl_val a, yajl_val b, const char *path, diffs *d) {
  if (a->type != b->type) return note(d, path, "type differs");
  char sub[1024];
  switch (a->type) {
  case yajl_t_object:
    return compare_objects(a, b, path, d);
  case yajl_t_array:
    if (a->u.array.len != b->u.array.len) return note(d, path, "length differs");
    for (size_t i = 0; i < a->u.array.len; i++) {
      snprintf(sub, sizeof sub, "%s[%zu]", path, i);
      compare(a->u.array.values[i], b->u.array.values[i], sub, d);
    }
    return;
  case yajl_t_string:
    if (strcmp(a->u.string, b->u.string)) note(d, path, "string differs");
    return;
  case yajl_t_number:
    if (strcmp(a->u.number.r, b->u.number.r)) note(d, path, "number differs");
    return;
  default:
    return; /* true, false, null: the type says it */
  }
}

static char *round_trip(const char *json) {
  crt_spec *s = NULL;
  crt_err *err = NULL;
  if (crt_spec_parse(json, strlen(json), "config.json", &s, &err) < 0) fail_msg("parse: %s", err->msg);
  char *out = crt_spec_to_json(s, false);
  crt_spec_free(s);
  assert_non_null(out);
  return out;
}

static void test_every_field_survives(void **state) {
  char *in = fixture();
  char *gen = round_trip(in);
  yajl_val a = tree(in), b = tree(gen);
  diffs d = {"", 0};
  compare(a, b, "$", &d);
  if (d.n) fail_msg("%d field(s) changed by parse -> generate:%s", d.n, d.text);
  /* and the generated config is a fixed point */
  char *again = round_trip(gen);
  assert_string_equal(gen, again);
  yajl_tree_free(a);
  yajl_tree_free(b);
  free(again);
  free(gen);
  free(in);
}

/* The check itself: a field dropped from the generated JSON is reported. */
static void test_a_lost_field_is_reported(void **state) {
  yajl_val a = tree("{\"linux\":{\"mountLabel\":\"x\",\"sysctl\":{\"a\":\"1\"}}}");
  yajl_val b = tree("{\"linux\":{\"sysctl\":{\"a\":\"2\"}}}");
  diffs d = {"", 0};
  compare(a, b, "$", &d);
  assert_int_equal(d.n, 2);
  assert_non_null(strstr(d.text, "$.linux.mountLabel: lost"));
  assert_non_null(strstr(d.text, "$.linux.sysctl.a: string differs"));
  yajl_tree_free(a);
  yajl_tree_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_field_survives),
      cmocka_unit_test(test_a_lost_field_is_reported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
