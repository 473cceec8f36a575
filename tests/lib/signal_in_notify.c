/* For t_security's SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV test, run as the
 * container's process: a SIGUSR1 handler without SA_RESTART, then one
 * mkdir(2) that the seccomp agent holds; prints what mkdir returned and
 * whether the handler ran.  The test signals us while the agent holds the
 * call: with the flag the kernel keeps waiting for the agent's answer (the
 * signal is handled after it), without it the signal ends the wait
 * (EINTR, and the agent's late answer finds no call: ENOENT). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static volatile sig_atomic_t handled;

static void on_usr1(int sig) {
  (void)sig;
  handled = 1;
}

int main(void) {
  struct sigaction sa = {.sa_handler = on_usr1}; /* no SA_RESTART */
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGUSR1, &sa, NULL) < 0) return 2;
  int r = mkdir("/tmp/held", 0755);
  int e = errno;
  printf("mkdir=%d errno=%s handled=%d\n", r, r < 0 ? strerror(e) : "0", (int)handled);
  return 0;
}
