#define _GNU_SOURCE
/* process.apparmorProfile and process.selinuxLabel: both are set for the
 * next execve through /proc/thread-self/attr, which is per thread. */
#include "crt/security.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crt/fs.h"

bool crt_apparmor_enabled(void) {
  char c = 0;
  cleanup_close int fd = open("/sys/module/apparmor/parameters/enabled", O_RDONLY | O_CLOEXEC);
  return fd >= 0 && read(fd, &c, 1) == 1 && c == 'Y';
}

bool crt_selinux_enabled(void) { return access("/sys/fs/selinux/enforce", F_OK) == 0; }

/* /proc/thread-self appeared in 3.17; /proc/self is the same task for a
 * single-threaded init. */
static int open_attr(const char *name, crt_err **err) {
  char path[64];
  snprintf(path, sizeof path, "/proc/thread-self/attr/%s", name);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    snprintf(path, sizeof path, "/proc/self/attr/%s", name);
    fd = open(path, O_WRONLY | O_CLOEXEC);
  }
  if (fd < 0) return crt_error(err, errno, "opening %s", path);
  return fd;
}

/* The LSM takes the value in one write(2): no partial-write loop. */
static int write_attr(const char *name, const char *value, crt_err **err) {
  cleanup_close int fd = open_attr(name, err);
  if (fd < 0) return -1;
  size_t len = strlen(value);
  ssize_t w;
  do w = write(fd, value, len);
  while (w < 0 && errno == EINTR);
  if (w < 0 || (size_t)w != len) return crt_error(err, w < 0 ? errno : EIO, "writing \"%s\" to attr/%s", value, name);
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
