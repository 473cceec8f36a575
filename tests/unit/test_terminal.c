/* Terminal tests: pty setup in a forked "container process", the console
 * socket, the foreground copy loop against a pty standing in for the
 * user's terminal, and tests/lib/recvtty end to end. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pty.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "crt/fs.h"
#include "crt/terminal.h"

#define TIMEOUT_MS 5000

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads fd into buf until it contains want; false on timeout, EOF or EIO. */
static bool read_until(int fd, char *buf, size_t cap, const char *want) {
  size_t len = strlen(buf);
  long end = now_ms() + TIMEOUT_MS;
  while (strstr(buf, want) == NULL) {
    long left = end - now_ms();
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    if (left <= 0 || poll(&pf, 1, (int)left) <= 0) return false;
    if (len + 1 >= cap) return false;
    ssize_t n = read(fd, buf + len, cap - 1 - len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    len += (size_t)n;
    buf[len] = '\0';
  }
  return true;
}

/* Reads until EOF/EIO (a pty master whose slaves are all closed). */
static bool read_to_end(int fd) {
  char buf[4096];
  long end = now_ms() + TIMEOUT_MS;
  for (;;) {
    long left = end - now_ms();
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    if (left <= 0 || poll(&pf, 1, (int)left) <= 0) return false;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || (n < 0 && errno == EIO)) return true;
    if (n < 0) return false;
  }
}

