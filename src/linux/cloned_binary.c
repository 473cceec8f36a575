#define _GNU_SOURCE
/* CVE-2019-5736: a container process that can see /proc/PID/exe of a crt
 * process entering the container could open it for writing and replace
 * the host's crt binary.  crt therefore runs from a sealed memfd copy of
 * itself: the kernel refuses writes to a running executable (ETXTBSY) and
 * the seals refuse them to the memfd forever (EPERM); the on-disk binary is
 * never reachable through /proc/PID/exe. */

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crt/cloned_binary.h"
#include "crt/log.h"

extern char **environ;

#define CLONED_ENV "_CRT_CLONED_BINARY"

/* The only proof that counts: the file we run from carries every seal.
 * A regular file answers F_GET_SEALS with EINVAL. */
bool crt_exe_is_sealed(void) {
  cleanup_close int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  int seals = fcntl(fd, F_GET_SEALS);
  return seals >= 0 && (seals & CRT_EXEC_SEALS) == CRT_EXEC_SEALS;
}

int crt_exec_memfd(const char *name, crt_err **err) {
  /* Kernels >= 6.3 want the exec bit asked for explicitly (vm.memfd_noexec);
   * older ones reject the unknown flag. */
  int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (fd < 0 && errno == EINVAL) fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return crt_error(err, errno, "memfd_create(\"%s\")", name);
  return fd;
}

/* How much of the executable the kernel and ld.so read: up to the end of
 * the last PT_LOAD segment.  What follows (section headers, symbols, debug
 * info: three quarters of a -g build) is not needed to run, so it is not
 * copied.  Anything unexpected: the whole file. */
static off_t loaded_size(int fd, off_t size) {
  Elf64_Ehdr eh;
  if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
      eh.e_phnum > 64)
    return size;
  Elf64_Phdr ph[64];
  size_t len = (size_t)eh.e_phnum * sizeof ph[0];
  if (pread(fd, ph, len, (off_t)eh.e_phoff) != (ssize_t)len) return size;
  uint64_t end = eh.e_phoff + len;
  for (size_t i = 0; i < eh.e_phnum; i++) {
    /* PT_LOAD and anything else ld.so or the kernel may read by offset */
    if (ph[i].p_type == PT_LOAD || ph[i].p_type == PT_INTERP || ph[i].p_type == PT_NOTE ||
        ph[i].p_type == PT_GNU_PROPERTY || ph[i].p_type == PT_DYNAMIC)
      if (ph[i].p_offset + ph[i].p_filesz > end) end = ph[i].p_offset + ph[i].p_filesz;
  }
  return end > (uint64_t)size ? size : (off_t)end;
}

static int clone_exe(crt_err **err) {
  cleanup_close int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (exe < 0) return crt_error(err, errno, "opening /proc/self/exe");
  struct stat st;
  if (fstat(exe, &st) < 0) return crt_error(err, errno, "stat /proc/self/exe");
  cleanup_close int mfd = crt_exec_memfd("crt", err);
  if (mfd < 0) return -1;
  off_t done = 0, want = loaded_size(exe, st.st_size);
  while (done < want) {
    ssize_t n = sendfile(mfd, exe, &done, (size_t)(want - done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return crt_error(err, errno, "copying /proc/self/exe into a memfd");
    if (n == 0) return crt_error(err, EIO, "copying /proc/self/exe: short read at %lld", (long long)done);
  }
  /* F_SEAL_WRITE fails with EBUSY while pages are still pinned (sendfile's
   * internal pipe can hold them for a moment): retry briefly. */
  int tries = 0;
  while (fcntl(mfd, F_ADD_SEALS, CRT_EXEC_SEALS) < 0) {
    if (errno != EBUSY || ++tries > 200) return crt_error(err, errno, "sealing the copy of /proc/self/exe");
    struct timespec ts = {0, 500000};
    nanosleep(&ts, NULL);
  }
  return crt_steal_fd(mfd);
}

int crt_ensure_cloned_binary(char **argv, crt_err **err) {
  const char *marker = getenv(CLONED_ENV);
  if (crt_exe_is_sealed()) {
    if (marker) unsetenv(CLONED_ENV); /* not for our children */
    return 0;
  }
  /* The marker is only a loop guard: it names the pid that re-executed
   * itself, and an unsealed exe after our own re-exec means the copy did
   * not work.  A stale or forged marker just gets cloned over. */
  char me[24];
  snprintf(me, sizeof me, "%d", (int)getpid());
  if (marker && strcmp(marker, me) == 0)
    return crt_error(err, 0, "re-executed from a sealed copy of crt, but /proc/self/exe is not sealed");
  cleanup_close int mfd = clone_exe(err);
  if (mfd < 0) return -1;
  if (setenv(CLONED_ENV, me, 1) < 0) return crt_error(err, errno, "setenv %s", CLONED_ENV);
  fexecve(mfd, argv, environ);
  int e = errno;
  unsetenv(CLONED_ENV);
  return crt_error(err, e, "re-executing crt from its sealed copy (fexecve)");
}
