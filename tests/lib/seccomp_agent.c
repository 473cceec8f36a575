#define _GNU_SOURCE
/* A minimal seccomp notify agent for tests/integration/t_security.sh.
 *
 *   seccomp_agent SOCKET STATE_OUT ERRNO
 *
 * Listens on the unix socket SOCKET, accepts one connection from the
 * runtime, receives the ContainerProcessState JSON (written to STATE_OUT)
 * with the notify fd, then answers every notification: mkdir/mkdirat
 * "succeed" without doing anything when ERRNO is 0, else fail with -ERRNO;
 * any other syscall continues.  Exits when the filtered processes are gone
 * (the notify fd hangs up) or after 20 s.  Prints "ready" once listening. */
#include <errno.h>
#include <poll.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int recv_state(int conn, char *buf, size_t len, int *fd) {
  char ctl[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = buf, .iov_len = len - 1};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
  ssize_t n = recvmsg(conn, &mh, MSG_CMSG_CLOEXEC);
  if (n <= 0) return -1;
  buf[n] = 0;
  struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
  if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) return -1;
  memcpy(fd, CMSG_DATA(c), sizeof(int));
  return 0;
}

static int answer(int nfd, int err_no) {
  struct seccomp_notif *req = NULL;
  struct seccomp_notif_resp *resp = NULL;
  if (seccomp_notify_alloc(&req, &resp) < 0) return -1;
  int r = seccomp_notify_receive(nfd, req);
  if (r < 0) goto out;
  char *name = seccomp_syscall_resolve_num_arch(req->data.arch, req->data.nr);
  resp->id = req->id;
  if (name && (!strcmp(name, "mkdir") || !strcmp(name, "mkdirat"))) {
    resp->val = 0;
    resp->error = err_no ? -err_no : 0;
    fprintf(stderr, "agent: %s from pid %u -> %d\n", name, req->pid, resp->error);
  } else {
    resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  }
  free(name);
  r = seccomp_notify_respond(nfd, resp);
  if (r == -ENOENT) r = 0; /* the caller died meanwhile */
out:
  seccomp_notify_free(req, resp);
  return r;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s SOCKET STATE_OUT ERRNO\n", argv[0]);
    return 2;
  }
  int err_no = atoi(argv[3]);
  int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", argv[1]);
  unlink(argv[1]);
  if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, 1) < 0) {
    perror("agent: listen");
    return 1;
  }
  printf("ready\n");
  fflush(stdout);
  struct pollfd p = {.fd = ls, .events = POLLIN};
  if (poll(&p, 1, 20000) != 1) return 1;
  int conn = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
  static char buf[1 << 16];
  int nfd = -1;
  if (conn < 0 || recv_state(conn, buf, sizeof buf, &nfd) < 0) {
    perror("agent: receiving the state");
    return 1;
  }
  FILE *f = fopen(argv[2], "we");
  if (f == NULL || fputs(buf, f) < 0 || fclose(f) != 0) return 1;
  for (;;) {
    p = (struct pollfd){.fd = nfd, .events = POLLIN};
    int r = poll(&p, 1, 20000);
    if (r <= 0) return 1;
    if (!(p.revents & POLLIN)) return 0; /* hung up: nobody left to answer */
    if (answer(nfd, err_no) < 0) fprintf(stderr, "agent: notification failed\n");
  }
}
