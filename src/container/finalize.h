/* What create's init and exec's process share (finalize.c): the steps
 * between the container's namespaces and execve, the joiner's clone, the
 * console, and how a failure in the child reaches the runtime. */
#ifndef CRT_CONTAINER_FINALIZE_H
#define CRT_CONTAINER_FINALIZE_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/seccomp.h"
#include "crt/spec.h"

/* Where a child's failure goes: the error pipe when there is one (exec),
 * else an ERROR message on the sync socket (create). */
typedef struct {
  int sync;
  int errpipe;
  int exit_code;
} crt_child_report;

__attribute__((noreturn)) void crt_child_fail(const crt_child_report *r, crt_err *err);

/* In a child: a failed step ends it, reported through r (needs a local
 * `crt_err *err`). */
#define CHILD_TRY(r, expr)                        \
  do {                                            \
    if ((expr) < 0) crt_child_fail((r), err);     \
  } while (0)

typedef struct {
  const crt_spec *spec;
  const crt_process *p;
  const char *cwd_origin;  /* for the chdir error: "in config.json", "by --cwd" */
  const char **extra_env;  /* NULL-terminated, or NULL */
  bool userns;             /* in a user namespace: an empty setgroups may be denied */
  bool use_stub;           /* end in crt-stub: open it before seccomp can refuse memfd_create */
  /* create's init, which parks on the exec FIFO (where its seccomp filter
   * is loaded: crt_seccomp_load_point) */
  bool parks;
  int sync;                /* the runtime, for the seccomp notify fd */
} crt_finalize_in;

typedef struct {
  char *exe;                  /* resolved process.args[0] */
  int stub;                   /* crt_stub_open(), or -1 */
  crt_seccomp_filter *filter; /* compiled, or NULL */
  /* where the filter is loaded: crt_process_finalize did BEFORE_USER and
   * AFTER_USER; BEFORE_PARK is the init's (after READY), STUB the stub's */
  enum crt_seccomp_point seccomp_at;
  char **envp;
} crt_finalized;

/* find the executable, open the stub, compile seccomp, rlimits, process
 * attributes, not dumpable, caps_prepare, cwd, env; [seccomp BEFORE_USER];
 * stdio owner, setgroups/setgid/setuid, caps_apply, no_new_privs, LSM
 * label; [seccomp AFTER_USER]; the notify fd to the runtime. */
int crt_process_finalize(const crt_finalize_in *in, crt_finalized *out, crt_err **err);

/* The process's terminal (console: the socket to send the master on), and
 * its new session when session (else crt-stub's spawn makes it); closes
 * console. */
int crt_finalize_terminal(const crt_process *p, int console, bool bind_console, bool session, crt_err **err);

/* The end of a joiner, which has joined (or made) the namespaces: clones
 * the process as its parent's child (runs child(arg) there), sends its
 * pid on r->sync and exits. what names the clone in an error; *in_cgroup
 * (NULL: not wanted) as crt_clone_into's, seen by the child. */
__attribute__((noreturn)) void crt_joiner_clone(unsigned long flags, int cgroup_fd, bool *in_cgroup, const char *what,
                                                const crt_child_report *r, void (*child)(void *), void *arg);
/* Runtime side: the pid the joiner sent; reaps the joiner. */
int crt_joiner_wait(int sync, pid_t joiner, pid_t *pid, crt_err **err);

/* The console for a process with a terminal: the console socket, or (in
 * the foreground, not detached) a socketpair whose *ours end receives the
 * master.  Both -1 without a terminal. */
int crt_console_open(bool terminal, const char *console_socket, bool detached, int *console, int *ours,
                     crt_err **err);

#endif
