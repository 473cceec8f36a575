/* crt update: new resource limits for a running container (runc's flags). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crt/cgroup.h"
#include "crt/cli.h"
#include "crt/fs.h"
#include "crt/ops.h"

enum { O_BLKIO = 256, O_PERIOD, O_QUOTA, O_BURST, O_IDLE, O_RTPERIOD, O_RTRUNTIME, O_SHARES, O_CPUS, O_MEMS, O_KMEM, O_KTCP, O_MEM,
       O_RES, O_SWAP, O_PIDS, O_L3, O_MBW };

static int num(const char *cmd, const char *flag, const char *v, bool sign, long long *out) {
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || end == v || *end || (!sign && x < 0))
    return crt_usage_error(cmd, "invalid value \"%s\" for flag --%s: parse error", v, flag), -1;
  *out = x;
  return 0;
}

static int size(const char *cmd, const char *flag, const char *v, long long *out) {
  if (crt_cgroup_parse_size(v, out) < 0) {
    crt_usage_error(cmd, "invalid value for %s: %s", flag, v);
    return -1;
  }
  return 0;
}

/* Flags into r; -1 after a usage error. */
static int flag(const char *cmd, int c, const char *v, crt_resources *r) {
  long long x;
  switch (c) {
  case O_BLKIO:
    if (num(cmd, "blkio-weight", v, false, &x) < 0) return -1;
    if (x) r->blkio.weight = (crt_u64){true, (uint64_t)x};
    return 0;
  case O_PERIOD:
    if (num(cmd, "cpu-period", v, false, &x) < 0) return -1;
    r->cpu.period = (crt_u64){true, (uint64_t)x};
    return 0;
  case O_QUOTA:
    if (num(cmd, "cpu-quota", v, true, &x) < 0) return -1;
    r->cpu.quota = (crt_i64){true, x};
    return 0;
  case O_BURST:
    if (num(cmd, "cpu-burst", v, false, &x) < 0) return -1;
    r->cpu.burst = (crt_u64){true, (uint64_t)x};
    return 0;
  case O_IDLE: /* the kernel takes 0 or 1 and says EINVAL to the rest, as runc lets it */
    if (num(cmd, "cpu-idle", v, true, &x) < 0) return -1;
    r->cpu.idle = (crt_i64){true, x};
    return 0;
  case O_RTPERIOD:
    if (num(cmd, "cpu-rt-period", v, false, &x) < 0) return -1;
    r->cpu.realtime_period = (crt_u64){true, (uint64_t)x};
    return 0;
  case O_RTRUNTIME:
    if (num(cmd, "cpu-rt-runtime", v, true, &x) < 0) return -1;
    r->cpu.realtime_runtime = (crt_i64){true, x};
    return 0;
  case O_SHARES:
    if (num(cmd, "cpu-share", v, false, &x) < 0) return -1;
    r->cpu.shares = (crt_u64){true, (uint64_t)x};
    return 0;
  case O_CPUS: free(r->cpu.cpus); r->cpu.cpus = strdup(v); return 0;
  case O_MEMS: free(r->cpu.mems); r->cpu.mems = strdup(v); return 0;
  case O_KMEM:
    if (size(cmd, "kernel-memory", v, &x) < 0) return -1;
    r->memory.kernel = (crt_i64){true, x};
    return 0;
  case O_KTCP:
    if (size(cmd, "kernel-memory-tcp", v, &x) < 0) return -1;
    r->memory.kernel_tcp = (crt_i64){true, x};
    return 0;
  case O_MEM:
    if (size(cmd, "memory", v, &x) < 0) return -1;
    r->memory.limit = (crt_i64){true, x};
    return 0;
  case O_RES:
    if (size(cmd, "memory-reservation", v, &x) < 0) return -1;
    r->memory.reservation = (crt_i64){true, x};
    return 0;
  case O_SWAP:
    if (size(cmd, "memory-swap", v, &x) < 0) return -1;
    r->memory.swap = (crt_i64){true, x};
    return 0;
  case O_PIDS:
    if (num(cmd, "pids-limit", v, true, &x) < 0) return -1;
    r->pids.limit = (crt_i64){true, x};
    return 0;
  }
  return -1;
}

