/* Test helper acting like containerd's shim: becomes a child subreaper,
 * runs a command (crt exec --detach --pid-file FILE ...), then checks that
 * the process named in FILE was reparented to us and reaps its exit status.
 *   reaper_exec PIDFILE CMD [ARGS...]
 * Prints "ppid-ok exit=N" (or "signal=N") and exits 0, or explains and exits 1. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t ppid_of(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  if (!p) return -1;
  char state;
  int ppid;
  if (sscanf(p + 2, "%c %d", &state, &ppid) != 2) return -1;
  return ppid;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  pid_t c = fork();
  if (c == 0) {
    execvp(argv[2], argv + 2);
    _exit(127);
  }
  int st;
  waitpid(c, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    printf("command failed: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 1;
  }
  FILE *f = fopen(argv[1], "r");
  int pid = 0;
  if (!f || fscanf(f, "%d", &pid) != 1) {
    printf("no pid file\n");
    return 1;
  }
  fclose(f);
  pid_t pp = ppid_of(pid);
  if (pp != getpid()) {
    printf("pid %d has parent %d, not us (%d)\n", pid, pp, getpid());
    return 1;
  }
  if (waitpid(pid, &st, 0) != pid) {
    printf("cannot reap %d\n", pid);
    return 1;
  }
  if (WIFEXITED(st)) printf("ppid-ok exit=%d\n", WEXITSTATUS(st));
  else printf("ppid-ok signal=%d\n", WTERMSIG(st));
  return 0;
}
