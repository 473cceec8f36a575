#include "testpoint.h"

#ifdef CRT_TEST_POINTS
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crt/str.h"

void crt_test_point(const char *name) {
  const char *want = getenv("CRT_TEST_PAUSE");
  if (!want || strcmp(want, name) != 0) return;
  const char *file = getenv("CRT_TEST_PAUSE_FILE");
  if (file) {
    char tmp[PATH_MAX];
    /* a file too long for a temp name beside it is not written: the test waits and fails */
    int fd = crt_fmt(tmp, sizeof tmp, "%s.tmp", file) < 0 ? -1 : open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
