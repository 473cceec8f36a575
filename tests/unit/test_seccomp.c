#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include "crt/seccomp.h"


/* ---- building configs by hand ---- */

#define STRV(...) \
  ((crt_strv){.v = (char *[]){__VA_ARGS__, NULL}, .len = sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)})

static crt_seccomp_syscall rule(crt_strv names, const char *action, int errno_ret) {
  crt_seccomp_syscall sc = {.names = names, .action = (char *)action};
  if (errno_ret >= 0) sc.errno_ret = (crt_u64){true, (uint64_t)errno_ret};
  return sc;
}

static crt_seccomp_arg arg(uint32_t index, enum crt_seccomp_op op, uint64_t v, uint64_t v2) {
  return (crt_seccomp_arg){.index = index, .op = op, .value = v, .value_two = v2};
}

/* Runs fn in a forked child (which loads the filter) and returns the
 * wait status; the child reports through its exit code only. */
static int in_child(int (*fn)(void *), void *data) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    /* SIGSYS dumps core by default: not from a test. */
    prctl(PR_SET_DUMPABLE, 0);
    /* cmocka's handlers would turn the child into a second test runner. */
    const int sigs[] = {SIGSYS, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
    _exit(fn(data));
  }
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  return st;
}

static int load(const crt_seccomp *s) {
  crt_seccomp_filter *f = NULL;
  crt_err *err = NULL;
  if (crt_seccomp_compile(s, &f, &err) < 0) {
    fprintf(stderr, "compile: %s\n", err->msg);
    crt_err_free(&err);
    return -1;
  }
  int fd;
  int r = crt_seccomp_load(f, &fd, &err);
  if (r < 0) {
    fprintf(stderr, "load: %s\n", err->msg);
    crt_err_free(&err);
  }
  crt_seccomp_filter_free(f);
  return r;
}

static void assert_exit0(int st) {
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fprintf(stderr, "child status 0x%x\n", st);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

/* 0 when the raw syscall failed with want_errno (or succeeded when 0). */
static int expect(long r, int want_errno) {
  if (want_errno == 0) return r >= 0 ? 0 : 1;
  return (r == -1 && errno == want_errno) ? 0 : 1;
}

/* ---- actions ---- */

static int child_errno(void *data) {
  crt_seccomp_syscall sys[] = {rule(STRV("getppid"), "SCMP_ACT_ERRNO", 42), rule(STRV("getuid"), "SCMP_ACT_ERRNO", -1)};
  crt_seccomp s = {.default_action = "SCMP_ACT_ALLOW", .syscalls = sys, .n_syscalls = 2};
  if (load(&s) < 0) return 10;
  if (expect(syscall(SYS_getppid), 42)) return 11;
  if (expect(syscall(SYS_getuid), EPERM)) return 12; /* errnoRet defaults to EPERM */
  if (expect(syscall(SYS_getpid), 0)) return 13;
  return 0;
}

static void test_errno_action(void **state) { assert_exit0(in_child(child_errno, NULL)); }

static int child_action(void *data) {
  crt_seccomp_syscall sys[] = {rule(STRV("getppid"), (const char *)data, -1)};
  crt_seccomp s = {.default_action = "SCMP_ACT_ALLOW", .syscalls = sys, .n_syscalls = 1};
  if (load(&s) < 0) return 10;
  long r = syscall(SYS_getppid);
  if (strcmp(data, "SCMP_ACT_TRACE") == 0) return expect(r, ENOSYS); /* no tracer attached */
  if (strcmp(data, "SCMP_ACT_LOG") == 0) return r == getppid() ? 0 : 11;
  return 12; /* the kill/trap actions must not get here */
}

static void test_kill_and_trap_actions(void **state) {
  const char *sigsys[] = {"SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP"};
  for (size_t i = 0; i < sizeof sigsys / sizeof sigsys[0]; i++) {
    int st = in_child(child_action, (void *)sigsys[i]);
    if (!WIFSIGNALED(st)) fprintf(stderr, "%s: status 0x%x\n", sigsys[i], st);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGSYS);
  }
}

