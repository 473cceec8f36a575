/* Private helpers of the spec module (parser tables shared with the
 * serialiser and `crt features`). */
#ifndef CRT_SPEC_INTERNAL_H
#define CRT_SPEC_INTERNAL_H

#include <stddef.h>

typedef struct {
  const char *name;
  int value;
} crt_spec_name_num;

/* Every list crt accepts, in one place (src/spec/tables.c). */
extern const crt_spec_name_num crt_spec_rlimits[];
extern const crt_spec_name_num crt_spec_sched_policies[];
extern const char *const crt_spec_sched_flags[];
extern const crt_spec_name_num crt_spec_ioprio_classes[];
extern const char *const crt_spec_seccomp_actions[];
extern const char *const crt_spec_seccomp_operators[];
extern const char *const crt_spec_seccomp_archs[];
extern const char *const crt_spec_seccomp_flags[];
extern const char *const crt_spec_seccomp_supported_flags[];
extern const char *const crt_spec_mount_options[];
extern const char *const crt_spec_hook_names[];
extern const char *const crt_spec_rootfs_propagations[];
extern const char *const crt_spec_personality_domains[];
extern const char *const crt_spec_mempolicy_modes[];
extern const char *const crt_spec_mempolicy_flags[];

/* -1 when not found. */
int crt_spec_lookup_num(const crt_spec_name_num *t, const char *name);
int crt_spec_in_list(const char *const *list, const char *name);

#endif
