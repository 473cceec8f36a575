#define _GNU_SOURCE
/* linux.seccomp -> libseccomp filter, and the SCMP_ACT_NOTIFY listener
 * hand-off (runtime-spec config-linux.md "seccomp", runtime.md
 * "ContainerProcessState"). */

#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "crt/fs.h"
#include "crt/log.h"
#include "crt/seccomp.h"

#define SECCOMP_PATH ".linux.seccomp"
/* Cartesian products of same-index args beyond this are refused: a config
 * that large is a mistake, not a profile. */
#define MAX_RULES_PER_ENTRY 4096
#define MAX_ARGS 6

/* The BPF is generated once, at compile time (7 ms for Docker's profile on
 * three arches), so that loading after the exec FIFO is one syscall. */
struct crt_seccomp_filter {
  scmp_filter_ctx ctx;
  bool has_notify;
  unsigned int flags; /* SECCOMP_FILTER_FLAG_* for seccomp(2) */
  struct sock_filter *prog;
  size_t prog_len; /* instructions */
  int max_nr;      /* the largest native syscall number the profile names, or -1 */
};

static const struct {
  const char *name;
  uint32_t act; /* ERRNO/TRACE get their return code later */
} actions[] = {
  {"SCMP_ACT_KILL", SCMP_ACT_KILL},
  {"SCMP_ACT_KILL_PROCESS", SCMP_ACT_KILL_PROCESS},
  {"SCMP_ACT_KILL_THREAD", SCMP_ACT_KILL_THREAD},
  {"SCMP_ACT_TRAP", SCMP_ACT_TRAP},
  {"SCMP_ACT_ERRNO", SCMP_ACT_ERRNO(0)},
  {"SCMP_ACT_TRACE", SCMP_ACT_TRACE(0)},
  {"SCMP_ACT_ALLOW", SCMP_ACT_ALLOW},
  {"SCMP_ACT_LOG", SCMP_ACT_LOG},
  {"SCMP_ACT_NOTIFY", SCMP_ACT_NOTIFY},
};

static const struct {
  const char *name;
  enum scmp_compare op;
} operators[] = {
  {"SCMP_CMP_NE", SCMP_CMP_NE}, {"SCMP_CMP_LT", SCMP_CMP_LT}, {"SCMP_CMP_LE", SCMP_CMP_LE},
  {"SCMP_CMP_EQ", SCMP_CMP_EQ}, {"SCMP_CMP_GE", SCMP_CMP_GE}, {"SCMP_CMP_GT", SCMP_CMP_GT},
  {"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ},
};

static enum scmp_compare op_from_enum(enum crt_seccomp_op op) {
  switch (op) {
  case CRT_OP_NE: return SCMP_CMP_NE;
  case CRT_OP_LT: return SCMP_CMP_LT;
  case CRT_OP_LE: return SCMP_CMP_LE;
  case CRT_OP_EQ: return SCMP_CMP_EQ;
  case CRT_OP_GE: return SCMP_CMP_GE;
  case CRT_OP_GT: return SCMP_CMP_GT;
  case CRT_OP_MASKED_EQ: return SCMP_CMP_MASKED_EQ;
  }
  return _SCMP_CMP_MIN;
}

/* The return code of ERRNO and TRACE defaults to EPERM, as in runc. */
static int resolve_action(const char *name, const crt_u64 *ret, const char *where, uint32_t *out, crt_err **err) {
  if (name == NULL) return crt_error(err, 0, "%s: missing action", where);
  for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
    if (strcmp(name, actions[i].name) != 0) continue;
    uint32_t act = actions[i].act;
    if (act == SCMP_ACT_ERRNO(0) || act == SCMP_ACT_TRACE(0)) {
      uint64_t code = ret->set ? ret->v : EPERM;
      if (code > 0xffff) return crt_error(err, 0, "%s: errnoRet %llu out of range", where, (unsigned long long)code);
      act = act == SCMP_ACT_ERRNO(0) ? SCMP_ACT_ERRNO((uint32_t)code) : SCMP_ACT_TRACE((uint32_t)code);
    }
    *out = act;
    return 0;
  }
  return crt_error(err, 0, "%s: unknown action \"%s\"", where, name);
}

