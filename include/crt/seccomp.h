/* seccomp (src/linux/seccomp.c): linux.seccomp compiled with libseccomp,
 * where the filter is loaded, and the notify listener. */
#ifndef CRT_SECCOMP_H
#define CRT_SECCOMP_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

typedef struct crt_seccomp_filter crt_seccomp_filter;

/* Compiles linux.seccomp into a filter (libseccomp); errors carry the JSON
 * path (".linux.seccomp.syscalls[3].action: unknown action ..."). */
int crt_seccomp_compile(const crt_seccomp *s, crt_seccomp_filter **out, crt_err **err);
/* Loads it into the calling process.  *notify_fd gets the listener fd when
 * an SCMP_ACT_NOTIFY rule exists (else -1). */
int crt_seccomp_load(crt_seccomp_filter *f, int *notify_fd, crt_err **err);
void crt_seccomp_filter_free(crt_seccomp_filter *f);
/* Whether filter s is loaded last, by crt-stub when it is used: with
 * noNewPrivileges and no notify agent.  Otherwise crt loads it (see
 * crt_seccomp_load_point). */
bool crt_seccomp_late(const crt_seccomp *s, const crt_process *p);

/* Where a process's filter is loaded: the one rule create's init and
 * exec's process follow (docs/security.md, "Seccomp and the parked init"). */
enum crt_seccomp_point {
  CRT_SECCOMP_NONE,        /* no linux.seccomp */
  CRT_SECCOMP_BEFORE_USER, /* by crt before setuid: without noNewPrivileges loading needs CAP_SYS_ADMIN;
                            * with a notify agent (create), its fd reaches the runtime before READY */
  CRT_SECCOMP_AFTER_USER,  /* by crt after the LSM label (exec: an agent, or no stub) */
  CRT_SECCOMP_BEFORE_PARK, /* create without the stub: by crt after READY, before the exec FIFO */
  CRT_SECCOMP_STUB,        /* by crt-stub: before it parks on the FIFO (create), before execve (exec) */
  CRT_SECCOMP_REFUSED,     /* create: the profile forbids a call the parked init makes after loading it */
};
/* The system calls a parked init makes after its filter is loaded, up to
 * and including the user's execve (crt-stub, or crt's own park). */
#define CRT_SECCOMP_PARK_CALLS {"openat", "close", "write", "execve"}
/* s: linux.seccomp (NULL: none); p: the process; parks: create's init,
 * which waits on the exec FIFO; use_stub: the process ends in crt-stub.
 * On CRT_SECCOMP_REFUSED, *forbidden (if not NULL) names the call. */
enum crt_seccomp_point crt_seccomp_load_point(const crt_seccomp *s, const crt_process *p, bool parks, bool use_stub,
                                              const char **forbidden);
/* Whether the profile lets every call of syscall name through: named only
 * in ALLOW/LOG rules without conditions, or not named and allowed by the
 * default action. */
bool crt_seccomp_allows(const crt_seccomp *s, const char *name);
/* The BPF program in a memfd at offset 0 (O_CLOEXEC), for crt-stub to load:
 * its length in instructions and the seccomp(2) flags. */
int crt_seccomp_prog_fd(const crt_seccomp_filter *f, int *fd, unsigned *len, unsigned *flags, crt_err **err);
/* Sends the notify fd and the container state JSON (runc's
 * ContainerProcessState with listenerMetadata) to listener_path. */
int crt_seccomp_send_listener(const crt_seccomp *s, int notify_fd, pid_t pid, const char *state_json, crt_err **err);

#endif