static void test_trace_and_log_actions(void **state) {
  assert_exit0(in_child(child_action, (void *)"SCMP_ACT_TRACE"));
  assert_exit0(in_child(child_action, (void *)"SCMP_ACT_LOG"));
}

/* ---- arguments ---- */

struct op_case {
  enum crt_seccomp_op op;
  const char *op_name;
  uint64_t v, v2, blocked, allowed;
};

static int child_op(void *data) {
  const struct op_case *c = data;
  crt_seccomp_arg a = arg(0, c->op, c->v, c->v2);
  a.op_name = (char *)c->op_name;
  crt_seccomp_syscall sys[] = {rule(STRV("umask"), "SCMP_ACT_ERRNO", 99)};
  sys[0].args = &a;
  sys[0].n_args = 1;
  crt_seccomp s = {.default_action = "SCMP_ACT_ALLOW", .syscalls = sys, .n_syscalls = 1};
  if (load(&s) < 0) return 10;
  if (expect(syscall(SYS_umask, c->blocked), 99)) return 11;
  if (expect(syscall(SYS_umask, c->allowed), 0)) return 12;
  return 0;
}

static void test_every_operator(void **state) {
  const struct op_case cases[] = {
    {CRT_OP_NE, NULL, 5, 0, 6, 5},
    {CRT_OP_LT, NULL, 5, 0, 4, 5},
    {CRT_OP_LE, NULL, 5, 0, 5, 6},
    {CRT_OP_EQ, NULL, 5, 0, 5, 4},
    {CRT_OP_GE, NULL, 5, 0, 5, 4},
    {CRT_OP_GT, NULL, 5, 0, 6, 5},
    {CRT_OP_MASKED_EQ, NULL, 070, 020, 027, 007},
    /* The JSON name wins over the enum when the parser kept it. */
    {CRT_OP_NE, "SCMP_CMP_EQ", 5, 0, 5, 4},
    {CRT_OP_EQ, "SCMP_CMP_MASKED_EQ", 070, 020, 027, 007},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int st = in_child(child_op, (void *)&cases[i]);
    if (st != 0) fprintf(stderr, "operator case %zu failed: 0x%x\n", i, st);
    assert_exit0(st);
  }
}

/* (a0 == 5 || a0 == 6) && a1 == 7 */
static int child_and_or(void *data) {
  crt_seccomp_arg a[] = {arg(0, CRT_OP_EQ, 5, 0), arg(0, CRT_OP_EQ, 6, 0), arg(1, CRT_OP_EQ, 7, 0)};
  crt_seccomp_syscall sys[] = {rule(STRV("getpriority"), "SCMP_ACT_ERRNO", 99)};
  sys[0].args = a;
  sys[0].n_args = 3;
  crt_seccomp s = {.default_action = "SCMP_ACT_ALLOW", .syscalls = sys, .n_syscalls = 1};
  if (load(&s) < 0) return 10;
  if (expect(syscall(SYS_getpriority, 5, 7), 99)) return 11;
  if (expect(syscall(SYS_getpriority, 6, 7), 99)) return 12;
  /* Not blocked: the kernel's own answer (EINVAL for a bad "which"). */
  if (expect(syscall(SYS_getpriority, 5, 8), EINVAL)) return 13;
  if (expect(syscall(SYS_getpriority, 4, 7), EINVAL)) return 14;
  return 0;
}

static void test_args_same_index_or_different_and(void **state) { assert_exit0(in_child(child_and_or, NULL)); }

/* ---- skips ---- */

