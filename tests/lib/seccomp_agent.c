#define _GNU_SOURCE
/* A minimal seccomp notify agent for tests/integration/t_security.sh.
 *
 *   seccomp_agent SOCKET STATE_OUT ERRNO [CONNECTIONS]
 *
 * Listens on the unix socket SOCKET for CONNECTIONS (default 1) connections
 * from the runtime (create, then each exec), each bringing the
 * ContainerProcessState JSON (written to STATE_OUT, STATE_OUT.2, ...) and a
 * notify fd, and answers every notification: mkdir/mkdirat "succeed"
 * without doing anything when ERRNO is 0, else fail with -ERRNO; any other
 * syscall continues.  Exits 0 once every notify fd hung up (the filtered
 * processes are gone), 1 after 20 s without events.  Prints "ready" once
 * listening.  With AGENT_HOLD_MS in the environment it holds each mkdir
 * that long after receiving it, printing "received" first, and says on
 * stderr when its answer came too late (the call was gone: ENOENT). */
#include <errno.h>
#include <poll.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_CONN 8

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

static int hold_ms(void) {
  const char *h = getenv("AGENT_HOLD_MS");
  return h ? atoi(h) : 0;
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
    if (hold_ms() > 0) {
      printf("received\n");
      fflush(stdout);
      usleep((useconds_t)hold_ms() * 1000);
    }
  } else {
    resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  }
  free(name);
  errno = 0;
  r = seccomp_notify_respond(nfd, resp);
  /* libseccomp 2.5 says -ECANCELED for any kernel error, with errno set */
  if (r == -ENOENT || (r < 0 && errno == ENOENT)) { /* the caller died or was interrupted meanwhile */
    fprintf(stderr, "agent: answer too late (ENOENT)\n");
    r = 0;
  }
out:
  seccomp_notify_free(req, resp);
  return r;
}

static int accept_one(int ls, const char *out, int n) {
  int conn = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
  static char buf[1 << 16];
  int nfd = -1;
  if (conn < 0 || recv_state(conn, buf, sizeof buf, &nfd) < 0) {
    perror("agent: receiving the state");
    return -1;
  }
  close(conn);
  char path[4096];
  if (n == 1)
    snprintf(path, sizeof path, "%s", out);
  else
    snprintf(path, sizeof path, "%s.%d", out, n);
  FILE *f = fopen(path, "we");
  if (f == NULL || fputs(buf, f) < 0 || fclose(f) != 0) return -1;
  return nfd;
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: %s SOCKET STATE_OUT ERRNO [CONNECTIONS]\n", argv[0]);
    return 2;
  }
  int err_no = atoi(argv[3]);
  int want = argc == 5 ? atoi(argv[4]) : 1;
  if (want < 1 || want > MAX_CONN) return 2;
  int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", argv[1]);
  unlink(argv[1]);
  if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, want) < 0) {
    perror("agent: listen");
    return 1;
  }
  printf("ready\n");
  fflush(stdout);
  /* p[0]: the listening socket while connections are expected; then one
   * slot per notify fd, -1 once it hung up (nobody left to answer). */
  struct pollfd p[MAX_CONN + 1];
  int accepted = 0, open_fds = 0;
  p[0] = (struct pollfd){.fd = ls, .events = POLLIN};
  for (;;) {
    if (accepted == want && open_fds == 0) return 0;
    if (accepted == want) p[0].fd = -1;
    int r = poll(p, (nfds_t)accepted + 1, 20000);
    if (r <= 0) {
      fprintf(stderr, "agent: timed out with %d of %d connections\n", accepted, want);
      return 1;
    }
    if (p[0].fd >= 0 && (p[0].revents & POLLIN)) {
      int nfd = accept_one(ls, argv[2], accepted + 1);
      if (nfd < 0) return 1;
      accepted++;
      open_fds++;
      p[accepted] = (struct pollfd){.fd = nfd, .events = POLLIN};
    }
    for (int i = 1; i <= accepted; i++) {
      if (p[i].fd < 0 || p[i].revents == 0) continue;
      if (p[i].revents & POLLIN) {
        if (answer(p[i].fd, err_no) < 0) fprintf(stderr, "agent: notification failed\n");
      } else {
        close(p[i].fd);
        p[i].fd = -1;
        open_fds--;
      }
    }
  }
}
