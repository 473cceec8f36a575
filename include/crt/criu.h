/* CRIU through its command line (`criu dump`, `criu restore`): crt builds
 * the argument vector, runs criu as a child and turns a failure into an
 * error carrying the Error lines of criu's log (docs/checkpoint.md says
 * why the command line and not the RPC protocol). */
#ifndef CRT_CRIU_H
#define CRT_CRIU_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"

/* A growing, NULL-terminated argument vector; every string is owned. */
typedef struct crt_args {
  char **v;
  size_t n, cap;
  bool oom; /* an allocation failed: crt_criu_run refuses the vector */
} crt_args;

void crt_args_add(crt_args *a, const char *s);
void crt_args_addf(crt_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void crt_args_free(crt_args *a);

/* The criu binary: --criu, else "criu" (found on PATH, as runc does). */
const char *crt_criu_binary(const char *flag);

/* `criu check` (feature NULL) or `criu check --feature F`; the error says
 * what criu printed. */
int crt_criu_check(const char *criu, const char *feature, crt_err **err);

/* Runs in the child between fork and exec, after the parent's before_exec
 * (restore: a private mount namespace, the rootfs bound where criu wants
 * it, arguments only the child can know added to args, its own copy);
 * returns 0, or -1 with a message in msg. */
typedef int (*crt_criu_setup_fn)(void *arg, crt_args *args, char *msg, size_t len);

typedef struct {
  crt_criu_setup_fn setup; /* NULL: none */
  void *setup_arg;
  /* Called in the parent with the child's pid before the child execs
   * (restore: the container's cgroup made and the child moved into it, so
   * that every restored process is born there).  NULL: none. */
  int (*before_exec)(void *arg, pid_t child, crt_err **err);
  void *before_arg;
  const char *log; /* criu's -o file, quoted in errors */
} crt_criu_run_opts;

/* Runs criu with args (args->v[0] is the binary) and waits for it. */
int crt_criu_run(crt_args *args, const crt_criu_run_opts *o, crt_err **err);

#endif
