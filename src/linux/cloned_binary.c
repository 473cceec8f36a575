#define _GNU_SOURCE
/* CVE-2019-5736: a container process that can see /proc/PID/exe of a crt
 * process entering the container could open it for writing and replace
 * the host's crt binary.  crt therefore re-executes itself from a file
 * nothing can write, so the on-disk binary is never reachable through
 * /proc/PID/exe:
 * - first choice, no copy: the binary seen through an internal overlayfs
 *   mount (fsopen, never attached anywhere) whose layers are all lower
 *   layers, with the binary's directory on top.  Such an overlay has no
 *   upper layer to write to: every open for writing fails (EROFS), and it
 *   cannot be remounted read-write (as runc >= 1.2's exeseal);
 * - fallback (no CAP_SYS_ADMIN, as rootless; no overlayfs or fsopen): a
 *   sealed memfd copy, which the seals keep unwritable forever (EPERM). */

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "crt/cloned_binary.h"
#include "crt/log.h"
#include "crt/procinfo.h"
#include "crt/str.h"

extern char **environ;

#define CLONED_ENV "_CRT_CLONED_BINARY"

/* The exe is a file of a read-only overlayfs mount attached nowhere: only
 * crt_ensure_cloned_binary makes those (an attached read-only overlay may
 * have an upper layer and be remounted read-write by whoever owns it). */
static bool on_sealed_overlay(int fd) {
  struct statfs sf;
  struct statx sx;
  if (fstatfs(fd, &sf) < 0 || sf.f_type != OVERLAYFS_SUPER_MAGIC || !(sf.f_flags & ST_RDONLY)) return false;
  if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0 || !(sx.stx_mask & STATX_MNT_ID)) return false;
  /* ours is never in our mount table: fsmount made it, nothing attached it */
  return !crt_mountinfo_has_id(sx.stx_mnt_id);
}

/* The only proof that counts: the file we run from carries every seal, or
 * is on our lower-only overlay.  A regular file answers F_GET_SEALS with
 * EINVAL. */
