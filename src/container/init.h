/* Between create's runtime side (create.c) and the init's (init.c). */
#ifndef CRT_CONTAINER_INIT_H
#define CRT_CONTAINER_INIT_H

#include <stdbool.h>

#include "crt/create.h"
#include "crt/state.h"
#include "crt/log.h"
#include "crt/spec.h"
#include "finalize.h"

/* What the init knows of its create, made by the runtime side before the
 * clone. */
typedef struct init_ctx {
  const crt_spec *spec;
  const crt_create_opts *opts;
  const char *rootfs;
  const char *bundle;
  int sync;         /* our end */
  crt_child_report rep; /* in the init: errors go back on sync */
  int fifo;         /* O_PATH fd of exec.fifo */
  int console;      /* console socket (or -1) */
  int lock;         /* the state dir's flock: the init must not hold it */
  int cgroup_fd;    /* v2: the prepared cgroup to clone the init into, or -1 */
  int *idmap_fds;   /* user ns: idmapped mount trees made here, per mount (or NULL) */
  bool cgroup_made; /* v2: made before the clone (configured after it) */
  const char *cgroup_path; /* the cgroup, when cgroup_made */
  const crt_state *state;  /* for the hooks run in the container: all but the pid */
  int listen_fds;   /* socket activation: fds passed on after the preserved ones */
  bool use_stub;    /* end in crt-stub (else crt runs from a sealed copy) */
  bool new_userns;
  bool new_cgroupns;
  bool new_mntns;
  bool born_in_cgroup; /* clone3 put the init into the prepared cgroup (set by crt_clone_into) */
  crt_stages *stages;  /* --debug timings: the runtime's, in the init its own */
} init_ctx;

/* In the cloned child; never returns.  joiner: first join the namespaces
 * given by path (and make a time namespace: flags), then clone the init as
 * the runtime's child (two-stage spawn). */
__attribute__((noreturn)) void crt_init_run(init_ctx *c, bool joiner, int flags);

#endif
