/* OCI hooks: each gets the state JSON on stdin, its args and env, and is
 * killed when its timeout elapses. */
#ifndef CRT_HOOKS_H
#define CRT_HOOKS_H

#include <stdbool.h>

#include "crt/error.h"
#include "crt/spec.h"

/* Where a hook runs, and the environment of a hook whose config sets no
 * env: NULL dir is the caller's cwd, NULL env the caller's environ. */
typedef struct {
  const char *dir;
  char *const *env;
} crt_hook_place;

/* Runs hooks in order (at NULL: in the caller's cwd and environ); stops at
 * the first failure ("kind hook #N (path): ..."). */
int crt_hooks_run_at(const crt_hookv *hooks, const char *kind, const crt_hook_place *at, const char *state_json,
                     crt_err **err);

/* Runs every hook; a failure is logged as a warning and the rest still run
 * (poststop: "the remaining hooks and lifecycle continue"). */
void crt_hooks_run_warn(const crt_hookv *hooks, const char *kind, const char *state_json);

/* prestart or createRuntime hooks: the runtime runs them while the init
 * waits (its PRESTART request). */
bool crt_hooks_runtime_create(const crt_hooks *h);

#endif
