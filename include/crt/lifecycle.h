/* start / kill / delete, and run (create + start + wait + delete): the
 * container lifecycle after create (src/container/lifecycle.c).  create:
 * create.h; exec: exec.h. */
#ifndef CRT_LIFECYCLE_H
#define CRT_LIFECYCLE_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/create.h"
#include "crt/error.h"

int crt_container_start(const char *root, const char *id, crt_err **err);
int crt_container_kill(const char *root, const char *id, int sig, bool all, crt_err **err);
int crt_container_delete(const char *root, const char *id, bool force, crt_err **err);

/* crt run: create, start, the terminal (a foreground one copied to and
 * from crt's stdio), the exit awaited with signals forwarded, delete. */
typedef struct {
  crt_create_opts create; /* run sets foreground_tty, hold and start_now itself */
  bool detach;            /* -d: return once the process runs */
  bool keep;              /* --keep: no delete after the exit (or a failed start) */
  bool no_subreaper;      /* --no-subreaper: orphans go to our parent's reaper */
} crt_run_opts;
/* 0 with *exit_code the process's (runc's: 128+signal when killed; 0
 * detached); -1 when create or start failed (the container then deleted
 * unless keep).  A failing delete after the exit is logged as an error,
 * as runc does, and leaves the exit code. */
int crt_container_run(const crt_run_opts *o, int *exit_code, crt_err **err);

/* Waits for a direct child and forwards signals to it until it exits;
 * returns runc's exit code. */
int crt_wait_forward(pid_t pid);

#endif
