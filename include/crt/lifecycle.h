/* start / kill / delete: the container lifecycle after create
 * (src/container/lifecycle.c).  create: create.h; exec: exec.h. */
#ifndef CRT_LIFECYCLE_H
#define CRT_LIFECYCLE_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

int crt_container_start(const char *root, const char *id, crt_err **err);
int crt_container_kill(const char *root, const char *id, int sig, bool all, crt_err **err);
int crt_container_delete(const char *root, const char *id, bool force, crt_err **err);

/* Waits for a direct child and forwards signals to it until it exits;
 * returns runc's exit code. */
int crt_wait_forward(pid_t pid);

#endif
