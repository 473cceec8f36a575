/* restore: a container started again from CRIU images written by
 * checkpoint (src/container/restore.c; docs/checkpoint.md). */
#ifndef CRT_RESTORE_H
#define CRT_RESTORE_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/checkpoint.h"
#include "crt/error.h"

typedef struct {
  const char *root;
  const char *id;
  const char *bundle; /* NULL: cwd */
  const char *pid_file;
  const char *console_socket;
  const char *lsm_profile, *lsm_mount_context;
  const char *self; /* crt's own binary, re-run by criu as its action script */
  bool systemd_cgroup, rootless;
  bool detach;       /* --detach: return once restored */
  bool no_subreaper; /* --no-subreaper: the container's orphans are not ours to reap */
  crt_criu_opts c;
} crt_restore_opts;

/* Restores the container (detached: the init is a child of the caller,
 * which may wait for it); *pid: the restored init's host pid. */
int crt_container_restore(const crt_restore_opts *o, pid_t *pid, crt_err **err);

/* `crt restore` whole, as crt_container_run for run: restored, then
 * (unless detached) waited for with signals forwarded and deleted.
 * 0 with *exit_code the process's (0 detached); -1 when the restore
 * failed.  A failing delete after the exit is logged, as run's. */
int crt_container_restore_run(const crt_restore_opts *o, int *exit_code, crt_err **err);

/* criu's action script (`crt restore --criu-notify ID`): runs the prestart
 * and createRuntime hooks at setup-namespaces; other actions are no-ops. */
int crt_restore_notify(const char *root, const char *id, const char *action, crt_err **err);

#endif