static int resolve_op(const crt_seccomp_arg *a, const char *where, enum scmp_compare *out, crt_err **err) {
  if (a->op_name) {
    for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
      if (strcmp(a->op_name, operators[i].name) == 0) {
        *out = operators[i].op;
        return 0;
      }
    return crt_error(err, 0, "%s: unknown operator \"%s\"", where, a->op_name);
  }
  enum scmp_compare op = op_from_enum(a->op);
  if (op == _SCMP_CMP_MIN) return crt_error(err, 0, "%s: unknown operator %d", where, (int)a->op);
  *out = op;
  return 0;
}

/* "SCMP_ARCH_X86_64" -> libseccomp's "x86_64". */
static int resolve_arch(const char *name, const char *where, uint32_t *out, crt_err **err) {
  const char *prefix = "SCMP_ARCH_";
  if (name == NULL || strncmp(name, prefix, strlen(prefix)) != 0 || name[strlen(prefix)] == 0)
    return crt_error(err, 0, "%s: unknown architecture \"%s\"", where, name ? name : "");
  char lower[32];
  const char *s = name + strlen(prefix);
  size_t n = strlen(s);
  if (n >= sizeof lower) return crt_error(err, 0, "%s: unknown architecture \"%s\"", where, name);
  for (size_t i = 0; i <= n; i++) lower[i] = (char)tolower((unsigned char)s[i]);
  uint32_t arch = seccomp_arch_resolve_name(lower);
  if (arch == 0) return crt_error(err, 0, "%s: unknown architecture \"%s\"", where, name);
  *out = arch;
  return 0;
}

static int add_arches(scmp_filter_ctx ctx, const crt_strv *archs, crt_err **err) {
  for (size_t i = 0; i < archs->len; i++) {
    char where[64];
    snprintf(where, sizeof where, SECCOMP_PATH ".architectures[%zu]", i);
    uint32_t arch = 0;
    if (resolve_arch(archs->v[i], where, &arch, err) < 0) return -1;
    int r = seccomp_arch_add(ctx, arch);
    if (r < 0 && r != -EEXIST) return crt_error(err, -r, "%s: adding architecture %s", where, archs->v[i]);
  }
  return 0;
}

#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (Linux 5.19) only changes how
 * the kernel waits, not the program, and crt loads the program itself
 * (crt_seccomp_load): libseccomp's attribute for it (CTL_WAITKILL, 2.6) is
 * not needed.  The kernel is asked whether it knows the flag the way
 * libseccomp asks: with NEW_LISTENER (without it the flag is EINVAL) and
 * no program, EFAULT means the flags passed. */
static int set_wait_killable(crt_seccomp_filter *f, const char *flag, const char *where, crt_err **err) {
  long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                   SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV | SECCOMP_FILTER_FLAG_NEW_LISTENER, NULL);
  if (r == 0 || errno != EFAULT)
    return crt_error(err, r == 0 ? 0 : errno, "%s: flag %s is not supported by the kernel (needs Linux 5.19)", where,
                     flag);
  f->flags |= SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
  return 0;
}

/* The libseccomp attribute is set too: it checks that the library and the
 * kernel know the flag, and keeps the ctx equivalent to the program. */
static int set_flag(crt_seccomp_filter *f, const char *flag, const char *where, crt_err **err) {
  enum scmp_filter_attr attr;
  unsigned int kflag;
  if (strcmp(flag, "SECCOMP_FILTER_FLAG_TSYNC") == 0) {
    attr = SCMP_FLTATR_CTL_TSYNC;
    kflag = SECCOMP_FILTER_FLAG_TSYNC;
  } else if (strcmp(flag, "SECCOMP_FILTER_FLAG_LOG") == 0) {
    attr = SCMP_FLTATR_CTL_LOG;
    kflag = SECCOMP_FILTER_FLAG_LOG;
  } else if (strcmp(flag, "SECCOMP_FILTER_FLAG_SPEC_ALLOW") == 0) {
    attr = SCMP_FLTATR_CTL_SSB;
    kflag = SECCOMP_FILTER_FLAG_SPEC_ALLOW;
  } else if (strcmp(flag, "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV") == 0) {
    return set_wait_killable(f, flag, where, err);
  } else
    return crt_error(err, 0, "%s: unknown flag \"%s\"", where, flag);
  int r = seccomp_attr_set(f->ctx, attr, 1);
  if (r < 0) return crt_error(err, -r, "%s: flag %s is not supported by libseccomp or the kernel", where, flag);
  f->flags |= kflag;
  return 0;
}

/* Args on the same index are alternatives (a rule each), different indexes
 * must all hold: one rule per combination of one arg from every index. */
