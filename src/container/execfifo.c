/* The exec FIFO, every side of it but crt-stub's: see crt/execfifo.h. */
#define _GNU_SOURCE
#include "crt/exec_stub.h"
#include "crt/execfifo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/str.h"

static int fifo_path(const char *dir, char *buf, size_t len, crt_err **err) {
  return crt_pathf(buf, len, err, "%s/" CRT_FIFO_NAME, dir);
}

/* What the parked init runs (crt-stub's or crt's sealed memfd): the
 * device and inode of /proc/PID/exe, which its execve of the user
 * program changes. */
static int exe_id(pid_t pid, char *buf, size_t len) {
  char path[64];
  struct stat st;
  snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
  if (crt_anchored_stat(path, &st) < 0) return -1;
  snprintf(buf, len, "%llu %llu\n", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
  return 0;
}

int crt_exec_fifo_parked_id(pid_t pid, char **out, crt_err **err) {
  char id[64];
  *out = NULL;
  if (exe_id(pid, id, sizeof id) < 0) {
    /* an init already gone (or a zombie) is not parked: nothing to note,
     * its status is "stopped" (runc's create succeeds as well).  One we
     * may not look at: the FIFO alone tells "created", as before. */
    if (errno == ENOENT || errno == ESRCH || errno == EACCES || errno == EPERM) return 0;
    return crt_error(err, errno, "stat /proc/%d/exe (the parked init)", (int)pid);
  }
  id[strcspn(id, "\n")] = 0;
  *out = strdup(id);
  return *out ? 0 : crt_error(err, ENOMEM, "parked init");
}

/* -1: cannot tell (no record; /proc not readable), 1: pid still runs what
 * it ran when create finished, 0: it exec'd. */
static int still_parked(pid_t pid, const char *parked) {
  char now[64];
  if (pid <= 0 || !parked || !*parked || exe_id(pid, now, sizeof now) < 0) return -1;
  now[strcspn(now, "\n")] = 0;
  return strcmp(parked, now) == 0;
}

bool crt_exec_fifo_waiting(const char *dir, pid_t pid, const char *parked) {
  return crt_exec_fifo_exists(dir) && still_parked(pid, parked) != 0;
}

/* The pipe behind the FIFO, one page, full: the init's write of
 * CRT_FIFO_OPENED then blocks until start reads (crt/execfifo.h). */
static int fill_pipe(int fd) {
  (void)fcntl(fd, F_SETPIPE_SZ, 4096); /* the smallest; a bigger one only takes longer to fill */
  char fill[4096];
  memset(fill, CRT_FIFO_FILL[0], sizeof fill);
  ssize_t n;
  while ((n = write(fd, fill, sizeof fill)) > 0) continue;
  if (errno != EAGAIN) return -1;
  /* single bytes into the last page's tail, which a page-sized write
   * leaves when the pipe already had some room */
  while (write(fd, fill, 1) == 1) continue;
  if (errno != EAGAIN) return -1;
  int fl = fcntl(fd, F_GETFL);
  return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

int crt_exec_fifo_create(const char *dir, int *fd, crt_err **err) {
  char fifo[PATH_MAX + 16];
  *fd = -1;
  if (fifo_path(dir, fifo, sizeof fifo, err) < 0) return -1;
  if (mkfifo(fifo, 0600) < 0) return crt_error(err, errno, "mkfifo %s", fifo);
  /* O_RDWR opens without a reader; the init's end is this open file */
  *fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (*fd < 0) return crt_error(err, errno, "open %s", fifo);
  if (fill_pipe(*fd) < 0) return crt_error(err, errno, "fill the pipe of %s", fifo);
  return 0;
}

int crt_exec_fifo_park(int fd) {
  ssize_t w;
  do w = write(fd, CRT_FIFO_OPENED, 1);
  while (w < 0 && errno == EINTR);
  return w == 1 ? 0 : -1;
}

void crt_exec_fifo_fail(int wfd, const char *msg, bool hook_failed) {
  if (hook_failed) crt_write_all(wfd, CRT_FIFO_HOOK_FAILED, 1);
  crt_write_all(wfd, msg, strlen(msg));
}

int crt_exec_fifo_release(const char *dir, int *fd, crt_err **err) {
  char fifo[PATH_MAX];
  *fd = -1;
  if (fifo_path(dir, fifo, sizeof fifo, err) < 0) return -1;
  *fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (*fd < 0) return crt_error(err, errno, "open %s", fifo);
  unlink(fifo);
  return 0;
}

/* The FIFO had nothing for us: has the init gone, or exec'd without us?
 * Looked at before the read that then finds nothing, so that a byte the
 * init wrote just before its execve is never missed (it writes first). */
static int look_at_init(const crt_state *s, int pidfd, short revents) {
  if (pidfd >= 0 ? (revents & POLLIN) != 0 : (kill(s->pid, 0) < 0 && errno == ESRCH)) return -1;
  return still_parked(s->pid, s->parked_exe) == 0 ? 1 : 0;
}

static int init_error(int seen, crt_err **err) {
  if (seen < 0) return crt_error(err, 0, "container init exited before the user process started");
  return crt_error_kind(err, CRT_ERR_BAD_STATE, 0,
                        "cannot start an already running container: its process was started through "
                        "the exec FIFO from elsewhere (opened by a process in the container?)");
}

/* The fill bytes of a chunk just read, which come before anything the
 * init writes, dropped: *len counts only the init's own bytes. */
static void drop_fill(char *buf, size_t *len, size_t n) {
  size_t skip = 0;
  if (*len == 0)
    while (skip < n && buf[skip] == CRT_FIFO_FILL[0]) skip++;
  memmove(buf + *len, buf + *len + skip, n - skip);
  *len += n - skip;
}

/* While start reads the FIFO, how often it looks whether the init is
 * still parked (an init that exec'd or died writes nothing more). */
#define LOOK_MS 100

/* Reads the FIFO until EOF after the init's first byte, or until the init
 * that wrote it to us is seen past its execve; buf gets it all. */
static int read_fifo(int fd, const crt_state *s, int pidfd, char *buf, size_t size, size_t *len, crt_err **err) {
  for (;;) {
    struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
    int r = poll(p, pidfd >= 0 ? 2 : 1, LOOK_MS);
    if (r < 0 && errno == EINTR) continue;
    /* 0: alive and parked (or cannot tell), -1: gone, 1: exec'd */
    int seen = r >= 0 && !p[0].revents ? look_at_init(s, pidfd, pidfd >= 0 ? p[1].revents : 0) : 0;
    ssize_t n = read(fd, buf + *len, size - 1 - *len);
    if (n < 0 && errno != EAGAIN && errno != EINTR) return crt_error(err, errno, "read exec fifo");
    if (n > 0) {
      drop_fill(buf, len, (size_t)n);
      if (*len >= size - 1) return 0;
      continue;
    }
    if (n == 0 && *len > 0) return 0; /* EOF: the init's execve closed its end */
    /* Its byte came to us, so this start released it; a new exe then means
     * its execve is past the point of no return, though the kernel has not
     * yet closed the FIFO: a throttled or slow init can sit between the
     * two for as long as it waits for CPU (issue 57, bug 5). */
    if (seen > 0 && *len > 0) return 0;
    if (seen) return init_error(seen, err); /* no writer yet, or nothing written */
  }
}

int crt_exec_fifo_await(int fd, const crt_state *s, int pidfd, bool *hook_failed, crt_err **err) {
  char buf[4096];
  size_t len = 0;
  if (read_fifo(fd, s, pidfd, buf, sizeof buf, &len, err) < 0) return -1;
  buf[len] = 0;
  if (len <= 1) {
    /* EOF means the write end closed at the init's execve, unless the byte
     * came from another writer that reached the FIFO */
    if (still_parked(s->pid, s->parked_exe) == 1)
      return crt_error(err, 0, "exec fifo: written by something other than the container's init, which still waits");
    return 0;
  }
  char *msg = buf + 1;
  *hook_failed = *msg == CRT_FIFO_HOOK_FAILED[0];
  if (*hook_failed) msg++;
  cleanup_free char *stub = crt_stub_message(msg);
  return crt_error(err, 0, "%s", stub ? stub : msg);
}

bool crt_exec_fifo_exists(const char *dir) {
  char fifo[PATH_MAX];
  struct stat st;
  cleanup_err crt_err *err = NULL;
  return fifo_path(dir, fifo, sizeof fifo, &err) >= 0 && crt_anchored_stat(fifo, &st) == 0;
}
