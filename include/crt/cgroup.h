/* cgroups, v1 (and hybrid) and v2 behind one handle (src/cgroup/).
 *
 * A container's cgroup is one crt_cgroup: opened once from a root (the
 * host's, crt_cgroup_host(); a unit test's own tree) and the container's
 * path relative to each hierarchy's root (e.g. "/crt/c1" or the spec's
 * linux.cgroupsPath), the string state.json stores and every later command
 * passes back in.  The v1, hybrid, v2 and systemd drivers are behind it;
 * nothing outside src/cgroup asks which one. */
#ifndef CRT_CGROUP_H
#define CRT_CGROUP_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

enum crt_cgroup_mode { CRT_CGROUP_MODE_V1, CRT_CGROUP_MODE_HYBRID, CRT_CGROUP_MODE_V2 };

/* Where a crt process's cgroups are. */
typedef struct {
  const char *dir;           /* the cgroup filesystem's root: "/sys/fs/cgroup" */
  enum crt_cgroup_mode mode; /* its layout; decides the driver */
  bool foreign;              /* not the kernel's tree as this process sees it (a test's directory): its
                              * hierarchies are plain directories (no mount check), a relative path starts
                              * at its top (not at the caller's cgroup), and /proc/PID/cgroup does not
                              * describe it (who is in a cgroup: its cgroup.procs files) */
} crt_cgroup_root;

/* The host's root: /sys/fs/cgroup with the layout found there, detected
 * once per process.  In the test build only (-DCRT_TEST_POINTS,
 * build/crt-testpoints), CRT_CGROUP_ROOT and CRT_CGROUP_MODE ("v1",
 * "hybrid", "v2") name a foreign one instead. */
const crt_cgroup_root *crt_cgroup_host(void);

/* One container's cgroup. */
typedef struct crt_cgroup crt_cgroup;

/* Opens the handle of the cgroup at path under root (root is copied).
 * path NULL or "": none yet (crt_cgroup_resolve names it) or none at all
 * (rootless without a cgroup); every operation then does nothing, as on a
 * NULL handle.  systemd: --systemd-cgroup (a transient unit holds it). */
int crt_cgroup_open(const crt_cgroup_root *root, const char *path, bool systemd, crt_cgroup **out, crt_err **err);
void crt_cgroup_close(crt_cgroup *cg);
/* Its path ("" for none); the handle's own string. */
const char *crt_cgroup_path(const crt_cgroup *cg);
/* Its root's layout. */
enum crt_cgroup_mode crt_cgroup_mode(const crt_cgroup *cg);

/* ---- create: the cgroup made for a new init ---- */

typedef struct {
  const char *id;
  const crt_spec *spec;   /* linux.cgroupsPath and linux.resources */
  bool rootless;          /* missing permission is not an error, only skipped */
  bool v1_late;           /* v1, hybrid: crt_cgroup_prepare makes only what the clone needs (hybrid's
                           * unified directory); the v1 hierarchies come after it, crt_cgroup_prepare_v1 */
} crt_cgroup_config;

/* Names the cgroup: the handle's path for cfg, computed without creating
 * anything (saved in state.json first, so that a crash mid-create leaves
 * no cgroup that delete --force cannot find), and runc's checks of a
 * cgroup that exists there already (a frozen one is refused, a non-empty
 * one too).  *out: a copy of the path (malloc'd).  _resolve_path is the
 * first half alone; crt_cgroup_check_existing the second, which create
 * makes after the clone where nothing is made before it (pure v1, the
 * cgroup made after the clone). */
int crt_cgroup_resolve(crt_cgroup *cg, const crt_cgroup_config *cfg, char **out, crt_err **err);
int crt_cgroup_resolve_path(crt_cgroup *cg, const crt_cgroup_config *cfg, char **out, crt_err **err);
int crt_cgroup_check_existing(const crt_cgroup *cg, crt_err **err);

