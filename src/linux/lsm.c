#define _GNU_SOURCE
/* process.apparmorProfile and process.selinuxLabel: both are set for the
 * next execve through /proc/thread-self/attr, which is per thread. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/lsm.h"
#include "crt/procfs.h"

bool crt_apparmor_enabled(void) {
  char c = 0;
  cleanup_close int fd = open("/sys/module/apparmor/parameters/enabled", O_RDONLY | O_CLOEXEC);
  return fd >= 0 && read(fd, &c, 1) == 1 && c == 'Y';
}

/* Asked once per mount at create: one access(2) per process is enough. */
bool crt_selinux_enabled(void) {
  static int enabled = -1;
  if (enabled < 0) enabled = access("/sys/fs/selinux/enforce", F_OK) == 0;
  return enabled;
}

/* The LSM takes the value in one write(2), to our own thread's attr file,
 * looked up in crt's procfs handle: a mount over the container's
 * /proc/self/attr must not take the label (CVE-2025-52881 class). */
static int write_attr(const char *name, const char *value, crt_err **err) {
  char rel[64];
  snprintf(rel, sizeof rel, "attr/%s", name);
  if (crt_procfs_write(CRT_PROCFS_THREAD_SELF, 0, rel, value, strlen(value), err) < 0)
    return crt_error_wrap(err, "writing \"%s\" to attr/%s", value, name);
  return 0;
}

static int apparmor_apply(const char *profile, crt_err **err) {
  if (!crt_apparmor_enabled())
    return crt_error(err, 0, "apparmor profile \"%s\" requested but AppArmor is not enabled on this host", profile);
  cleanup_free char *cmd = NULL;
  if (asprintf(&cmd, "exec %s", profile) < 0) return crt_error(err, ENOMEM, "apparmor profile");
  /* With LSM stacking the AppArmor-specific file comes first. */
  crt_err *first = NULL;
  if (write_attr("apparmor/exec", cmd, &first) == 0) return 0;
  if (first->errnum != ENOENT) {
    crt_err_move(err, &first);
    return crt_error_wrap(err, "setting apparmor profile \"%s\"", profile);
  }
  crt_err_free(&first);
  if (write_attr("exec", cmd, err) < 0) return crt_error_wrap(err, "setting apparmor profile \"%s\"", profile);
  return 0;
}

static int selinux_apply(const char *label, crt_err **err) {
  if (!crt_selinux_enabled())
    return crt_error(err, 0, "selinux label \"%s\" requested but SELinux is not enabled on this host", label);
  if (write_attr("exec", label, err) < 0) return crt_error_wrap(err, "setting selinux label \"%s\"", label);
  return 0;
}

int crt_lsm_apply(const crt_process *p, crt_err **err) {
  if (p == NULL) return 0;
  if (p->apparmor_profile && *p->apparmor_profile && apparmor_apply(p->apparmor_profile, err) < 0) return -1;
  if (p->selinux_label && *p->selinux_label && selinux_apply(p->selinux_label, err) < 0) return -1;
  return 0;
}

char *crt_selinux_mount_option(const char *mount_label) {
  if (mount_label == NULL || *mount_label == 0 || !crt_selinux_enabled()) return NULL;
  char *opt = NULL;
  if (asprintf(&opt, "context=\"%s\"", mount_label) < 0) return NULL;
  return opt;
}
