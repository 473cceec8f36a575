#include "crt/testpoint.h"

#ifdef CRT_TEST_POINTS
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void crt_test_point(const char *name) {
  const char *want = getenv("CRT_TEST_PAUSE");
  if (!want || strcmp(want, name) != 0) return;
  const char *file = getenv("CRT_TEST_PAUSE_FILE");
  if (file) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      dprintf(fd, "%d %s\n", (int)getpid(), name);
      close(fd);
      rename(tmp, file);
    }
  }
  for (;;) pause();
}
#else
/* ISO C forbids an empty translation unit */
typedef int crt_testpoint_unused;
#endif