/* Creates the cgroup (all hierarchies), applies linux.resources (including
 * device rules: eBPF on v2, devices.allow/deny on v1) and moves pid into it.
 * *path_out: the path to store in state.json (malloc'd; "" when rootless
 * and nothing could be made, and so the handle's).  On failure removes
 * what it created. */
int crt_cgroup_enter(crt_cgroup *cg, const crt_cgroup_config *cfg, pid_t pid, char **path_out, crt_err **err);

/* Makes the cgroup before the process exists, so that it enters without
 * a migration by pid, which waits for the cgroup rwsem's RCU grace
 * period: on cgroup v2 the directory, which the process is cloned
 * straight into (clone3 with CLONE_INTO_CGROUP), resources follow with
 * crt_cgroup_configure; on v1 and hybrid (as root) every hierarchy's
 * directory with its resources and devices, joined by the process itself
 * through crt_cgroup_open_tasks (and hybrid's unified one cloned into);
 * with cfg->v1_late, hybrid's unified one alone (the rest:
 * crt_cgroup_prepare_v1).  *fd: the cgroup2 directory, or -1. */
enum crt_cgroup_prepared {
  CRT_CGROUP_NOT_PREPARED, /* systemd, rootless v1: crt_cgroup_enter after the clone */
  CRT_CGROUP_PREPARED,     /* made; *fd is its cgroup2 directory (or -1: none, or it could not be opened) */
  CRT_CGROUP_NONE,         /* rootless, nothing could be made: no cgroup (the handle's path is "" now) */
};
int crt_cgroup_prepare(crt_cgroup *cg, const crt_cgroup_config *cfg, enum crt_cgroup_prepared *out, int *fd,
                       crt_err **err);
/* Whether crt_cgroup_prepare makes the cgroup before the clone for cfg
 * (without --systemd-cgroup; on v1 and hybrid not rootless), so that
 * create saves the rescue state before it. */
bool crt_cgroup_prepares(const crt_cgroup *cg, const crt_cgroup_config *cfg);
/* Whether the v1 hierarchies can be made after the clone for cfg (v1 and
 * hybrid where crt_cgroup_prepares): the runtime makes and configures them
 * while the init does what needs no cgroup, and the init joins them by
 * itself later (cfg->v1_late, docs/cgroups.md). */
bool crt_cgroup_v1_late(const crt_cgroup *cg, const crt_cgroup_config *cfg);

/* The `tasks` files of the container's cgroup on each v1 hierarchy, opened
 * for writing by the runtime before the clone, so that a process in a user
 * namespace can still write to them (the opener's credentials count). */
typedef struct {
  int *fds;
  char **dirs; /* for errors */
  size_t n;
} crt_cgroup_tasks;
int crt_cgroup_open_tasks(const crt_cgroup *cg, crt_cgroup_tasks *t, crt_err **err);
/* In the new process, first thing: writes "0" to each (see
 * crt_cgroup_join_self), then closes them. */
int crt_cgroup_tasks_join(crt_cgroup_tasks *t, crt_err **err);
/* Closes the fds (the runtime's copies after the clone) and frees t. */
void crt_cgroup_tasks_free(crt_cgroup_tasks *t);
/* After a crt_cgroup_prepare with cfg->v1_late: every v1 hierarchy's
 * directory with its resources and devices (what crt_cgroup_prepare makes
 * otherwise), and their tasks files opened (crt_cgroup_open_tasks) for the
 * process to join.  On failure, the directories this call made are
 * removed; those crt_cgroup_prepare made are crt_cgroup_destroy's. */
int crt_cgroup_prepare_v1(const crt_cgroup *cg, const crt_cgroup_config *cfg, crt_cgroup_tasks *t, crt_err **err);

/* Writes the resources and the device filter into a cgroup made by
 * crt_cgroup_prepare; the init waits for CGROUP_DONE, so nothing runs
 * unconfined. */
int crt_cgroup_configure(const crt_cgroup *cg, const crt_cgroup_config *cfg, crt_err **err);

/* ---- join: a process into an existing cgroup ---- */

/* exec --cgroup (sub): runc's "path" or lines of "ctrl[,ctrl]:path";
 * its refusals (a controller form on a pure cgroup2 host among them). */
