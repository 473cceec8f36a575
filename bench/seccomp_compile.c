#define _GNU_SOURCE
/* profile.sh helper: how long libseccomp takes to build and export the BPF
 * program of an allow-list, as crt does for every create/run/exec with a
 * seccomp profile.  Usage: seccomp_compile ROUNDS NARCH SYSCALL...
 * (NARCH 1: native only; 3: native, x86, x32 like Docker's profile). */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: seccomp_compile ROUNDS NARCH SYSCALL...\n");
    return 2;
  }
  int rounds = atoi(argv[1]), narch = atoi(argv[2]);
  int out = open("/dev/null", O_WRONLY | O_CLOEXEC);
  double best = 1e9, sum = 0;
  for (int r = 0; r < rounds; r++) {
    double t0 = now_ms();
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    if (!ctx) return 1;
    if (narch == 3 && (seccomp_arch_add(ctx, SCMP_ARCH_X86) < 0 || seccomp_arch_add(ctx, SCMP_ARCH_X32) < 0))
      return 1;
    int added = 0;
    for (int i = 3; i < argc; i++) {
      int nr = seccomp_syscall_resolve_name(argv[i]);
      if (nr == __NR_SCMP_ERROR) continue;
      if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0) == 0) added++;
    }
    if (seccomp_export_bpf(ctx, out) < 0) return 1;
    seccomp_release(ctx);
    double dt = now_ms() - t0;
    sum += dt;
    if (dt < best) best = dt;
    if (r == 0) printf("rules added: %d\n", added);
  }
  printf("arches %d: mean %.2f ms, best %.2f ms over %d rounds\n", narch, sum / rounds, best, rounds);
  return 0;
}
