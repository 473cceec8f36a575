#define _GNU_SOURCE
/* crt-stub (src/stub/crt-stub.c) through its runtime side
 * (src/linux/exec_stub.c): each exec happens in a forked child. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "crt/exec_stub.h"
#include "crt/fs.h"

/* Runs crt_stub_exec in a child with stdout and the error fd on pipes;
 * returns the exit status, out/errout get what came back. */
static int run_stub(const char *exe, char *const *argv, char *const *envp, char *out, size_t outlen, char *errout,
                    size_t errlen) {
  int po[2], pe[2];
  assert_int_equal(pipe2(po, O_CLOEXEC), 0);
  assert_int_equal(pipe2(pe, O_CLOEXEC), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(po[1], 1);
    crt_err *err = NULL;
    int stub = crt_stub_open(&err);
    if (stub < 0) _exit(90);
    crt_stub_args a = {.stub = stub, .fifo = -1, .hold = -1, .errfd = pe[1], .exit_code = 42,
                       .exe = exe, .argv = argv, .envp = envp};
    crt_stub_exec(&a, &err);
    _exit(91);
  }
  close(po[1]);
  close(pe[1]);
  ssize_t n = read(po[0], out, outlen - 1);
  out[n > 0 ? n : 0] = 0;
  n = read(pe[0], errout, errlen - 1);
  errout[n > 0 ? n : 0] = 0;
  close(po[0]);
  close(pe[0]);
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  return WEXITSTATUS(st);
}

/* The user program gets exactly its argv and env: no _CRT_STUB. */
static void test_execs_with_the_users_argv_and_env(void **state) {
  (void)state;
  char *argv[] = {"sh", "-c", "echo \"$0|$1|$FOO|$(env | grep -c _CRT_STUB)\"", "zero", "one", NULL};
  char *envp[] = {"FOO=bar", "PATH=/bin:/usr/bin", NULL};
  char out[256], err[256];
  assert_int_equal(run_stub("/bin/sh", argv, envp, out, sizeof out, err, sizeof err), 0);
  assert_string_equal(out, "zero|one|bar|0\n");
  assert_string_equal(err, ""); /* the error fd was closed at execve */
}

/* A failed execve comes back as a record, with the caller's exit code. */
static void test_failure_record(void **state) {
  (void)state;
  char *argv[] = {"nope", NULL};
  char *envp[] = {NULL};
  char out[64], err[256];
  assert_int_equal(run_stub("/nonexistent/nope", argv, envp, out, sizeof out, err, sizeof err), 42);
  assert_string_equal(err, "\1" "2:exec /nonexistent/nope");
  char *m = crt_stub_message(err);
  assert_non_null(m);
  assert_string_equal(m, "unable to start container process: exec /nonexistent/nope: no such file or directory");
  free(m);
}

static void test_message_only_for_records(void **state) {
  (void)state;
  assert_null(crt_stub_message("unable to start container process: plain text"));
  assert_null(crt_stub_message("\1abc:x"));
  assert_null(crt_stub_message("\1" "13"));
  assert_null(crt_stub_message(""));
  char *m = crt_stub_message("\1" "13:loading the seccomp filter");
  assert_string_equal(m, "unable to start container process: loading the seccomp filter: permission denied");
  free(m);
}

/* Run without its parameters (a "#!/proc/self/exe" payload) it refuses. */
static void test_refuses_to_run_bare(void **state) {
  (void)state;
  crt_err *err = NULL;
  int stub = crt_stub_open(&err);
  assert_true(stub >= 0);
  int seals = fcntl(stub, F_GET_SEALS);
  int want = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
  assert_int_equal(seals & want, want);
  assert_true(write(stub, "x", 1) < 0 && errno == EPERM);
  int pe[2];
  assert_int_equal(pipe2(pe, O_CLOEXEC), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pe[1], 2);
    char *argv[] = {"/proc/self/exe", "/evil", NULL};
    char *envp[] = {"PATH=/bin", NULL};
    fexecve(stub, argv, envp);
    _exit(91);
  }
  close(pe[1]);
  char buf[128] = {0};
  ssize_t n = read(pe[0], buf, sizeof buf - 1);
  assert_true(n > 0);
  assert_string_equal(buf, "crt-stub: part of crt, not a program to run\n");
  int st;
  waitpid(pid, &st, 0);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 127);
  close(pe[0]);
  close(stub);
}

static void test_usable(void **state) {
  (void)state;
  crt_process p = {0};
  assert_true(crt_stub_usable(NULL, &p, false));
  assert_true(crt_stub_usable(NULL, NULL, false));
  p.apparmor_profile = "";
  assert_true(crt_stub_usable(NULL, &p, false));
  p.apparmor_profile = "docker-default";
  assert_false(crt_stub_usable(NULL, &p, false));
  p.apparmor_profile = NULL;
  p.selinux_label = "system_u:system_r:container_t:s0";
  assert_false(crt_stub_usable(NULL, &p, false));
  p.selinux_label = NULL;
  assert_false(crt_stub_usable(NULL, &p, true)); /* startContainer hooks */
}

