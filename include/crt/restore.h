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
  crt_criu_opts c;
} crt_restore_opts;

/* Restores the container (detached: the init is a child of the caller,
 * which may wait for it); *pid: the restored init's host pid. */
int crt_container_restore(const crt_restore_opts *o, pid_t *pid, crt_err **err);

/* criu's action script (`crt restore --criu-notify ID`): runs the prestart
 * and createRuntime hooks at setup-namespaces; other actions are no-ops. */
int crt_restore_notify(const char *root, const char *id, const char *action, crt_err **err);

#endif
