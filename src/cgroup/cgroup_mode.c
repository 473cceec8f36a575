/* cgroups: the host's root, /sys/fs/cgroup with the layout found there
 * (v1, hybrid, v2).  The one place that decides where the cgroups of a
 * crt process are; a unit test makes its own crt_cgroup_root instead.
 * Calls nothing else of the cgroup code. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "cgroup_internal.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static bool is_cgroup2(const char *p) {
  struct statfs fs;
  return statfs(p, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

/* The test build (build/crt-testpoints, -DCRT_TEST_POINTS) takes a whole
 * crt process's root from CRT_CGROUP_ROOT and CRT_CGROUP_MODE ("v1",
 * "hybrid", "v2"): a tree of plain directories, foreign.  A release crt
 * never takes its cgroup root from the environment of whoever runs it. */
#ifdef CRT_TEST_POINTS
static crt_cgroup_root env;

static void find_env(void) {
  const char *dir = getenv("CRT_CGROUP_ROOT"), *m = getenv("CRT_CGROUP_MODE");
  if (!dir || !*dir) return;
  env.dir = dir;
  env.mode = m && strcmp(m, "v2") == 0 ? CRT_CGROUP_MODE_V2
             : m && strcmp(m, "hybrid") == 0 ? CRT_CGROUP_MODE_HYBRID
                                             : CRT_CGROUP_MODE_V1;
  env.foreign = true;
}
#endif

static const crt_cgroup_root hosts[] = {
    [CRT_CGROUP_MODE_V1] = {"/sys/fs/cgroup", CRT_CGROUP_MODE_V1, false},
    [CRT_CGROUP_MODE_HYBRID] = {"/sys/fs/cgroup", CRT_CGROUP_MODE_HYBRID, false},
    [CRT_CGROUP_MODE_V2] = {"/sys/fs/cgroup", CRT_CGROUP_MODE_V2, false},
};

const crt_cgroup_root *crt_cgroup_host(void) {
#ifdef CRT_TEST_POINTS
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, find_env);
  if (env.dir) return &env;
#endif
  /* The host's layout does not change under one crt process, and the
   * containers' mount namespaces are entered only by children.  An atomic
   * mode, not a pthread_once (whose wake is one more system call): `list`
   * probes on several threads. */
  static int cached = -1;
  int mode = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (mode < 0) {
    if (is_cgroup2("/sys/fs/cgroup")) mode = CRT_CGROUP_MODE_V2;
    else if (is_cgroup2("/sys/fs/cgroup/unified")) mode = CRT_CGROUP_MODE_HYBRID;
    else mode = CRT_CGROUP_MODE_V1;
    __atomic_store_n(&cached, mode, __ATOMIC_RELAXED);
  }
  return &hosts[mode];
}