static int child_skips(void *data) {
  crt_seccomp_syscall sys[] = {
    rule(STRV("no_such_syscall", "getppid"), "SCMP_ACT_ERRNO", 42),
    rule(STRV("getpid"), "SCMP_ACT_ALLOW", -1), /* same as default: skipped */
  };
  crt_seccomp s = {.default_action = "SCMP_ACT_ALLOW", .syscalls = sys, .n_syscalls = 2};
  if (load(&s) < 0) return 10;
  if (expect(syscall(SYS_getppid), 42)) return 11;
  if (expect(syscall(SYS_getpid), 0)) return 12;
  return 0;
}

static void test_unknown_syscall_and_default_rule_skipped(void **state) { assert_exit0(in_child(child_skips, NULL)); }

/* ---- flags, architectures, no_new_privs ---- */

static int status_field(const char *field, char *out, size_t n) {
  FILE *f = fopen("/proc/self/status", "re");
  if (!f) return -1;
  char line[256];
  int r = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, field, strlen(field)) == 0 && line[strlen(field)] == ':') {
      snprintf(out, n, "%s", line + strlen(field) + 1 + strspn(line + strlen(field) + 1, " \t"));
      out[strcspn(out, "\n")] = 0;
      r = 0;
    }
  }
  fclose(f);
  return r;
}

static int child_flags(void *data) {
  crt_seccomp_syscall sys[] = {rule(STRV("getppid"), "SCMP_ACT_ERRNO", 42)};
  crt_seccomp s = {.default_action = "SCMP_ACT_ALLOW",
                   .architectures = STRV("SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"),
                   .flags = STRV("SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"),
                   .syscalls = sys,
                   .n_syscalls = 1};
  if (load(&s) < 0) return 10;
  if (expect(syscall(SYS_getppid), 42)) return 11;
  char v[64];
  if (status_field("Seccomp", v, sizeof v) < 0 || strcmp(v, "2") != 0) return 12;
  /* libseccomp would set no_new_privs by default: crt must not. */
  if (status_field("NoNewPrivs", v, sizeof v) < 0 || strcmp(v, "0") != 0) return 13;
  return 0;
}

static void test_flags_arches_no_nnp(void **state) { assert_exit0(in_child(child_flags, NULL)); }

/* Without no_new_privs and without CAP_SYS_ADMIN the kernel refuses: the
 * caller ordered things wrongly, and the message says so. */
static int child_needs_sys_admin(void *data) {
  crt_seccomp_syscall sys[] = {rule(STRV("getppid"), "SCMP_ACT_ERRNO", 42)};
  crt_seccomp s = {.default_action = "SCMP_ACT_ALLOW", .syscalls = sys, .n_syscalls = 1};
  crt_seccomp_filter *f = NULL;
  crt_err *err = NULL;
  if (crt_seccomp_compile(&s, &f, &err) < 0) return 10;
  cap_t none = cap_init();
  if (none == NULL || cap_set_proc(none) < 0) return 11;
  cap_free(none);
  int r = crt_seccomp_load(f, NULL, &err);
  int ok = r < 0 && err->errnum == EACCES &&
           strcmp(err->msg, "loading the seccomp filter (without noNewPrivileges this needs CAP_SYS_ADMIN): "
                            "permission denied") == 0;
  crt_err_free(&err);
  crt_seccomp_filter_free(f);
  return ok ? 0 : 12;
}

static void test_load_without_nnp_needs_sys_admin(void **state) { assert_exit0(in_child(child_needs_sys_admin, NULL)); }

/* ---- errors ---- */

static void expect_compile_error(const crt_seccomp *s, const char *want) {
  crt_seccomp_filter *f = NULL;
  crt_err *err = NULL;
  assert_int_equal(crt_seccomp_compile(s, &f, &err), -1);
  assert_null(f);
  assert_non_null(err);
  if (strcmp(err->msg, want) != 0) fprintf(stderr, "got:  %s\nwant: %s\n", err->msg, want);
  assert_string_equal(err->msg, want);
  crt_err_free(&err);
}

