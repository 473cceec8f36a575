/* recvtty: a --console-socket server for tests, like runc's
 * contrib/cmd/recvtty.  Standalone: builds with plain cc, no libcrt.
 *
 *   cc -O2 -Wall -o build/tests/recvtty tests/lib/recvtty.c
 *   recvtty [--mode single|null] [--pid-file FILE] SOCKET_PATH
 *
 * Listens on SOCKET_PATH (removed first if it exists, and again once the
 * connection is accepted), accepts one connection and receives one pty
 * master in runc's format: the message data is the master's file name
 * (runc sends "/dev/ptmx"), the fd comes as SCM_RIGHTS.  The name is
 * reported on stderr as "recvtty: received NAME".
 *   single (default): copies our stdin to the master and the master to our
 *     stdout.  At EOF on stdin it sends the pty's VEOF (^D) once and keeps
 *     draining the master; it exits 0 once the master hangs up (EIO: the
 *     container closed its terminal), so no output is lost.
 *   null: never writes to the master; drains and discards its output until
 *     EIO, then exits 0.  (runc's null mode keeps accepting connections;
 *     this one serves one, like single.)
 * --pid-file is written once the socket is listening, so a test can wait
 * for it before starting `crt create --console-socket SOCKET_PATH`.
 * Exit status: 0 after the hang-up, 1 on errors, 2 on usage errors.
 *
 * Typical use in an integration test:
 *   recvtty --pid-file $T/tty.pid $T/tty.sock > $T/tty.out < /dev/null &
 *   while [ ! -s $T/tty.pid ]; do sleep 0.01; done
 *   crt create --console-socket $T/tty.sock -b $BUNDLE ctr  (terminal: true)
 *   crt start ctr; wait  # $T/tty.out holds what the container printed */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

static void die(const char *what) {
  fprintf(stderr, "recvtty: %s: %s\n", what, strerror(errno));
  exit(1);
}

static int listen_on(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof addr.sun_path) {
    fprintf(stderr, "recvtty: socket path too long: %s\n", path);
    exit(1);
  }
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) die("socket");
  unlink(path);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) die(path);
  if (listen(fd, 1) < 0) die("listen");
  return fd;
}

static void write_pid_file(const char *path) {
  char tmp[PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "we");
  if (!f) die(tmp);
  fprintf(f, "%d", (int)getpid());
  if (fclose(f) != 0) die(tmp);
  if (rename(tmp, path) < 0) die(path); /* readers never see it half written */
}

static int recv_master(int conn) {
  char name[PATH_MAX + 1];
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } u;
  memset(&u, 0, sizeof u);
  struct iovec iov = {.iov_base = name, .iov_len = sizeof name - 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
  ssize_t n;
  do n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0) die("recvmsg");
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (n == 0 || c == NULL || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int))) {
    fprintf(stderr, "recvtty: expected a pty name and one fd\n");
    exit(1);
  }
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  name[n] = '\0';
  fprintf(stderr, "recvtty: received %s\n", name);
  return fd;
}

static void write_all(int fd, const char *p, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EIO) return; /* master hung up; read side ends */
    if (w < 0) die("write");
    p += w;
    len -= (size_t)w;
  }
}

static char veof(int master) {
  struct termios t;
  if (tcgetattr(master, &t) == 0 && t.c_cc[VEOF] != _POSIX_VDISABLE) return (char)t.c_cc[VEOF];
  return 4;
}

/* Returns true once the master hung up. */
static bool copy_master(int master, bool discard) {
  char buf[8192];
  ssize_t n = read(master, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return false;
  if (n < 0 && errno == EIO) return true;
  if (n < 0) die("read pty master");
  if (n == 0) return true;
  if (!discard) write_all(STDOUT_FILENO, buf, (size_t)n);
  return false;
}

static void copy_loop(int master, bool null_mode) {
  bool in_open = !null_mode;
  for (;;) {
    struct pollfd pf[2] = {{.fd = master, .events = POLLIN}, {.fd = in_open ? STDIN_FILENO : -1, .events = POLLIN}};
    if (poll(pf, 2, -1) < 0) {
      if (errno == EINTR) continue;
      die("poll");
    }
    if (pf[1].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
      char buf[4096];
      ssize_t n = (pf[1].revents & POLLNVAL) ? 0 : read(STDIN_FILENO, buf, sizeof buf);
      if (n > 0) write_all(master, buf, (size_t)n);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        char c = veof(master);
        if (!(pf[1].revents & POLLNVAL)) write_all(master, &c, 1);
        in_open = false;
      }
    }
    if ((pf[0].revents & (POLLIN | POLLHUP | POLLERR)) && copy_master(master, null_mode)) return;
  }
}

int main(int argc, char **argv) {
  const char *mode = "single", *pid_file = NULL;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) mode = argv[++i];
    else if (strcmp(argv[i], "--pid-file") == 0 && i + 1 < argc) pid_file = argv[++i];
    else break;
  }
  bool null_mode = strcmp(mode, "null") == 0;
  if (i != argc - 1 || (!null_mode && strcmp(mode, "single") != 0)) {
    fprintf(stderr, "usage: recvtty [--mode single|null] [--pid-file FILE] SOCKET_PATH\n");
    return 2;
  }
  const char *path = argv[i];
  int lfd = listen_on(path);
  if (pid_file) write_pid_file(pid_file);
  int conn;
  do conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
  while (conn < 0 && errno == EINTR);
  if (conn < 0) die("accept");
  close(lfd);
  unlink(path);
  int master = recv_master(conn);
  close(conn);
  copy_loop(master, null_mode);
  close(master);
  return 0;
}
