/* Terminals: console socket, pty setup, foreground copy loop. */
#ifndef CRT_TERMINAL_H
#define CRT_TERMINAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

/* In the container process (after pivot_root, so /dev/ptmx is the
 * container's devpts): opens a pty, applies consoleSize, binds the slave
 * over /dev/console when bind_console, makes it the controlling terminal of
 * a new session when controlling (else the process that execs the user's
 * program does: crt-stub's spawn), makes it stdin/stdout/stderr, and sends
 * the master over sock (SCM_RIGHTS, runc's format).  Closes its copy of the
 * master.  sock should be above 2: a sock on 0-2 is replaced by the slave
 * (after the master was sent). */
int crt_terminal_setup(const crt_process *p, int sock, bool bind_console, bool controlling, crt_err **err);

/* Connects to a unix stream socket at path (what names it in errors);
 * returns the fd.  crt_console_socket_connect: a --console-socket. */
int crt_unix_connect(const char *path, const char *what, crt_err **err);
int crt_console_socket_connect(const char *path, crt_err **err);
/* Sends pid's pidfd over sock (--pidfd-socket); pid: our unreaped child. */
int crt_pidfd_send(int sock, pid_t pid, const char *kind, crt_err **err);

/* Receives a pty master sent with SCM_RIGHTS. */
int crt_terminal_recv_master(int sock, int *master, crt_err **err);
/* The same, also returning the message data (runc and crt send
 * "/dev/ptmx", the path the master was opened at).  *name is malloc'd;
 * name may be NULL. */
int crt_terminal_recv_master_name(int sock, int *master, char **name, crt_err **err);

/* Foreground mode: clears ONLCR on the master (runc's output modes); done
 * before the container process runs so that no early output has \r\n. */
int crt_terminal_master_prepare(int master, crt_err **err);

/* Foreground mode: puts our stdin tty in raw mode, copies stdin->master and
 * master->stdout until the master hangs up, forwards SIGWINCH, restores the
 * terminal on every exit path.  Returns when the master closes.  While it
 * runs, SIGHUP SIGINT SIGQUIT SIGTERM SIGUSR1 SIGUSR2
 * SIGPIPE SIGALRM SIGCONT sent to us are forwarded to forward_to (the
 * container's process, as runc does); they no longer end the loop, the
 * master's hang-up does.  forward_to <= 0: no forwarding. */
int crt_terminal_copy_loop_forward(int master, pid_t forward_to, crt_err **err);

/* Copies the window size of tty fd `from` to `master` (what the loop does
 * on SIGWINCH; for callers that run their own signalfd).  -1 + errno. */
int crt_terminal_resize_from(int from, int master);

#endif
