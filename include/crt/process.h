/* Setting up the container process (src/linux/process.c): user, rlimits,
 * env, cwd, and the other steps inside the container between clone and
 * execve.  Namespaces and clone: namespaces.h; CPU and memory placement:
 * numa.h; network devices: netdev.h. */
#ifndef CRT_PROCESS_H
#define CRT_PROCESS_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

/* Resolves args[0] in the process's PATH and checks that the caller may
 * execute it, as runc's init does with Go's exec.LookPath, in its words:
 * `exec: "foo": executable file not found in $PATH`, `exec: "/x": stat
 * /x: no such file or directory`, `exec: "/d": is a directory`,
 * `exec: "/f": permission denied`.  Call it as the process's user. */
int crt_find_executable(const crt_process *p, char **out, crt_err **err);
int crt_set_rlimits(const crt_process *p, crt_err **err);
int crt_set_sysctls(const crt_spec *spec, crt_err **err);
int crt_set_hostname(const crt_spec *spec, crt_err **err);
/* Brings `lo` up when the container has a network namespace of its own (not
 * one joined by path), as runc's "loopback" network does. */
int crt_loopback_up(const crt_spec *spec, crt_err **err);
/* Brings up lo of the caller's network namespace (nothing if it is up). */
int crt_lo_up(crt_err **err);
/* oomScoreAdj, personality, scheduler, ioPriority, umask, memoryPolicy. */
int crt_set_process_attrs(const crt_spec *spec, const crt_process *p, crt_err **err);
/* process.oomScoreAdj written to /proc/PID (0: ourselves) by a process that
 * is still the host's root: for a process about to become root in a user
 * namespace, which cannot write its own afterwards.  Nothing when unset. */
int crt_oom_score_adj_early(pid_t pid, const crt_process *p, crt_err **err);
/* Whether setting up p writes under /proc (sysctls, timeOffsets,
 * oomScoreAdj, an LSM label) or reopens its terminal there: only then is
 * crt's own procfs handle made ahead (crt/procfs.h).  Making it and
 * dropping it cost the init ~0.2 ms (a procfs superblock, and an unmount
 * that waits for an RCU grace period).  A write it did not foresee still
 * works: crt_procfs_open makes a handle for that call. */
bool crt_proc_writes_wanted(const crt_spec *spec, const crt_process *p);
/* setgroups/setresgid/setresuid (the caller keeps capabilities across it). */
int crt_set_user(const crt_process *p, bool userns, crt_err **err);
/* A process without a terminal leads a new session and process group, as
 * in runc (the terminal path calls setsid itself). */
int crt_new_session(crt_err **err);
/* runc's fixStdioPermissions: fds 0-2 (a pty slave included) are chowned
 * to the process's uid, keeping their gid, unless they are /dev/null. */
int crt_fix_stdio_owner(uid_t uid, crt_err **err);
/* chdir into process.cwd and refuse a cwd that is outside the root.
 * origin names where the cwd was set, for the error ("in config.json",
 * "by --cwd"). */
int crt_set_cwd(const crt_process *p, const char *origin, crt_err **err);
/* Builds envp: process.env, plus HOME from /etc/passwd when missing. */
char **crt_build_env(const crt_process *p, const char **extra);
/* Resets signal dispositions and the mask before execve. */
void crt_reset_signals(void);
/* Joins a new session keyring named after the container. */
int crt_new_session_keyring(const char *id, crt_err **err);

#endif
