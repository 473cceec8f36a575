/* The typed runtime-spec v1.2 model for Linux (config.json, process.json).
 *
 * Every optional scalar has a `has_*`/set flag so that "absent" and "zero"
 * differ, as the spec requires.  Strings are malloc'd, NULL when absent.
 * String lists are NULL-terminated arrays with an explicit length. */
#ifndef CRT_SPEC_H
#define CRT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "crt/error.h"

typedef struct { bool set; int64_t v; } crt_i64;
typedef struct { bool set; uint64_t v; } crt_u64;
typedef struct { bool set; bool v; } crt_bool;

typedef struct {
  char **v; /* NULL-terminated */
  size_t len;
} crt_strv;

typedef struct {
  char *key;
  char *value;
} crt_kv;

typedef struct {
  crt_kv *v;
  size_t len;
} crt_kvv;

typedef struct {
  uint32_t container_id;
  uint32_t host_id;
  uint32_t size;
} crt_idmap;

typedef struct {
  crt_idmap *v;
  size_t len;
} crt_idmapv;

/* ---- process ---- */
typedef struct {
  char *type; /* "RLIMIT_NOFILE" */
  int resource; /* RLIMIT_* value, resolved by the parser */
  uint64_t hard, soft;
} crt_rlimit;

typedef struct {
  crt_strv bounding, effective, inheritable, permitted, ambient;
  bool has_bounding, has_effective, has_inheritable, has_permitted, has_ambient;
} crt_capabilities;

typedef struct {
  uint32_t uid, gid;
  crt_u64 umask;
  uint32_t *additional_gids;
  size_t n_additional_gids;
  char *username; /* Windows only; kept for round trips */
} crt_user;

typedef struct {
  char *policy; /* SCHED_OTHER ... */
  int policy_num;
  int32_t nice, priority;
  crt_strv flags;
  uint64_t runtime, deadline, period;
} crt_scheduler;

typedef struct {
  char *class_name; /* IOPRIO_CLASS_RT|BE|IDLE */
  int class_num;
  int64_t priority;
} crt_ioprio;

typedef struct {
  char *initial, *final; /* cpu lists "0-3,7" */
} crt_exec_cpu_affinity;

typedef struct {
  bool terminal;
  bool has_console_size;
  uint32_t console_height, console_width;
  crt_user user;
  crt_strv args;
  char *command_line; /* Windows; ignored on Linux */
  crt_strv env;
  char *cwd;
  crt_capabilities *capabilities; /* NULL: none configured */
  crt_rlimit *rlimits;
  size_t n_rlimits;
  bool no_new_privileges;
  char *apparmor_profile;
  crt_i64 oom_score_adj;
  crt_scheduler *scheduler;
  char *selinux_label;
  crt_ioprio *io_priority;
  crt_exec_cpu_affinity *exec_cpu_affinity;
} crt_process;

/* ---- root, mounts, hooks ---- */
typedef struct {
  char *path;
  bool readonly;
} crt_root;

/* mounts[].options, parsed once with the spec (src/spec/mount_opts.c);
 * the mount code reads only these fields. */
typedef struct {
  unsigned long flags;       /* MS_* to set */
  unsigned long clear;       /* MS_* explicitly cleared (e.g. "rw", "suid") */
  unsigned long propagation; /* MS_SHARED|MS_PRIVATE|... (| MS_REC) */
  bool bind, recursive;      /* "bind", "rbind" */
  unsigned int attr_set, attr_clr; /* MOUNT_ATTR_* for recursive options (rro, ...) */
  bool idmap, ridmap;
  bool tmpcopyup;            /* tmpfs: copy what was under it into it */
  char *data;                /* filesystem data ("size=64k,mode=755"), malloc'd, may be NULL */
} crt_mount_opts;

typedef struct {
  char *destination;
  char *source;
  char *type;
  crt_strv options; /* as written: `crt spec` and the saved config */
  crt_mount_opts opts;
  crt_idmapv uid_mappings, gid_mappings;
} crt_mount;

typedef struct {
  char *path;
  crt_strv args;
  crt_strv env;
  crt_i64 timeout; /* seconds, > 0 when set */
} crt_hook;

typedef struct {
  crt_hook *v;
  size_t len;
} crt_hookv;

typedef struct {
  crt_hookv prestart, create_runtime, create_container, start_container, poststart, poststop;
} crt_hooks;

