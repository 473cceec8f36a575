/* Test helper for the invariant containerd's shim relies on: when a
 * container's init dies, the exits of processes exec'd into the container
 * reach the subreaper before the init's.
 *   exit_order CRT ROOT BUNDLE ID WORKDIR
 * Runs `crt run -d` and `crt exec -d --pid-file` as their subreaper, kills
 * the init, and prints the order in which the exits arrive: "exec init". */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int run(char *const argv[]) {
  pid_t c = fork();
  if (c == 0) {
    execv(argv[0], argv);
    _exit(127);
  }
  int st;
  waitpid(c, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int read_pid(const char *path) {
  FILE *f = fopen(path, "r");
  int pid = 0;
  if (f) {
    if (fscanf(f, "%d", &pid) != 1) pid = 0;
    fclose(f);
  }
  return pid;
}

int main(int argc, char **argv) {
  if (argc != 6) return 2;
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  char ipid[4096], epid[4096];
  snprintf(ipid, sizeof ipid, "%s/init.pid", argv[5]);
  snprintf(epid, sizeof epid, "%s/exec.pid", argv[5]);
  char *create[] = {argv[1], "--root", argv[2], "run", "-d", "--pid-file", ipid, "-b", argv[3], argv[4], NULL};
  if (run(create)) return printf("run -d failed\n"), 1;
  char *ex[] = {argv[1], "--root", argv[2], "exec", "-d", "--pid-file", epid, argv[4], "sleep", "100", NULL};
  if (run(ex)) return printf("exec -d failed\n"), 1;
  int init = read_pid(ipid), exec_pid = read_pid(epid);
  if (!init || !exec_pid) return printf("no pids\n"), 1;
  kill(init, SIGKILL);
  int seen = 0;
  while (seen < 2) {
    int st;
    pid_t p = wait(&st);
    if (p < 0) break;
    if (p == exec_pid) printf("%sexec", seen++ ? " " : "");
    else if (p == init) printf("%sinit", seen++ ? " " : "");
  }
  printf("\n");
  return seen == 2 ? 0 : 1;
}
