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

/* What the init knows of its create, made by the runtime side before the
 * clone. */
typedef struct init_ctx {
  const crt_spec *spec;
  const crt_create_opts *opts;
  const char *rootfs;
  const char *bundle;
  int sync;         /* our end */
  crt_child_report rep; /* in the init: errors go back on sync */
  int fifo;         /* exec.fifo, O_RDWR, its pipe full (crt/execfifo.h; none when direct) */
  int console;      /* console socket (or -1) */
  int lock;         /* the state dir's flock: the init must not hold it */
  int mntns;        /* runtime side: the init's mount namespace, opened at its first MOUNT_SOURCE */
  int cgroup_fd;    /* cgroup2 (v2, hybrid's unified): the prepared cgroup to clone the init into, or -1 */
  crt_netns_ahead netns_ahead; /* the thread making the network namespace (parent side) */
  int netns_fd;     /* that namespace, which the init joins first (not cloned with CLONE_NEWNET), or -1 */
  bool netns_by_init; /* the init unshares its network namespace itself (not cloned with CLONE_NEWNET),
                       * while the runtime makes the v1 cgroup after the clone */
  crt_cgroup_tasks cg_tasks; /* v1: the prepared cgroup's tasks files, joined by the init itself */
  bool v1_self_joined; /* cg_tasks were given: the runtime moves the init into no v1 hierarchy */
  bool v1_late;     /* the v1 hierarchies are made after the clone; their tasks files come with
                     * CGROUP_JOIN, which the init awaits as late as it may (init.c: join_late) */
  bool cgroup_failed; /* runtime side: making the v1 cgroup after the clone failed */
  bool cgroup_unchecked; /* runtime side: a cgroup already there is checked after the clone (pure v1) */
  bool cgroup_made; /* made before the clone (v2: configured after it) */
  const char *cgroup_path; /* the cgroup, when cgroup_made */
  const crt_state *state;  /* for the hooks run in the container: all but the pid */
  int listen_fds;   /* socket activation: fds passed on after the preserved ones */
  bool use_stub;    /* end in crt-stub (else crt runs from a sealed copy) */
  bool direct;      /* run: no exec FIFO, no park: crt-stub execs the process as soon as it is set up,
                     * and the sync socket closes at that execve (create.c: direct_wanted) */
  bool runtime_hooks; /* prestart or createRuntime hooks: the init asks for them (PRESTART) once its
                       * mounts are done; without, PRESTART_DONE comes unasked */
  bool new_userns;
  bool new_cgroupns;
  bool new_mntns;
  bool born_in_cgroup; /* clone3 put the init into the prepared cgroup (set by crt_clone_into); see init_main */
  crt_stages *stages;  /* --debug timings: the runtime's, in the init its own */
} init_ctx;

/* In the cloned child; never returns.  joiner: first join the namespaces
 * given by path (and make a time namespace: flags), then clone the init as
 * the runtime's child (two-stage spawn). */
__attribute__((noreturn)) void crt_init_run(init_ctx *c, bool joiner, int flags);

#endif