/* A filter crt loads before the stub (no noNewPrivileges) must let the
 * stub's execveat through; with noNewPrivileges the stub loads it. */
static void test_usable_with_seccomp(void **state) {
  (void)state;
  char *allow_names[] = {"execve", "execveat", "read"};
  char *execve_only[] = {"execve", "read"};
  crt_seccomp_syscall rule = {.names = {.v = allow_names, .len = 3}, .action = "SCMP_ACT_ALLOW"};
  crt_seccomp sc = {.default_action = "SCMP_ACT_ERRNO", .syscalls = &rule, .n_syscalls = 1};
  crt_process p = {.no_new_privileges = false};
  assert_true(crt_seccomp_allows(&sc, "execveat"));
  assert_true(crt_stub_usable(&sc, &p, false));
  rule.names = (crt_strv){.v = execve_only, .len = 2};
  assert_false(crt_seccomp_allows(&sc, "execveat"));
  assert_false(crt_stub_usable(&sc, &p, false));
  p.no_new_privileges = true; /* loaded by the stub, after its own exec */
  assert_true(crt_stub_usable(&sc, &p, false));
  sc.listener_path = "/run/agent.sock"; /* but a notify agent needs crt */
  assert_false(crt_stub_usable(&sc, &p, false));
  sc.listener_path = NULL;
  p.no_new_privileges = false;
  sc.default_action = "SCMP_ACT_ALLOW";
  assert_true(crt_seccomp_allows(&sc, "execveat"));
  rule.names = (crt_strv){.v = allow_names, .len = 3};
  rule.action = "SCMP_ACT_ERRNO";
  assert_false(crt_seccomp_allows(&sc, "execveat"));
  rule.action = "SCMP_ACT_ALLOW";
  crt_seccomp_arg arg = {.index = 0, .value = 1, .op = CRT_OP_EQ};
  rule.args = &arg;
  rule.n_args = 1; /* allowed only for some arguments */
  assert_false(crt_seccomp_allows(&sc, "execveat"));
}

/* execveat refused with EPERM, everything else allowed (x86-64 only: the
 * stub's one built architecture). */
static int refuse_execveat(void) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return -1;
  return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* In a container without procfs at /proc, /proc/self/fd/N is whatever the
 * image put there: when execveat of the stub fails, crt must not exec that
 * path instead (issue 54).  The child gets a private mount namespace with
 * a tmpfs on /proc holding such a file, and a filter refusing execveat. */
static void test_no_exec_through_proc_path(void **state) {
  (void)state;
  int po[2];
  assert_int_equal(pipe2(po, O_CLOEXEC), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(po[1], 1);
    crt_err *err = NULL;
    int stub = crt_stub_open(&err);
    if (stub < 0) _exit(90);
    if (unshare(CLONE_NEWNS) < 0) _exit(errno == EPERM ? 77 : 92);
    char fake[64];
    snprintf(fake, sizeof fake, "/proc/self/fd/%d", stub);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 || mount("tmpfs", "/proc", "tmpfs", 0, NULL) < 0 ||
        mkdir("/proc/self", 0755) < 0 || mkdir("/proc/self/fd", 0755) < 0)
      _exit(93);
    int f = open(fake, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
    if (f < 0 || write(f, "#!/bin/sh\necho hijacked\n", 25) != 25 || close(f) < 0) _exit(94);
    if (refuse_execveat() < 0) _exit(95);
    char *argv[] = {"sh", "-c", "echo user", NULL};
    char *envp[] = {"PATH=/bin:/usr/bin", NULL};
    crt_stub_args a = {.stub = stub, .fifo = -1, .hold = -1, .errfd = -1, .exit_code = 42,
                       .exe = "/bin/sh", .argv = argv, .envp = envp};
    crt_stub_exec(&a, &err);
    _exit(err && err->errnum == EPERM ? 0 : 96);
  }
  close(po[1]);
  char out[256];
  ssize_t n = read(po[0], out, sizeof out - 1);
  out[n > 0 ? n : 0] = 0;
  close(po[0]);
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  if (WEXITSTATUS(st) == 77) skip(); /* no mount namespace for us */
  assert_string_equal(out, "");
  assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_execs_with_the_users_argv_and_env),
      cmocka_unit_test(test_failure_record),
      cmocka_unit_test(test_message_only_for_records),
      cmocka_unit_test(test_refuses_to_run_bare),
      cmocka_unit_test(test_usable),
      cmocka_unit_test(test_usable_with_seccomp),
      cmocka_unit_test(test_no_exec_through_proc_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
