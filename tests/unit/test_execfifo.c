#define _GNU_SOURCE
/* The exec FIFO (src/container/execfifo.c), both ends in one test: a
 * child parks on it as the init does, the test releases and awaits it as
 * start does.  And the console rules shared by create and exec
 * (src/container/finalize.c). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/container/finalize.h"
#include "crt/state.h"
#include "crt/execfifo.h"

static char dir[] = "/tmp/crt-unit-fifo.XXXXXX";

static int setup(void **state) {
  (void)state;
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char p[sizeof dir + 16];
  snprintf(p, sizeof p, "%s/%s", dir, CRT_FIFO_NAME);
  unlink(p);
  return rmdir(dir);
}

/* A child parked on the FIFO; msg: the failure it reports after it opened
 * (NULL: it "execs", i.e. exits with the write end closed). */
static pid_t park_child(int fd, const char *msg, bool hook_failed) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (crt_exec_fifo_park(fd) < 0) _exit(2);
  if (msg) crt_exec_fifo_fail(fd, msg, hook_failed);
  _exit(0);
}

static void run_one(const char *msg, bool hook_failed, int want_rc) {
  crt_err *err = NULL;
  int path_fd = -1, fd = -1;
  assert_int_equal(crt_exec_fifo_create(dir, &path_fd, &err), 0);
  assert_true(crt_exec_fifo_exists(dir));
  pid_t pid = park_child(path_fd, msg, hook_failed);
  close(path_fd);
  crt_state s = {.pid = pid};
  assert_int_equal(crt_exec_fifo_release(dir, &fd, &err), 0);
  assert_false(crt_exec_fifo_exists(dir)); /* started: no longer "created" */
  bool hf = false;
  assert_int_equal(crt_exec_fifo_await(fd, &s, -1, &hf, &err), want_rc);
  close(fd);
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  if (want_rc == 0) {
    assert_null(err);
    return;
  }
  assert_non_null(err);
  assert_string_equal(err->msg, msg);
  assert_int_equal(hf, hook_failed);
  crt_err_free(&err);
}

static void test_exec_reads_eof(void **state) {
  (void)state;
  run_one(NULL, false, 0);
}

static void test_failure_reaches_start(void **state) {
  (void)state;
  run_one("unable to start container process: exec /x: no such file or directory", false, -1);
}

static void test_hook_failure_is_marked(void **state) {
  (void)state;
  run_one("startContainer hook failed", true, -1);
}

static void test_create_twice_fails(void **state) {
  (void)state;
  crt_err *err = NULL;
  int a = -1, b = -1;
  assert_int_equal(crt_exec_fifo_create(dir, &a, &err), 0);
  assert_int_equal(crt_exec_fifo_create(dir, &b, &err), -1);
  assert_non_null(strstr(err->msg, "mkfifo"));
  crt_err_free(&err);
  close(a);
  char p[sizeof dir + 16];
  snprintf(p, sizeof p, "%s/%s", dir, CRT_FIFO_NAME);
  assert_int_equal(unlink(p), 0);
}

/* Issue 30 item 4: someone else opens the FIFO (a process in the
 * container, through /proc/1/fd) and the init execs its program.  The
 * container is then not "created" any more (crt_exec_fifo_waiting, what
 * crt_state_status asks), and start says it already runs. */
static void test_opened_elsewhere(void **state) {
  (void)state;
  crt_err *err = NULL;
  int path_fd = -1, fd = -1;
  char fifo[sizeof dir + 16];
  snprintf(fifo, sizeof fifo, "%s/%s", dir, CRT_FIFO_NAME);
  assert_int_equal(crt_exec_fifo_create(dir, &path_fd, &err), 0);
  int go[2];
  assert_int_equal(pipe(go), 0);
  pid_t pid = fork();
  if (pid == 0) {
    char c;
    close(go[1]);
    if (read(go[0], &c, 1) != 1) _exit(2); /* until its exe is noted */
    if (crt_exec_fifo_park(path_fd) < 0) _exit(2);
    execl("/bin/sleep", "sleep", "5", (char *)NULL);
    _exit(3);
  }
  close(go[0]);
  close(path_fd);
  char *parked_id = NULL;
  assert_int_equal(crt_exec_fifo_parked_id(pid, &parked_id, &err), 0);
  assert_non_null(parked_id);
  assert_true(crt_exec_fifo_waiting(dir, pid, parked_id));
  /* another exe than the one noted: it exec'd; no record: the FIFO alone tells */
  assert_false(crt_exec_fifo_waiting(dir, pid, "0 0"));
  assert_true(crt_exec_fifo_waiting(dir, pid, NULL));
  assert_int_equal(write(go[1], "x", 1), 1);
  close(go[1]);
  int other = open(fifo, O_RDONLY | O_CLOEXEC); /* the intruder's open */
  assert_true(other >= 0);
  char buf[8192], last = 0;
  ssize_t n;
  while ((n = read(other, buf, sizeof buf)) > 0) last = buf[n - 1]; /* the fill, then the child's byte */
  assert_int_equal(n, 0); /* EOF: the child exec'd */
  assert_int_equal(last, CRT_FIFO_OPENED[0]);
  close(other);
  assert_true(crt_exec_fifo_exists(dir));
  assert_false(crt_exec_fifo_waiting(dir, pid, parked_id)); /* running, not created */
  crt_state s = {.pid = pid, .dir = dir, .parked_exe = parked_id};
  assert_int_equal(crt_exec_fifo_release(dir, &fd, &err), 0);
  bool hf = false;
  assert_int_equal(crt_exec_fifo_await(fd, &s, -1, &hf, &err), -1);
  assert_int_equal(err->kind, CRT_ERR_BAD_STATE);
  assert_non_null(strstr(err->msg, "cannot start an already running container"));
  crt_err_free(&err);
  close(fd);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  free(parked_id);
}