static int add_conditional(scmp_filter_ctx ctx, uint32_t act, int nr, const struct scmp_arg_cmp *cmps, size_t n,
                           const char *where, const char *name, crt_err **err) {
  size_t count[MAX_ARGS] = {0};
  const struct scmp_arg_cmp *byidx[MAX_ARGS][MAX_ARGS * 16];
  size_t total = 1;
  for (size_t i = 0; i < n; i++) {
    unsigned idx = cmps[i].arg;
    if (count[idx] >= sizeof byidx[idx] / sizeof byidx[idx][0])
      return crt_error(err, 0, "%s.args: too many conditions on index %u", where, idx);
    byidx[idx][count[idx]++] = &cmps[i];
  }
  for (unsigned idx = 0; idx < MAX_ARGS; idx++) {
    if (count[idx] == 0) continue;
    total *= count[idx];
    if (total > MAX_RULES_PER_ENTRY) return crt_error(err, 0, "%s.args: too many combinations", where);
  }
  for (size_t k = 0; k < total; k++) {
    struct scmp_arg_cmp rule[MAX_ARGS];
    unsigned nrule = 0;
    size_t rest = k;
    for (unsigned idx = 0; idx < MAX_ARGS; idx++) {
      if (count[idx] == 0) continue;
      rule[nrule++] = *byidx[idx][rest % count[idx]];
      rest /= count[idx];
    }
    int r = seccomp_rule_add_array(ctx, act, nr, nrule, rule);
    if (r < 0) return crt_error(err, -r, "%s: adding rule for syscall %s", where, name);
  }
  return 0;
}

static int build_args(const crt_seccomp_syscall *sc, const char *where, struct scmp_arg_cmp *out, crt_err **err) {
  for (size_t j = 0; j < sc->n_args; j++) {
    const crt_seccomp_arg *a = &sc->args[j];
    char awhere[96];
    snprintf(awhere, sizeof awhere, "%s.args[%zu]", where, j);
    if (a->index >= MAX_ARGS) return crt_error(err, 0, "%s.index: %u is out of range (0-5)", awhere, a->index);
    enum scmp_compare op = SCMP_CMP_EQ;
    if (resolve_op(a, awhere, &op, err) < 0) return -1;
    /* MASKED_EQ: value is the mask, valueTwo the expected result (runc). */
    out[j] = (struct scmp_arg_cmp){.arg = a->index, .op = op, .datum_a = a->value, .datum_b = a->value_two};
  }
  return 0;
}

static int add_syscall(crt_seccomp_filter *f, const crt_seccomp *s, uint32_t def, size_t i, crt_err **err) {
  const crt_seccomp_syscall *sc = &s->syscalls[i];
  char where[64];
  snprintf(where, sizeof where, SECCOMP_PATH ".syscalls[%zu]", i);
  char awhere[80];
  snprintf(awhere, sizeof awhere, "%s.action", where);
  uint32_t act = 0;
  if (resolve_action(sc->action, &sc->errno_ret, awhere, &act, err) < 0) return -1;
  if (sc->names.len == 0) return crt_error(err, 0, "%s.names: must contain at least one syscall", where);
  if (sc->n_args > MAX_ARGS * 16) return crt_error(err, 0, "%s.args: too many conditions", where);
  struct scmp_arg_cmp cmps[MAX_ARGS * 16];
  if (build_args(sc, where, cmps, err) < 0) return -1;
  if (act == SCMP_ACT_NOTIFY) {
    if (s->listener_path == NULL || *s->listener_path == 0)
      return crt_error(err, 0, "%s.action: SCMP_ACT_NOTIFY needs " SECCOMP_PATH ".listenerPath", where);
    f->has_notify = true;
  }
  /* Every name counts for the ENOSYS stub, whatever its action (runc). */
  for (size_t k = 0; k < sc->names.len; k++) {
    int nr = seccomp_syscall_resolve_name(sc->names.v[k]);
    if (nr > f->max_nr) f->max_nr = nr;
  }
  /* libseccomp refuses rules that repeat the default action. */
  if (act == def) {
    crt_debug("seccomp: %s: action equals the default action, skipped", where);
    return 0;
  }
  for (size_t k = 0; k < sc->names.len; k++) {
    const char *name = sc->names.v[k];
    /* The runtime writes the notify fd back after loading: trapping write
     * would deadlock it (runc refuses this too). */
    if (act == SCMP_ACT_NOTIFY && strcmp(name, "write") == 0)
      return crt_error(err, 0, "%s: SCMP_ACT_NOTIFY cannot be used for the write syscall", where);
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) {
      crt_debug("seccomp: %s: unknown syscall \"%s\" on this architecture, skipped", where, name);
      continue;
    }
    int r;
    if (sc->n_args == 0) {
      r = seccomp_rule_add(f->ctx, act, nr, 0);
      if (r < 0) return crt_error(err, -r, "%s: adding rule for syscall %s", where, name);
    } else if (add_conditional(f->ctx, act, nr, cmps, sc->n_args, where, name, err) < 0)
      return -1;
  }
  return 0;
}