static void test_errors_name_json_path(void **state) {
  crt_seccomp_syscall sys[] = {rule(STRV("getppid"), "SCMP_ACT_ERRNO", 1), rule(STRV("getpid"), "SCMP_ACT_FOO", -1)};
  crt_seccomp s = {.default_action = "SCMP_ACT_ALLOW", .syscalls = sys, .n_syscalls = 2};
  expect_compile_error(&s, ".linux.seccomp.syscalls[1].action: unknown action \"SCMP_ACT_FOO\"");

  crt_seccomp d = {.default_action = "SCMP_ACT_NOPE"};
  expect_compile_error(&d, ".linux.seccomp.defaultAction: unknown action \"SCMP_ACT_NOPE\"");

  crt_seccomp_arg a[] = {arg(0, CRT_OP_EQ, 1, 0), arg(1, CRT_OP_EQ, 1, 0)};
  a[1].op_name = "SCMP_CMP_FOO";
  crt_seccomp_syscall one[] = {rule(STRV("getppid"), "SCMP_ACT_ERRNO", 1)};
  one[0].args = a;
  one[0].n_args = 2;
  crt_seccomp o = {.default_action = "SCMP_ACT_ALLOW", .syscalls = one, .n_syscalls = 1};
  expect_compile_error(&o, ".linux.seccomp.syscalls[0].args[1]: unknown operator \"SCMP_CMP_FOO\"");
  a[1].op_name = NULL;
  a[1].index = 6;
  expect_compile_error(&o, ".linux.seccomp.syscalls[0].args[1].index: 6 is out of range (0-5)");

  crt_seccomp ar = {.default_action = "SCMP_ACT_ALLOW", .architectures = STRV("SCMP_ARCH_X86_64", "SCMP_ARCH_VAX")};
  expect_compile_error(&ar, ".linux.seccomp.architectures[1]: unknown architecture \"SCMP_ARCH_VAX\"");

  crt_seccomp fl = {.default_action = "SCMP_ACT_ALLOW", .flags = STRV("SECCOMP_FILTER_FLAG_BOGUS")};
  expect_compile_error(&fl, ".linux.seccomp.flags[0]: unknown flag \"SECCOMP_FILTER_FLAG_BOGUS\"");
  crt_seccomp wk = {.default_action = "SCMP_ACT_ALLOW", .flags = STRV("SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV")};
  expect_compile_error(&wk, ".linux.seccomp.flags: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs a listener: no syscall "
                            "has the action SCMP_ACT_NOTIFY");

  crt_seccomp_syscall nt[] = {rule(STRV("getppid"), "SCMP_ACT_NOTIFY", -1)};
  crt_seccomp n = {.default_action = "SCMP_ACT_ALLOW", .syscalls = nt, .n_syscalls = 1};
  expect_compile_error(&n, ".linux.seccomp.syscalls[0].action: SCMP_ACT_NOTIFY needs .linux.seccomp.listenerPath");
  n.listener_path = "/tmp/x.sock";
  nt[0].names = STRV("read", "write");
  expect_compile_error(&n, ".linux.seccomp.syscalls[0]: SCMP_ACT_NOTIFY cannot be used for the write syscall");
  crt_seccomp nd = {.default_action = "SCMP_ACT_NOTIFY", .listener_path = "/tmp/x.sock"};
  expect_compile_error(&nd, ".linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be the default action");

  crt_seccomp_syscall empty[] = {{.action = "SCMP_ACT_ERRNO"}};
  crt_seccomp e = {.default_action = "SCMP_ACT_ALLOW", .syscalls = empty, .n_syscalls = 1};
  expect_compile_error(&e, ".linux.seccomp.syscalls[0].names: must contain at least one syscall");

  crt_seccomp_syscall big[] = {rule(STRV("getppid"), "SCMP_ACT_ERRNO", 70000)};
  crt_seccomp b = {.default_action = "SCMP_ACT_ALLOW", .syscalls = big, .n_syscalls = 1};
  expect_compile_error(&b, ".linux.seccomp.syscalls[0].action: errnoRet 70000 out of range");
}

