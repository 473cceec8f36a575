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
static bool env_root(crt_cgroup_root *r) {
#ifdef CRT_TEST_POINTS
  const char *dir = getenv("CRT_CGROUP_ROOT"), *m = getenv("CRT_CGROUP_MODE");
  if (!dir || !*dir) return false;
  r->dir = dir;
  r->mode = m && strcmp(m, "v2") == 0 ? CRT_CGROUP_MODE_V2
            : m && strcmp(m, "hybrid") == 0 ? CRT_CGROUP_MODE_HYBRID
                                            : CRT_CGROUP_MODE_V1;
  r->foreign = true;
  return true;
#else
  (void)r;
  return false;
#endif
}

static crt_cgroup_root host;

/* The host's layout does not change under one crt process, and the
 * containers' mount namespaces are entered only by children. */
static void find_host(void) {
  if (env_root(&host)) return;
  host.dir = "/sys/fs/cgroup";
  if (is_cgroup2("/sys/fs/cgroup")) host.mode = CRT_CGROUP_MODE_V2;
  else if (is_cgroup2("/sys/fs/cgroup/unified")) host.mode = CRT_CGROUP_MODE_HYBRID;
  else host.mode = CRT_CGROUP_MODE_V1;
}

const crt_cgroup_root *crt_cgroup_host(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT; /* `list` probes on several threads */
  pthread_once(&once, find_host);
  return &host;
}
