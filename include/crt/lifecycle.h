/* start / kill / delete: the container lifecycle after create
 * (src/container/lifecycle.c).  create: create.h; exec: exec.h. */
#ifndef CRT_LIFECYCLE_H
#define CRT_LIFECYCLE_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"
#include "crt/state.h"

int crt_container_start(const char *root, const char *id, crt_err **err);
int crt_container_kill(const char *root, const char *id, int sig, bool all, crt_err **err);
int crt_container_delete(const char *root, const char *id, bool force, crt_err **err);

/* run's start and delete of the container its create handed over
 * (crt_create_opts.hold): the same checks, hooks and errors as the two
 * above, without reading state.json or config.json back.  start takes
 * h's lock and releases it; delete takes the lock again and uses h's state
 * only while state.json is still the file create wrote (else it deletes
 * as crt_container_delete).  h stays the caller's (crt_held_release). */
int crt_container_start_held(crt_held *h, crt_err **err);
/* What is left of start for a container create already started
 * (crt_create_result.started): the poststart hooks; releases h's lock. */
int crt_container_started_held(crt_held *h, crt_err **err);
int crt_container_delete_held(crt_held *h, bool force, crt_err **err);

/* Waits for a direct child and forwards signals to it until it exits;
 * returns runc's exit code. */
int crt_wait_forward(pid_t pid);

#endif