static int wait_exit(pid_t pid) {
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* wait_exit with a deadline: on timeout the child is killed, -1 returned. */
static int wait_exit_timeout(pid_t pid) {
  long end = now_ms() + TIMEOUT_MS;
  int st;
  while (now_ms() < end) {
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (r < 0 && errno != EINTR) return -1;
    usleep(5000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
  return -1;
}

/* A child reports what it checked over a pipe: "ok ..." or the failure. */
static void report(int fd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vdprintf(fd, fmt, ap);
  va_end(ap);
}

static void read_report(int fd, char *buf, size_t cap) {
  size_t len = 0;
  ssize_t n;
  while (len + 1 < cap && (n = read(fd, buf + len, cap - 1 - len)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    len += (size_t)n;
  }
  buf[len] = '\0';
}

static const crt_process proc_40x120 = {.terminal = true, .has_console_size = true, .console_height = 40, .console_width = 120};

/* In the child after crt_terminal_setup: stdio is the pty, it is our
 * controlling terminal, we lead its foreground group, size is 40x120. */
static void check_child_terminal(int rep) {
  for (int i = 0; i < 3; i++)
    if (!isatty(i)) return report(rep, "fd %d is not a tty", i);
  if (getsid(0) != getpid()) return report(rep, "not a session leader");
  if (tcgetpgrp(0) != getpgrp()) return report(rep, "tcgetpgrp %d != pgrp %d", tcgetpgrp(0), getpgrp());
  struct winsize ws;
  if (ioctl(0, TIOCGWINSZ, &ws) < 0 || ws.ws_row != 40 || ws.ws_col != 120)
    return report(rep, "window size %ux%u", ws.ws_row, ws.ws_col);
  /* TIOCGSID only answers on a controlling terminal. */
  pid_t sid = -1;
  if (ioctl(0, TIOCGSID, &sid) < 0 || sid != getpid()) return report(rep, "the pty is not our controlling terminal");
  int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (tty < 0) return report(rep, "open /dev/tty: %s", strerror(errno));
  close(tty);
  char name[64];
  if (ttyname_r(0, name, sizeof name) != 0) return report(rep, "ttyname");
  report(rep, "ok %s", name);
}

static void test_setup_runs_shell_on_pty(void **state) {
  int sv[2], rep[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  assert_int_equal(pipe2(rep, O_CLOEXEC), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(sv[0]);
    close(rep[0]);
    crt_err *e = NULL;
    if (crt_terminal_setup(&proc_40x120, sv[1], false, true, &e) < 0) {
      report(rep[1], "setup: %s", e->msg);
      _exit(1);
    }
    check_child_terminal(rep[1]);
    close(rep[1]);
    execl("/bin/busybox", "sh", "-c", "stty size; read x; echo got:$x", (char *)NULL);
    _exit(127);
  }
  close(sv[1]);
  close(rep[1]);
  char msg[256];
  read_report(rep[0], msg, sizeof msg);
  close(rep[0]);
  int master = -1;
  char *name = NULL;
  crt_err *e = NULL;
  int r = crt_terminal_recv_master_name(sv[0], &master, &name, &e);
  close(sv[0]);
  if (r < 0) fail_msg("%s", e->msg);
  assert_string_equal(name, "/dev/ptmx");
  free(name);
  if (strncmp(msg, "ok ", 3) != 0) fail_msg("child: %s", msg);
  char pts[64];
  assert_int_equal(ptsname_r(master, pts, sizeof pts), 0);
  assert_string_equal(msg + 3, pts);

  char out[4096] = "";
  assert_true(read_until(master, out, sizeof out, "40 120"));
  assert_int_equal(crt_write_all(master, "abc\r", 4), 0);
  assert_true(read_until(master, out, sizeof out, "got:abc"));
  assert_true(read_to_end(master));
  close(master);
  assert_int_equal(wait_exit(pid), 0);
}

/* A container-like root: tmpfs /dev with its own devpts and no console. */
static int make_mini_root(const char *dir) {
  char p[PATH_MAX];
  if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) return -1;
  if (mount("tmpfs", dir, "tmpfs", 0, "mode=0755") < 0) return -1;
  snprintf(p, sizeof p, "%s/dev", dir);
  if (mkdir(p, 0755) < 0) return -1;
  snprintf(p, sizeof p, "%s/dev/pts", dir);
  if (mkdir(p, 0755) < 0 || mount("devpts", p, "devpts", 0, "newinstance,ptmxmode=0666,mode=620") < 0) return -1;
  snprintf(p, sizeof p, "%s/dev/ptmx", dir);
  if (symlink("pts/ptmx", p) < 0) return -1;
  if (chroot(dir) < 0 || chdir("/") < 0) return -1;
  return 0;
}

static void console_child(const char *dir, int sock, int rep) {
  crt_err *e = NULL;
  struct stat st;
  if (make_mini_root(dir) < 0) return report(rep, "mini root: %s", strerror(errno));
  if (stat("/dev/console", &st) == 0) return report(rep, "/dev/console exists before setup");
  if (crt_terminal_setup(&proc_40x120, sock, true, true, &e) < 0) return report(rep, "setup: %s", e->msg);
  struct stat in;
  if (stat("/dev/console", &st) < 0 || fstat(0, &in) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != in.st_rdev)
    return report(rep, "/dev/console is not the pty slave");
  int c = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (c < 0 || write(c, "console-ok\n", 11) != 11) return report(rep, "write /dev/console: %s", strerror(errno));
  close(c);
  report(rep, "ok");
}

/* The mini root made hostile: `what` 0 makes /dev/ptmx a symlink to a
 * regular file (it must not be used as the multiplexer), 1 makes
 * /dev/console a symlink to a file outside /dev (no bind through it).
 * Reports the setup's error, or "no error". */
static void hostile_child(const char *dir, int what, int sock, int rep) {
  crt_err *e = NULL;
  if (make_mini_root(dir) < 0) return report(rep, "mini root: %s", strerror(errno));
  int fd = open("/target", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0 || write(fd, "orig", 4) != 4) return report(rep, "target: %s", strerror(errno));
  close(fd);
  if (what == 0 && (unlink("/dev/ptmx") < 0 || symlink("/target", "/dev/ptmx") < 0))
    return report(rep, "ptmx: %s", strerror(errno));
  if (what == 1 && symlink("/target", "/dev/console") < 0) return report(rep, "console: %s", strerror(errno));
  if (crt_terminal_setup(&proc_40x120, sock, true, true, &e) == 0) return report(rep, "no error");
  char *got = NULL;
  if (crt_read_file("/target", 64, &got, NULL, &e) < 0 || strcmp(got, "orig")) return report(rep, "target changed");
  report(rep, "%s", e->msg);
}

static void test_setup_refuses_hostile_dev(void **state) {
  static const char *const want[] = {"/dev/ptmx: not the pty multiplexer (char 5:2)",
                                     "/dev/console: a symlink, not a mount point"};
  for (int what = 0; what < 2; what++) {
    char dir[] = "/tmp/crt-term-root.XXXXXX";
    assert_non_null(mkdtemp(dir));
    int sv[2], rep[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    assert_int_equal(pipe2(rep, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      close(sv[0]);
      close(rep[0]);
      hostile_child(dir, what, sv[1], rep[1]);
      _exit(0);
    }
    close(sv[1]);
    close(rep[1]);
    char msg[256];
    read_report(rep[0], msg, sizeof msg);
    close(rep[0]);
    close(sv[0]);
    assert_int_equal(wait_exit(pid), 0);
    rmdir(dir);
    if (!strstr(msg, want[what])) fail_msg("case %d: '%s' does not contain '%s'", what, msg, want[what]);
  }
}

static void test_setup_binds_dev_console(void **state) {
  char dir[] = "/tmp/crt-term-root.XXXXXX";
  assert_non_null(mkdtemp(dir));
  int sv[2], rep[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  assert_int_equal(pipe2(rep, O_CLOEXEC), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(sv[0]);
    close(rep[0]);
    console_child(dir, sv[1], rep[1]);
    _exit(0);
  }
  close(sv[1]);
  close(rep[1]);
  int master = -1;
  crt_err *e = NULL;
  int r = crt_terminal_recv_master(sv[0], &master, &e);
  close(sv[0]);
  char msg[256];
  read_report(rep[0], msg, sizeof msg);
  close(rep[0]);
  assert_int_equal(wait_exit(pid), 0);
  rmdir(dir);
  if (r < 0) fail_msg("recv: %s (child: %s)", e->msg, msg);
  assert_string_equal(msg, "ok");
  char out[256] = "";
  assert_true(read_until(master, out, sizeof out, "console-ok"));
  close(master);
}

static void test_console_socket_errors(void **state) {
  crt_err *e = NULL;
  assert_int_equal(crt_console_socket_connect("/nonexistent/crt.sock", &e), -1);
  assert_string_equal(e->msg, "connect console socket /nonexistent/crt.sock: no such file or directory");
  crt_err_free(&e);

  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  assert_int_equal(write(sv[1], "/dev/ptmx", 9), 9); /* a name without an fd */
  int master = -1;
  assert_int_equal(crt_terminal_recv_master(sv[0], &master, &e), -1);
  assert_non_null(strstr(e->msg, "expected exactly one file descriptor"));
  crt_err_free(&e);
  close(sv[1]);
  assert_int_equal(crt_terminal_recv_master(sv[0], &master, &e), -1);
  assert_non_null(strstr(e->msg, "closed before a pty was sent"));
  crt_err_free(&e);
  close(sv[0]);
  assert_int_equal(master, -1);
}

/* With stdio closed the pty's fds would land on 0-2 and be clobbered. */
static void test_setup_with_stdio_closed(void **state) {
  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(sv[0]);
    close(0);
    close(1);
    close(2);
    crt_err *e = NULL;
    if (crt_terminal_setup(&proc_40x120, sv[1], false, true, &e) < 0) _exit(1);
    bool ok = isatty(0) && isatty(1) && isatty(2);
    struct stat a, b;
    ok = ok && fstat(0, &a) == 0 && fstat(2, &b) == 0 && a.st_rdev == b.st_rdev;
    if (!ok || write(1, "fds-ok\n", 7) != 7) _exit(2);
    _exit(0);
  }
  close(sv[1]);
  int master = -1;
  crt_err *e = NULL;
  int r = crt_terminal_recv_master(sv[0], &master, &e);
  close(sv[0]);
  if (r < 0) fail_msg("%s", e->msg);
  char out[256] = "";
  assert_true(read_until(master, out, sizeof out, "fds-ok"));
  assert_int_equal(wait_exit(pid), 0);
  close(master);
}

/* Fails before setsid/dup2, so it is safe to call in the test process. */
static void test_setup_rejects_huge_console_size(void **state) {
  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  crt_process p = {.terminal = true, .has_console_size = true, .console_height = 70000, .console_width = 80};
  crt_err *e = NULL;
  assert_int_equal(crt_terminal_setup(&p, sv[1], false, true, &e), -1);
  assert_string_equal(e->msg, "process.consoleSize 70000x80: larger than 65535");
  crt_err_free(&e);
  close(sv[0]);
  close(sv[1]);
}

/* Paths longer than sun_path still connect (through /proc/self/fd). */
static void test_console_socket_long_path(void **state) {
  char dir[PATH_MAX] = "/tmp/crt-term-long.XXXXXX";
  assert_non_null(mkdtemp(dir));
  char deep[PATH_MAX];
  snprintf(deep, sizeof deep, "%s/%0100d", dir, 0);
  assert_int_equal(mkdir(deep, 0700), 0);
  char cwd[PATH_MAX];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(deep), 0);
  int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "s.sock"};
  assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(l, 1), 0);
  assert_int_equal(chdir(cwd), 0);
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/s.sock", deep);
  assert_true(strlen(path) >= sizeof a.sun_path);
  crt_err *e = NULL;
  int fd = crt_console_socket_connect(path, &e);
  if (fd < 0) fail_msg("%s", e->msg);
  int c = accept(l, NULL, NULL);
  assert_true(c >= 0);
  close(c);
  close(fd);
  close(l);
  unlink(path);
  rmdir(deep);
  rmdir(dir);
}

/* ---- the copy loop: om/os is the user's terminal, im/is the container's */

struct loop_fixture {
  int om, os, im, is;
  struct termios before;
  pid_t pid;
};

static void set_size(int fd, unsigned short rows, unsigned short cols) {
  struct winsize ws = {.ws_row = rows, .ws_col = cols};
  assert_int_equal(ioctl(fd, TIOCSWINSZ, &ws), 0);
}

static bool wait_size(int fd, unsigned short rows, unsigned short cols) {
  long end = now_ms() + TIMEOUT_MS;
  struct winsize ws;
  while (now_ms() < end) {
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row == rows && ws.ws_col == cols) return true;
    usleep(5000);
  }
  return false;
}

static bool wait_raw(int fd) {
  long end = now_ms() + TIMEOUT_MS;
  struct termios t;
  while (now_ms() < end) {
    /* runc's raw mode: no line discipline on input, output processing on */
    if (tcgetattr(fd, &t) == 0 && !(t.c_lflag & (ICANON | ECHO | ISIG)) && !(t.c_iflag & ICRNL) &&
        (t.c_oflag & OPOST))
      return true;
    usleep(5000);
  }
  return false;
}

static void assert_termios_equal(const struct termios *a, const struct termios *b) {
  assert_int_equal(a->c_iflag, b->c_iflag);
  assert_int_equal(a->c_oflag, b->c_oflag);
  assert_int_equal(a->c_cflag, b->c_cflag);
  assert_int_equal(a->c_lflag, b->c_lflag);
  assert_memory_equal(a->c_cc, b->c_cc, sizeof a->c_cc);
}

static pid_t g_forward_to; /* > 0: start_loop uses the forwarding variant */

/* Forks the runtime side: stdin/stdout on the user's tty (or in_fd/out_fd
 * when >= 0), running crt_terminal_copy_loop_forward on the container's master. */
static void start_loop(struct loop_fixture *f, int in_fd, int out_fd) {
  f->pid = fork();
  assert_true(f->pid >= 0);
  if (f->pid == 0) {
    dup2(in_fd >= 0 ? in_fd : f->os, 0);
    dup2(out_fd >= 0 ? out_fd : f->os, 1);
    crt_close_fds_from(3, &f->im, 1);
    crt_err *e = NULL;
    if (crt_terminal_copy_loop_forward(f->im, g_forward_to, &e) < 0) {
      fprintf(stderr, "copy loop: %s\n", e->msg);
      _exit(1);
    }
    _exit(0);
  }
  close(f->im);
  f->im = -1;
}

static void open_fixture(struct loop_fixture *f) {
  struct winsize ws = {.ws_row = 30, .ws_col = 100};
  assert_int_equal(openpty(&f->om, &f->os, NULL, NULL, &ws), 0);
  assert_int_equal(openpty(&f->im, &f->is, NULL, NULL, NULL), 0);
  assert_int_equal(tcgetattr(f->os, &f->before), 0);
}

static void close_fixture(struct loop_fixture *f) {
  int fds[] = {f->om, f->os, f->im, f->is};
  for (size_t i = 0; i < 4; i++)
    if (fds[i] >= 0) close(fds[i]);
}

static void test_copy_loop_raw_copy_winch_restore(void **state) {
  struct loop_fixture f;
  open_fixture(&f);
  start_loop(&f, -1, -1);
  assert_true(wait_raw(f.os));
  assert_true(wait_size(f.is, 30, 100)); /* initial size from our tty */

  char out[4096] = "";
  struct termios inner;
  assert_int_equal(tcgetattr(f.is, &inner), 0);
  assert_int_equal(inner.c_oflag & ONLCR, 0); /* cleared, as runc does */
  assert_int_equal(crt_write_all(f.is, "hello\n", 6), 0);
  assert_true(read_until(f.om, out, sizeof out, "hello\r\n")); /* our tty's ONLCR */
  char in[256] = "";
  assert_int_equal(crt_write_all(f.om, "xyz\r", 4), 0); /* raw: \r passes as is */
  assert_true(read_until(f.is, in, sizeof in, "xyz\n")); /* the inner tty maps it */

  set_size(f.om, 50, 160);
  kill(f.pid, SIGWINCH);
  assert_true(wait_size(f.is, 50, 160));

  /* Output written right before the container's end is not lost. */
  assert_int_equal(crt_write_all(f.is, "last words\n", 11), 0);
  close(f.is);
  f.is = -1;
  assert_true(read_until(f.om, out, sizeof out, "last words"));
  assert_int_equal(wait_exit(f.pid), 0);
  struct termios after;
  assert_int_equal(tcgetattr(f.os, &after), 0);
  assert_termios_equal(&f.before, &after);
  close_fixture(&f);
}

static void test_copy_loop_restores_on_sigterm(void **state) {
  struct loop_fixture f;
  open_fixture(&f);
  start_loop(&f, -1, -1);
  assert_true(wait_raw(f.os));
  kill(f.pid, SIGTERM);
  assert_int_equal(wait_exit(f.pid), 128 + SIGTERM);
  struct termios after;
  assert_int_equal(tcgetattr(f.os, &after), 0);
  assert_termios_equal(&f.before, &after);
  close_fixture(&f);
}

/* With a pid to forward to, SIGTERM reaches that process, and the loop
 * (and raw mode) go on until the master hangs up. */
static void test_copy_loop_forwards_signals(void **state) {
  pid_t target = fork();
  assert_true(target >= 0);
  if (target == 0) {
    for (;;) pause();
  }
  struct loop_fixture f;
  open_fixture(&f);
  g_forward_to = target;
  start_loop(&f, -1, -1);
  g_forward_to = 0;
  assert_true(wait_raw(f.os));
  kill(f.pid, SIGTERM);
  int code = wait_exit_timeout(target);
  assert_int_equal(code, 128 + SIGTERM);
  struct termios t;
  assert_int_equal(tcgetattr(f.os, &t), 0);
  assert_int_equal(t.c_lflag & ICANON, 0); /* the loop is still running */
  assert_int_equal(crt_write_all(f.is, "after\n", 6), 0);
  close(f.is);
  f.is = -1;
  char out[256] = "";
  assert_true(read_until(f.om, out, sizeof out, "after"));
  assert_int_equal(wait_exit(f.pid), 0);
  assert_int_equal(tcgetattr(f.os, &t), 0);
  assert_termios_equal(&f.before, &t);
  close_fixture(&f);
}

/* Non-tty stdin: data goes through, EOF becomes one VEOF on the pty. */
static void test_copy_loop_pipe_stdin_sends_veof(void **state) {
  struct loop_fixture f;
  open_fixture(&f);
  int in[2], out[2];
  assert_int_equal(pipe2(in, O_CLOEXEC), 0);
  assert_int_equal(pipe2(out, O_CLOEXEC), 0);
  start_loop(&f, in[0], out[1]);
  close(in[0]);
  close(out[1]);
  assert_int_equal(crt_write_all(in[1], "abc\n", 4), 0);
  close(in[1]);
  char buf[256] = "";
  assert_true(read_until(f.is, buf, sizeof buf, "abc\n"));
  struct pollfd pf = {.fd = f.is, .events = POLLIN};
  assert_int_equal(poll(&pf, 1, TIMEOUT_MS), 1);
  assert_int_equal(read(f.is, buf, sizeof buf), 0); /* ^D at line start: EOF */
  assert_int_equal(crt_write_all(f.is, "out1\n", 5), 0);
  close(f.is);
  f.is = -1;
  char echo[256] = "";
  assert_true(read_until(out[0], echo, sizeof echo, "out1\n")); /* after the pty's echo */
  assert_string_equal(echo, "abc\nout1\n"); /* ONLCR off: no \r in redirected output */
  assert_true(read_to_end(out[0]));
  close(out[0]);
  assert_int_equal(wait_exit(f.pid), 0);
  close_fixture(&f);
}

/* ---- recvtty end to end */

static char g_tmp[] = "/tmp/crt-term-recvtty.XXXXXX";
static char g_recvtty[PATH_MAX];

static int build_recvtty(void **state) {
  if (mkdtemp(g_tmp) == NULL) return -1;
  char src[PATH_MAX], cmd[3 * PATH_MAX];
  /* __FILE__ is tests/unit/test_terminal.c, relative to the repository
   * root that make runs the tests from. */
  snprintf(src, sizeof src, "%s", __FILE__);
  char *slash = strrchr(src, '/');
  if (!slash) return -1;
  snprintf(slash, sizeof src - (size_t)(slash - src), "/../lib/recvtty.c");
  snprintf(g_recvtty, sizeof g_recvtty, "%s/recvtty", g_tmp);
  snprintf(cmd, sizeof cmd, "cc -O2 -Wall -Wextra -Werror -o '%s' '%s'", g_recvtty, src);
  if (system(cmd) != 0) {
    fprintf(stderr, "cannot build %s\n", src);
    return -1;
  }
  return 0;
}

static int remove_tmp(void **state) {
  crt_rm_rf(g_tmp);
  return 0;
}

static pid_t spawn_recvtty(const char *mode, const char *sock, const char *pidf, int *in_w, int *out_r) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    execl(g_recvtty, "recvtty", "--mode", mode, "--pid-file", pidf, sock, (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  *in_w = in[1];
  *out_r = out[0];
  return pid;
}

static bool wait_file(const char *path) {
  long end = now_ms() + TIMEOUT_MS;
  struct stat st;
  while (now_ms() < end) {
    if (stat(path, &st) == 0 && st.st_size > 0) return true;
    usleep(5000);
  }
  return false;
}

/* The container side: connect, set up the pty, run a shell on it. */
static pid_t spawn_container(const char *sock, const char *script) {
  pid_t pid = fork();
  if (pid == 0) {
    crt_err *e = NULL;
    int fd = crt_console_socket_connect(sock, &e);
    if (fd < 0 || crt_terminal_setup(&proc_40x120, fd, false, true, &e) < 0) {
      fprintf(stderr, "container: %s\n", e->msg);
      _exit(1);
    }
    close(fd);
    execl("/bin/busybox", "sh", "-c", script, (char *)NULL);
    _exit(127);
  }
  return pid;
}

static void test_recvtty_single(void **state) {
  char sock[PATH_MAX], pidf[PATH_MAX];
  snprintf(sock, sizeof sock, "%s/single.sock", g_tmp);
  snprintf(pidf, sizeof pidf, "%s/single.pid", g_tmp);
  int in_w, out_r;
  pid_t rt = spawn_recvtty("single", sock, pidf, &in_w, &out_r);
  assert_true(rt > 0);
  assert_true(wait_file(pidf));
  char *pidtxt = NULL;
  crt_err *e = NULL;
  assert_int_equal(crt_read_file(pidf, 64, &pidtxt, NULL, &e), 0);
  assert_int_equal(atoi(pidtxt), rt);
  free(pidtxt);

  pid_t c = spawn_container(sock, "stty size; read x; echo got:$x; read y || echo eof");
  assert_true(c > 0);
  assert_int_equal(crt_write_all(in_w, "abc\n", 4), 0);
  close(in_w); /* recvtty turns this EOF into ^D: `read y` fails */
  char out[4096] = "";
  assert_true(read_until(out_r, out, sizeof out, "40 120"));
  assert_true(read_until(out_r, out, sizeof out, "got:abc"));
  assert_true(read_until(out_r, out, sizeof out, "eof"));
  assert_int_equal(wait_exit(c), 0);
  assert_true(read_to_end(out_r));
  close(out_r);
  assert_int_equal(wait_exit(rt), 0);
  struct stat st;
  assert_int_equal(stat(sock, &st), -1); /* removed once accepted */
}

static void test_recvtty_null(void **state) {
  char sock[PATH_MAX], pidf[PATH_MAX];
  snprintf(sock, sizeof sock, "%s/null.sock", g_tmp);
  snprintf(pidf, sizeof pidf, "%s/null.pid", g_tmp);
  int in_w, out_r;
  pid_t rt = spawn_recvtty("null", sock, pidf, &in_w, &out_r);
  assert_true(rt > 0);
  assert_true(wait_file(pidf));
  pid_t c = spawn_container(sock, "echo discarded; echo more");
  assert_true(c > 0);
  assert_int_equal(wait_exit(c), 0);
  assert_int_equal(wait_exit(rt), 0); /* exits on the hang-up */
  char buf[64];
  assert_int_equal(read(out_r, buf, sizeof buf), 0); /* wrote nothing */
  close(out_r);
  close(in_w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_setup_runs_shell_on_pty),
      cmocka_unit_test(test_setup_binds_dev_console),
      cmocka_unit_test(test_setup_refuses_hostile_dev),
      cmocka_unit_test(test_console_socket_errors),
      cmocka_unit_test(test_setup_rejects_huge_console_size),
      cmocka_unit_test(test_setup_with_stdio_closed),
      cmocka_unit_test(test_console_socket_long_path),
      cmocka_unit_test(test_copy_loop_raw_copy_winch_restore),
      cmocka_unit_test(test_copy_loop_restores_on_sigterm),
      cmocka_unit_test(test_copy_loop_pipe_stdin_sends_veof),
      cmocka_unit_test(test_copy_loop_forwards_signals),
      cmocka_unit_test(test_recvtty_single),
      cmocka_unit_test(test_recvtty_null),
  };
  return cmocka_run_group_tests(tests, build_recvtty, remove_tmp);
}
