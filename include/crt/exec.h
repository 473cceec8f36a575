/* exec: a new process in a running container (src/container/exec.c). */
#ifndef CRT_EXEC_H
#define CRT_EXEC_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

typedef struct {
  const char *root;
  const char *id;
  crt_process *process;       /* fully built (from --process or config + flags) */
  const char *cwd_origin;     /* where process->cwd was set, for errors: "by --cwd" */
  const char *console_socket;
  const char *pidfd_socket;   /* --pidfd-socket: gets the process's pidfd */
  const char *pid_file;
  const char *cgroup;         /* exec --cgroup sub-cgroup, NULL */
  bool detach;
  bool ignore_paused;
  int preserve_fds;
  char **argv;                /* crt's own, to re-execute from a sealed copy of crt */
} crt_exec_opts;

/* Detached: returns once the process exec'd (0) or failed (< 0).
 * Foreground: *exit_status gets the process's exit code (128+N on signal). */
int crt_container_exec(const crt_exec_opts *o, int *exit_status, crt_err **err);

#endif