/* ---- a Docker-sized profile: default ERRNO, ~350 names allowed ---- */

struct profile {
  char *names[512];
  crt_seccomp_syscall sys[8];
  crt_seccomp_arg pers[5], clone_arg, sock_arg;
  crt_seccomp s;
};

static char *personality_v[] = {"personality", NULL}, *clone_v[] = {"clone", NULL}, *socket_v[] = {"socket", NULL},
            *arches_v[] = {"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32", NULL};

static void build_profile(struct profile *p) {
  memset(p, 0, sizeof *p);
  size_t n = 0;
  for (int nr = 0; nr < 460 && n < 500; nr++) {
    char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    if (name == NULL) continue;
    /* Left out: what the test checks, and what gets a conditional rule. */
    if (strcmp(name, "getppid") && strcmp(name, "personality") && strcmp(name, "clone") && strcmp(name, "socket"))
      p->names[n++] = name;
    else
      free(name);
  }
  size_t i = 0;
  p->sys[i++] = (crt_seccomp_syscall){.names = {p->names, n}, .action = "SCMP_ACT_ALLOW"};
  const uint64_t pv[] = {0, 8, 0x20000, 0x20008, 0xffffffff};
  for (size_t k = 0; k < 5; k++) {
    p->pers[k] = arg(0, CRT_OP_EQ, pv[k], 0);
    p->sys[i] = rule((crt_strv){personality_v, 1}, "SCMP_ACT_ALLOW", -1);
    p->sys[i].args = &p->pers[k];
    p->sys[i++].n_args = 1;
  }
  p->clone_arg = arg(0, CRT_OP_MASKED_EQ, 0x7E020000, 0);
  p->sys[i] = rule((crt_strv){clone_v, 1}, "SCMP_ACT_ALLOW", -1);
  p->sys[i].args = &p->clone_arg;
  p->sys[i++].n_args = 1;
  p->sock_arg = arg(0, CRT_OP_NE, 40, 0);
  p->sys[i] = rule((crt_strv){socket_v, 1}, "SCMP_ACT_ALLOW", -1);
  p->sys[i].args = &p->sock_arg;
  p->sys[i++].n_args = 1;
  p->s = (crt_seccomp){.default_action = "SCMP_ACT_ERRNO",
                       .default_errno_ret = {true, 77},
                       .architectures = {arches_v, 3},
                       .syscalls = p->sys,
                       .n_syscalls = i};
}

static void free_profile(struct profile *p) {
  for (size_t i = 0; p->names[i]; i++) free(p->names[i]);
}

/* ASan's malloc slows libseccomp's rule database down about 2x. */
#ifdef __SANITIZE_ADDRESS__
#define BUDGET_MS 150
#else
#define BUDGET_MS 50
#endif

static double ms_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static int child_profile(void *data) {
  crt_seccomp_filter *f = data;
  crt_err *err = NULL;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (crt_seccomp_load(f, NULL, &err) < 0) return 10;
  double load_ms = ms_since(&t0);
  if (expect(syscall(SYS_getppid), 77)) return 11;
  if (expect(syscall(SYS_getpid), 0)) return 12;
  if (expect(syscall(SYS_personality, 0xffffffffUL), 0)) return 13;
  if (expect(syscall(SYS_personality, 0x1234UL), 77)) return 14;
  if (expect(syscall(SYS_socket, 40, 0, 0), 77)) return 15; /* AF_VSOCK refused */
  printf("seccomp: loading the profile took %.2f ms\n", load_ms);
  fflush(stdout);
  return load_ms < BUDGET_MS ? 0 : 16;
}