/* runc's patchbpf: a syscall newer than every syscall the profile names
 * gets ENOSYS, not the default errno, so that programs fall back (glibc's
 * clone3 -> clone).  A stub in front of libseccomp's program, for the
 * native x86-64 ABI only (other arches and x32 go straight to it):
 *   A = arch; if A != x86-64 goto prog
 *   A = nr;   if A & X32 bit goto prog
 *   if A > max_nr return ERRNO(ENOSYS)
 *   prog: ...
 * Not added when the default action lets syscalls through, or already
 * returns ENOSYS (runc's conditions). */
#define ENOSYS_STUB_LEN 6
static bool wants_enosys_stub(uint32_t def, const crt_seccomp_filter *f) {
  /* TRACE counts as letting through: a tracer handles new syscalls (runc) */
  if (f->max_nr < 0 || def == SCMP_ACT_ALLOW || def == SCMP_ACT_LOG || (def & 0xffff0000U) == SCMP_ACT_TRACE(0))
    return false;
#if defined(__x86_64__)
  return def != SCMP_ACT_ERRNO(ENOSYS);
#else
  return false;
#endif
}

static int prepend_enosys_stub(crt_seccomp_filter *f, crt_err **err) {
#if defined(__x86_64__)
  struct sock_filter stub[ENOSYS_STUB_LEN] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 4),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, __X32_SYSCALL_BIT, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, (uint32_t)f->max_nr, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
  };
  if (f->prog_len + ENOSYS_STUB_LEN > BPF_MAXINSNS)
    return crt_error(err, E2BIG, SECCOMP_PATH ": BPF program of %zu instructions with the ENOSYS stub", f->prog_len);
  struct sock_filter *p = malloc((f->prog_len + ENOSYS_STUB_LEN) * sizeof *p);
  if (p == NULL) return crt_error(err, ENOMEM, SECCOMP_PATH);
  memcpy(p, stub, sizeof stub);
  memcpy(p + ENOSYS_STUB_LEN, f->prog, f->prog_len * sizeof *p);
  free(f->prog);
  f->prog = p;
  f->prog_len += ENOSYS_STUB_LEN;
  return 0;
#else
  (void)f;
  (void)err;
  return 0;
#endif
}

static int export_prog(crt_seccomp_filter *f, crt_err **err) {
  cleanup_close int fd = memfd_create("crt-seccomp", MFD_CLOEXEC);
  if (fd < 0) return crt_error(err, errno, SECCOMP_PATH ": memfd_create");
  int r = seccomp_export_bpf(f->ctx, fd);
  if (r < 0) return crt_error(err, -r, SECCOMP_PATH ": generating the BPF program");
  off_t size = lseek(fd, 0, SEEK_END);
  if (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 || size > (off_t)(BPF_MAXINSNS * sizeof(struct sock_filter)))
    return crt_error(err, E2BIG, SECCOMP_PATH ": BPF program of %lld bytes", (long long)size);
  f->prog = malloc((size_t)size);
  if (f->prog == NULL) return crt_error(err, ENOMEM, SECCOMP_PATH);
  if (pread(fd, f->prog, (size_t)size, 0) != size) return crt_error(err, errno, SECCOMP_PATH ": reading the BPF program");
  f->prog_len = (size_t)size / sizeof(struct sock_filter);
  return 0;
}

