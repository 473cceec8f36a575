/* Messages between the runtime and the container's init over a
 * SOCK_SEQPACKET socketpair: one message each, optionally with fds.  The
 * protocol of the lifecycle (create, exec, the init), so it lives with it
 * in src/container/sync.c; the types: crt/wire.h. */
#ifndef CRT_SYNC_H
#define CRT_SYNC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/wire.h"

#define CRT_SYNC_MAX 65536
/* fds one message may carry (CGROUP_DONE: a tasks file per v1 hierarchy) */
#define CRT_SYNC_MAX_FDS 32

typedef struct {
  uint32_t type;
  int fd;        /* received fd or -1 (the first of fds) */
  int fds[CRT_SYNC_MAX_FDS];
  size_t nfds;
  size_t len;
  char data[CRT_SYNC_MAX];
} crt_sync_msg;

/* -1 with errno set when the message cannot be sent whole (EMSGSIZE for a
 * payload of CRT_SYNC_MAX bytes or more: never cut). */
int crt_sync_send(int sock, uint32_t type, const void *data, size_t len, int fd);
/* The same with n (at most CRT_SYNC_MAX_FDS) fds attached. */
int crt_sync_send_fds(int sock, uint32_t type, const void *data, size_t len, const int *fds, size_t n);
/* Receives one message; EOF is an error "init exited unexpectedly".  LOG
 * messages are written to this process's log on the way, never returned. */
int crt_sync_recv(int sock, crt_sync_msg *m, crt_err **err);
/* Receives and checks the type; an ERROR message becomes *err (the fds of
 * a message of another type are closed). */
int crt_sync_expect(int sock, uint32_t type, crt_sync_msg *m, crt_err **err);

/* The calling process's warnings and errors go to the runtime over sock
 * (a LOG message each) from now on; -1: to its own log again.  For the
 * init and exec's process until they exec or report READY, so that no
 * runtime warning lands in the container's stdio. */
void crt_sync_log_to(int sock);

#endif
