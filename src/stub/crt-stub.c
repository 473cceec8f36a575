/* crt-stub: the last program a container process runs before the user's.
 *
 * crt's init and the process of `crt exec` do all their setup running crt
 * itself, then exec this small static program from a sealed memfd
 * (src/linux/exec_stub.c).  It loads the process's seccomp filter, waits
 * on the exec FIFO and execs the user program.  So the /proc/PID/exe of a
 * parked init, and the /proc/self/exe that a "#!/proc/self/exe" user
 * program resolves to at execve (CVE-2019-5736), are the sealed stub and
 * never crt's binary on disk, and crt does not have to re-execute all of
 * itself from a memfd on every create and exec.
 *
 * Freestanding: no libc, raw system calls (x86_64; the aarch64 half has
 * not been built yet: no cross compiler on the project VM).  The caller
 * passes its parameters in envp[0], which the user program does not get:
 *   _CRT_STUB=FIFO HOLD ERRFD BPFFD BPFLEN BPFFLAGS EXIT SPAWN SESSION EXE
 * (-1 for an fd that is not used); argv is the user program's.  SPAWN is
 * exec's sync socket when the stub is the one to fork the process into
 * the container's pid namespace (exec.c, "the stub entry"): the process
 * becomes our parent's child, its pid goes to SPAWN as a CRT_SYNC_PID
 * message and the stub exits; SESSION: the process's new session (1), with
 * fd 0 as its controlling terminal (2), or none (0).  HOLD is
 * create's sync socket: closed once the filter is loaded, so `create`
 * returns only when the parked init carries it (issue 30).  A failure is
 * written to HOLD while it is open, else to the error fd, as
 * "\1ERRNO:CONTEXT", which crt turns into its usual message
 * (crt_stub_message). */
#include <asm/unistd.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/filter.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>

/* the sync socket's types and the FIFO's bytes (the hosted halves: src/container/) */
#include "../../include/crt/wire.h"

#define PARAM "_CRT_STUB="

#if defined(__x86_64__)
__asm__(".text\n.globl _start\n_start:\n xor %ebp, %ebp\n mov %rsp, %rdi\n and $-16, %rsp\n call stub_main\n hlt\n");

static long sys(long n, long a, long b, long c, long d, long e) {
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8) : "rcx", "r11", "memory");
  return ret;
}
#elif defined(__aarch64__)
__asm__(".text\n.globl _start\n_start:\n mov x29, #0\n mov x30, #0\n mov x0, sp\n bl stub_main\n brk #0\n");

static long sys(long n, long a, long b, long c, long d, long e) {
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
  return x0;
}
#else
#error "crt-stub: unsupported architecture"
#endif

__attribute__((noreturn)) static void leave(long code) {
  for (;;) sys(__NR_exit_group, code, 0, 0, 0, 0);
}

static long num(const char **s) {
  long v = 0, neg = 0;
  while (**s == ' ') (*s)++;
  if (**s == '-') neg = 1, (*s)++;
  while (**s >= '0' && **s <= '9') v = v * 10 + (*(*s)++ - '0');
  return neg ? -v : v;
}

static int has_prefix(const char *s, const char *pre) {
  while (*pre)
    if (*s++ != *pre++) return 0;
  return 1;
}

static unsigned long fmt_num(char *out, unsigned long v) {
  char tmp[24];
  unsigned long n = 0, i = 0;
  do tmp[n++] = (char)('0' + v % 10);
  while (v /= 10);
  while (n) out[i++] = tmp[--n];
  return i;
}

/* "\1ERRNO:WHATARG" on fd, then exit. */
__attribute__((noreturn)) static void fail(long fd, long neg_errno, const char *what, const char *arg, long code) {
  char buf[4096];
  unsigned long n = 0;
  buf[n++] = 1;
  n += fmt_num(buf + n, (unsigned long)-neg_errno);
  buf[n++] = ':';
  for (const char *s = what; *s && n < sizeof buf; s++) buf[n++] = *s;
  for (const char *s = arg; s && *s && n < sizeof buf; s++) buf[n++] = *s;
  if (fd >= 0) sys(__NR_write, fd, (long)buf, (long)n, 0, 0);
  leave(code);
}

#define CLONE_PARENT 0x00008000
#define TIOCSCTTY 0x540E

/* The process, forked as our parent's child; the stub itself reports its
 * pid and exits.  Returns in the process. */
static void spawn(long sync, long session, long report, long code) {
  long pid = sys(__NR_clone, CLONE_PARENT, 0, 0, 0, 0);
  if (pid < 0) fail(report, pid, "fork the process into the container", 0, code);
  if (pid > 0) {
    char msg[4 + 24];
    unsigned int type = CRT_SYNC_PID;
    for (unsigned long i = 0; i < 4; i++) msg[i] = (char)(type >> (8 * i)); /* host order: both are little-endian */
    unsigned long n = 4 + fmt_num(msg + 4, (unsigned long)pid);
    long w = sys(__NR_write, sync, (long)msg, (long)n, 0, 0);
    if (w != (long)n) {
      sys(__NR_kill, pid, 9, 0, 0, 0); /* nobody would know of it */
      fail(report, w < 0 ? w : -EIO, "send the pid of the process to the runtime", 0, code);
    }
    leave(0);
  }
  sys(__NR_close, sync, 0, 0, 0, 0);
  if (session > 0) {
    long r = sys(__NR_setsid, 0, 0, 0, 0, 0);
    if (r < 0) fail(report, r, "setsid", 0, code);
    if (session > 1 && (r = sys(__NR_ioctl, 0, TIOCSCTTY, 0, 0, 0)) < 0)
      fail(report, r, "set the controlling terminal (TIOCSCTTY)", 0, code);
  }
}

