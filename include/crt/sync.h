/* Messages between the runtime and the container's init over a
 * SOCK_SEQPACKET socketpair: one message per step, optionally with an fd.
 * The protocol of the lifecycle (create, exec, the init), so it lives with
 * it in src/container/sync.c, not in the linux layer. */
#ifndef CRT_SYNC_H
#define CRT_SYNC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "crt/error.h"

enum crt_sync_type {
  CRT_SYNC_PID = 1,        /* child -> parent: pid of the real init (two-stage spawn) */
  CRT_SYNC_MAPS_DONE,      /* parent -> child: uid/gid maps written */
  CRT_SYNC_CGROUP_DONE,    /* parent -> child: in its cgroup; payload: cgroup path */
  CRT_SYNC_PRESTART,       /* child -> parent: mounts ready, run prestart/createRuntime hooks (sent
                            * only when there are some) */
  CRT_SYNC_PRESTART_DONE,  /* parent -> child: the exec FIFO attached, none for run's direct start
                            * (unasked without those hooks) */
  CRT_SYNC_SECCOMP_FD,     /* child -> parent: seccomp notify fd attached */
  CRT_SYNC_SECCOMP_DONE,   /* parent -> child */
  CRT_SYNC_READY,          /* child -> parent: set up; it parks on the exec FIFO next (create), or
                            * execs the process (run's direct start) */
  CRT_SYNC_ERROR,          /* child -> parent: payload: message */
  CRT_SYNC_TTY_DONE,       /* parent -> child (exec -t foreground): master modes set */
  CRT_SYNC_CGROUP_JOIN,    /* parent -> child (create, v1 made after the clone): the tasks file of
                            * each v1 hierarchy attached; payload: their directories, one a line */
  CRT_SYNC_MOUNT_SOURCE,   /* child -> parent (create, new user namespace): payload: a bind mount's
                            * index; the runtime clones its source (crt_mount_source_clone) */
  CRT_SYNC_MOUNT_FD,       /* parent -> child: that source attached */
};

#define CRT_SYNC_MAX 65536
/* fds one message may carry (CGROUP_JOIN: one per v1 hierarchy) */
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
/* Receives one message; EOF is an error "init exited unexpectedly". */
int crt_sync_recv(int sock, crt_sync_msg *m, crt_err **err);
/* Receives and checks the type; an ERROR message becomes *err (the fds of
 * a message of another type are closed). */
int crt_sync_expect(int sock, uint32_t type, crt_sync_msg *m, crt_err **err);

#endif
