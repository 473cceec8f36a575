/* Terminals: the pty the container gets with process.terminal, the
 * --console-socket hand-over (runc's wire format) and the copy loop of a
 * foreground `crt run`/`crt exec -t`. */
#define _GNU_SOURCE
#include "crt/resolve.h"
#include "crt/terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>
#include <linux/magic.h>

#include "crt/fs.h"
#include "crt/log.h"
#include "crt/procfs.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

/* ---------------------------------------------------------------- setup */

#define PTMX_MAJOR 5
#define PTMX_MINOR 2
/* UNIX98_PTY_SLAVE_MAJOR and the 7 majors after it */
#define PTS_MAJOR_FIRST 136
#define PTS_MAJOR_LAST 143

/* A pty slave of a devpts: the container decides what /dev/pts holds, so
 * what looks like our slave is checked before it is bound anywhere. */
static int check_slave(int fd, const char *name, crt_err **err) {
  struct statfs sf;
  struct stat st;
  if (fstatfs(fd, &sf) < 0 || fstat(fd, &st) < 0) return crt_error(err, errno, "stat pty slave %s", name);
  if (sf.f_type != DEVPTS_SUPER_MAGIC || !S_ISCHR(st.st_mode) || major(st.st_rdev) < PTS_MAJOR_FIRST ||
      major(st.st_rdev) > PTS_MAJOR_LAST)
    return crt_error(err, EPERM, "pty slave %s: not a devpts terminal (char %u:%u)", name, major(st.st_rdev),
                     minor(st.st_rdev));
  return 0;
}

/* The slave, opened through the master when the kernel can (TIOCGPTPEER
 * cannot be fooled by a path swapped under /dev/pts).  By name (before
 * Linux 4.13) only once the node checks out as this pty's slave. */
