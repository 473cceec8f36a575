/* Private to src/cgroup/: the handle, the driver table and the helpers
 * shared by the v1, v2, systemd and eBPF code (and what the unit tests
 * reach inside).
 *
 * The files form layers, each calling only the ones below it (the
 * t_docs test test_no_call_cycles keeps it so):
 *   cgroup.c, cgroup_update.c   the handle: pick the driver and dispatch
 *   cgroup_systemd.c            systemd wrapper of a cgroupfs driver
 *   cgroup_v1.c (v1, hybrid) -> cgroup_v2.c (v2, and hybrid's unified half)
 *   cgroup_journal.c, cgroup_path.c, cgroup_devices.c, cgroup_stats.c,
 *   cgroup_values.c, cgroup_ebpf.c, cgroup_fs.c, cgroup_mode.c
 *                               helpers that call no driver
 * A driver gets itself (d) in every call, its root with it (d->root), and
 * never asks for the mode or the chosen driver. */
#ifndef CRT_CGROUP_INTERNAL_H
#define CRT_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "crt/cgroup.h"

/* The update journal (cgroup_journal.c): every file an update writes gets
 * its old content recorded once before its first write, so that a failed
 * update can put back what it already changed.  NULL: no journal. */
typedef struct cg_journal {
  struct cg_undo *v;
  size_t n;
} cg_journal;

/* ---- the driver table ----
 * One driver per cgroup layout (v1, hybrid, v2), chosen in cgroup.c from
 * the root's mode when a handle is opened, and copied into it with the
 * handle's root; --systemd-cgroup wraps that driver with the systemd
 * unit's path, start and stop.  cgroup.c dispatches every operation
 * through it, and create asks it (crt_cgroup_prepares) rather than the
 * mode whether the cgroup is made before the clone. */
typedef struct cg_driver cg_driver;
struct cg_driver {
  const char *name;
  bool v2;              /* resources are v2 files (validation, systemd properties) */
  const char *own_key;  /* the /proc/self/cgroup line relative paths start from */
  const char *unified;  /* hybrid: the unified hierarchy's directory under the root */
  const crt_cgroup_root *root; /* the handle's (NULL in the templates below) */
  /* the container's cgroup path for cfg */
  int (*resolve)(const cg_driver *d, const crt_cgroup_config *cfg, char **out, crt_err **err);
  /* systemd: the transient unit with pid in it, before enter; NULL otherwise */
  int (*start)(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, pid_t pid, crt_err **err);
  /* systemd: stops the unit; NULL otherwise */
  int (*stop)(const cg_driver *d, const char *path, crt_err **err);
  /* makes the cgroup, writes resources and devices, moves pid in; 1:
   * rootless and nothing could be joined (nothing left behind) */
  int (*enter)(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, pid_t pid, crt_err **err);
  /* before the init is cloned: v2, the directory alone (1: rootless,
   * none), configure writes the rest; v1 and hybrid (as root), every
   * hierarchy's directory with its resources and devices (configure is
   * NULL), which the init joins itself (crt_cgroup_open_tasks).  NULL:
   * enter after the clone. */
  int (*prepare)(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, crt_err **err);
  /* v1 and hybrid: with cfg->v1_late, prepare makes hybrid's unified
   * directory alone (v1: nothing) and this, after the clone, the v1
   * hierarchies with their resources and devices.  NULL: no such split. */
  int (*prepare_late)(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, crt_err **err);
  int (*configure)(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, crt_err **err);
  /* directory of path holding controller (NULL: the main one); malloc'd */
  char *(*dir)(const cg_driver *d, const char *path, const char *controller);
  /* every directory of path, one per hierarchy; NULL-terminated */
  char **(*dirs)(const cg_driver *d, const char *path);
  /* the directory whose cgroup.procs lists the container's processes */
  char *(*procs_dir)(const cg_driver *d, const char *path);
  /* the cgroup2 directory fd for clone3's CLONE_INTO_CGROUP; NULL: none */
  int (*open)(const cg_driver *d, const char *path, const char *sub);
  /* SIGKILL to the whole cgroup at once; 1: not available here */
  int (*kill_all)(const cg_driver *d, const char *path, crt_err **err);
  /* freezer: the directory, the file written and the state read back */
  char *(*freezer_dir)(const cg_driver *d, const char *path);
  const char *freeze_file, *frozen_file, *freeze_on, *freeze_off;
  int (*frozen)(const char *dir); /* 1 frozen, 0 not, -1 unreadable */
  /* update: resources (validated first) and the whole device policy; every
   * file written is recorded in j first */
  int (*apply)(const cg_driver *d, cg_journal *j, const char *path, const crt_resources *r, crt_err **err);
  int (*devices)(const cg_driver *d, cg_journal *j, const char *path, const crt_device_rule *rules, size_t n,
                 crt_err **err);
  int (*stats)(const cg_driver *d, const char *path, crt_cgroup_stats *st);
  int (*oom_fd)(const cg_driver *d, const char *path, crt_err **err);
  int (*oom_read)(const cg_driver *d, const char *path, int fd, unsigned long long *last);
};