/* ---- linux ---- */
enum crt_ns_type {
  CRT_NS_PID,
  CRT_NS_NETWORK,
  CRT_NS_MOUNT,
  CRT_NS_IPC,
  CRT_NS_UTS,
  CRT_NS_USER,
  CRT_NS_CGROUP,
  CRT_NS_TIME,
  CRT_NS_COUNT
};

typedef struct {
  enum crt_ns_type type;
  char *path; /* NULL: create a new one */
} crt_namespace;

typedef struct {
  char *clock; /* "monotonic" | "boottime" */
  int64_t secs;
  uint32_t nanosecs;
} crt_time_offset;

typedef struct {
  char *type; /* "c" "b" "u" "p" */
  char *path;
  int64_t major, minor;
  crt_u64 file_mode; /* permission bits, default 0666 */
  crt_u64 uid, gid;
} crt_device;

typedef struct {
  bool allow;
  char *type; /* "a" "c" "b", NULL = all */
  crt_i64 major, minor; /* unset = wildcard */
  char *access; /* "rwm" */
} crt_device_rule;

typedef struct {
  int64_t major, minor;
  crt_u64 weight, leaf_weight;
} crt_blkio_weight_device;

typedef struct {
  int64_t major, minor;
  uint64_t rate;
} crt_blkio_throttle;

typedef struct {
  char *page_size;
  uint64_t limit;
} crt_hugepage_limit;

typedef struct {
  char *name;
  uint32_t priority;
} crt_net_priority;

typedef struct {
  char *device;
  crt_u64 hca_handles, hca_objects;
} crt_rdma;

typedef struct {
  crt_device_rule *devices;
  size_t n_devices;
  bool has_memory, has_cpu, has_pids, has_blkio, has_network;
  struct {
    crt_i64 limit, reservation, swap, kernel, kernel_tcp;
    crt_u64 swappiness;
    crt_bool disable_oom_killer, use_hierarchy, check_before_update;
  } memory;
  struct {
    crt_u64 shares, period, realtime_period;
    crt_i64 quota, realtime_runtime;
    crt_u64 burst;
    char *cpus, *mems;
    crt_i64 idle;
  } cpu;
  struct {
    crt_i64 limit;
  } pids;
  struct {
    crt_u64 weight, leaf_weight;
    crt_blkio_weight_device *weight_device;
    size_t n_weight_device;
    crt_blkio_throttle *throttle_read_bps, *throttle_write_bps, *throttle_read_iops, *throttle_write_iops;
    size_t n_throttle_read_bps, n_throttle_write_bps, n_throttle_read_iops, n_throttle_write_iops;
  } blkio;
  crt_hugepage_limit *hugepage_limits;
  size_t n_hugepage_limits;
  struct {
    crt_u64 class_id;
    crt_net_priority *priorities;
    size_t n_priorities;
  } network;
  crt_rdma *rdma;
  size_t n_rdma;
  crt_kvv unified;
} crt_resources;

enum crt_seccomp_op { CRT_OP_NE, CRT_OP_LT, CRT_OP_LE, CRT_OP_EQ, CRT_OP_GE, CRT_OP_GT, CRT_OP_MASKED_EQ };

typedef struct {
  uint32_t index;
  uint64_t value, value_two;
  enum crt_seccomp_op op;
  char *op_name;
} crt_seccomp_arg;

typedef struct {
  crt_strv names;
  char *action;
  crt_u64 errno_ret;
  crt_seccomp_arg *args;
  size_t n_args;
} crt_seccomp_syscall;

typedef struct {
  char *default_action;
  crt_u64 default_errno_ret;
  crt_strv architectures;
  crt_strv flags;
  char *listener_path;
  char *listener_metadata;
  crt_seccomp_syscall *syscalls;
  size_t n_syscalls;
} crt_seccomp;

typedef struct {
  char *clos_id, *l3_cache_schema, *mem_bw_schema;
  crt_strv schemata;
  bool enable_cmt, enable_mbm, enable_monitoring; /* enableMonitoring: v1.3 */
} crt_intel_rdt;

typedef struct {
  char *domain;
  crt_strv flags;
} crt_personality;

typedef struct {
  char *mode;
  char *nodes;
  crt_strv flags;
} crt_memory_policy;