static void test_docker_sized_profile_is_fast(void **state) {
  struct profile *p = calloc(1, sizeof *p);
  assert_non_null(p);
  build_profile(p);
  size_t rules = 0;
  for (size_t i = 0; i < p->s.n_syscalls; i++) rules += p->sys[i].names.len;
  assert_true(rules > 300);
  crt_seccomp_filter *f = NULL;
  crt_err *err = NULL;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int r = crt_seccomp_compile(&p->s, &f, &err);
  double compile_ms = ms_since(&t0);
  if (r < 0) fprintf(stderr, "%s\n", err->msg);
  assert_int_equal(r, 0);
  printf("seccomp: compiling a %zu-rule profile (3 arches) took %.2f ms\n", rules, compile_ms);
  assert_true(compile_ms < BUDGET_MS);
  assert_exit0(in_child(child_profile, f));
  crt_seccomp_filter_free(f);
  free_profile(p);
  free(p);
}

/* ---- SCMP_ACT_NOTIFY, end to end ----
 * child (the container) loads the filter and hands the notify fd to the
 * test process (the runtime), which sends it to an agent thread listening
 * on listenerPath; the agent makes getppid() return 42. */

struct agent {
  int lsock;
  char json[4096];
  int got_fd;
  long nr;
  int ok;
};

static int recv_fd(int sock, char *buf, size_t len, ssize_t *n) {
  char ctl[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = buf, .iov_len = len};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
  *n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  if (*n <= 0) return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c == NULL || c->cmsg_type != SCM_RIGHTS) return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

static int send_fd(int sock, int fd) {
  char ctl[CMSG_SPACE(sizeof(int))] = {0};
  char b = 'f';
  struct iovec iov = {.iov_base = &b, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int wait_readable(int fd) {
  struct pollfd p = {.fd = fd, .events = POLLIN};
  return poll(&p, 1, 5000) == 1 ? 0 : -1;
}

static void *agent_main(void *data) {
  struct agent *a = data;
  if (wait_readable(a->lsock) < 0) return NULL;
  int c = accept4(a->lsock, NULL, NULL, SOCK_CLOEXEC);
  if (c < 0) return NULL;
  ssize_t n = 0;
  int fd = wait_readable(c) == 0 ? recv_fd(c, a->json, sizeof a->json - 1, &n) : -1;
  if (n > 0) {
    /* The JSON may come in more than one read: read until EOF. */
    size_t have = (size_t)n;
    while (have < sizeof a->json - 1 && wait_readable(c) == 0) {
      ssize_t m = read(c, a->json + have, sizeof a->json - 1 - have);
      if (m <= 0) break;
      have += (size_t)m;
    }
    a->json[have] = 0;
  }
  close(c);
  if (fd < 0) return NULL;
  a->got_fd = 1;
  struct seccomp_notif *req = NULL;
  struct seccomp_notif_resp *resp = NULL;
  if (seccomp_notify_alloc(&req, &resp) == 0 && wait_readable(fd) == 0 && seccomp_notify_receive(fd, req) == 0) {
    a->nr = req->data.nr;
    resp->id = req->id;
    resp->val = 42;
    resp->error = 0;
    resp->flags = 0;
    a->ok = seccomp_notify_respond(fd, resp) == 0;
  }
  seccomp_notify_free(req, resp);
  close(fd);
  return NULL;
}

struct notify_child {
  const crt_seccomp *s;
  int sock;
};

static int child_notify(void *data) {
  struct notify_child *nc = data;
  crt_seccomp_filter *f = NULL;
  crt_err *err = NULL;
  int fd = -1;
  if (crt_seccomp_compile(nc->s, &f, &err) < 0 || crt_seccomp_load(f, &fd, &err) < 0) return 10;
  if (fd < 0) return 11;
  if (send_fd(nc->sock, fd) < 0) return 12;
  close(fd);
  long r = syscall(SYS_getppid); /* blocks until the agent answers */
  if (r != 42) return 13;
  if (expect(syscall(SYS_getpid), 0)) return 14;
  return 0;
}

static void test_notify_listener_end_to_end(void **state) {
  char dir[] = "/tmp/crt-seccomp-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/agent.sock", dir);

  struct agent a = {0};
  a.lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  assert_true(a.lsock >= 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  strcpy(sa.sun_path, path);
  assert_int_equal(bind(a.lsock, (struct sockaddr *)&sa, sizeof sa), 0);
  assert_int_equal(listen(a.lsock, 1), 0);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, agent_main, &a), 0);

  crt_seccomp_syscall sys[] = {rule(STRV("getppid"), "SCMP_ACT_NOTIFY", -1)};
  crt_seccomp s = {.default_action = "SCMP_ACT_ALLOW",
                   .listener_path = path,
                   .listener_metadata = "MKNOD=/dev/null;X=\"q\"",
                   .syscalls = sys,
                   .n_syscalls = 1};
  int sp[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
  struct notify_child nc = {&s, sp[1]};
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(sp[0]);
    _exit(child_notify(&nc));
  }
  close(sp[1]);
  char b;
  ssize_t n;
  int nfd = wait_readable(sp[0]) == 0 ? recv_fd(sp[0], &b, 1, &n) : -1;
  close(sp[0]);
  crt_err *err = NULL;
  char state_json[128];
  snprintf(state_json, sizeof state_json,
           "{\"ociVersion\":\"1.2.0\",\"id\":\"c1\",\"status\":\"creating\",\"pid\":%d,\"bundle\":\"/b\"}", (int)pid);
  int r = nfd >= 0 ? crt_seccomp_send_listener(&s, nfd, pid, state_json, &err) : -1;
  if (r < 0 && err) fprintf(stderr, "%s\n", err->msg);
  crt_err_free(&err);
  if (nfd >= 0) close(nfd);
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  pthread_join(th, NULL);
  close(a.lsock);
  unlink(path);
  rmdir(dir);

  assert_true(nfd >= 0);
  assert_int_equal(r, 0);
  assert_exit0(st);
  assert_true(a.got_fd);
  assert_int_equal(a.nr, SYS_getppid);
  assert_true(a.ok);
  char want[512];
  snprintf(want, sizeof want,
           "{\"ociVersion\":\"1.3.0\",\"fds\":[\"seccompFd\"],\"pid\":%d,\"metadata\":\"MKNOD=/dev/null;X=\\\"q\\\"\","
           "\"state\":%s}",
           (int)pid, state_json);
  assert_string_equal(a.json, want);
}

