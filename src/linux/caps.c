#define _GNU_SOURCE
/* process.capabilities, applied in two steps around setgid/setuid. */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "crt/caps.h"
#include "crt/log.h"

static const char *const cap_names[] = {
  "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
  "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
  "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK",
  "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
  "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE",
  "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE",
  "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG",
  "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
  "CAP_CHECKPOINT_RESTORE",
};
#define N_CAP_NAMES ((int)(sizeof cap_names / sizeof cap_names[0]))

int crt_cap_from_name(const char *name) {
  if (name == NULL) return -1;
  for (int i = 0; i < N_CAP_NAMES; i++)
    if (strcmp(name, cap_names[i]) == 0) return i;
  return -1;
}

/* cap_max_bits() reads /proc/sys/kernel/cap_last_cap (or probes). */
bool crt_cap_supported(int cap) { return cap >= 0 && cap < N_CAP_NAMES && cap < (int)cap_max_bits(); }

/* Unknown names and caps this kernel lacks are skipped (warn_skipped says
 * which), as runc does: one config must work on older and newer kernels. */
static uint64_t cap_mask(const crt_strv *list) {
  uint64_t m = 0;
  for (size_t i = 0; i < list->len; i++) {
    int c = crt_cap_from_name(list->v[i]);
    if (c >= 0 && crt_cap_supported(c)) m |= UINT64_C(1) << c;
  }
  return m;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* runc's one warning for every set: the skipped names, sorted, each once
 * ("ignoring unknown or unavailable capabilities: [CAP_BAR CAP_FOO]"). */
static void warn_skipped(const crt_capabilities *c) {
  const crt_strv *sets[] = {&c->bounding, &c->effective, &c->inheritable, &c->permitted, &c->ambient};
  const char *names[256];
  size_t n = 0;
  for (size_t s = 0; s < 5; s++)
    for (size_t i = 0; i < sets[s]->len && n < 256; i++) {
      int cap = crt_cap_from_name(sets[s]->v[i]);
      if (cap >= 0 && crt_cap_supported(cap)) continue;
      bool seen = false;
      for (size_t j = 0; j < n && !seen; j++) seen = !strcmp(names[j], sets[s]->v[i]);
      if (!seen) names[n++] = sets[s]->v[i];
    }
  if (!n) return;
  qsort(names, n, sizeof *names, cmp_str);
  char list[2048];
  size_t len = 0;
  for (size_t i = 0; i < n && len < sizeof list; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? " " : "", names[i]);
  crt_warn("ignoring unknown or unavailable capabilities: [%s]", list);
}

int crt_caps_prepare(const crt_capabilities *c, crt_err **err) {
  if (c) warn_skipped(c);
  uint64_t keep = c ? cap_mask(&c->bounding) : 0;
  for (int cap = 0; crt_cap_supported(cap); cap++) {
    if (keep & (UINT64_C(1) << cap)) continue;
    /* Already gone (e.g. CAP_SYS_RESOURCE on some hosts): nothing to drop,
     * and dropping would need CAP_SETPCAP for nothing. */
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 0) continue;
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
      return crt_error(err, errno, "dropping %s from the bounding set", cap_names[cap]);
  }
  if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0) return crt_error(err, errno, "prctl(PR_SET_KEEPCAPS, 1)");
  return 0;
}

static int set_flag_bits(cap_t caps, cap_flag_t flag, uint64_t mask) {
  for (int cap = 0; cap < 64; cap++) {
    if (!(mask & (UINT64_C(1) << cap))) continue;
    cap_value_t v = cap;
    if (cap_set_flag(caps, flag, 1, &v, CAP_SET) < 0) return -1;
  }
  return 0;
}

static int set_proc_caps(uint64_t eff, uint64_t prm, uint64_t inh, crt_err **err) {
  cap_t caps = cap_init();
  if (caps == NULL) return crt_error(err, errno, "cap_init");
  int r = 0;
  if (set_flag_bits(caps, CAP_EFFECTIVE, eff) < 0 || set_flag_bits(caps, CAP_PERMITTED, prm) < 0 ||
      set_flag_bits(caps, CAP_INHERITABLE, inh) < 0)
    r = crt_error(err, errno, "building the capability sets");
  else if (cap_set_proc(caps) < 0)
    r = crt_error(err, errno,
                  "setting capabilities (effective 0x%llx, permitted 0x%llx, inheritable 0x%llx)",
                  (unsigned long long)eff, (unsigned long long)prm, (unsigned long long)inh);
  cap_free(caps);
  return r;
}

/* One warning for all of them (runc says it once per capability): "can't
 * raise ambient capability CAP_X: operation not permitted", runc's words
 * for one, "capabilities CAP_X, CAP_Y" for more. */
static void warn_unraised(uint64_t unraised, int why) {
  char names[1024] = "";
  size_t len = 0;
  int n = 0;
  for (int cap = 0; cap < N_CAP_NAMES; cap++) {
    if (!(unraised & (UINT64_C(1) << cap))) continue;
    int w = snprintf(names + len, sizeof names - len, "%s%s", n++ ? ", " : "", cap_names[cap]);
    if (w > 0 && (size_t)w < sizeof names - len) len += (size_t)w;
  }
  crt_warn("can't raise ambient %s %s: %s", n > 1 ? "capabilities" : "capability", names, crt_strerror(why));
}

int crt_caps_apply(const crt_capabilities *c, crt_err **err) {
  uint64_t eff = 0, prm = 0, inh = 0, amb = 0;
  if (c) {
    eff = cap_mask(&c->effective);
    prm = cap_mask(&c->permitted);
    inh = cap_mask(&c->inheritable);
    amb = cap_mask(&c->ambient);
  }
  if (set_proc_caps(eff, prm, inh, err) < 0) return -1;
  if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0) return crt_error(err, errno, "prctl(PR_SET_KEEPCAPS, 0)");
  /* Kernels before 4.3 have no ambient set: fine as long as none is asked. */
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && (amb || errno != EINVAL))
    return crt_error(err, errno, "clearing the ambient capabilities");
  uint64_t unraised = 0;
  int why = 0;
  for (int cap = 0; cap < 64; cap++) {
    if (!(amb & (UINT64_C(1) << cap))) continue;
    /* runc >= 1.2: a cap the kernel will not raise (not permitted and
     * inheritable) is a warning, the container runs without it. */
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) == 0) continue;
    unraised |= UINT64_C(1) << cap;
    if (!why) why = errno; /* EPERM, for every one of them (cap_mask knows only caps of this kernel) */
  }
  if (unraised) warn_unraised(unraised, why);
  return 0;
}