static int open_slave(int master, const char *name, crt_err **err) {
  int fd = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0 && errno != EINVAL && errno != ENOTTY)
    return crt_error(err, errno, "open pty slave %s (TIOCGPTPEER)", name);
  if (fd < 0) {
    cleanup_close int path = open(name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    unsigned int n = 0;
    struct stat st;
    if (path < 0) return crt_error(err, errno, "open pty slave %s", name);
    if (check_slave(path, name, err) < 0) return -1;
    /* minors of 20 bits under major 136, or 8 bits across 136..143 */
    unsigned int idx = 0;
    if (fstat(path, &st) == 0) idx = (major(st.st_rdev) - PTS_MAJOR_FIRST) * 256 + minor(st.st_rdev);
    if (ioctl(master, TIOCGPTN, &n) < 0 || (minor(st.st_rdev) != n && idx != n))
      return crt_error(err, EPERM, "pty slave %s: not the slave of this master", name);
    fd = crt_procfs_reopen(path, O_RDWR | O_NOCTTY, err);
    if (fd < 0) return -1;
  }
  if (check_slave(fd, name, err) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* With 0-2 closed the pty could land there and be clobbered by the dup2s
 * onto stdio; keep both ends above. */
static int move_above_stdio(int *fd, const char *what, crt_err **err) {
  if (*fd > 2) return 0;
  int nfd = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
  if (nfd < 0) return crt_error(err, errno, "dup %s", what);
  close(*fd);
  *fd = nfd;
  return 0;
}

/* /dev/ptmx as the container made it (often a symlink to pts/ptmx),
 * opened only once it is the ptmx char device (5:2): any node of that
 * number is the kernel's multiplexer, whatever filesystem holds it, and
 * opening anything else (a symlink into /proc/sys, a FIFO, some other
 * device) must not happen at all (CVE-2025-52565 class). */
static int open_ptmx(crt_err **err) {
  cleanup_close int path = open("/dev/ptmx", O_PATH | O_CLOEXEC);
  if (path < 0) return crt_error(err, errno, "open /dev/ptmx");
  struct stat st;
  if (fstat(path, &st) < 0) return crt_error(err, errno, "stat /dev/ptmx");
  if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != PTMX_MAJOR || minor(st.st_rdev) != PTMX_MINOR)
    return crt_error(err, EPERM, "/dev/ptmx: not the pty multiplexer (char 5:2)");
  int fd = crt_procfs_reopen(path, O_RDWR | O_NOCTTY, err);
  if (fd < 0) return crt_error_wrap(err, "open /dev/ptmx");
  return fd;
}

static int open_pty(int *master_out, int *slave_out, char *name, size_t name_len, crt_err **err) {
  cleanup_close int master = open_ptmx(err);
  if (master < 0) return -1;
  if (move_above_stdio(&master, "/dev/ptmx", err) < 0) return -1;
  if (unlockpt(master) < 0) return crt_error(err, errno, "unlockpt /dev/ptmx");
  int r = ptsname_r(master, name, name_len);
  if (r != 0) return crt_error(err, r, "ptsname of /dev/ptmx");
  cleanup_close int slave = open_slave(master, name, err);
  if (slave < 0) return -1;
  if (move_above_stdio(&slave, name, err) < 0) return -1;
  *master_out = crt_steal_fd(master);
  *slave_out = crt_steal_fd(slave);
  return 0;
}

/* The mount point for the console: a regular file we create in the
 * container's /dev, or a node already there, opened without following a
 * symlink and never on procfs or sysfs. */
static int console_target(crt_err **err) {
  cleanup_close int dev = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dev < 0) return crt_error(err, errno, "open /dev");
  int made = openat(dev, "console", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (made < 0 && errno != EEXIST) return crt_error(err, errno, "create /dev/console");
  if (made >= 0) close(made);
  cleanup_close int fd = openat(dev, "console", O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return crt_error(err, errno, "open /dev/console");
  struct stat st;
  struct statfs sf;
  if (fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0) return crt_error(err, errno, "stat /dev/console");
  if (S_ISLNK(st.st_mode)) return crt_error(err, ELOOP, "/dev/console: a symlink, not a mount point");
  if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
    return crt_error(err, EPERM, "/dev/console: neither a file nor a char device");
  if (sf.f_type == PROC_SUPER_MAGIC || sf.f_type == SYSFS_MAGIC)
    return crt_error(err, EPERM, "/dev/console: on %s", sf.f_type == SYSFS_MAGIC ? "sysfs" : "procfs");
  return crt_steal_fd(fd);
}

/* runc's mountConsole: /dev/console becomes a bind mount of the slave so
 * that programs writing to the console reach the container's terminal.
 * From the slave we hold onto the target we opened: no path the container
 * controls is looked up again. */
static int bind_dev_console(int slave, const char *name, crt_err **err) {
  cleanup_close int target = console_target(err);
  if (target < 0) return -1;
  cleanup_close int tree = (int)syscall(SYS_open_tree, slave, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
  if (tree >= 0) {
    if (move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
      return crt_error(err, errno, "bind mount %s on /dev/console", name);
    return 0;
  }
  if (errno != ENOSYS) return crt_error(err, errno, "bind mount %s on /dev/console: open_tree", name);
  /* Before Linux 5.2: both ends through their fds in /proc. */
  char src[32], dst[32];
  if (mount(crt_fd_path(src, slave), crt_fd_path(dst, target), NULL, MS_BIND, NULL) < 0)
    return crt_error(err, errno, "bind mount %s on /dev/console", name);
  return 0;
}

static int make_controlling(int slave, const char *name, crt_err **err) {
  if (setsid() < 0) return crt_error(err, errno, "setsid for terminal %s", name);
  if (ioctl(slave, TIOCSCTTY, 0) < 0) return crt_error(err, errno, "set controlling terminal %s (TIOCSCTTY)", name);
  return 0;
}

/* What runc puts in the message: the master's os.File name, which is the
 * path it opened (seen from runc 1.1.5 with a recvtty).  Receivers such as
 * containerd ignore it. */
#define CRT_PTY_MSG_NAME "/dev/ptmx"

/* runc's utils.SendFile: one byte stream message holding `msgname`, with
 * the fd as SCM_RIGHTS ancillary data.  `name` (the slave) is for errors. */
static int send_fd(int sock, int fd, const char *msgname, const char *name, crt_err **err) {
  struct iovec iov = {.iov_base = (void *)msgname, .iov_len = strlen(msgname)};
  ssize_t n = crt_send_with_fd(sock, &iov, 1, fd);
  if (n < 0) return crt_error(err, errno, "send pty master %s over console socket", name);
  if ((size_t)n != iov.iov_len) return crt_error(err, EIO, "send pty master %s over console socket: short write", name);
  return 0;
}

/* Like runc, a size with a zero side is left alone (the kernel's 0x0). */
static int set_console_size(const crt_process *p, int slave, const char *name, crt_err **err) {
  if (p->console_height == 0 || p->console_width == 0) return 0;
  if (p->console_height > USHRT_MAX || p->console_width > USHRT_MAX)
    return crt_error(err, 0, "process.consoleSize %ux%u: larger than %u", p->console_height, p->console_width, USHRT_MAX);
  struct winsize ws = {.ws_row = (unsigned short)p->console_height, .ws_col = (unsigned short)p->console_width};
  if (ioctl(slave, TIOCSWINSZ, &ws) < 0)
    return crt_error(err, errno, "set size %ux%u of terminal %s", p->console_height, p->console_width, name);
  return 0;
}

int crt_terminal_setup(const crt_process *p, int sock, bool bind_console, bool controlling, crt_err **err) {
  char name[PATH_MAX];
  cleanup_close int master = -1;
  cleanup_close int slave = -1;
  if (open_pty(&master, &slave, name, sizeof name, err) < 0) return -1;
  if (p && p->has_console_size && set_console_size(p, slave, name, err) < 0) return -1;
  if (bind_console && bind_dev_console(slave, name, err) < 0) return -1;
  if (controlling && make_controlling(slave, name, err) < 0) return -1;
  /* Sent before the dup2s so a sock that happens to be fd 0-2 survives. */
  if (send_fd(sock, master, CRT_PTY_MSG_NAME, name, err) < 0) return -1;
  for (int i = 0; i < 3; i++)
    if (dup2(slave, i) < 0) return crt_error(err, errno, "dup2 terminal %s to fd %d", name, i);
  return 0;
}

/* ---------------------------------------------------------- the socket */

int crt_unix_connect(const char *path, const char *what, crt_err **err) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  cleanup_close int pathfd = -1;
  const char *target = path;
  char procpath[64];
  if (strlen(path) >= sizeof addr.sun_path) {
    /* sun_path holds 107 bytes; reach longer paths through /proc. */
    pathfd = open(path, O_PATH | O_CLOEXEC);
    if (pathfd < 0) return crt_error(err, errno, "connect %s %s", what, path);
    snprintf(procpath, sizeof procpath, "/proc/self/fd/%d", pathfd);
    target = procpath;
  }
  strcpy(addr.sun_path, target);
  cleanup_close int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return crt_error(err, errno, "connect %s %s: socket", what, path);
  int r;
  do r = connect(fd, (struct sockaddr *)&addr, sizeof addr);
  while (r < 0 && errno == EINTR);
  if (r < 0) return crt_error(err, errno, "connect %s %s", what, path);
  return crt_steal_fd(fd);
}

int crt_console_socket_connect(const char *path, crt_err **err) { return crt_unix_connect(path, "console socket", err); }

/* runc's --pidfd-socket: the process's pidfd in one message named after
 * the kind of process ("standard" for an init, "setns" for exec), as
 * runc's init sends it; receivers (containerd) read only the fd.  pid must
 * be our unreaped child, so that it names that very process. */
int crt_pidfd_send(int sock, pid_t pid, const char *kind, crt_err **err) {
  cleanup_close int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pidfd < 0) return crt_error(err, errno, "--pidfd-socket: pidfd_open of pid %d", (int)pid);
  struct iovec iov = {.iov_base = (void *)kind, .iov_len = strlen(kind)};
  ssize_t n = crt_send_with_fd(sock, &iov, 1, pidfd);
  if (n < 0) return crt_error(err, errno, "failed to send pidfd on socket");
  if ((size_t)n != iov.iov_len) return crt_error(err, EIO, "failed to send pidfd on socket: short write");
  return 0;
}

static void close_received(struct msghdr *msg) {
  for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < n; i++) {
      int fd;
      memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      close(fd);
    }
  }
}

