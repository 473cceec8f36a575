/* Every name list the parser accepts and `crt features` reports.  Later
 * issues change what crt supports here, and only here. */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <sys/resource.h>

#include "internal.h"

const crt_spec_name_num crt_spec_rlimits[] = {
    {"RLIMIT_CPU", RLIMIT_CPU},       {"RLIMIT_FSIZE", RLIMIT_FSIZE},
    {"RLIMIT_DATA", RLIMIT_DATA},     {"RLIMIT_STACK", RLIMIT_STACK},
    {"RLIMIT_CORE", RLIMIT_CORE},     {"RLIMIT_RSS", RLIMIT_RSS},
    {"RLIMIT_NPROC", RLIMIT_NPROC},   {"RLIMIT_NOFILE", RLIMIT_NOFILE},
    {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK}, {"RLIMIT_AS", RLIMIT_AS},
    {"RLIMIT_LOCKS", RLIMIT_LOCKS},   {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
    {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE}, {"RLIMIT_NICE", RLIMIT_NICE},
    {"RLIMIT_RTPRIO", RLIMIT_RTPRIO}, {"RLIMIT_RTTIME", RLIMIT_RTTIME},
    {NULL, 0}};

/* SCHED_ISO is reserved by the kernel but has no glibc macro. */
const crt_spec_name_num crt_spec_sched_policies[] = {
    {"SCHED_OTHER", SCHED_OTHER}, {"SCHED_FIFO", SCHED_FIFO},   {"SCHED_RR", SCHED_RR},
    {"SCHED_BATCH", SCHED_BATCH}, {"SCHED_ISO", 4},             {"SCHED_IDLE", SCHED_IDLE},
    {"SCHED_DEADLINE", 6},        {NULL, 0}};

const char *const crt_spec_sched_flags[] = {
    "SCHED_FLAG_RESET_ON_FORK", "SCHED_FLAG_RECLAIM",        "SCHED_FLAG_DL_OVERRUN",
    "SCHED_FLAG_KEEP_POLICY",   "SCHED_FLAG_KEEP_PARAMS",    "SCHED_FLAG_UTIL_CLAMP_MIN",
    "SCHED_FLAG_UTIL_CLAMP_MAX", NULL};

/* Values of IOPRIO_CLASS_* in linux/ioprio.h. */
const crt_spec_name_num crt_spec_ioprio_classes[] = {
    {"IOPRIO_CLASS_RT", 1}, {"IOPRIO_CLASS_BE", 2}, {"IOPRIO_CLASS_IDLE", 3}, {NULL, 0}};

const char *const crt_spec_seccomp_actions[] = {
    "SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO",  "SCMP_ACT_KILL",  "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
    "SCMP_ACT_LOG",   "SCMP_ACT_NOTIFY", "SCMP_ACT_TRACE", "SCMP_ACT_TRAP",         NULL};

/* Order matches enum crt_seccomp_op. */
const char *const crt_spec_seccomp_operators[] = {"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",
                                                  "SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT",
                                                  "SCMP_CMP_MASKED_EQ", NULL};

/* Architectures of libseccomp 2.5 (SCMP_ARCH_*). */
const char *const crt_spec_seccomp_archs[] = {
    "SCMP_ARCH_AARCH64",  "SCMP_ARCH_ARM",          "SCMP_ARCH_LOONGARCH64", "SCMP_ARCH_M68K",
    "SCMP_ARCH_MIPS",     "SCMP_ARCH_MIPS64",       "SCMP_ARCH_MIPS64N32",   "SCMP_ARCH_MIPSEL",
    "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32",  "SCMP_ARCH_PARISC",      "SCMP_ARCH_PARISC64",
    "SCMP_ARCH_PPC",      "SCMP_ARCH_PPC64",        "SCMP_ARCH_PPC64LE",     "SCMP_ARCH_RISCV64",
    "SCMP_ARCH_S390",     "SCMP_ARCH_S390X",        "SCMP_ARCH_SH",          "SCMP_ARCH_SHEB",
    "SCMP_ARCH_X32",      "SCMP_ARCH_X86",          "SCMP_ARCH_X86_64",      NULL};

/* Flags of linux.seccomp.flags the spec defines. */
const char *const crt_spec_seccomp_flags[] = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
                                              "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
                                              "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", NULL};
/* Those the seccomp code applies (libseccomp 2.5 attributes, and
 * WAIT_KILLABLE_RECV, a kernel flag alone: src/linux/seccomp.c). */
const char *const crt_spec_seccomp_supported_flags[] = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG",
                                                        "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
                                                        "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", NULL};

/* ---- MOUNT OPTIONS TABLE ----
 * Options the mount code understands beyond libmount's Linux option map
 * (which `crt features` merges in): runc's recursive (mount_setattr),
 * propagation, bind, and idmap options.  Adjust here. */
const char *const crt_spec_mount_options[] = {
    "bind",      "rbind",      "ro",          "rw",           "rro",        "rrw",        "rnosuid",
    "rsuid",     "rnodev",     "rdev",        "rnoexec",      "rexec",      "rnoatime",   "ratime",
    "rnodiratime", "rdiratime", "rrelatime",  "rnorelatime",  "rstrictatime", "rnostrictatime",
    "rnosymfollow", "rsymfollow", "private",  "rprivate",     "shared",     "rshared",    "slave",
    "rslave",    "unbindable", "runbindable", "tmpcopyup",    "idmap",      "ridmap",     "defaults",
    NULL};

/* Order matches the `hooks` object of config.md. */
const char *const crt_spec_hook_names[] = {"prestart", "createRuntime", "createContainer", "startContainer",
                                           "poststart", "poststop", NULL};

/* The spec's four values, plus runc's recursive spellings. */
const char *const crt_spec_rootfs_propagations[] = {"shared",  "slave",  "private",  "unbindable",
                                                    "rshared", "rslave", "rprivate", "runbindable", NULL};

const char *const crt_spec_personality_domains[] = {"LINUX", "LINUX32", NULL};

const char *const crt_spec_mempolicy_modes[] = {"MPOL_DEFAULT",   "MPOL_BIND",      "MPOL_INTERLEAVE",
                                                "MPOL_WEIGHTED_INTERLEAVE", "MPOL_PREFERRED",
                                                "MPOL_PREFERRED_MANY", "MPOL_LOCAL", NULL};
const char *const crt_spec_mempolicy_flags[] = {"MPOL_F_NUMA_BALANCING", "MPOL_F_RELATIVE_NODES",
                                                "MPOL_F_STATIC_NODES", NULL};

int crt_spec_lookup_num(const crt_spec_name_num *t, const char *name) {
  for (; t->name; t++)
    if (strcmp(t->name, name) == 0) return t->value;
  return -1;
}

int crt_spec_in_list(const char *const *list, const char *name) {
  for (int i = 0; list[i]; i++)
    if (strcmp(list[i], name) == 0) return i;
  return -1;
}