int crt_cgroup_sub_check(const crt_cgroup_root *root, const char *sub, crt_err **err);

/* The cgroup2 directory of the cgroup (and sub-cgroup; on hybrid the
 * unified hierarchy's) opened for clone3's CLONE_INTO_CGROUP; -1 on v1 or
 * on any error. */
int crt_cgroup_dirfd(const crt_cgroup *cg, const char *sub);

/* Moves another process into the cgroup; sub: optional sub-cgroup (exec
 * --cgroup), NULL for the container's own.  Skipped: the cgroup2
 * hierarchy when pid was cloned into it, and the v1 hierarchies when
 * v1_joined (the process joined them itself, crt_cgroup_join_self). */
int crt_cgroup_join(const crt_cgroup *cg, const char *sub, pid_t pid, bool v1_joined, crt_err **err);

/* Moves the calling single-threaded process into the cgroup (sub: as
 * crt_cgroup_join's): on each v1 hierarchy by writing "0" to its `tasks`
 * file, and on the cgroup2 one (v2, hybrid's unified) by writing "0" to
 * cgroup.procs when cgroup2 is set.  A thread that moves itself skips the
 * kernel's global threadgroup lock, whose RCU grace period makes a write
 * of a pid to cgroup.procs cost 5-10 ms here when no other cgroup
 * migration preceded it (docs/performance.md); cgroup2's cgroup.procs
 * always takes that lock, so clone3's CLONE_INTO_CGROUP is the way in
 * there, and cgroup2 only its fallback.  init: as crt_cgroup_exec_join's
 * (0: none, a missing directory is skipped). */
int crt_cgroup_join_self(const crt_cgroup *cg, const char *sub, bool cgroup2, pid_t init, crt_err **err);

/* exec's crt_cgroup_join, init the container's init: a missing directory
 * of the container's cgroup is an error (never is the process left in the
 * caller's cgroup), and on pure cgroup2 without sub, when the container's
 * cgroup is gone or refuses the process (EBUSY: the init moved to a
 * sub-cgroup and enabled controllers in it), the process joins the init's
 * current cgroup (/proc/INIT/cgroup), as runc's exec.  crt_cgroup_join_self
 * does the same with a non-zero init. */
int crt_cgroup_exec_join(const crt_cgroup *cg, const char *sub, pid_t pid, bool v1_joined, pid_t init,
                         crt_err **err);

/* ---- a container's cgroup ---- */

/* --systemd-cgroup: stops the container's transient unit (gone already:
 * fine; not systemd: nothing).  Call before crt_cgroup_destroy. */
int crt_cgroup_stop_unit(const crt_cgroup *cg, crt_err **err);

/* Removes the cgroup (and any sub-cgroups) on every hierarchy, retrying
 * for up to a second while killed processes leave it; it kills nothing
 * itself (crt_cgroup_kill does). */
int crt_cgroup_destroy(const crt_cgroup *cg, crt_err **err);

/* Whether the cgroup directory exists (on the hierarchy whose
 * cgroup.procs crt reads). */
bool crt_cgroup_exists(const crt_cgroup *cg);

/* The pids in the cgroup (recursively). */
int crt_cgroup_pids(const crt_cgroup *cg, pid_t **pids, size_t *n, crt_err **err);
/* 1 when pid is in the cgroup (or below it) on any of its hierarchies (a
 * v1 tool may move it on one, as runtime-tools' suite does), 0 when on
 * none, -1 when none could be read. */
int crt_cgroup_has_pid(const crt_cgroup *cg, pid_t pid);

/* Sends sig to every process of the cgroup (cgroup.kill on v2 for SIGKILL). */
int crt_cgroup_kill(const crt_cgroup *cg, int sig, crt_err **err);

