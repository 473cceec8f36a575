/* Runs a command as a child subreaper and reaps every orphan that lands on
 * us, so that test harnesses do not depend on the host's slow PID 1.
 * Exits with the command's status. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: subreaper CMD [ARGS...]\n");
    return 2;
  }
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
    perror("prctl(PR_SET_CHILD_SUBREAPER)");
    return 2;
  }
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return 2;
  }
  if (child == 0) {
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    _exit(127);
  }
  signal(SIGINT, SIG_IGN);
  int code = 0;
  for (;;) {
    int st;
    pid_t p = wait(&st);
    if (p < 0) {
      if (errno == EINTR) continue;
      break; /* ECHILD: everyone is reaped */
    }
    if (p == child) code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  return code;
}