extern const cg_driver cg_driver_v1, cg_driver_hybrid, cg_driver_v2;

/* ---- the handle (cgroup.c) ---- */
struct crt_cgroup {
  crt_cgroup_root root; /* dir: root_dir */
  char *root_dir;
  cg_driver fs;         /* the root's layout's driver, .root = &root */
  cg_driver drv;        /* fs, or its systemd wrapper (--systemd-cgroup) */
  bool systemd;
  char *path;           /* "" none */
};

/* exec --cgroup: the sub path of sub (crt_cgroup_sub_check's form) for
 * the v1 hierarchy of the controllers hier ("" for cgroup2), a new
 * string or NULL. */
char *cg_sub_for(const char *sub, const char *hier);

/* ---- file I/O (cgroup_fs.c) ---- */
/* What one formatted write of a cgroup file carries at most (a device
 * rule, a cpuset list, an rdma limit fit with room to spare); longer is
 * an error, never a cut value. */
#define CG_VALUE_MAX 4096
/* Writes val to dir/file: "cgroup: write FILE: ERRNO TEXT". */
int cg_write(const char *dir, const char *file, const char *val, crt_err **err);
/* cg_write in two halves, for several writes through one open file (v1's
 * device rules: one rule per write) */
int cg_open_write(const char *dir, const char *file, crt_err **err);
int cg_write_fd(int fd, const char *dir, const char *file, const char *val, crt_err **err);
/* Reads dir/file (trailing newline kept); NULL on error with errno set. */
char *cg_read(const char *dir, const char *file);
bool cg_exists(const char *dir, const char *file);
/* Reads a single unsigned number ("max" → UINT64_MAX); 0 on success. */
int cg_read_u64(const char *dir, const char *file, unsigned long long *v);
/* Errors a rootless container may ignore. */
bool cg_perm_error(int e);
/* Writes pid to dir/cgroup.procs. */
int cg_move(const char *dir, pid_t pid, crt_err **err);
/* Removes dir and its parents up to first_made, the first one we created. */
void cg_undo_mkdir(const char *dir, const char *first_made);
/* Removes every directory of dirs with its sub-cgroups, retrying for up to
 * a second while killed processes leave them; the error names the first
 * that stayed. */
int cg_remove_dirs(char *const *dirs, crt_err **err);
/* Appends "<prefix><path>" to v (NULL-terminated, *n entries); -1: ENOMEM. */
int cg_strv_push(char ***v, size_t *n, const char *prefix, const char *path);
void cg_strv_free(char **v);

/* ---- the update journal (cgroup_journal.c) ---- */
/* cg_write that records dir/file's old content in j first (j NULL: a plain
 * write).  Device files are not recorded: cg_journal_note_devices is. */
