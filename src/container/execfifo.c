/* The exec FIFO, every side of it but crt-stub's: see crt/execfifo.h. */
#define _GNU_SOURCE
#include "crt/execfifo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/stub.h"

static void fifo_path(const char *dir, char *buf, size_t len) {
  snprintf(buf, len, "%s/" CRT_FIFO_NAME, dir);
}

int crt_exec_fifo_create(const char *dir, int *path_fd, crt_err **err) {
  char fifo[PATH_MAX + 16];
  fifo_path(dir, fifo, sizeof fifo);
  /* 0622: the init opens it after it became the container's user */
  mode_t old = umask(0);
  int mr = mkfifo(fifo, 0622);
  umask(old);
  if (mr < 0) return crt_error(err, errno, "mkfifo %s", fifo);
  *path_fd = open(fifo, O_PATH | O_CLOEXEC);
  if (*path_fd < 0) return crt_error(err, errno, "open %s", fifo);
  return 0;
}

int crt_exec_fifo_park(int selffd, int path_fd) {
  char name[32];
  snprintf(name, sizeof name, "%d", path_fd);
  int wfd = openat(selffd, name, O_WRONLY | O_CLOEXEC);
  if (wfd < 0) return -1;
  close(path_fd);
  close(selffd);
  if (write(wfd, CRT_FIFO_OPENED, 1) != 1) {
    close(wfd);
    return -1;
  }
  return wfd;
}

void crt_exec_fifo_fail(int wfd, const char *msg, bool hook_failed) {
  if (hook_failed) crt_write_all(wfd, CRT_FIFO_HOOK_FAILED, 1);
  crt_write_all(wfd, msg, strlen(msg));
}

int crt_exec_fifo_release(const char *dir, int *fd, crt_err **err) {
  char fifo[PATH_MAX];
  fifo_path(dir, fifo, sizeof fifo);
  *fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (*fd < 0) return crt_error(err, errno, "open %s", fifo);
  unlink(fifo);
  return 0;
}

int crt_exec_fifo_await(int fd, const crt_state *s, bool *hook_failed, crt_err **err) {
  char buf[4096];
  size_t len = 0;
  for (;;) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, 100);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      if (crt_state_status(s) == CRT_STATUS_STOPPED)
        return crt_error(err, 0, "container init exited before the user process started");
      continue;
    }
    ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) return crt_error(err, errno, "read exec fifo");
    if (n == 0) {
      if (len == 0) continue; /* no writer yet */
      break;
    }
    len += (size_t)n;
    if (len >= sizeof buf - 1) break;
  }
  buf[len] = 0;
  if (len <= 1) return 0;
  char *msg = buf + 1;
  *hook_failed = *msg == CRT_FIFO_HOOK_FAILED[0];
  if (*hook_failed) msg++;
  cleanup_free char *stub = crt_stub_message(msg);
  return crt_error(err, 0, "%s", stub ? stub : msg);
}

bool crt_exec_fifo_exists(const char *dir) {
  char fifo[PATH_MAX];
  struct stat st;
  fifo_path(dir, fifo, sizeof fifo);
  return stat(fifo, &st) == 0;
}