static int read_resources(const char *file, crt_resources *r, crt_err **err) {
  cleanup_free char *buf = NULL;
  if (strcmp(file, "-") == 0) {
    if (crt_read_fd(0, 16 << 20, &buf, NULL, err) < 0) return crt_error_wrap(err, "read resources from stdin");
  } else if (crt_read_file(file, 16 << 20, &buf, NULL, err) < 0) {
    return -1;
  }
  return crt_cgroup_parse_resources_json(buf, strcmp(file, "-") ? file : "stdin", r, err);
}

int crt_cmd_update(int argc, char **argv) {
  static const struct option opts[] = {
      {"resources", required_argument, NULL, 'r'}, {"blkio-weight", required_argument, NULL, O_BLKIO},
      {"cpu-period", required_argument, NULL, O_PERIOD}, {"cpu-quota", required_argument, NULL, O_QUOTA},
      {"cpu-burst", required_argument, NULL, O_BURST}, {"cpu-idle", required_argument, NULL, O_IDLE},
      {"cpu-rt-period", required_argument, NULL, O_RTPERIOD}, {"cpu-rt-runtime", required_argument, NULL, O_RTRUNTIME},
      {"cpu-share", required_argument, NULL, O_SHARES}, {"cpu-shares", required_argument, NULL, O_SHARES},
      {"cpuset-cpus", required_argument, NULL, O_CPUS}, {"cpuset-mems", required_argument, NULL, O_MEMS},
      {"kernel-memory", required_argument, NULL, O_KMEM}, {"kernel-memory-tcp", required_argument, NULL, O_KTCP},
      {"memory", required_argument, NULL, O_MEM}, {"memory-reservation", required_argument, NULL, O_RES},
      {"memory-swap", required_argument, NULL, O_SWAP}, {"pids-limit", required_argument, NULL, O_PIDS},
      {"l3-cache-schema", required_argument, NULL, O_L3}, {"mem-bw-schema", required_argument, NULL, O_MBW},
      {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  crt_resources r = {0};
  const char *file = NULL;
  bool rdt = false;
  int c, rc = 0;
  crt_operands ops = {0}; /* flags may follow the id */
  while (rc == 0 && (c = crt_getopt(argc, argv, "-r:h", opts, argv[0])) != -1) {
    if (c == 1) {
      crt_operand_add(&ops, optarg);
    } else if (c == 'h') {
      crt_help_command(stdout, argv[0]);
      crt_cgroup_resources_clear(&r);
      return 0;
    } else if (c == '?') rc = -1;
    else if (c == 'r') file = optarg;
    else if (c == O_L3 || c == O_MBW) rdt = true;
    else if (flag(argv[0], c, optarg, &r) < 0) rc = -1;
  }
  if (rc == 0 && crt_operands_end(&ops, argc, argv, 1, 1, "1 argument") < 0) rc = -1;
  const char *id = ops.arg[0];
  if (rc < 0) {
    crt_cgroup_resources_clear(&r);
    return 1;
  }
  cleanup_err crt_err *err = NULL;
  if (rdt) {
    crt_cgroup_resources_clear(&r);
    crt_error(&err, ENOTSUP, "Intel RDT is not supported by crt: --l3-cache-schema/--mem-bw-schema");
    return crt_fail(err);
  }
  if (file) { /* runc: the file replaces every other flag */
    crt_cgroup_resources_clear(&r);
    if (read_resources(file, &r, &err) < 0) return crt_fail(err);
  }
  rc = crt_container_update(crt_g.root, id, &r, &err);
  crt_cgroup_resources_clear(&r);
  return rc < 0 ? crt_fail(err) : 0;
}