int crt_terminal_recv_master_name(int sock, int *master, char **name, crt_err **err) {
  char data[PATH_MAX + 1];
  union {
    char buf[CMSG_SPACE(sizeof(int) * 4)]; /* room to see (and close) extras */
    struct cmsghdr align;
  } u;
  memset(&u, 0, sizeof u);
  struct iovec iov = {.iov_base = data, .iov_len = sizeof data - 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
  ssize_t n;
  do n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0) return crt_error(err, errno, "receive pty master from console socket");
  if (n == 0) return crt_error(err, 0, "receive pty master from console socket: closed before a pty was sent");
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if ((msg.msg_flags & MSG_CTRUNC) || c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
      c->cmsg_len != CMSG_LEN(sizeof(int)) || CMSG_NXTHDR(&msg, c) != NULL) {
    close_received(&msg);
    return crt_error(err, 0, "receive pty master from console socket: expected exactly one file descriptor");
  }
  cleanup_close int fd = -1;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  if (!isatty(fd)) return crt_error(err, errno, "receive pty master from console socket: not a terminal");
  data[n] = '\0';
  if (name) {
    *name = strdup(data);
    if (*name == NULL) return crt_error(err, ENOMEM, "receive pty master from console socket");
  }
  *master = crt_steal_fd(fd);
  return 0;
}

