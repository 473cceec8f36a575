/* One program run to its end, its output and exit status collected: the
 * plain spawns of crt, `ps` (the ps command), newuidmap/newgidmap
 * (namespaces.c) and `criu check` (criu.c) (src/util/spawn.c).
 *
 * The child gets stdin from /dev/null, stdout into o->out or, without it,
 * with stderr into the error message; no other fd of crt (O_CLOEXEC or
 * not: the lock, a sync socket, --preserve-fds), an empty signal mask and
 * SIGPIPE at its default.
 *
 * Not for the two spawns whose child does work of its own before the exec,
 * which stay with their code: the hooks (hooks.c: a process group of
 * their own for the timeout's kill, a working directory, the state fed to
 * stdin while the output is read) and criu's runs (criu.c crt_criu_run:
 * the child waits for the parent to act on its pid, then runs a setup
 * step). */
#ifndef CRT_SPAWN_H
#define CRT_SPAWN_H

#include <stddef.h>

#include "crt/error.h"

/* How much of the program's stderr the error keeps: its end. */
#define CRT_SPAWN_DIAG_MAX 4096

typedef struct {
  const char *name; /* what messages call the program ("criu check"); NULL: argv[0] */
  char **out;       /* stdout, malloc'd and NUL-terminated, on success; NULL: it goes with stderr */
  size_t out_max;   /* with out: a longer stdout is an error */
} crt_spawn_opts;

/* Runs argv (argv[0] looked up in PATH) and waits for it.  0 when it
 * exited 0; else -1 with "NAME: exited with status N: STDERR" (the last
 * CRT_SPAWN_DIAG_MAX bytes of what it wrote there, lines joined), "NAME:
 * killed by signal N: ...", or, when it could not be run, "exec ARGV0"
 * with the errno (ENOENT: not found), NAME: before it when o->name is set. */
int crt_spawn(char *const argv[], const crt_spawn_opts *o, crt_err **err);

#endif