int crt_seccomp_compile(const crt_seccomp *s, crt_seccomp_filter **out, crt_err **err) {
  *out = NULL;
  if (s == NULL) return crt_error(err, EINVAL, "seccomp: no configuration");
  uint32_t def = 0;
  if (resolve_action(s->default_action, &s->default_errno_ret, SECCOMP_PATH ".defaultAction", &def, err) < 0)
    return -1;
  /* The listener must be installed before anyone can answer it. */
  if (def == SCMP_ACT_NOTIFY)
    return crt_error(err, 0, SECCOMP_PATH ".defaultAction: SCMP_ACT_NOTIFY cannot be the default action");
  crt_seccomp_filter *f = calloc(1, sizeof *f);
  if (f == NULL) return crt_error(err, ENOMEM, "seccomp");
  f->max_nr = -1;
  f->ctx = seccomp_init(def);
  if (f->ctx == NULL) {
    free(f);
    return crt_error(err, EINVAL, SECCOMP_PATH ": seccomp_init");
  }
  /* noNewPrivileges is the caller's business, not libseccomp's. */
  int r = seccomp_attr_set(f->ctx, SCMP_FLTATR_CTL_NNP, 0);
  if (r < 0) {
    crt_error(err, -r, SECCOMP_PATH ": clearing SCMP_FLTATR_CTL_NNP");
    goto fail;
  }
  if (add_arches(f->ctx, &s->architectures, err) < 0) goto fail;
  for (size_t i = 0; i < s->flags.len; i++) {
    char where[64];
    snprintf(where, sizeof where, SECCOMP_PATH ".flags[%zu]", i);
    if (set_flag(f, s->flags.v[i], where, err) < 0) goto fail;
  }
  for (size_t i = 0; i < s->n_syscalls; i++)
    if (add_syscall(f, s, def, i, err) < 0) goto fail;
  if (export_prog(f, err) < 0) goto fail;
  if (wants_enosys_stub(def, f) && prepend_enosys_stub(f, err) < 0) goto fail;
  if ((f->flags & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) && !f->has_notify) {
    /* the kernel's EINVAL at load, said where it comes from */
    crt_error(err, 0, SECCOMP_PATH ".flags: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs a listener: no syscall has the "
                      "action SCMP_ACT_NOTIFY");
    goto fail;
  }
  if (f->has_notify) {
    f->flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
    /* With TSYNC, a sync failure would otherwise be reported as a thread id
     * in place of the listener fd. */
    if (f->flags & SECCOMP_FILTER_FLAG_TSYNC) f->flags |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
  }
  *out = f;
  return 0;
fail:
  crt_seccomp_filter_free(f);
  return -1;
}

/* Same as seccomp_load() without regenerating the program; no_new_privs is
 * left alone (needs CAP_SYS_ADMIN when it is not set, as with runc). */
int crt_seccomp_load(crt_seccomp_filter *f, int *notify_fd, crt_err **err) {
  if (notify_fd) *notify_fd = -1;
  struct sock_fprog prog = {.len = (unsigned short)f->prog_len, .filter = f->prog};
  long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, f->flags, &prog);
  if (r < 0 && errno == ENOSYS && f->flags == 0) r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
  if (r < 0 && errno == EACCES)
    return crt_error(err, errno, "loading the seccomp filter (without noNewPrivileges this needs CAP_SYS_ADMIN)");
  if (r < 0) return crt_error(err, errno, "loading the seccomp filter");
  if ((f->flags & SECCOMP_FILTER_FLAG_TSYNC) && !f->has_notify && r > 0)
    return crt_error(err, 0, "loading the seccomp filter: thread %ld could not be synchronized", r);
  if (!f->has_notify) return 0;
  if (notify_fd) *notify_fd = (int)r;
  else close((int)r);
  return 0;
}

bool crt_seccomp_late(const crt_seccomp *s, const crt_process *p) {
  return s && p && p->no_new_privileges && !s->listener_path;
}

/* A parked init must carry its filter (issue 30: a process with
 * CAP_SYS_PTRACE could otherwise inject any system call into it while the
 * container is created), as runc loads it before the FIFO.  A profile that
 * forbids what the init still does after loading it would leave a dead
 * container: refused at create instead, with the call named. */
static enum crt_seccomp_point parked_point(const crt_seccomp *s, bool use_stub, const char **forbidden) {
  static const char *const need[] = CRT_SECCOMP_PARK_CALLS;
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
    if (crt_seccomp_allows(s, need[i])) continue;
    if (forbidden) *forbidden = need[i];
    return CRT_SECCOMP_REFUSED;
  }
  return use_stub ? CRT_SECCOMP_STUB : CRT_SECCOMP_BEFORE_PARK;
}

