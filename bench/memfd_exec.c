#define _GNU_SOURCE
/* profile.sh helper: copies argv[1] into a sealed memfd (as crt does for
 * create/run/exec) and executes the copy.  With CRT_PROFILE_NOEXEC set it
 * stops after the copy, to time the copy alone. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: memfd_exec BINARY [ARGS...]\n");
    return 2;
  }
  int in = open(argv[1], O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (in < 0 || fstat(in, &st) < 0) {
    perror(argv[1]);
    return 1;
  }
  int mfd = memfd_create("copy", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (mfd < 0) {
    perror("memfd_create");
    return 1;
  }
  off_t off = 0;
  while (off < st.st_size) {
    ssize_t n = sendfile(mfd, in, &off, (size_t)(st.st_size - off));
    if (n <= 0) {
      perror("sendfile");
      return 1;
    }
  }
  if (fcntl(mfd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0) {
    perror("F_ADD_SEALS");
    return 1;
  }
  if (getenv("CRT_PROFILE_NOEXEC")) return 0;
  fexecve(mfd, argv + 1, environ);
  perror("fexecve");
  return 1;
}
