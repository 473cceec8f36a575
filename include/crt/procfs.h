/* Every write crt makes under /proc (sysctls, oom_score_adj, LSM labels,
 * timens offsets, uid_map/gid_map/setgroups) goes through here, so that no
 * mount or symlink a config or image put under a /proc can redirect it
 * (CVE-2025-52881 class).
 *
 * The handle is a procfs root crt made itself: a fresh procfs
 * (fsopen/fsmount), else a non-recursive clone of /proc (open_tree: no
 * submount comes along), else /proc itself.  Files are opened beneath it
 * with openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS|
 * RESOLVE_NO_XDEV (an overmount anywhere on the way is refused), and
 * checked with fstatfs to be on procfs before anything is written. */
#ifndef CRT_PROCFS_H
#define CRT_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "crt/error.h"

/* What a relative path starts from: the procfs root ("sys/kernel/..."),
 * this process ("oom_score_adj"), this thread ("attr/exec"), or pid. */
enum crt_procfs_base { CRT_PROCFS_ROOT, CRT_PROCFS_SELF, CRT_PROCFS_THREAD_SELF, CRT_PROCFS_PID };

/* How the handle was made (tests and messages). */
enum crt_procfs_kind { CRT_PROCFS_NONE, CRT_PROCFS_FSMOUNT, CRT_PROCFS_CLONE, CRT_PROCFS_PLAIN };

/* Makes the process's handle now (the init does so before any config
 * mount exists, and keeps it across pivot_root).  Idempotent; a child
 * after fork gets its own. */
int crt_procfs_prepare(crt_err **err);
/* Drops the handle: a parked init must not hold an unmasked procfs that
 * a process in the container could reach through /proc/1/fd. */
void crt_procfs_close(void);
enum crt_procfs_kind crt_procfs_kind(void);

/* A write to a child's <pid>/rel, the child known both by fork()'s return
 * and by what /proc/self said in it: which one is right depends on the
 * handle (a /proc of another pid namespace numbers differently). */
int crt_procfs_write_child(pid_t child, pid_t child_in_proc, const char *rel, const char *data, size_t len,
                           crt_err **err);

/* Opens rel (no "..", no leading "/") under base, checked as above.
 * pid is for CRT_PROCFS_PID only. */
int crt_procfs_open(enum crt_procfs_base base, pid_t pid, const char *rel, int flags, crt_err **err);
/* Opens O_WRONLY and writes data in one write(2) (procfs files take a
 * value per write). */
int crt_procfs_write(enum crt_procfs_base base, pid_t pid, const char *rel, const char *data, size_t len,
                     crt_err **err);

/* Opens the file an O_PATH fd holds with flags, through the handle's
 * <pid>/fd/N (the fd was checked: the path it came from is not looked up
 * again). */
int crt_procfs_reopen(int fd, int flags, crt_err **err);


#endif
