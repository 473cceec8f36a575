/* cgroup v2 device filter: a hand-assembled BPF_PROG_TYPE_CGROUP_DEVICE
 * program (no libbpf).  Rules are tested from last to first, so the last
 * matching rule decides; when none matches, access is denied. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup_internal.h"
#include "crt/log.h"

static struct bpf_insn ins(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  struct bpf_insn i;
  memset(&i, 0, sizeof i);
  i.code = code;
  i.dst_reg = dst & 0xf;
  i.src_reg = src & 0xf;
  i.off = off;
  i.imm = imm;
  return i;
}

#define LDX_W(dst, src, off) ins(BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0)
#define ALU32_IMM(op, dst, imm) ins(BPF_ALU | (op) | BPF_K, dst, 0, 0, imm)
#define MOV32_REG(dst, src) ins(BPF_ALU | BPF_MOV | BPF_X, dst, src, 0, 0)
#define MOV64_IMM(dst, imm) ins(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
#define JNE_IMM(dst, imm, off) ins(BPF_JMP | BPF_JNE | BPF_K, dst, 0, off, imm)
#define JNE_REG(dst, src, off) ins(BPF_JMP | BPF_JNE | BPF_X, dst, src, off, 0)
#define EXIT() ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

typedef struct {
  struct bpf_insn *v;
  size_t n, cap;
} prog;

static int emit(prog *p, struct bpf_insn i) {
  if (p->n == p->cap) {
    size_t nc = p->cap ? p->cap * 2 : 64;
    struct bpf_insn *nv = realloc(p->v, nc * sizeof *nv);
    if (!nv) return -1;
    p->v = nv;
    p->cap = nc;
  }
  p->v[p->n++] = i;
  return 0;
}

static int access_mask(const char *a) {
  int m = 0;
  for (const char *c = a && *a ? a : "rwm"; *c; c++) {
    if (*c == 'r') m |= BPF_DEVCG_ACC_READ;
    else if (*c == 'w') m |= BPF_DEVCG_ACC_WRITE;
    else if (*c == 'm') m |= BPF_DEVCG_ACC_MKNOD;
    else return -1;
  }
  return m;
}

/* One rule: its conditions jump to the next block when they fail.
 * Returns 1 when the rule matches everything (earlier rules are dead code,
 * which the verifier rejects), 0 otherwise. */
static int emit_rule(prog *p, const crt_device_rule *r, crt_err **err) {
  const char *t = r->type && *r->type ? r->type : "a";
  int type = 0;
  if (strcmp(t, "c") == 0) type = BPF_DEVCG_DEV_CHAR;
  else if (strcmp(t, "b") == 0) type = BPF_DEVCG_DEV_BLOCK;
  else if (strcmp(t, "a") != 0)
    return crt_error(err, EINVAL, "cgroup: device rule: invalid type \"%s\"", t);
  int mask = access_mask(r->access);
  if (mask < 0) return crt_error(err, EINVAL, "cgroup: device rule: invalid access \"%s\"", r->access);
  bool all_access = mask == (BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD);
  bool maj = r->major.set && r->major.v >= 0, min = r->minor.set && r->minor.v >= 0;
  size_t nconds = (type ? 1 : 0) + (all_access ? 0 : 3) + (maj ? 1 : 0) + (min ? 1 : 0);
  size_t end = p->n + nconds + 2; /* index of the next block */
  int rc = 0;
#define JUMP_OFF ((int16_t)(end - p->n - 1))
  if (type) rc |= emit(p, JNE_IMM(BPF_REG_2, type, JUMP_OFF));
  if (!all_access) {
    /* the requested access (r3) must be a subset of the rule's */
    rc |= emit(p, MOV32_REG(BPF_REG_1, BPF_REG_3));
    rc |= emit(p, ALU32_IMM(BPF_AND, BPF_REG_1, mask));
    rc |= emit(p, JNE_REG(BPF_REG_1, BPF_REG_3, JUMP_OFF));
  }
  if (maj) rc |= emit(p, JNE_IMM(BPF_REG_4, (int32_t)r->major.v, JUMP_OFF));
  if (min) rc |= emit(p, JNE_IMM(BPF_REG_5, (int32_t)r->minor.v, JUMP_OFF));
#undef JUMP_OFF
  rc |= emit(p, MOV64_IMM(BPF_REG_0, r->allow ? 1 : 0));
  rc |= emit(p, EXIT());
  if (rc) return crt_error(err, ENOMEM, "cgroup: device filter");
  return nconds == 0 ? 1 : 0;
}

