/* Namespaces and clone (src/linux/namespaces.c): creating and joining
 * namespaces, the uid/gid maps, and the clone of the container's init. */
#ifndef CRT_NAMESPACES_H
#define CRT_NAMESPACES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

/* Clone flags for the namespaces the spec asks to create (no path). */
int crt_ns_new_flags(const crt_spec *spec);
/* setns into every namespace given by path but those in skip (clone
 * flags), the user namespace last (see namespaces.c). */
int crt_ns_join_paths(const crt_spec *spec, int skip, crt_err **err);
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

/* A new network namespace made ahead, by a thread, while the runtime does
 * its other work before the clone: making one is most of a clone's cost
 * (0.55 of 0.7 ms here); the thread brings its lo up too (0.1 ms).  The
 * init joins it (setns) instead of cloning with CLONE_NEWNET.  Only for a
 * namespace nothing refers to before the init is in it (no new user
 * namespace, no netDevices to move by pid). */
typedef struct {
  pthread_t thread;
  bool started;
  int fd;  /* the namespace (thread's result), or -1 */
  int err; /* errno of the thread's failure */
} crt_netns_ahead;
/* Starts the thread; false (nothing started) when it cannot be. */
bool crt_netns_ahead_start(crt_netns_ahead *a);
/* Joins the thread (before any clone: no other thread may live then);
 * returns the namespace's fd, or -1 with *err set. */
int crt_netns_ahead_take(crt_netns_ahead *a, crt_err **err);

#endif