static void test_send_listener_errors(void **state) {
  crt_err *err = NULL;
  crt_seccomp s = {.default_action = "SCMP_ACT_ALLOW"};
  assert_int_equal(crt_seccomp_send_listener(&s, 0, 1, "{}", &err), -1);
  assert_string_equal(err->msg, ".linux.seccomp.listenerPath: not set: invalid argument");
  s.listener_path = "/nonexistent/crt.sock";
  assert_int_equal(crt_seccomp_send_listener(&s, 0, 1, "{}", &err), -1);
  assert_string_equal(err->msg, "failed to connect with seccomp agent: seccomp listener /nonexistent/crt.sock: connect: no such file or directory");
  crt_err_free(&err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_errno_action),
    cmocka_unit_test(test_kill_and_trap_actions),
    cmocka_unit_test(test_trace_and_log_actions),
    cmocka_unit_test(test_every_operator),
    cmocka_unit_test(test_args_same_index_or_different_and),
    cmocka_unit_test(test_unknown_syscall_and_default_rule_skipped),
    cmocka_unit_test(test_flags_arches_no_nnp),
    cmocka_unit_test(test_load_without_nnp_needs_sys_admin),
    cmocka_unit_test(test_errors_name_json_path),
    cmocka_unit_test(test_docker_sized_profile_is_fast),
    cmocka_unit_test(test_notify_listener_end_to_end),
    cmocka_unit_test(test_send_listener_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