int crt_terminal_recv_master(int sock, int *master, crt_err **err) {
  return crt_terminal_recv_master_name(sock, master, NULL, err);
}

/* ------------------------------------------------------- the copy loop */

int crt_terminal_resize_from(int from, int master) {
  struct winsize ws;
  if (ioctl(from, TIOCGWINSZ, &ws) < 0) return -1;
  return ioctl(master, TIOCSWINSZ, &ws);
}

/* The tty the user sees: where the window size comes from. */
static int user_tty(void) {
  for (int fd = 0; fd < 3; fd++)
    if (isatty(fd)) return fd;
  return -1;
}

/* What a fatal signal handler needs to put the user's tty back. */
static struct termios g_saved;
static volatile sig_atomic_t g_raw_fd = -1;
static const int g_fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define N_FATAL (sizeof g_fatal / sizeof g_fatal[0])

static void restore_and_die(int sig) {
  int fd = g_raw_fd;
  if (fd >= 0) tcsetattr(fd, TCSANOW, &g_saved);
  /* SA_RESETHAND + SA_NODEFER: this raise takes the default action now. */
  raise(sig);
}

struct loop_state {
  bool raw;
  bool handlers[N_FATAL];
  struct sigaction old_act[N_FATAL];
  sigset_t old_mask;
  bool mask_set;
  int sfd;
  int master_flags;
};

/* Only signals that would kill us get a handler: when the caller ignores
 * or handles them (or blocks them to forward them), that is its policy,
 * and the loop restores the terminal when it returns. */
