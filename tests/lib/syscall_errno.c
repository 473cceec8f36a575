/* syscall_errno NR...: makes each raw syscall NR with zero arguments and
 * prints one line per call: "NR ok" or "NR ERRNO-NAME" (ENOSYS, EPERM, ...).
 * Built static for a container's rootfs by t_compat.sh (seccomp tests):
 *   cc -static -O2 -o syscall_errno tests/lib/syscall_errno.c */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    long nr = strtol(argv[i], NULL, 10);
    errno = 0;
    long r = syscall(nr, 0, 0, 0, 0, 0, 0);
    if (r >= 0) printf("%ld ok\n", nr);
    else printf("%ld %s\n", nr, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
  }
  return 0;
}
