/* Paths inside the container's root, opened without leaving it
 * (src/linux/resolve.c). */
#ifndef CRT_RESOLVE_H
#define CRT_RESOLVE_H

#include <stdbool.h>

#include "crt/error.h"

/* Opens path inside root without leaving it (openat2 RESOLVE_IN_ROOT, or a
 * safe component walk).  With mkdir/mkfile the missing parts are created
 * (last component as a dir or as an empty file). */
enum { CRT_RESOLVE_NONE = 0, CRT_RESOLVE_MKDIR = 1, CRT_RESOLVE_MKFILE = 2 };
int crt_open_in_root(int rootfd, const char *path, int flags, int create, crt_err **err);

/* Tests: false forces the component walk used when openat2 is missing. */
void crt_resolve_use_openat2(bool use);
/* "/proc/self/fd/N" into buf (at least 32 bytes). */
const char *crt_fd_path(char *buf, int fd);

#endif