static void install_fatal_handlers(struct loop_state *st) {
  sigset_t blocked;
  if (sigprocmask(SIG_BLOCK, NULL, &blocked) < 0) sigemptyset(&blocked);
  for (size_t i = 0; i < N_FATAL; i++) {
    struct sigaction old;
    if (sigismember(&blocked, g_fatal[i]) == 1) continue;
    if (sigaction(g_fatal[i], NULL, &old) < 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
    struct sigaction sa = {.sa_handler = restore_and_die, .sa_flags = SA_RESETHAND | SA_NODEFER};
    sigemptyset(&sa.sa_mask);
    if (sigaction(g_fatal[i], &sa, &st->old_act[i]) == 0) st->handlers[i] = true;
  }
}

static int enter_raw(struct loop_state *st, crt_err **err) {
  if (!isatty(STDIN_FILENO)) return 0;
  if (tcgetattr(STDIN_FILENO, &g_saved) < 0) return crt_error(err, errno, "get terminal attributes of stdin");
  struct termios raw = g_saved;
  cfmakeraw(&raw);
  /* As runc (containerd/console's SetRaw): output processing stays on, so
   * the container's bare \n still starts a new line on our screen. */
  raw.c_oflag |= OPOST;
  install_fatal_handlers(st);
  g_raw_fd = STDIN_FILENO;
  st->raw = true;
  if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) < 0) return crt_error(err, errno, "set stdin terminal to raw mode");
  return 0;
}

static void loop_cleanup(struct loop_state *st, int master) {
  if (st->raw) {
    tcsetattr(STDIN_FILENO, TCSANOW, &g_saved);
    g_raw_fd = -1;
  }
  for (size_t i = 0; i < N_FATAL; i++)
    if (st->handlers[i]) sigaction(g_fatal[i], &st->old_act[i], NULL);
  if (st->sfd >= 0) close(st->sfd);
  if (st->mask_set) sigprocmask(SIG_SETMASK, &st->old_mask, NULL);
  if (st->master_flags >= 0) fcntl(master, F_SETFL, st->master_flags);
}

/* What a foreground runtime passes on to the container, as runc does
 * (SIGCHLD and the stop signals stay ours). */
static const int g_forwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGCONT};

static int open_signal_fd(struct loop_state *st, pid_t forward_to, crt_err **err) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGWINCH);
  if (forward_to > 0)
    for (size_t i = 0; i < sizeof g_forwarded / sizeof g_forwarded[0]; i++) sigaddset(&set, g_forwarded[i]);
  if (sigprocmask(SIG_BLOCK, &set, &st->old_mask) < 0) return crt_error(err, errno, "block signals for the terminal loop");
  st->mask_set = true;
  st->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (st->sfd < 0) return crt_error(err, errno, "signalfd for the terminal loop");
  return 0;
}

static void handle_signals(int sfd, int master, pid_t forward_to) {
  struct signalfd_siginfo si;
  bool winch = false;
  while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
    if (si.ssi_signo == SIGWINCH) winch = true;
    else if (forward_to > 0 && kill(forward_to, (int)si.ssi_signo) < 0)
      crt_debug("forward signal %u to %d: %s", si.ssi_signo, (int)forward_to, crt_strerror(errno));
  }
  int tty = user_tty();
  if (winch && tty >= 0 && crt_terminal_resize_from(tty, master) < 0) crt_debug("forward window size to the pty: %s", crt_strerror(errno));
}

struct inbuf {
  char data[4096];
  size_t off, len;
};

/* The container sees EOF on its terminal only as VEOF at a line start. */
static void queue_veof(int master, struct inbuf *in) {
  struct termios t;
  char c = 4; /* ^D */
  if (tcgetattr(master, &t) == 0 && t.c_cc[VEOF] != _POSIX_VDISABLE) c = (char)t.c_cc[VEOF];
  if (in->len < sizeof in->data) in->data[in->len++] = c;
}

/* Returns 1 while stdin is still open, 0 once it is done. */
static int read_stdin(int master, struct inbuf *in) {
  ssize_t n = read(STDIN_FILENO, in->data, sizeof in->data);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return 1;
  if (n > 0) {
    in->off = 0;
    in->len = (size_t)n;
    return 1;
  }
  if (n == 0 && !isatty(STDIN_FILENO)) queue_veof(master, in);
  return 0;
}