/* Freezes/thaws and waits until the state is reached. */
int crt_cgroup_freeze(const crt_cgroup *cg, bool freeze, crt_err **err);
/* 1 frozen, 0 not, < 0 error (no freezer: 0). */
int crt_cgroup_is_frozen(const crt_cgroup *cg);
/* The freezer's directory of the cgroup (v1: the freezer hierarchy's, v2:
 * the cgroup's), malloc'd (criu's --freeze-cgroup); NULL: out of memory. */
char *crt_cgroup_freezer_dir(const crt_cgroup *cg);
/* The freezer hierarchy's (v1) or the cgroup2 mount's directory under
 * root (malloc'd; NULL when out of memory): where is_frozen reads, which
 * `list` opens once for all its containers. */
char *crt_cgroup_freezer_root(const crt_cgroup_root *root);

/* Applies new resources to the cgroup (crt update), all or nothing:
 * every value is checked first, and when a write still fails the files
 * already written get their old content back; the error names the file
 * that failed.  r's device rules (when there are any) become the
 * container's whole device policy: runc's default allowed devices, then
 * r's rules, the last matching rule winning (v1 devices.allow/deny from
 * deny-all, v2 a new eBPF program).  systemd: the container's unit gets the
 * limits that are unit properties too (SetUnitProperties). */
int crt_cgroup_update(const crt_cgroup *cg, const crt_resources *r, crt_err **err);

/* ---- stats and OOM events: output types ---- */

typedef struct {
  char *name;
  unsigned long long value;
} crt_cgroup_stat_kv;

typedef struct {
  unsigned major, minor;
  char *op; /* "Read", "Write", "Sync", "Async", "Discard", "Total" */
  unsigned long long value;
} crt_cgroup_blkio_entry;

typedef struct {
  char *pagesize; /* "2MB" */
  unsigned long long usage, max, failcnt;
} crt_cgroup_hugetlb_stat;

/* What `events --stats` reports (runc's field set); unknown values are 0. */
typedef struct {
  unsigned long long cpu_total, cpu_user, cpu_kernel;
  unsigned long long *percpu;
  size_t n_percpu;
  unsigned long long throttle_periods, throttled_periods, throttled_time;
  unsigned long long mem_usage, mem_max, mem_limit, mem_failcnt;
  unsigned long long swap_usage, swap_max, swap_limit, swap_failcnt;
  unsigned long long kernel_usage, kernel_max, kernel_limit, kernel_failcnt;
  unsigned long long mem_cache;
  crt_cgroup_stat_kv *mem_raw; /* memory.stat */
  size_t n_mem_raw;
  unsigned long long pids_current, pids_limit; /* limit 0: unlimited */
  crt_cgroup_blkio_entry *io_bytes, *io_ios;  /* ioServiceBytesRecursive, ioServicedRecursive */
  size_t n_io_bytes, n_io_ios;
  crt_cgroup_hugetlb_stat *hugetlb;
  size_t n_hugetlb;
} crt_cgroup_stats;

int crt_cgroup_get_stats(const crt_cgroup *cg, crt_cgroup_stats *st, crt_err **err);
void crt_cgroup_stats_free(crt_cgroup_stats *st);

/* An fd that becomes readable on each OOM kill in the cgroup (v1: eventfd
 * registered on memory.oom_control; v2: inotify on memory.events).
 * crt_cgroup_oom_read consumes one notification and returns the number of
 * new OOM events (0 when it was another change). */
int crt_cgroup_oom_fd(const crt_cgroup *cg, crt_err **err);
int crt_cgroup_oom_read(const crt_cgroup *cg, int fd, unsigned long long *last);

/* ---- update's input ---- */

/* runc's size syntax for `update` (units.RAMInBytes): "1024", "100M",
 * "1g", "1.5GiB"; binary multipliers; "-1" is -1 (unlimited). */
int crt_cgroup_parse_size(const char *s, long long *out);

/* `update -r FILE`: a linux.resources JSON object (memory, cpu, blockIO,
 * pids, unified) into r; crt_cgroup_resources_clear frees what it allocated. */
int crt_cgroup_parse_resources_json(const char *buf, const char *name, crt_resources *r, crt_err **err);
void crt_cgroup_resources_clear(crt_resources *r);

#endif