bool crt_exe_is_sealed(void) {
  cleanup_close int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  int seals = fcntl(fd, F_GET_SEALS);
  if (seals >= 0) return (seals & CRT_EXEC_SEALS) == CRT_EXEC_SEALS;
  return on_sealed_overlay(fd);
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

/* A sealed memfd copy of exe (what the kernel and ld.so read of it). */
static int clone_exe(int exe, const struct stat *st, crt_err **err) {
  cleanup_close int mfd = crt_exec_memfd("crt", err);
  if (mfd < 0) return -1;
  off_t done = 0, want = loaded_size(exe, st->st_size);
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

/* overlayfs splits lowerdir on ':' and takes '\' as the escape. */
static bool escape_layer(const char *in, char *out, size_t len) {
  size_t o = 0;
  for (; *in; in++) {
    if (o + 3 > len) return false;
    if (*in == ':' || *in == '\\') out[o++] = '\\';
    out[o++] = *in;
  }
  out[o] = 0;
  return true;
}

/* Whether a and b are the same directory or one holds the other: overlayfs
 * refuses overlapping layers (ELOOP). */
static bool overlaps(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), l = la < lb ? la : lb;
  if (strncmp(a, b, l)) return false;
  const char *rest = la < lb ? b + l : a + l;
  return l == 1 || *rest == 0 || *rest == '/';
}

/* A read-only mount of a lower-only overlay: dir on top of filler, never
 * attached.  Lower-only needs two layers; filler only has to be a
 * directory that does not overlap dir (its content is checked for below). */
static int overlay_mount(const char *dir, const char *filler, crt_err **err) {
  char lower[2 * PATH_MAX + 4], a[2 * PATH_MAX], b[2 * PATH_MAX];
  if (!escape_layer(dir, a, sizeof a) || !escape_layer(filler, b, sizeof b))
    return crt_error(err, ENAMETOOLONG, "overlay layers for %s", dir);
  if (crt_fmt(lower, sizeof lower, "%s:%s", a, b) < 0)
    return crt_error(err, ENAMETOOLONG, "overlay lowerdir for %s: layers too long", dir);
  cleanup_close int fs = fsopen("overlay", FSOPEN_CLOEXEC);
  if (fs < 0) return crt_error(err, errno, "fsopen(\"overlay\")");
  if (fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir", lower, 0) < 0)
    return crt_error(err, errno, "overlay lowerdir=%s", lower);
  /* Layers on different filesystems turn xino on, which only logs. */
  (void)fsconfig(fs, FSCONFIG_SET_STRING, "xino", "off", 0);
  if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    return crt_error(err, errno, "creating an overlay of lowerdir=%s", lower);
  int mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID);
  if (mnt < 0) return crt_error(err, errno, "fsmount of an overlay of lowerdir=%s", lower);
  return mnt;
}

/* Root-owned directories, one of which does not overlap the binary's. */
static const char *const fillers[] = {"/run", "/etc", "/var", "/usr"};

/* exe (whose stat is st) seen through a lower-only overlay: an O_PATH fd. */
static int overlay_exe(const struct stat *st, crt_err **err) {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return crt_error(err, n < 0 ? errno : EIO, "readlink /proc/self/exe");
  path[n] = 0;
  char *slash = strrchr(path, '/');
  if (!slash || slash == path || strstr(path, " (deleted)"))
    return crt_error(err, EINVAL, "no overlay for /proc/self/exe -> %s", path);
  *slash = 0;
  const char *name = slash + 1;
  const char *filler = NULL;
  for (size_t i = 0; !filler && i < sizeof fillers / sizeof fillers[0]; i++)
    if (!overlaps(path, fillers[i])) filler = fillers[i];
  if (!filler) return crt_error(err, ELOOP, "no overlay layer apart from %s", path);
  cleanup_close int mnt = overlay_mount(path, filler, err);
  if (mnt < 0) return -1;
  cleanup_close int fd = openat(mnt, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat ost;
  if (fd < 0 || fstat(fd, &ost) < 0) return crt_error(err, errno, "%s/%s through an overlay", path, name);
  /* The binary may have been replaced or removed since exec: then the name
   * is another file, maybe one of filler's.  Overlayfs keeps the inode
   * number of a lower file but not always its device. */
  if (ost.st_ino != st->st_ino || ost.st_size != st->st_size || ost.st_mtim.tv_sec != st->st_mtim.tv_sec ||
      ost.st_mtim.tv_nsec != st->st_mtim.tv_nsec || !S_ISREG(ost.st_mode))
    return crt_error(err, ESTALE, "%s/%s through an overlay is not the running binary", path, name);
  return crt_steal_fd(fd);
}

/* An fd of this binary that nothing can write: overlay, else memfd. */
static int sealed_exe(crt_err **err) {
  cleanup_close int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (exe < 0) return crt_error(err, errno, "opening /proc/self/exe");
  struct stat st;
  if (fstat(exe, &st) < 0) return crt_error(err, errno, "stat /proc/self/exe");
  crt_err *why = NULL;
  int fd = overlay_exe(&st, &why);
  if (fd >= 0) return fd;
  crt_debug("sealing crt with a memfd copy instead of an overlay: %s", why->msg);
  crt_err_free(&why);
  return clone_exe(exe, &st, err);
}

int crt_ensure_cloned_binary(char **argv, crt_err **err) {
  const char *marker = getenv(CLONED_ENV);
  if (crt_exe_is_sealed()) {
    if (marker) unsetenv(CLONED_ENV); /* not for our children */
    return 0;
  }
  /* The marker is only a loop guard: it names the pid that re-executed
   * itself, and an unsealed exe after our own re-exec means the seal did
   * not work.  A stale or forged marker just gets sealed over. */
  char me[24];
  snprintf(me, sizeof me, "%d", (int)getpid());
  if (marker && strcmp(marker, me) == 0)
    return crt_error(err, 0, "re-executed from a sealed copy of crt, but /proc/self/exe is not sealed");
  cleanup_close int fd = sealed_exe(err);
  if (fd < 0) return -1;
  if (setenv(CLONED_ENV, me, 1) < 0) return crt_error(err, errno, "setenv %s", CLONED_ENV);
  syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
  int e = errno;
  unsetenv(CLONED_ENV);
  return crt_error(err, e, "re-executing crt from its sealed copy (execveat)");
}
