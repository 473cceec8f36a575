#define _GNU_SOURCE
#include "crt/sync.h"

#include "crt/fs.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

int crt_sync_send(int sock, uint32_t type, const void *data, size_t len, int fd) {
  /* refused, never cut: a cut message would arrive as a different one */
  if (len >= CRT_SYNC_MAX) { /* the receiver keeps a NUL after the payload */
    errno = EMSGSIZE;
    return -1;
  }
  struct iovec iov[2] = {{.iov_base = &type, .iov_len = sizeof type}, {.iov_base = (void *)data, .iov_len = len}};
  return crt_send_with_fd(sock, iov, len ? 2 : 1, fd) < 0 ? -1 : 0;
}

int crt_sync_recv(int sock, crt_sync_msg *m, crt_err **err) {
  struct iovec iov[2] = {{.iov_base = &m->type, .iov_len = sizeof m->type},
                         {.iov_base = m->data, .iov_len = sizeof m->data - 1}};
  char cbuf[CMSG_SPACE(sizeof(int))];
  struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
  ssize_t r;
  do r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
  while (r < 0 && errno == EINTR);
  if (r < 0) return crt_error(err, errno, "read from init");
  if (r == 0) return crt_error(err, 0, "container init exited unexpectedly");
  if ((size_t)r < sizeof m->type) return crt_error(err, 0, "short message from init");
  m->len = (size_t)r - sizeof m->type;
  m->data[m->len] = 0;
  m->fd = -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) memcpy(&m->fd, CMSG_DATA(c), sizeof(int));
  return 0;
}

int crt_sync_expect(int sock, uint32_t type, crt_sync_msg *m, crt_err **err) {
  if (crt_sync_recv(sock, m, err) < 0) return -1;
  if (m->type == CRT_SYNC_ERROR) {
    crt_error(err, 0, "%s", m->data);
    return -1;
  }
  if (m->type != type) {
    if (m->fd >= 0) close(m->fd);
    return crt_error(err, 0, "unexpected message %u from init (wanted %u)", m->type, type);
  }
  return 0;
}
