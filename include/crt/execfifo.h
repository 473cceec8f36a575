/* The exec FIFO (src/container/execfifo.c): <state dir>/exec.fifo, from
 * create until start.  create opens it O_RDWR and fills its pipe; that
 * open file is the init's one fd of crt's (the parked init opens nothing:
 * no directory of fds or procfs to reach it through, issue 43).  The init
 * parks in a write of CRT_FIFO_OPENED, which blocks until `start` opens
 * the FIFO for reading and drains the CRT_FIFO_FILL bytes; the init's fd
 * is O_CLOEXEC, and the only writer, so start reads EOF exactly when the
 * user's execve happened.  Anything after that first byte is the init's
 * error message.  While the FIFO exists the container is "created".
 * The bytes (crt/wire.h) are also crt-stub's, which parks on the FIFO with
 * raw system calls. */
#ifndef CRT_EXECFIFO_H
#define CRT_EXECFIFO_H

#define CRT_FIFO_NAME "exec.fifo"

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/state.h"
#include "crt/wire.h"

/* create: makes the FIFO in dir (0600: only crt opens it by name) and
 * opens it O_RDWR (*fd, O_CLOEXEC), its pipe filled: the fd the init
 * parks on. */
int crt_exec_fifo_create(const char *dir, int *fd, crt_err **err);

/* The init, when crt itself runs up to execve: writes CRT_FIFO_OPENED to
 * fd, which blocks until start drains the pipe.  -1 on failure (nobody to
 * tell then: start sees the init die). */
int crt_exec_fifo_park(int fd);

/* The parked init's failure after the FIFO opened, for start to print. */
void crt_exec_fifo_fail(int wfd, const char *msg, bool hook_failed);

/* start: opens the read end (the init's open returns) and removes the
 * FIFO: the container is no longer "created". */
int crt_exec_fifo_release(const char *dir, int *fd, crt_err **err);

/* start: reads fd until EOF.  0: the user process was exec'd.  The
 * init's error otherwise (*hook_failed: a startContainer hook's).  pidfd
 * (the init's, or -1) tells an init that dies without writing; an init
 * that exec'd without writing to this reader (someone else opened the
 * FIFO) is CRT_ERR_BAD_STATE. */
int crt_exec_fifo_await(int fd, const crt_state *s, int pidfd, bool *hook_failed, crt_err **err);

/* Whether dir still holds the FIFO (not released by start). */
bool crt_exec_fifo_exists(const char *dir);

/* create, once the init parked: what it runs (its /proc/PID/exe's device
 * and inode, "DEV INO"), kept in state.json (crt_state.parked_exe); *out
 * NULL for an init already gone or one we may not look at (then the FIFO
 * alone tells "created"). */
int crt_exec_fifo_parked_id(pid_t pid, char **out, crt_err **err);

/* Whether the init pid still waits on the FIFO in dir: the FIFO exists and
 * the init has not exec'd since create (a process in the container with
 * CAP_SYS_PTRACE can open the FIFO through /proc/1/fd and so start it
 * without `start`).  The container's status is "created" only then.
 * parked: crt_exec_fifo_parked_id's record, NULL: none (the init was gone
 * or not ours to look at when create finished: the FIFO alone tells). */
bool crt_exec_fifo_waiting(const char *dir, pid_t pid, const char *parked);
#endif
