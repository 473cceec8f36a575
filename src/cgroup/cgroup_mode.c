/* cgroups: which layout /sys/fs/cgroup has (v1, hybrid, v2), and the test
 * override of the root.  Calls nothing else of the cgroup code. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "cgroup_internal.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* crt_cgroup_set_root's override (unit tests); crt is single-threaded. */
static const char *override_root;
static enum crt_cgroup_mode override_mode;

void crt_cgroup_set_root(const char *root, enum crt_cgroup_mode mode) {
  override_root = root;
  override_mode = mode;
}

/* CRT_CGROUP_ROOT and CRT_CGROUP_MODE exist in the test build only
 * (build/crt-testpoints, -DCRT_TEST_POINTS): a release crt never takes its
 * cgroup root from the environment of whoever runs it. */
static const char *env_root(void) {
#ifdef CRT_TEST_POINTS
  const char *r = getenv("CRT_CGROUP_ROOT");
  return r && *r ? r : NULL;
#else
  return NULL;
#endif
}

#ifdef CRT_TEST_POINTS
static enum crt_cgroup_mode env_mode(void) {
  const char *m = getenv("CRT_CGROUP_MODE");
  if (m && strcmp(m, "v2") == 0) return CRT_CGROUP_MODE_V2;
  if (m && strcmp(m, "hybrid") == 0) return CRT_CGROUP_MODE_HYBRID;
  return CRT_CGROUP_MODE_V1;
}
#endif

const char *cg_root(void) {
  if (override_root) return override_root;
  const char *e = env_root();
  return e ? e : "/sys/fs/cgroup";
}

bool cg_root_is_test(void) { return override_root || env_root(); }

static bool is_cgroup2(const char *p) {
  struct statfs fs;
  return statfs(p, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

/* Only cgroup.c asks, to choose the driver; everything else asks the
 * driver. */
enum crt_cgroup_mode crt_cgroup_mode(void) {
  if (override_root) return override_mode;
#ifdef CRT_TEST_POINTS
  if (env_root()) return env_mode();
#endif
  /* The host's layout does not change under one crt process, and the
   * containers' mount namespaces are entered only by children. */
  static int cached = -1; /* atomic: `list` probes on several threads */
  int mode = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (mode < 0) {
    if (is_cgroup2("/sys/fs/cgroup")) mode = CRT_CGROUP_MODE_V2;
    else if (is_cgroup2("/sys/fs/cgroup/unified")) mode = CRT_CGROUP_MODE_HYBRID;
    else mode = CRT_CGROUP_MODE_V1;
    __atomic_store_n(&cached, mode, __ATOMIC_RELAXED);
  }
  return (enum crt_cgroup_mode)mode;
}