/* stdout may be non-blocking (shared with whoever started us). */
static int write_out(const char *p, size_t len) {
  while (len > 0) {
    ssize_t w = write(STDOUT_FILENO, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      struct pollfd pf = {.fd = STDOUT_FILENO, .events = POLLOUT};
      poll(&pf, 1, -1);
      continue;
    }
    if (w < 0) return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

/* Returns 0 when the master is still open, 1 when it hung up, -1 on error.
 * Bounded, so a flood of output does not starve stdin and SIGWINCH. */
static int drain_master(int master, crt_err **err) {
  char buf[8192];
  for (int i = 0; i < 16; i++) {
    ssize_t n = read(master, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return 0;
    if (n < 0 && errno == EIO) return 1; /* every slave fd is closed */
    if (n < 0) return crt_error(err, errno, "read from pty master");
    if (n == 0) return 1;
    if (write_out(buf, (size_t)n) < 0) return crt_error(err, errno, "write terminal output to stdout");
  }
  return 0;
}

static int write_master(int master, struct inbuf *in, crt_err **err) {
  ssize_t n = write(master, in->data + in->off, in->len - in->off);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return 0;
  if (n < 0 && errno == EIO) return 0; /* hang-up: the read side notices */
  if (n < 0) return crt_error(err, errno, "write stdin to pty master");
  in->off += (size_t)n;
  if (in->off == in->len) in->off = in->len = 0;
  return 0;
}

static int copy(int master, int sfd, pid_t forward_to, crt_err **err) {
  struct inbuf in = {.off = 0, .len = 0};
  bool stdin_open = true;
  for (;;) {
    struct pollfd pf[3] = {
        {.fd = master, .events = POLLIN | (in.len ? POLLOUT : 0)},
        {.fd = sfd, .events = POLLIN},
        {.fd = stdin_open && in.len == 0 ? STDIN_FILENO : -1, .events = POLLIN},
    };
    if (poll(pf, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return crt_error(err, errno, "poll terminal");
    }
    if (pf[1].revents & POLLIN) handle_signals(sfd, master, forward_to);
    if (pf[2].revents & (POLLIN | POLLHUP | POLLERR)) stdin_open = read_stdin(master, &in);
    if (pf[2].revents & POLLNVAL) stdin_open = false;
    if (in.len && (pf[0].revents & POLLOUT) && write_master(master, &in, err) < 0) return -1;
    if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      int r = drain_master(master, err);
      if (r != 0) return r < 0 ? -1 : 0;
    }
  }
}

/* As runc: the container's \n reaches our stdout as \n, so output
 * redirected to a file has no \r; our tty's OPOST adds it on screen. */
int crt_terminal_master_prepare(int master, crt_err **err) {
  struct termios t;
  if (tcgetattr(master, &t) < 0) return crt_error(err, errno, "get terminal attributes of the pty master");
  t.c_oflag &= ~(tcflag_t)ONLCR;
  if (tcsetattr(master, TCSANOW, &t) < 0) return crt_error(err, errno, "clear ONLCR on the pty master");
  return 0;
}

int crt_terminal_copy_loop_forward(int master, pid_t forward_to, crt_err **err) {
  struct loop_state st = {.sfd = -1, .master_flags = -1};
  int ret = -1;
  /* Non-blocking master: a container that stops reading its input must not
   * stop us draining its output. */
  int fl = fcntl(master, F_GETFL);
  if (fl < 0 || fcntl(master, F_SETFL, fl | O_NONBLOCK) < 0) {
    crt_error(err, errno, "set pty master non-blocking");
    goto out;
  }
  st.master_flags = fl;
  if (crt_terminal_master_prepare(master, err) < 0) goto out;
  /* The signalfd first: with forwarding, the fatal signals are blocked by
   * then, so enter_raw installs no handler for them. */
  if (open_signal_fd(&st, forward_to, err) < 0 || enter_raw(&st, err) < 0) goto out;
  int tty = user_tty();
  if (tty >= 0 && crt_terminal_resize_from(tty, master) < 0) crt_debug("set pty window size from fd %d: %s", tty, crt_strerror(errno));
  ret = copy(master, st.sfd, forward_to, err);
out:
  loop_cleanup(&st, master);
  return ret;
}

