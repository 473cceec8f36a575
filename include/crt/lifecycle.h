/* create / start / kill / delete / exec: the container lifecycle. */
#ifndef CRT_LIFECYCLE_H
#define CRT_LIFECYCLE_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

typedef struct {
  const char *root;
  const char *id;
  const char *bundle;         /* NULL: cwd */
  const char *pid_file;
  const char *console_socket;
  bool no_pivot;
  bool no_new_keyring;
  int preserve_fds;
  /* run in the foreground with a terminal and no console socket: the
   * master comes back on *tty_sock_out for the caller to copy. */
  bool foreground_tty;
  /* from the global flags: the container layer does not read the CLI's */
  char **argv;                /* crt's own command line, for the sealed re-exec */
  bool systemd_cgroup;        /* --systemd-cgroup */
  bool rootless;              /* not root, or --rootless true: no cgroup is an error only when asked for */
} crt_create_opts;

typedef struct {
  pid_t pid;        /* init's host pid */
  int tty_sock;     /* foreground tty: our end of the console socketpair, else -1 */
} crt_create_result;

int crt_container_create(const crt_create_opts *o, crt_create_result *res, crt_err **err);
int crt_container_start(const char *root, const char *id, crt_err **err);
int crt_container_kill(const char *root, const char *id, int sig, bool all, crt_err **err);
int crt_container_delete(const char *root, const char *id, bool force, crt_err **err);

typedef struct {
  const char *root;
  const char *id;
  crt_process *process;       /* fully built (from --process or config + flags) */
  const char *cwd_origin;     /* where process->cwd was set, for errors: "by --cwd" */
  const char *console_socket;
  const char *pid_file;
  const char *cgroup;         /* exec --cgroup sub-cgroup, NULL */
  bool detach;
  bool ignore_paused;
  int preserve_fds;
} crt_exec_opts;

/* Detached: returns once the process exec'd (0) or failed (< 0).
 * Foreground: *exit_status gets the process's exit code (128+N on signal). */
int crt_container_exec(const crt_exec_opts *o, int *exit_status, crt_err **err);

/* Waits for a direct child and forwards signals to it until it exits;
 * returns runc's exit code. */
int crt_wait_forward(pid_t pid);

#endif