int cg_ebpf_build(const crt_device_rule *rules, size_t n, void **insns, size_t *ninsns, crt_err **err) {
  prog p = {0};
  int rc = 0;
  /* r2 = device type, r3 = requested access, r4 = major, r5 = minor */
  rc |= emit(&p, LDX_W(BPF_REG_2, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, access_type)));
  rc |= emit(&p, ALU32_IMM(BPF_AND, BPF_REG_2, 0xffff));
  rc |= emit(&p, LDX_W(BPF_REG_3, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, access_type)));
  rc |= emit(&p, ALU32_IMM(BPF_RSH, BPF_REG_3, 16));
  rc |= emit(&p, LDX_W(BPF_REG_4, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, major)));
  rc |= emit(&p, LDX_W(BPF_REG_5, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, minor)));
  if (rc) {
    free(p.v);
    return crt_error(err, ENOMEM, "cgroup: device filter");
  }
  bool terminal = false;
  for (size_t i = n; i-- > 0 && !terminal;) {
    int r = emit_rule(&p, &rules[i], err);
    if (r < 0) {
      free(p.v);
      return -1;
    }
    terminal = r == 1;
  }
  if (!terminal && (emit(&p, MOV64_IMM(BPF_REG_0, 0)) || emit(&p, EXIT()))) {
    free(p.v);
    return crt_error(err, ENOMEM, "cgroup: device filter");
  }
  *insns = p.v;
  *ninsns = p.n;
  return 0;
}

static int sys_bpf(int cmd, union bpf_attr *a) { return (int)syscall(SYS_bpf, cmd, a, sizeof *a); }

int cg_ebpf_load(const void *insns, size_t ninsns, crt_err **err) {
  union bpf_attr a;
  memset(&a, 0, sizeof a);
  a.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  a.insns = (uint64_t)(uintptr_t)insns;
  a.insn_cnt = (uint32_t)ninsns;
  a.license = (uint64_t)(uintptr_t) "GPL";
  int fd = sys_bpf(BPF_PROG_LOAD, &a);
  if (fd >= 0) return fd;
  int e = errno;
  /* Load again with a log so the error says why the verifier refused. */
  size_t sz = 1 << 16;
  cleanup_free char *log = calloc(1, sz);
  if (log) {
    a.log_level = 1;
    a.log_size = (uint32_t)sz;
    a.log_buf = (uint64_t)(uintptr_t)log;
    fd = sys_bpf(BPF_PROG_LOAD, &a);
    if (fd >= 0) return fd; /* cannot happen twice differently, but harmless */
    size_t l = strlen(log);
    while (l && log[l - 1] == '\n') log[--l] = 0;
  }
  if (log && *log) return crt_error(err, e, "cgroup: load eBPF device filter (verifier log: %s)", log);
  return crt_error(err, e, "cgroup: load eBPF device filter");
}

/* Ids of the device programs attached to the cgroup now. */
static int query(int dirfd, uint32_t *ids, uint32_t *n) {
  union bpf_attr a;
  memset(&a, 0, sizeof a);
  a.query.target_fd = (uint32_t)dirfd;
  a.query.attach_type = BPF_CGROUP_DEVICE;
  a.query.prog_ids = (uint64_t)(uintptr_t)ids;
  a.query.prog_cnt = *n;
  if (sys_bpf(BPF_PROG_QUERY, &a) < 0) return -1;
  *n = a.query.prog_cnt;
  return 0;
}

int cg_ebpf_devices(int dirfd, const crt_device_rule *rules, size_t n, crt_err **err) {
  void *insns = NULL;
  size_t ni = 0;
  if (cg_ebpf_build(rules, n, &insns, &ni, err) < 0) return -1;
  cleanup_close int pfd = cg_ebpf_load(insns, ni, err);
  free(insns);
  if (pfd < 0) return -1;
  uint32_t old[64], nold = 64;
  if (query(dirfd, old, &nold) < 0) nold = 0;
  union bpf_attr a;
  memset(&a, 0, sizeof a);
  a.target_fd = (uint32_t)dirfd;
  a.attach_bpf_fd = (uint32_t)pfd;
  a.attach_type = BPF_CGROUP_DEVICE;
  a.attach_flags = BPF_F_ALLOW_MULTI;
  if (sys_bpf(BPF_PROG_ATTACH, &a) < 0) return crt_error(err, errno, "cgroup: attach eBPF device filter");
  /* The new filter is in place; drop the ones it replaces. */
  for (uint32_t i = 0; i < nold && i < 64; i++) {
    union bpf_attr g;
    memset(&g, 0, sizeof g);
    g.prog_id = old[i];
    cleanup_close int ofd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &g);
    if (ofd < 0) continue;
    union bpf_attr d;
    memset(&d, 0, sizeof d);
    d.target_fd = (uint32_t)dirfd;
    d.attach_bpf_fd = (uint32_t)ofd;
    d.attach_type = BPF_CGROUP_DEVICE;
    if (sys_bpf(BPF_PROG_DETACH, &d) < 0) crt_warn("cgroup: detach old device filter %u: %s", old[i], crt_strerror(errno));
  }
  return 0;
}