/* Issue 57 bug 5: start took the init's byte, the init's exe changed, and
 * the FIFO's write end is still open: the kernel closes it only late in
 * execve, and a throttled init (a tiny CPU quota) can wait there for CPU.
 * The holder stands in for that window: a copy of the write end kept open
 * a while after the init exec'd.  start released this init itself: it
 * started, not "from elsewhere". */
static void test_slow_execve_is_started(void **state) {
  (void)state;
  crt_err *err = NULL;
  int path_fd = -1, fd = -1;
  assert_int_equal(crt_exec_fifo_create(dir, &path_fd, &err), 0);
  int go[2];
  assert_int_equal(pipe(go), 0);
  pid_t pid = fork();
  if (pid == 0) {
    char c;
    close(go[1]);
    if (read(go[0], &c, 1) != 1) _exit(2); /* until its exe is noted */
    if (crt_exec_fifo_park(path_fd) < 0) _exit(2);
    if (fork() == 0) { /* the write end outlives the execve by a second */
      sleep(1);
      _exit(0);
    }
    execl("/bin/sleep", "sleep", "5", (char *)NULL);
    _exit(3);
  }
  close(go[0]);
  close(path_fd);
  char *parked_id = NULL;
  assert_int_equal(crt_exec_fifo_parked_id(pid, &parked_id, &err), 0);
  assert_non_null(parked_id);
  assert_int_equal(write(go[1], "x", 1), 1);
  close(go[1]);
  crt_state s = {.pid = pid, .dir = dir, .parked_exe = parked_id};
  assert_int_equal(crt_exec_fifo_release(dir, &fd, &err), 0);
  bool hf = false;
  int rc = crt_exec_fifo_await(fd, &s, -1, &hf, &err);
  if (err) fprintf(stderr, "await: %s\n", err->msg);
  assert_int_equal(rc, 0);
  assert_null(err);
  close(fd);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  free(parked_id);
}

static void test_console_rules(void **state) {
  (void)state;
  crt_err *err = NULL;
  int console, ours;
  assert_int_equal(crt_console_open(false, NULL, true, &console, &ours, &err), 0);
  assert_int_equal(console, -1);
  assert_int_equal(ours, -1);
  assert_int_equal(crt_console_open(false, "/x.sock", true, &console, &ours, &err), -1);
  assert_string_equal(err->msg, "cannot use console socket if runc will not detach or allocate tty");
  crt_err_free(&err);
  assert_int_equal(crt_console_open(true, NULL, true, &console, &ours, &err), -1);
  assert_string_equal(err->msg, "cannot allocate tty if runc will detach without setting console socket");
  crt_err_free(&err);
  assert_int_equal(crt_console_open(true, "/x.sock", false, &console, &ours, &err), -1);
  assert_string_equal(err->msg, "cannot use console socket if runc will not detach or allocate tty");
  crt_err_free(&err);
  /* foreground: a socketpair, our end gets the master */
  assert_int_equal(crt_console_open(true, NULL, false, &console, &ours, &err), 0);
  assert_true(console >= 0 && ours >= 0);
  close(console);
  close(ours);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exec_reads_eof),
      cmocka_unit_test(test_failure_reaches_start),
      cmocka_unit_test(test_hook_failure_is_marked),
      cmocka_unit_test(test_create_twice_fails),
      cmocka_unit_test(test_opened_elsewhere),
      cmocka_unit_test(test_slow_execve_is_started),
      cmocka_unit_test(test_console_rules),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
