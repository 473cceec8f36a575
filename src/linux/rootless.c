#define _GNU_SOURCE
/* The one rootless decision (include/crt/rootless.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crt/error.h"
#include "crt/rootless.h"
#include "crt/str.h"

static crt_rootless_ctx ctx;
static bool filled;

bool crt_uid_map_in_userns(const char *line) {
  if (!line || !*line || *line == '\n') return true;
  unsigned long long a, b, c;
  if (sscanf(line, "%llu %llu %llu", &a, &b, &c) != 3) return false;
  return !(a == 0 && b == 0 && c == 4294967295ULL);
}

/* A kernel without user namespaces has no uid_map: the initial one. */
static bool read_in_userns(void) {
  FILE *f = fopen("/proc/self/uid_map", "re");
  if (!f) return false;
  char line[128] = "";
  bool got = fgets(line, sizeof line, f) != NULL;
  fclose(f);
  return crt_uid_map_in_userns(got ? line : "");
}

const crt_rootless_ctx *crt_rootless_get(void) {
  if (!filled) {
    ctx.euid = geteuid();
    ctx.in_userns = read_in_userns();
    ctx.rootless = ctx.euid != 0 || ctx.in_userns;
    filled = true;
  }
  return &ctx;
}

bool crt_in_userns(void) {
  return crt_rootless_get()->in_userns;
}

bool crt_rootless(void) {
  return crt_rootless_get()->rootless;
}

const char *crt_rootless_state_root(bool euid0, bool in_userns, const char *xdg, const char *user, char *buf,
                                    size_t n) {
  /* real root keeps /run even with XDG_RUNTIME_DIR=/run/user/0 (runc: for
   * backward compatibility); root of a user namespace is a user's process
   * unless it says it is root */
  bool honour = xdg && *xdg && (!euid0 || (in_userns && (!user || strcmp(user, "root"))));
  if (honour) return crt_fmt(buf, n, "%s/crt", xdg) < 0 ? NULL : buf;
  return crt_fmt(buf, n, "/run/crt") < 0 ? NULL : buf;
}

const char *crt_rootless_hint(const char *what, int errnum) {
  if (errnum != EPERM && errnum != EACCES && errnum != EROFS) return "";
  const crt_rootless_ctx *c = crt_rootless_get();
  if (!c->rootless) return "";
  static const struct {
    const char *what, *hint;
  } hints[] = {
      {"sysctl", "; rootless: only sysctls of namespaces the container owns (net.*, kernel.msg*/sem/shm*, "
                 "fs.mqueue.*) can be set, and only when the config gives it those namespaces"},
      {"rlimit", "; rootless: a hard limit cannot be raised above the caller's (see ulimit -H, or "
                 "/etc/security/limits.conf for the user)"},
      {"oom_score_adj", "; rootless: process.oomScoreAdj cannot be lower than the caller's "
                        "(/proc/self/oom_score_adj)"},
      {"mqueue", "; rootless: mqueue can only be mounted in an IPC namespace of the container's own "
                 "(linux.namespaces: {\"type\": \"ipc\"}), or /dev/mqueue bound from the caller"},
      {"mknod", "; rootless: device nodes can only be bind-mounted from the host"},
      {"setgroups", "; rootless: additional gids need setgroups allowed in the user namespace (newgidmap, "
                    "with a range in /etc/subgid) and mapped in gidMappings"},
  };
  for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
    if (!strcmp(hints[i].what, what)) return hints[i].hint;
  return "";
}

int crt_rootless_explain(crt_err **err, const char *what) {
  if (!*err) return -1;
  const char *h = crt_rootless_hint(what, (*err)->errnum);
  char *m = NULL;
  if (*h && asprintf(&m, "%s%s", (*err)->msg, h) >= 0) {
    free((*err)->msg);
    (*err)->msg = crt_msg_cut(m);
  }
  return -1;
}

static const char *memory_cpu_demand(const crt_resources *r) {
  if (r->memory.limit.set) return "memory.limit";
  if (r->memory.reservation.set) return "memory.reservation";
  if (r->memory.swap.set) return "memory.swap";
  if (r->memory.kernel.set) return "memory.kernel";
  if (r->memory.kernel_tcp.set) return "memory.kernelTCP";
  if (r->memory.swappiness.set) return "memory.swappiness";
  if (r->memory.disable_oom_killer.set && r->memory.disable_oom_killer.v) return "memory.disableOOMKiller";
  if (r->cpu.shares.set) return "cpu.shares";
  if (r->cpu.quota.set) return "cpu.quota";
  if (r->cpu.period.set) return "cpu.period";
  if (r->cpu.realtime_runtime.set) return "cpu.realtimeRuntime";
  if (r->cpu.realtime_period.set) return "cpu.realtimePeriod";
  if (r->cpu.burst.set) return "cpu.burst";
  if (r->cpu.idle.set) return "cpu.idle";
  if (r->cpu.cpus && *r->cpu.cpus) return "cpu.cpus";
  if (r->cpu.mems && *r->cpu.mems) return "cpu.mems";
  return NULL;
}

const char *crt_rootless_cgroup_demand(const crt_resources *r) {
  if (!r) return NULL;
  const char *mc = memory_cpu_demand(r);
  if (mc) return mc;
  if (r->pids.limit.set) return "pids.limit";
  if (r->blkio.weight.set || r->blkio.leaf_weight.set || r->blkio.n_weight_device || r->blkio.n_throttle_read_bps ||
      r->blkio.n_throttle_write_bps || r->blkio.n_throttle_read_iops || r->blkio.n_throttle_write_iops)
    return "blockIO";
  if (r->n_hugepage_limits) return "hugepageLimits";
  if (r->network.class_id.set || r->network.n_priorities) return "network";
  if (r->n_rdma) return "rdma";
  if (r->unified.len) return "unified";
  return NULL;
}
