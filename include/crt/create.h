/* create: a container set up and parked on its exec FIFO until start
 * (src/container/create.c). */
#ifndef CRT_CREATE_H
#define CRT_CREATE_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"
#include "crt/state.h"

typedef struct {
  const char *root;
  const char *id;
  const char *bundle;         /* NULL: cwd */
  const char *pid_file;
  const char *console_socket;
  const char *pidfd_socket;   /* --pidfd-socket: gets the init's pidfd */
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
  bool hold;                  /* run: the result's held gets the state, spec and lock */
  bool start_now;             /* run: start the process at once where no park is needed (result.started) */
} crt_create_opts;

typedef struct {
  pid_t pid;        /* init's host pid */
  int tty_sock;     /* foreground tty: our end of the console socketpair, else -1 */
  crt_held held;    /* with opts.hold, on success: the container, still locked (crt_held_release) */
  bool started;     /* start_now was honoured: the process runs already; its poststart hooks are the
                     * caller's (crt_container_run's start) */
} crt_create_result;

int crt_container_create(const crt_create_opts *o, crt_create_result *res, crt_err **err);

#endif
