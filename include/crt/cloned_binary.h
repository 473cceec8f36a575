/* The /proc/self/exe protection (src/linux/cloned_binary.c): crt runs
 * from a sealed memfd copy of itself where the container could reach it. */
#ifndef CRT_CLONED_BINARY_H
#define CRT_CLONED_BINARY_H

#include <stdbool.h>

#include "crt/error.h"

/* An O_CLOEXEC memfd that may be executed and sealed; sealed with
 * CRT_EXEC_SEALS, no one can write to it again. */
int crt_exec_memfd(const char *name, crt_err **err);
#define CRT_EXEC_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

/* CVE-2019-5736: re-executes crt from a sealed memfd copy unless it already
 * runs from one.  Needed wherever a process that still runs crt is visible
 * to the container: `exec` (the container's pid namespace has processes
 * already), a create that joins an existing pid namespace, and processes
 * crt-stub cannot finish (see crt_stub_usable). */
int crt_ensure_cloned_binary(char **argv, crt_err **err);
/* Whether this process runs from a sealed copy (every CRT_EXEC_SEALS). */
bool crt_exe_is_sealed(void);

#endif
