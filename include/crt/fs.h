/* Small filesystem helpers. */
#ifndef CRT_FS_H
#define CRT_FS_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "crt/error.h"

/* Reads a whole file (at most max bytes; larger is an error) into a
 * NUL-terminated malloc'd buffer. */
int crt_read_file(const char *path, size_t max, char **out, size_t *len, crt_err **err);
int crt_read_fd(int fd, size_t max, char **out, size_t *len, crt_err **err);
/* Writes data to path (O_TRUNC|O_CREAT). */
int crt_write_file(const char *path, const char *data, size_t len, mode_t mode, crt_err **err);
/* Writes to a temp file beside path and renames it over path. */
int crt_write_file_atomic(const char *path, const char *data, size_t len, mode_t mode, crt_err **err);
/* --pid-file: the pid in decimal, no newline (as runc), written atomically
 * (a reader sees no half-written file), mode 0644. */
int crt_write_pid_file(const char *path, pid_t pid, crt_err **err);
/* The same in two steps, for a writer with time to spare before it knows
 * what to write: begin makes the temp file (on ext4 most of the cost),
 * end writes it and puts it in place (or removes it, failing); drop
 * removes an unused one.  fd -1: nothing begun. */
typedef struct {
  int fd;
  char tmp[PATH_MAX + 32];
  char path[PATH_MAX];
} crt_atomic_file;
int crt_atomic_file_begin(const char *path, mode_t mode, crt_atomic_file *f, crt_err **err);
int crt_atomic_file_end(crt_atomic_file *f, const char *data, size_t len, crt_err **err);
void crt_atomic_file_drop(crt_atomic_file *f);
/* mkdir -p; existing directories are fine. */
int crt_mkdir_p(const char *path, mode_t mode, crt_err **err);
/* write(2) until done, retrying EINTR. */
int crt_write_all(int fd, const void *buf, size_t len);
/* read(2) until len bytes or EOF; returns bytes read or -1. */
ssize_t crt_read_all(int fd, void *buf, size_t len);
/* sendmsg of iov with fd (>= 0) as SCM_RIGHTS ancillary data, retrying
 * EINTR; MSG_NOSIGNAL.  Returns the bytes sent, or -1 with errno. */
struct iovec;
ssize_t crt_send_with_fd(int sock, struct iovec *iov, size_t iovcnt, int fd);
/* The same with n fds (at most CRT_SEND_MAX_FDS; more: EMSGSIZE). */
#define CRT_SEND_MAX_FDS 32
ssize_t crt_send_with_fds(int sock, struct iovec *iov, size_t iovcnt, const int *fds, size_t n);
/* Closes every fd >= from except those in keep[0..nkeep) (close_range when possible). */
void crt_close_fds_from(int from, const int *keep, size_t nkeep);
/* Marks every fd >= from O_CLOEXEC. */
void crt_cloexec_fds_from(int from);
/* Anchors, for a command that reads many paths under a few directories
 * (`list`: every container's state dir, /proc/PID, freezer files): the
 * directory is opened once (O_PATH) and crt_anchored_open/_stat resolve a
 * path under it relative to that fd, which skips walking to it each time
 * (~1-3 us a path here).  Only for commands that start no process: a host
 * directory fd must never reach a container (CVE-2024-21626).  Without
 * anchors (or for other paths) they are open(2) and stat(2).  Anchors are
 * the calling thread's; drop closes them. */
void crt_anchor_dir(const char *dir);
void crt_anchors_drop(void);
int crt_anchored_open(const char *path, int flags);
struct stat;
int crt_anchored_stat(const char *path, struct stat *st);
/* Opens path (anchored as crt_anchored_open) for reading, only if it is a
 * regular file, checked on the fd; the open never waits (O_NONBLOCK: a
 * FIFO there has no writer to wait for) and takes no controlling tty.
 * For files anyone but crt could have replaced: state files, the rescue
 * file.  -1 with err: errnum is open's errno, 0 for "not a regular file". */
int crt_open_regular(const char *path, crt_err **err);
/* One read(2) of at most len - 1 bytes of the regular file path (as
 * crt_open_regular), NUL-terminated: the count, or -1. */
ssize_t crt_read_small_regular(const char *path, char *buf, size_t len, crt_err **err);
/* Removes a tree, not crossing mount points. */
int crt_rm_rf(const char *path);

#endif
