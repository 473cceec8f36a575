/* crt-stub: what a container process execs when crt is done with it
 * (src/stub/crt-stub.c, src/linux/exec_stub.c). */
#ifndef CRT_EXEC_STUB_H
#define CRT_EXEC_STUB_H

#include <stdbool.h>

#include "crt/error.h"
#include "crt/seccomp.h"
#include "crt/spec.h"

/* A sealed, executable memfd holding crt-stub (O_CLOEXEC). */
int crt_stub_open(crt_err **err);

/* False when process p needs crt itself up to its execve (LSM exec
 * labels, startContainer hooks, a seccomp filter sc loaded by crt that may
 * refuse execveat): then crt runs from a sealed copy of its own binary
 * instead (crt_ensure_cloned_binary). */
bool crt_stub_usable(const crt_seccomp *sc, const crt_process *p, bool start_hooks);

typedef struct {
  int stub;                         /* crt_stub_open() */
  int fifo;                         /* create: the exec FIFO to park on (crt/execfifo.h), or -1 */
  int hold;                         /* create: the sync socket, closed by the stub once its filter is
                                     * loaded (failures go there until then), or -1 */
  int errfd;                        /* exec: the error pipe, or -1 */
  bool spawn;                       /* exec's stub entry: the stub forks the process (our parent's
                                     * child, in a new session) and sends its pid on spawn_sync */
  int spawn_sync;
  bool tty;                         /* spawn: fd 0 becomes the controlling terminal */
  const crt_seccomp_filter *filter; /* loaded by the stub, or NULL */
  int exit_code;                    /* when the stub fails */
  const char *exe;
  char *const *argv, *const *envp;
} crt_stub_args;

/* Execs the stub, which execs exe; returns only on failure.  The caller
 * has made every other fd above its preserved ones O_CLOEXEC. */
int crt_stub_exec(const crt_stub_args *a, crt_err **err);

/* The message for a failure record the stub wrote ("\1ERRNO:CONTEXT"),
 * malloc'd; NULL when buf is not one. */
char *crt_stub_message(const char *buf);

#endif
