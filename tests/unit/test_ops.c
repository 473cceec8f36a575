#define _GNU_SOURCE
/* The status table (include/crt/ops.h): which status allows which
 * operation, and runc's refusal for the others, each CRT_ERR_BAD_STATE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "crt/ops.h"

static void refused(enum crt_op op, enum crt_status st, const char *msg) {
  crt_state s = {.id = "c1", .pid = 0};
  crt_err *err = NULL;
  assert_false(crt_op_allowed(op, st));
  assert_int_equal(crt_op_check(&s, op, st, &err), -1);
  assert_non_null(err);
  assert_int_equal(err->kind, CRT_ERR_BAD_STATE);
  assert_string_equal(err->msg, msg);
  crt_err_free(&err);
}

static void allowed(enum crt_op op, enum crt_status st) {
  crt_state s = {.id = "c1"};
  crt_err *err = NULL;
  assert_true(crt_op_allowed(op, st));
  assert_int_equal(crt_op_check(&s, op, st, &err), 0);
  assert_null(err);
}

static void test_messages(void **state) {
  (void)state;
  refused(CRT_OP_START, CRT_STATUS_STOPPED, "cannot start a container that has stopped");
  refused(CRT_OP_START, CRT_STATUS_CREATING, "cannot start a container that is still being created");
  refused(CRT_OP_START, CRT_STATUS_RUNNING, "cannot start an already running container");
  refused(CRT_OP_START, CRT_STATUS_PAUSED, "cannot start an already running container");
  refused(CRT_OP_PAUSE, CRT_STATUS_PAUSED, "container not running");
  refused(CRT_OP_PAUSE, CRT_STATUS_STOPPED, "container not running");
  refused(CRT_OP_RESUME, CRT_STATUS_RUNNING, "container not paused");
  refused(CRT_OP_UPDATE, CRT_STATUS_STOPPED, "container not running");
  refused(CRT_OP_EVENTS, CRT_STATUS_STOPPED, "container with id c1 is not running");
  refused(CRT_OP_KILL, CRT_STATUS_STOPPED, "container not running");
  refused(CRT_OP_DELETE, CRT_STATUS_RUNNING, "cannot delete container c1 that is not stopped: running");
  refused(CRT_OP_DELETE, CRT_STATUS_PAUSED, "cannot delete container c1 that is not stopped: paused");
  refused(CRT_OP_EXEC, CRT_STATUS_PAUSED, "cannot exec in a paused container (use --ignore-paused to override)");
  refused(CRT_OP_EXEC, CRT_STATUS_CREATING, "cannot exec in a container that is being created");
  refused(CRT_OP_EXEC, CRT_STATUS_STOPPED, "cannot exec in a stopped container");
  refused(CRT_OP_CHECKPOINT, CRT_STATUS_CREATED, "container is not running (created)");
  refused(CRT_OP_CHECKPOINT, CRT_STATUS_STOPPED, "container is not running (stopped)");
}

static void test_allowed(void **state) {
  (void)state;
  allowed(CRT_OP_START, CRT_STATUS_CREATED);
  allowed(CRT_OP_PAUSE, CRT_STATUS_CREATED);
  allowed(CRT_OP_PAUSE, CRT_STATUS_RUNNING);
  allowed(CRT_OP_RESUME, CRT_STATUS_PAUSED);
  allowed(CRT_OP_UPDATE, CRT_STATUS_PAUSED);
  allowed(CRT_OP_KILL, CRT_STATUS_PAUSED);
  allowed(CRT_OP_DELETE, CRT_STATUS_CREATED);
  allowed(CRT_OP_DELETE, CRT_STATUS_STOPPED);
  allowed(CRT_OP_EXEC, CRT_STATUS_CREATED);
  allowed(CRT_OP_CHECKPOINT, CRT_STATUS_PAUSED);
  for (int st = CRT_STATUS_CREATING; st <= CRT_STATUS_STOPPED; st++) allowed(CRT_OP_PS, (enum crt_status)st);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_messages), cmocka_unit_test(test_allowed)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
