/* Is the pid in state.json still the container's init?  state.json can lie
 * (pid reuse, an interrupted write, a forgery by whoever can write the
 * state root): before crt signals a pid or joins its namespaces it checks
 * the pid against everything crt itself recorded, and a pid that fails is
 * not the init: the container counts as stopped. */
#define _GNU_SOURCE
#include <stdio.h>

#include "crt/initcheck.h"
#include "crt/procinfo.h"
#include "crt/cgroup.h"
#include "crt/state.h"

/* The pid and start time of the rescue file `init` in the state
 * directory; false when there is none (or it cannot be read).  Its first
 * two fields are all that is compared, so a cut read is enough. */
static bool rescue_init(const crt_state *s, pid_t *pid, uint64_t *start) {
  char path[4096], buf[128];
  if (!s->dir || snprintf(path, sizeof path, "%s/init", s->dir) >= (int)sizeof path) return false;
  if (crt_read_small_regular(path, buf, sizeof buf, NULL) < 0) return false;
  int p = 0;
  unsigned long long st = 0;
  bool ok = sscanf(buf, "%d %llu", &p, &st) == 2;
  *pid = p;
  *start = st;
  return ok;
}

/* The cheapest proof first: /proc/<pid>/cpuset, then one read of
 * /proc/<pid>/cgroup; only an init found in neither (or a file too long
 * for one read) is asked again the full way, which tells "not in it" from
 * "cannot tell".  Where cpuset is not the container's (a cgroup2 tree
 * without the controller, cpuset not mounted) its first miss ends the
 * shortcut for the rest of this process (`list`'s other containers, which
 * it probes on several threads). */
static int in_cgroup(const crt_state *s) {
  static bool cpuset_misses;
  if (!__atomic_load_n(&cpuset_misses, __ATOMIC_RELAXED)) {
    if (crt_proc_cpuset_under(s->pid, s->cgroup_path) == 1) return 1;
    __atomic_store_n(&cpuset_misses, true, __ATOMIC_RELAXED);
  }
  if (crt_proc_cgroup_under(s->pid, s->cgroup_path) == 1) return 1;
  return crt_cgroup_has_pid(s->cg, s->pid);
}

enum crt_init_check crt_state_check_init(const crt_state *s, uint64_t *actual_start) {
  if (actual_start) *actual_start = 0;
  if (s->pid <= 0) return CRT_INIT_NONE;
  bool zombie;
  uint64_t st = crt_proc_start_time(s->pid, &zombie);
  if (actual_start) *actual_start = st;
  if (st == 0 || zombie) return CRT_INIT_GONE;
  /* create records the start time with the pid: none recorded is no proof */
  if (s->start_time == 0 || st != s->start_time) return CRT_INIT_REUSED;
  pid_t rpid;
  uint64_t rstart;
  if (rescue_init(s, &rpid, &rstart) && (rpid != s->pid || rstart != s->start_time)) return CRT_INIT_UNRECORDED;
  /* Until create finishes the init may not have joined its cgroup yet (v1
   * moves it after the clone); from then on it never leaves that subtree. */
  if (s->ready && in_cgroup(s) == 0) return CRT_INIT_OUTSIDE_CGROUP;
  return CRT_INIT_OK;
}

void crt_init_check_describe(const crt_state *s, enum crt_init_check c, uint64_t actual_start, char *buf,
                             size_t len) {
  switch (c) {
  case CRT_INIT_OK: snprintf(buf, len, "pid %d is the container's init", s->pid); break;
  case CRT_INIT_NONE: snprintf(buf, len, "no init recorded"); break;
  case CRT_INIT_GONE: snprintf(buf, len, "its init (pid %d) has exited", s->pid); break;
  case CRT_INIT_REUSED:
    snprintf(buf, len, "pid %d is not its init (that process started at %llu, the init at %llu)", s->pid,
             (unsigned long long)actual_start, (unsigned long long)s->start_time);
    break;
  case CRT_INIT_UNRECORDED:
    snprintf(buf, len, "pid %d is not its init (state.json and the rescue file %s/init disagree)", s->pid, s->dir);
    break;
  case CRT_INIT_OUTSIDE_CGROUP:
    snprintf(buf, len, "pid %d is not its init (not in the container's cgroup %s)", s->pid, s->cgroup_path);
    break;
  }
}
