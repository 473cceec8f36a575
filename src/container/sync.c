#define _GNU_SOURCE
#include "crt/sync.h"

#include "crt/fs.h"
#include "crt/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

int crt_sync_send(int sock, uint32_t type, const void *data, size_t len, int fd) {
  return crt_sync_send_fds(sock, type, data, len, &fd, fd >= 0 ? 1 : 0);
}

int crt_sync_send_fds(int sock, uint32_t type, const void *data, size_t len, const int *fds, size_t n) {
  /* refused, never cut: a cut message would arrive as a different one
   * (the receiver keeps a NUL after the payload) */
  if (len >= CRT_SYNC_MAX || n > CRT_SYNC_MAX_FDS) {
    errno = EMSGSIZE;
    return -1;
  }
  struct iovec iov[2] = {{.iov_base = &type, .iov_len = sizeof type}, {.iov_base = (void *)data, .iov_len = len}};
  return crt_send_with_fds(sock, iov, len ? 2 : 1, fds, n) < 0 ? -1 : 0;
}

static void close_fds(crt_sync_msg *m) {
  for (size_t i = 0; i < m->nfds; i++) close(m->fds[i]);
  m->nfds = 0;
  m->fd = -1;
}

static int recv_one(int sock, crt_sync_msg *m, crt_err **err) {
  struct iovec iov[2] = {{.iov_base = &m->type, .iov_len = sizeof m->type},
                         {.iov_base = m->data, .iov_len = sizeof m->data - 1}};
  union {
    char buf[CMSG_SPACE(sizeof(int) * CRT_SYNC_MAX_FDS)];
    struct cmsghdr align;
  } cbuf;
  struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2, .msg_control = cbuf.buf, .msg_controllen = sizeof cbuf.buf};
  ssize_t r;
  bool reset = false;
  /* ECONNRESET: the peer went with a message of ours unread (CGROUP_DONE,
   * sent while the init mounts).  The kernel reports that before what the
   * peer queued, once: read on for its ERROR, or the EOF. */
  do r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
  while (r < 0 && (errno == EINTR || (errno == ECONNRESET && !reset && (reset = true))));
  if (r < 0) return crt_error(err, errno, "read from init");
  if (r == 0) return crt_error(err, 0, "container init exited unexpectedly");
  if ((size_t)r < sizeof m->type) return crt_error(err, 0, "short message from init");
  m->len = (size_t)r - sizeof m->type;
  m->data[m->len] = 0;
  m->fd = -1;
  m->nfds = 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < k && m->nfds < CRT_SYNC_MAX_FDS; i++)
      memcpy(&m->fds[m->nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
  }
  if (m->nfds) m->fd = m->fds[0];
  return 0;
}

int crt_sync_recv(int sock, crt_sync_msg *m, crt_err **err) {
  for (;;) {
    if (recv_one(sock, m, err) < 0) return -1;
    if (m->type != CRT_SYNC_LOG) return 0;
    close_fds(m);
    if (m->len < 1 || m->data[0] < '0' + CRT_LOG_DEBUG || m->data[0] > '0' + CRT_LOG_ERROR) continue;
    crt_log((enum crt_log_level)(m->data[0] - '0'), "%s", m->data + 1);
  }
}

static int log_sock = -1;

/* The sink of crt_sync_log_to: one LOG message per line.  A runtime gone
 * meanwhile takes the line with it: never onto the container's stdio. */
static void send_log(void *arg, enum crt_log_level lvl, const char *msg) {
  (void)arg;
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "%c%s", '0' + (int)lvl, msg);
  if (n < 0) return;
  size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
  (void)crt_sync_send(log_sock, CRT_SYNC_LOG, buf, len, -1);
}

void crt_sync_log_to(int sock) {
  log_sock = sock;
  crt_log_set_sink(sock >= 0 ? send_log : NULL, NULL);
}

int crt_sync_expect(int sock, uint32_t type, crt_sync_msg *m, crt_err **err) {
  if (crt_sync_recv(sock, m, err) < 0) return -1;
  if (m->type == CRT_SYNC_ERROR) {
    close_fds(m);
    crt_error(err, 0, "%s", m->data);
    return -1;
  }
  if (m->type != type) {
    close_fds(m);
    return crt_error(err, 0, "unexpected message %u from init (wanted %u)", m->type, type);
  }
  return 0;
}
