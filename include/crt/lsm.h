/* LSM labels: AppArmor and SELinux (src/linux/lsm.c). */
#ifndef CRT_LSM_H
#define CRT_LSM_H

#include <stdbool.h>

#include "crt/error.h"
#include "crt/spec.h"

/* AppArmor exec profile and SELinux exec label for the next execve. */
int crt_lsm_apply(const crt_process *p, crt_err **err);
/* Mount label as a context= option (NULL when SELinux is off / no label). */
char *crt_selinux_mount_option(const char *mount_label); /* malloc'd: context="LABEL" */
bool crt_selinux_enabled(void);
bool crt_apparmor_enabled(void);

#endif
