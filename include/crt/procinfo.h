/* The kernel's per-process tables, one reader each: /proc/<pid>/cgroup,
 * /proc/<pid>/stat's start time and /proc/<pid>/mountinfo (read by hand,
 * "\040" and the other octal escapes of paths undone). */
#ifndef CRT_PROCINFO_H
#define CRT_PROCINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "crt/error.h"

/* One line of /proc/<pid>/cgroup, "id:controllers:path". */
typedef struct {
  char *controllers; /* "cpu,cpuacct", "name=systemd"; "" on the unified (v2) line */
  char *path;
} crt_proc_cgroup;

/* Every line of /proc/<pid>/cgroup (pid 0: the caller), in file order. */
int crt_proc_cgroup_read(pid_t pid, crt_proc_cgroup **out, size_t *n, crt_err **err);
void crt_proc_cgroup_free(crt_proc_cgroup *v, size_t n);
/* The path of pid's cgroup in the hierarchy holding controller ("" for the
 * unified line); malloc'd, NULL when there is none or the file is
 * unreadable. */
char *crt_proc_cgroup_path(pid_t pid, const char *controller);

/* Whether pid is in cgroup path or below it, from one read of
 * /proc/<pid>/cgroup: 1 yes, 0 no, -1 cannot tell (no path, the file
 * unreadable or longer than one read takes): then crt_cgroup_has_pid
 * decides. */
int crt_proc_cgroup_under(pid_t pid, const char *path);

/* Whether pid's cpuset cgroup (/proc/<pid>/cpuset: one hierarchy's path,
 * a fraction of /proc/<pid>/cgroup's cost, which prints every
 * hierarchy's) is path or below it: 1 yes, 0 no, -1 cannot tell (no
 * path, path "/", the file unreadable).  1 proves membership: the cpuset
 * cgroup is the pid's own or (cgroup2, cpuset not enabled below it) an
 * ancestor of it.  0 proves nothing: where the container's cgroup has no
 * cpuset of its own, ask crt_proc_cgroup_under. */
int crt_proc_cpuset_under(pid_t pid, const char *path);

/* A small file in one open, one read and one close (a short read of a
 * regular file or of a /proc file is its end): the byte count, buf
 * NUL-terminated; len - 1 means it may go on past buf.  -1 with errno. */
ssize_t crt_read_small(const char *path, char *buf, size_t len);

/* One mount of /proc/self/mountinfo, the paths unescaped. */
typedef struct {
  char *root;     /* the mount's root within its filesystem */
  char *target;   /* the mount point */
  char *fstype;
  char *fs_opts;  /* the super block's options ("rw,cpu,cpuacct") */
  char *optional; /* "shared:1 master:2", "unbindable"; "" when none */
} crt_mountinfo_entry;

typedef struct {
  crt_mountinfo_entry *v;
  size_t n;
} crt_mountinfo;

/* A snapshot of the caller's mount table, in file order (parents first). */
int crt_mountinfo_read(crt_mountinfo *out, crt_err **err);
/* The same, keeping only the mounts of type fstype whose mount point
 * starts with under ("/sys/fs/cgroup/"). */
int crt_mountinfo_read_type(crt_mountinfo *out, const char *fstype, const char *under, crt_err **err);
/* Every mount of pid's mount table (another mount namespace's: checkpoint
 * reads the container's). */
int crt_mountinfo_read_pid(pid_t pid, crt_mountinfo *out, crt_err **err);
void crt_mountinfo_free(crt_mountinfo *mi);
/* Whether tag ("shared", "master", "unbindable") is among e's optional fields. */
bool crt_mountinfo_has_tag(const crt_mountinfo_entry *e, const char *tag);
/* Whether mount mnt_id (statx's STATX_MNT_ID) is in the caller's mount
 * table; true when the table is unreadable. */
bool crt_mountinfo_has_id(uint64_t mnt_id);

/* Start time of a process (field 22 of /proc/PID/stat); 0 if gone.
 * *zombie set when the state is Z or X. */
uint64_t crt_proc_start_time(pid_t pid, bool *zombie);

#endif