/* The parked init dies of HUP, INT, QUIT and TERM as runc's (Go) init
 * does: as its pid namespace's init it has to catch them, or the kernel
 * drops them (only KILL and STOP reach an init without a handler).  The
 * handler does what Go's runtime does: the default action again, the
 * signal raised, exit 2 when that did not kill (an unkillable init).
 * execve puts a caught signal back to its default. */
#define STUB_SA_RESTORER 0x04000000
struct stub_sigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)(void);
  unsigned long mask;
};
static const int park_sigs[] = {1, 2, 3, 15};

__attribute__((noreturn)) static void park_restorer(void) { leave(2); }

static void park_signal(int sig) {
  struct stub_sigaction dfl = {0};
  sys(__NR_rt_sigaction, sig, (long)&dfl, 0, sizeof dfl.mask, 0);
  sys(__NR_kill, sys(__NR_getpid, 0, 0, 0, 0, 0), sig, 0, 0, 0);
  leave(2);
}

static void catch_park_signals(long report, long code) {
  /* x86_64 wants a restorer; the handler never returns to it */
  struct stub_sigaction sa = {.handler = park_signal, .flags = STUB_SA_RESTORER, .restorer = park_restorer};
  for (unsigned long i = 0; i < sizeof park_sigs / sizeof park_sigs[0]; i++) {
    long r = sys(__NR_rt_sigaction, park_sigs[i], (long)&sa, 0, sizeof sa.mask, 0);
    if (r < 0) fail(report, r, "rt_sigaction for the parked init", 0, code);
  }
}

static struct sock_filter prog[BPF_MAXINSNS];

static long load_filter(long fd, long len, long flags) {
  if (len <= 0 || len > BPF_MAXINSNS) return -EINVAL;
  unsigned long want = (unsigned long)len * sizeof prog[0], got = 0;
  while (got < want) {
    long n = sys(__NR_read, fd, (long)prog + (long)got, (long)(want - got), 0, 0);
    if (n == -EINTR) continue;
    if (n <= 0) return n < 0 ? n : -EIO;
    got += (unsigned long)n;
  }
  sys(__NR_close, fd, 0, 0, 0, 0);
  struct sock_fprog fp = {.len = (unsigned short)len, .filter = prog};
  long r = sys(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, (long)&fp, 0, 0);
  if (r == -ENOSYS && flags == 0) r = sys(__NR_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, (long)&fp, 0, 0);
  return r < 0 ? r : 0;
}

__attribute__((noreturn, used)) void stub_main(long *sp) {
  long argc = sp[0];
  char **argv = (char **)(sp + 1);
  char **envp = argv + argc + 1;
  /* exec made us dumpable again: stay out of reach until the user's execve
   * (checked below, once there is somewhere to report to) */
  long undumpable = sys(__NR_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0);
  const char *p = envp[0];
  if (!p || !has_prefix(p, PARAM)) {
    static const char msg[] = "crt-stub: part of crt, not a program to run\n";
    sys(__NR_write, 2, (long)msg, sizeof msg - 1, 0, 0);
    leave(127);
  }
  p += sizeof PARAM - 1;
  long fifo = num(&p), hold = num(&p), errfd = num(&p), bpffd = num(&p), bpflen = num(&p), bpfflags = num(&p),
       code = num(&p), sync = num(&p), session = num(&p);
  if (*p == ' ') p++;
  const char *exe = p;
  long report = hold >= 0 ? hold : errfd;
  if (undumpable < 0) fail(report, undumpable, "prctl(PR_SET_DUMPABLE, 0)", 0, code);
  /* exec's error pipe and create's FIFO close at the user's execve (set
   * before the filter, which need not allow fcntl) */
  if (fifo < 0 && errfd >= 0) sys(__NR_fcntl, errfd, F_SETFD, FD_CLOEXEC, 0, 0);
  if (fifo >= 0) sys(__NR_fcntl, fifo, F_SETFD, FD_CLOEXEC, 0, 0);
  if (sync >= 0) spawn(sync, session, report, code);
  /* Before parking: a parked init without its filter would take any
   * system call a tracer injects (crt_seccomp_load_point says the profile
   * allows what follows: openat, close, write, execve). */
  if (bpffd >= 0) {
    long r = load_filter(bpffd, bpflen, bpfflags);
    if (r < 0) fail(report, r, "loading the seccomp filter", 0, code);
  }
  if (fifo >= 0) catch_park_signals(report, code);
  if (hold >= 0) sys(__NR_close, hold, 0, 0, 0, 0);
  if (fifo >= 0) {
    /* Parked here until `start` drains the FIFO's full pipe, as
     * crt_exec_fifo_park does: this is the one fd the parked init holds.
     * It is O_CLOEXEC, so start reads EOF exactly when execve happened. */
    long w;
    do w = sys(__NR_write, fifo, (long)CRT_FIFO_OPENED, 1, 0, 0);
    while (w == -EINTR);
    if (w != 1) leave(code);
    errfd = fifo;
  }
  long r = sys(__NR_execve, (long)exe, (long)argv, (long)(envp + 1), 0, 0);
  fail(errfd, r, "exec ", exe, code);
}