int cg_jwrite(cg_journal *j, const char *dir, const char *file, const char *val, crt_err **err);
int cg_jwritef(cg_journal *j, const char *dir, const char *file, crt_err **err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A snapshot of a v1 devices.list, restored as deny-all + its allow lines. */
void cg_journal_note_devices(cg_journal *j, const char *dir);
/* Puts every recorded file back, newest first; adds the outcome to *err. */
void cg_journal_rollback(cg_journal *j, crt_err **err);
void cg_journal_free(cg_journal *j);

/* ---- paths (cgroup_path.c) ---- */
/* cgroupfs paths as runc's fs driver, relative to the caller's cgroup on
 * d's own_key line. */
int cg_fs_resolve(const cg_driver *d, const crt_cgroup_config *cfg, char **out, crt_err **err);

/* ---- device rules (cgroup_devices.c) ---- */
/* The effective device rules: spec rules, runc's default allowed devices
 * and the spec's linux.devices (so the configured nodes are usable). */
int cg_device_rules(const crt_spec *spec, crt_device_rule **out, size_t *n, crt_err **err);
void cg_device_rules_free(crt_device_rule *r, size_t n);
/* update's device rules: runc's default allowed devices, then r's rules, so
 * that the update's last matching rule wins (a deny-all denies everything). */
int cg_update_device_rules(const crt_resources *r, crt_device_rule **out, size_t *n, crt_err **err);

/* ---- stats helpers (cgroup_stats.c) ---- */
/* a number file (0 when missing or "max"), a value of a "key value" file,
 * all of its lines, one io entry, hugetlb. */
unsigned long long cg_rd(const char *dir, const char *file);
unsigned long long cg_kv_get(const char *s, const char *key);
int cg_kv_all(const char *s, crt_cgroup_stat_kv **out, size_t *n);
int cg_push_io(crt_cgroup_blkio_entry **v, size_t *n, unsigned maj, unsigned min, const char *op,
               unsigned long long val);
int cg_hugetlb_stats(const char *dir, bool v2, crt_cgroup_stats *st);

/* ---- values: checks and runc's translations (cgroup_values.c) ---- */
/* Checks every value of r that the kernel or runc would refuse, before
 * anything is written (v2: the hierarchy the values go to). */
int cg_validate(const crt_resources *r, bool v2, crt_err **err);
unsigned long long cg_shares_to_weight(unsigned long long shares);
unsigned long long cg_blkio_to_io_weight(unsigned long long w);
int cg_swap_v2(long long swap, long long limit, long long *out, crt_err **err);
/* memory.checkBeforeUpdate: refuses a limit (or memory+swap limit) at or
 * below the usage in dir's usage_file, in runc's words; an unreadable
 * usage passes (runc: best effort). */
int cg_check_before_update(const char *dir, const char *usage_file, const crt_resources *r, crt_err **err);
/* "dev hca_handle=N hca_object=M" for rdma.max. */
int cg_rdma_line(const crt_rdma *r, char *buf, size_t len, crt_err **err);

/* ---- v1 (and the v1 half of hybrid; cgroup_v1.c) ----
 * The enter functions return 1 when rootless and no hierarchy could be
 * joined (nothing left behind). */
int cg_v1_enter(const cg_driver *d, const char *path, const crt_spec *spec, bool rootless, pid_t pid, crt_err **err);
int cg_v1_apply(const cg_driver *d, cg_journal *j, const char *path, const crt_resources *r, crt_err **err);
int cg_v1_devices(const char *dir, const crt_device_rule *rules, size_t n, crt_err **err);
/* Directories of every v1 hierarchy (deduplicated), NULL-terminated. */
char **cg_v1_hierarchies(const crt_cgroup_root *root);
/* Whether the v1 controller name (n bytes; "name=X" for a named hierarchy)
 * has a hierarchy under root. */
bool cg_v1_has_controller(const crt_cgroup_root *root, const char *name, size_t n);

/* ---- v2 (the unified hierarchy at unified_root; cgroup_v2.c) ---- */
int cg_v2_enter(const char *unified_root, const char *path, const crt_spec *spec, bool rootless, bool apply,
                pid_t pid, crt_err **err);
/* Writes the resources and loads the device filter into an existing cgroup. */
int cg_v2_configure(const char *unified_root, const char *path, const crt_spec *spec, bool rootless, crt_err **err);
int cg_v2_open(const cg_driver *d, const char *path, const char *sub);
/* The device rules as an eBPF program attached to the cgroup at dir. */
int cg_v2_devices(const char *dir, const crt_device_rule *rules, size_t n, crt_err **err);
int cg_v2_apply(cg_journal *j, const char *dir, const crt_resources *r, crt_err **err);

/* ---- systemd (cgroup_systemd.c) ---- */
/* cgroupsPath "slice:prefix:name" (or "" → the default) as a cgroup path:
 * "/system.slice/prefix-name.scope". */
int cg_systemd_path(const char *cgroups_path, const char *id, bool rootless, char **out, crt_err **err);
bool cg_systemd_running(void);
/* StartTransientUnit for the path's unit with pid in it; waits for the job. */
int cg_systemd_start(const crt_cgroup_config *cfg, const char *path, pid_t pid, bool v2, crt_err **err);
/* Whether the container's cgroup goes to one of its users (runc's
 * OwnerUID): a cgroup namespace and /sys/fs/cgroup mounted read-write from
 * "cgroup"; *uid the host uid of process.user.uid.  The systemd driver on
 * cgroup v2 then chowns the scope's directory and delegatable files. */
bool cg_systemd_owner(const crt_spec *spec, uid_t *uid);
/* StopUnit; a unit already gone is fine. */
int cg_systemd_stop(const char *path, crt_err **err);
/* crt update: the limits of r that are unit properties, on path's unit
 * (the files of path, through the driver d, complete a partial cpu or
 * swap value). */
int cg_systemd_update(const cg_driver *d, const char *path, const crt_resources *r, crt_err **err);
/* *out = fs with systemd's resolve, start and stop. */
void cg_systemd_wrap(cg_driver *out, const cg_driver *fs);

/* ---- eBPF device filter for v2 (cgroup_ebpf.c) ----
 * Builds, loads and attaches to dirfd, replacing programs attached before. */
int cg_ebpf_devices(int dirfd, const crt_device_rule *rules, size_t n, crt_err **err);
/* Exposed for tests: builds the program (array of struct bpf_insn). */
int cg_ebpf_build(const crt_device_rule *rules, size_t n, void **insns, size_t *ninsns, crt_err **err);
/* Loads raw instructions; on verifier rejection the log is in the error. */
int cg_ebpf_load(const void *insns, size_t ninsns, crt_err **err);

#endif