typedef struct {
  crt_namespace *namespaces;
  size_t n_namespaces;
  crt_idmapv uid_mappings, gid_mappings;
  crt_time_offset *time_offsets;
  size_t n_time_offsets;
  crt_device *devices;
  size_t n_devices;
  char *cgroups_path;
  crt_resources *resources; /* NULL when absent */
  crt_intel_rdt *intel_rdt;
  crt_kvv sysctl;
  crt_kvv net_devices; /* host interface -> name in the container ("" keeps it) */
  crt_seccomp *seccomp;
  char *rootfs_propagation;
  unsigned long rootfs_propagation_flags; /* its MS_* (| MS_REC); 0 when absent */
  crt_strv masked_paths, readonly_paths;
  char *mount_label;
  crt_personality *personality;
  crt_memory_policy *memory_policy;
} crt_linux;

typedef struct {
  char *oci_version;
  crt_root *root;
  crt_mount *mounts;
  size_t n_mounts;
  crt_process *process;
  char *hostname, *domainname;
  crt_hooks *hooks;
  crt_kvv annotations;
  crt_linux *linux_; /* "linux" is a predefined macro under gnu11 */
} crt_spec;

/* Parse a whole config.json held in memory.  `name` prefixes errors
 * ("config.json: .process.args[1]: expected string, got number").
 * Validates while parsing; unknown fields are ignored. */
int crt_spec_parse(const char *buf, size_t len, const char *name, crt_spec **out, crt_err **err);
/* The rule for a process.env entry, in config.json and for exec --env
 * alike (runc's): KEY=VALUE with a non-empty KEY. */
bool crt_env_entry_valid(const char *kv);
/* Reads and parses a file; refuses files above 64 MiB and non-regular files. */
int crt_spec_load(const char *path, crt_spec **out, crt_err **err);
/* The `process` object alone (exec --process FILE, which may be a pipe). */
int crt_process_parse(const char *buf, size_t len, const char *name, crt_process **out, crt_err **err);
int crt_process_load(const char *path, crt_process **out, crt_err **err);

/* Parses an options list into *out; one option per entry (a comma inside
 * makes it filesystem data), unknown ones are data.  Exposed for tests,
 * fuzzing and the parser. */
int crt_mount_opts_parse(const crt_strv *options, crt_mount_opts *out, crt_err **err);
void crt_mount_opts_free(crt_mount_opts *o);
/* MS_* (| MS_REC) of "private", "rslave", ...; 0 for any other name. */
unsigned long crt_mount_propagation(const char *name);
/* Whether the mount is a bind mount ("bind"/"rbind", or type "bind"). */
bool crt_mount_is_bind(const crt_mount *m);

/* A linux.resources object alone (`update --resources FILE`): the parser
 * config.json's resources go through, errors named like "FILE: .cpu.shares:
 * ...".  crt_resources_clear frees what it allocated and zeroes *r. */
int crt_resources_parse(const char *buf, size_t len, const char *name, crt_resources *out, crt_err **err);
void crt_resources_clear(crt_resources *r);

/* Checks that need the whole spec (process required when starting, etc.). */
int crt_spec_validate_for_create(const crt_spec *spec, crt_err **err);

void crt_spec_free(crt_spec *spec);
void crt_process_free(crt_process *p);

/* Serialise a spec back to JSON (used by `crt spec` and round-trip tests). */
char *crt_spec_to_json(const crt_spec *spec, bool pretty);

/* runc's default `spec` output; rootless: user namespace with a mapping for
 * the calling user, no network namespace, no cgroups; cgroupns: a cgroup
 * namespace too, which runc's spec adds on a pure cgroup2 host (`crt spec`
 * asks the host's layout). */
crt_spec *crt_spec_default(bool rootless, bool cgroupns);

/* The runtime-spec `features` JSON of what crt really implements. */
char *crt_features_json(void);

/* Namespace helpers shared by parser and runtime. */
const char *crt_ns_name(enum crt_ns_type t);  /* "pid", "network", ... */
const char *crt_ns_proc_name(enum crt_ns_type t); /* "pid", "net", ... under /proc/PID/ns */
int crt_ns_clone_flag(enum crt_ns_type t);
const crt_namespace *crt_spec_namespace(const crt_spec *spec, enum crt_ns_type t);
/* Whether the container gets a new namespace of type t (listed, no path). */
bool crt_spec_new_namespace(const crt_spec *spec, enum crt_ns_type t);
/* Whether linux.rootfsPropagation is shared: the container's mounts
 * reach the host's mount table. */
bool crt_spec_rootfs_shared(const crt_spec *spec);
/* The host id of container id `id` through a uid or gid mapping; false
 * when no range maps it. */
bool crt_idmap_host(const crt_idmapv *m, uint32_t id, uint32_t *host);

#endif