enum crt_seccomp_point crt_seccomp_load_point(const crt_seccomp *s, const crt_process *p, bool parks, bool use_stub,
                                              const char **forbidden) {
  if (!s || !p) return CRT_SECCOMP_NONE;
  /* loading without no_new_privs needs CAP_SYS_ADMIN: before setuid drops
   * the effective set (as runc) */
  if (!p->no_new_privileges) return CRT_SECCOMP_BEFORE_USER;
  if (s->listener_path) return parks ? CRT_SECCOMP_BEFORE_USER : CRT_SECCOMP_AFTER_USER;
  if (parks) return parked_point(s, use_stub, forbidden);
  return use_stub ? CRT_SECCOMP_STUB : CRT_SECCOMP_AFTER_USER;
}

static bool allowing(const char *action) {
  return action && (!strcmp(action, "SCMP_ACT_ALLOW") || !strcmp(action, "SCMP_ACT_LOG"));
}

bool crt_seccomp_allows(const crt_seccomp *s, const char *name) {
  bool named = false;
  for (size_t i = 0; i < s->n_syscalls; i++) {
    const crt_seccomp_syscall *sc = &s->syscalls[i];
    for (size_t j = 0; j < sc->names.len; j++) {
      if (strcmp(sc->names.v[j], name) != 0) continue;
      if (!allowing(sc->action) || sc->n_args) return false;
      named = true;
    }
  }
  return named || allowing(s->default_action);
}

int crt_seccomp_prog_fd(const crt_seccomp_filter *f, int *fd, unsigned *len, unsigned *flags, crt_err **err) {
  cleanup_close int m = memfd_create("crt-seccomp-bpf", MFD_CLOEXEC);
  if (m < 0) return crt_error(err, errno, SECCOMP_PATH ": memfd_create");
  if (crt_write_all(m, f->prog, f->prog_len * sizeof *f->prog) < 0 || lseek(m, 0, SEEK_SET) < 0)
    return crt_error(err, errno, SECCOMP_PATH ": writing the BPF program for crt-stub");
  *len = (unsigned)f->prog_len;
  *flags = f->flags;
  *fd = crt_steal_fd(m);
  return 0;
}

void crt_seccomp_filter_free(crt_seccomp_filter *f) {
  if (f == NULL) return;
  seccomp_release(f->ctx);
  free(f->prog);
  free(f);
}

static char *listener_json(const crt_seccomp *s, pid_t pid, const char *state_json) {
  cleanup_free char *meta = NULL;
  if (s->listener_metadata && *s->listener_metadata) {
    meta = crt_json_escape(s->listener_metadata);
    if (meta == NULL) return NULL;
  }
  char *out = NULL;
  int n = asprintf(&out, "{\"ociVersion\":\"1.3.0\",\"fds\":[\"seccompFd\"],\"pid\":%d%s%s%s,\"state\":%s}", (int)pid,
                   meta ? ",\"metadata\":\"" : "", meta ? meta : "", meta ? "\"" : "", state_json);
  return n < 0 ? NULL : out;
}

static int send_with_fd(int sock, const char *buf, size_t len, int fd) {
  struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
  ssize_t w = crt_send_with_fd(sock, &iov, 1, fd);
  if (w < 0) return -1;
  /* The fd went with the first byte; the rest is plain data. */
  if ((size_t)w < len && crt_write_all(sock, buf + w, len - (size_t)w) < 0) return -1;
  return 0;
}

int crt_seccomp_send_listener(const crt_seccomp *s, int notify_fd, pid_t pid, const char *state_json,
                              crt_err **err) {
  if (s == NULL || s->listener_path == NULL || *s->listener_path == 0)
    return crt_error(err, EINVAL, SECCOMP_PATH ".listenerPath: not set");
  const char *path = s->listener_path;
  if (notify_fd < 0) return crt_error(err, EBADF, "seccomp listener %s: no notify fd", path);
  if (state_json == NULL) return crt_error(err, EINVAL, "seccomp listener %s: no container state", path);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof sa.sun_path) return crt_error(err, ENAMETOOLONG, "seccomp listener %s", path);
  strcpy(sa.sun_path, path);
  cleanup_free char *msg = listener_json(s, pid, state_json);
  if (msg == NULL) return crt_error(err, ENOMEM, "seccomp listener %s: building the message", path);
  cleanup_close int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0) return crt_error(err, errno, "seccomp listener %s: socket", path);
  if (connect(sock, (struct sockaddr *)&sa, sizeof sa) < 0)
    return crt_error(err, errno, "failed to connect with seccomp agent: seccomp listener %s: connect", path);
  if (send_with_fd(sock, msg, strlen(msg), notify_fd) < 0)
    return crt_error(err, errno, "seccomp listener %s: sending the notify fd", path);
  return 0;
}
