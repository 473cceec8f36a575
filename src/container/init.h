/* Between create's runtime side (create.c) and the init's (init.c). */
#ifndef CRT_CONTAINER_INIT_H
#define CRT_CONTAINER_INIT_H

#include <stdbool.h>

#include "crt/namespaces.h"
#include "crt/cgroup.h"
#include "crt/create.h"
#include "crt/state.h"
#include "crt/log.h"
#include "crt/spec.h"
#include "finalize.h"

/* What the init is given at its clone (create.c: spawn fills it, and
 * nothing of it is read back): the inputs the runtime decided before the
 * clone.  Everything the init learns later comes as the answer to one of
 * its requests (crt/wire.h), so the order of the steps lives in
 * init.c alone. */
typedef struct init_ctx {
  const crt_spec *spec;
  const crt_create_opts *opts;
  const char *rootfs;
  const char *bundle;
  const crt_state *state; /* for the hooks run in the container: all but the pid */
  int sync;               /* the init's end of the socket */
  crt_child_report rep;   /* errors go back on sync */
  int console;            /* console socket (or -1) */
  int lock;               /* the state dir's flock, inherited: the init must not hold it */
  int cgroup_fd;          /* the cgroup2 directory the clone used (or -1): closed first thing */
  const char *cgroup_path; /* the cgroup the clone puts it into for good (cloned into cgroup_fd, the v1
                            * ones joined by cg_tasks first thing), or NULL: CGROUP_DONE tells */
  bool cloned_into_cgroup; /* set in the child's copy by the clone: clone3 did not fall back */
  int netns_fd;           /* a network namespace made ahead, to join first (or -1) */
  bool netns_by_init;     /* unshare the network namespace first thing (not cloned with it) */
  crt_cgroup_tasks cg_tasks; /* v1 cgroup made before the clone: its tasks files, joined first thing */
  int listen_fds;         /* socket activation: fds passed on after the preserved ones */
  bool use_stub;          /* end in crt-stub (else crt runs from a sealed copy) */
  crt_stages *stages;     /* --debug timings: in the init its own */
  int fifo;               /* init: the exec FIFO, from the answer to PRESTART; -1: run's direct start */
  int pidns_fd;           /* a pid namespace joined by path, entered only after pivot_root (or -1): the
                           * joiner skips it, the init forks the container's process into it */
} init_ctx;

/* In the cloned child; never returns.  joiner: first join the namespaces
 * given by path (and make a time namespace: flags), then clone the init as
 * the runtime's child (two-stage spawn). */
__attribute__((noreturn)) void crt_init_run(init_ctx *c, bool joiner, int flags);

#endif
