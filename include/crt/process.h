/* Setting up the container process: namespaces, user, rlimits, env, and
 * everything done between clone and execve. */
#ifndef CRT_PROCESS_H
#define CRT_PROCESS_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

/* namespaces.c */
/* Clone flags for the namespaces the spec asks to create (no path). */
int crt_ns_new_flags(const crt_spec *spec);
/* setns into every namespace given by path, user namespace first. */
int crt_ns_join_paths(const crt_spec *spec, crt_err **err);
/* Joins the namespaces of a running process (exec), user first; skips
 * those it already shares.  *joined: the flags joined.  The namespace in
 * `defer` (one clone flag, or 0) is not joined: its fd is left in
 * *deferred (-1 when shared) for the caller to setns later. */
int crt_ns_join_pid(pid_t pid, int defer, int *joined, int *deferred, crt_err **err);
/* Writes uid_map/gid_map of pid (parent side). */
int crt_ns_write_maps(pid_t pid, const crt_spec *spec, crt_err **err);
/* Raw clone(2) with fork semantics (child returns 0). */
pid_t crt_raw_clone(unsigned long flags);
/* The pids in init's pid namespace (just init when it shares ours); for
 * ps and kill --all of a container without a cgroup. */
int crt_ns_pids(pid_t init, pid_t **pids, size_t *n, crt_err **err);
/* The same, born in the cgroup v2 directory cgroup_fd when the kernel
 * lets us (clone3 CLONE_INTO_CGROUP); falls back to crt_raw_clone, so the
 * caller checks membership (crt_cgroup_join does). cgroup_fd -1: plain.
 * *in_cgroup, in the parent and in the child alike: whether clone3 put the
 * child into the cgroup (it points into memory both sides have). */
pid_t crt_clone_into(unsigned long flags, int cgroup_fd, bool *in_cgroup);

/* process.c: inside the container. */
/* Resolves args[0] in the process's PATH (runc's LookPath semantics):
 * `exec: "foo": executable file not found in $PATH`. */
int crt_find_executable(const crt_process *p, char **out, crt_err **err);
int crt_set_rlimits(const crt_process *p, crt_err **err);
int crt_set_sysctls(const crt_spec *spec, crt_err **err);
int crt_set_hostname(const crt_spec *spec, crt_err **err);
/* Brings `lo` up when the container has a network namespace of its own (not
 * one joined by path), as runc's "loopback" network does. */
int crt_loopback_up(const crt_spec *spec, crt_err **err);
/* linux.memoryPolicy: checked at create, applied in every container
 * process (set_mempolicy survives execve). */
int crt_mempolicy_validate(const crt_memory_policy *m, crt_err **err);
int crt_set_mempolicy(const crt_spec *spec, crt_err **err);
/* sched_setaffinity to a CPU list; NULL: every CPU the cpuset allows. */
int crt_set_cpu_list(const char *list, crt_err **err);
/* netdev.c: linux.netDevices moved into the init's network namespace
 * (runtime side, right after the clone). */
int crt_netdev_move(pid_t init, const crt_kvv *devs, crt_err **err);
/* oomScoreAdj, personality, scheduler, ioPriority, umask, memoryPolicy. */
int crt_set_process_attrs(const crt_spec *spec, const crt_process *p, crt_err **err);
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
/* O_PATH fd of /proc/self/fd in a procfs of the container (its /proc, or a
 * detached read-only one): reopens fds such as the exec FIFO by number. */
int crt_proc_self_fd(crt_err **err);
/* Joins a new session keyring named after the container. */
int crt_new_session_keyring(const char *id, crt_err **err);

#endif
