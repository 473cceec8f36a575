#define _GNU_SOURCE
/* The runtime side of crt-stub (src/stub/crt-stub.c): a sealed memfd
 * holding the stub, and the execve into it that ends crt's part of a
 * container process. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "crt/cloned_binary.h"
#include "crt/exec_stub.h"
#include "crt/fs.h"

extern const unsigned char crt_stub_start[], crt_stub_end[];

int crt_stub_open(crt_err **err) {
  cleanup_close int fd = crt_exec_memfd("crt-stub", err);
  if (fd < 0) return -1;
  if (crt_write_all(fd, crt_stub_start, (size_t)(crt_stub_end - crt_stub_start)) < 0)
    return crt_error(err, errno, "writing crt-stub into its memfd");
  if (fcntl(fd, F_ADD_SEALS, CRT_EXEC_SEALS) < 0) return crt_error(err, errno, "sealing crt-stub");
  return crt_steal_fd(fd);
}

bool crt_stub_usable(const crt_seccomp *sc, const crt_process *p, bool start_hooks) {
  /* An LSM exec label applies to the next execve, which would be the
   * stub's; startContainer hooks run after the FIFO, i.e. after the stub
   * took over.  Both stay with crt running from a sealed copy of itself. */
  if (p && ((p->apparmor_profile && *p->apparmor_profile) || (p->selinux_label && *p->selinux_label))) return false;
  if (start_hooks) return false;
  /* A filter loaded by crt (no noNewPrivileges, or a notify agent) also
   * sees the execveat of the stub: one that may refuse it (an allow-list
   * made for execve alone) keeps the old way, a single execve. */
  if (sc && !crt_seccomp_late(sc, p) && !crt_seccomp_allows(sc, "execveat")) return false;
  return true;
}

static int keep_open(int fd) { return fd < 0 ? 0 : fcntl(fd, F_SETFD, 0); }

int crt_stub_exec(const crt_stub_args *a, crt_err **err) {
  int bpf = -1;
  unsigned len = 0, flags = 0;
  if (a->filter && crt_seccomp_prog_fd(a->filter, &bpf, &len, &flags, err) < 0) return -1;
  int sync = a->spawn ? a->spawn_sync : -1;
  if (keep_open(a->fifo) < 0 || keep_open(a->hold) < 0 || keep_open(a->errfd) < 0 ||
      keep_open(bpf) < 0 || keep_open(sync) < 0) {
    crt_error(err, errno, "passing fds to crt-stub");
    goto fail;
  }
  size_t n = 0;
  while (a->envp && a->envp[n]) n++;
  char **envp = calloc(n + 2, sizeof *envp);
  char *param = NULL;
  int session = a->spawn ? (a->tty ? 2 : 1) : 0;
  if (!envp || asprintf(&param, "_CRT_STUB=%d %d %d %d %u %u %d %d %d %s", a->fifo, a->hold, a->errfd, bpf,
                        len, flags, a->exit_code, sync, session, a->exe) < 0) {
    free(envp);
    crt_error(err, ENOMEM, "crt-stub parameters");
    goto fail;
  }
  envp[0] = param;
  if (n) memcpy(envp + 1, a->envp, n * sizeof *envp);
  /* execveat only: no fallback to execve("/proc/self/fd/N"), which is
   * looked up in the container's mount namespace, where an image (without
   * procfs at /proc) can supply that path (issue 54).  A filter crt loads
   * first that could refuse execveat keeps the stub out
   * (crt_stub_usable). */
  syscall(SYS_execveat, a->stub, "", a->argv, envp, AT_EMPTY_PATH);
  crt_error(err, errno, "exec crt-stub");
  free(param);
  free(envp);
fail:
  if (bpf >= 0) close(bpf);
  return -1;
}

char *crt_stub_message(const char *buf) {
  if (buf[0] != '\1') return NULL;
  char *end = NULL;
  long e = strtol(buf + 1, &end, 10);
  if (end == buf + 1 || *end != ':') return NULL;
  char *m = NULL;
  if (asprintf(&m, "unable to start container process: %s: %s", end + 1, crt_strerror((int)e)) < 0) return NULL;
  return m;
}
