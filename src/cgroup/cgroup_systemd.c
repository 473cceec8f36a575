/* The systemd cgroup driver (--systemd-cgroup), as runc's: the container
 * gets a transient scope "<prefix>-<name>.scope" in the slice named by
 * cgroupsPath "slice:prefix:name", made over D-Bus with
 * StartTransientUnit (Delegate=yes, the init's pid in PIDs), and stopped
 * with StopUnit on delete.  The resources are then written through
 * cgroupfs like without systemd, so every field behaves the same; the
 * main ones are also unit properties, so that systemd does not reset
 * them on a daemon-reload.
 *
 * libsystemd is loaded with dlopen only when a command needs systemd:
 * other invocations (nearly all) do not pay for loading it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "cgroup_internal.h"
#include "crt/fs.h"
#include "crt/gvariant.h"
#include "crt/log.h"
#include "crt/idlist.h"
#include "crt/procinfo.h"
#include "crt/rootless.h"
#include "crt/str.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define JOB_TIMEOUT_USEC (30ULL * 1000 * 1000)

static struct {
  bool loaded;
  typeof(&sd_bus_open_system) open_system;
  typeof(&sd_bus_open_user) open_user;
  typeof(&sd_bus_flush_close_unref) close_unref;
  typeof(&sd_bus_call_method) call_method;
  typeof(&sd_bus_message_new_method_call) new_method_call;
  typeof(&sd_bus_message_append) append;
  typeof(&sd_bus_message_append_basic) append_basic;
  typeof(&sd_bus_message_open_container) open_container;
  typeof(&sd_bus_message_close_container) close_container;
  typeof(&sd_bus_call) call;
  typeof(&sd_bus_message_read) read;
  typeof(&sd_bus_message_unref) message_unref;
  typeof(&sd_bus_match_signal) match_signal;
  typeof(&sd_bus_slot_unref) slot_unref;
  typeof(&sd_bus_process) process;
  typeof(&sd_bus_wait) wait;
  typeof(&sd_bus_error_free) error_free;
  typeof(&sd_bus_error_has_name) error_has_name;
  typeof(&sd_bus_get_property_string) get_property_string;
} sd;

static int load_sd(crt_err **err) {
  if (sd.loaded) return 0;
  void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!h) return crt_error(err, ENOENT, "systemd cgroup manager: cannot load libsystemd.so.0: %s", dlerror());
  /* dlsym gives a void *; POSIX makes it convertible to the function
   * pointer, which memcpy does without the aliasing pun */
  void *f;
#define SYM(field, name)                                                                    \
  if (!(f = dlsym(h, name)))                                                                \
    return crt_error(err, ENOENT, "systemd cgroup manager: libsystemd.so.0 lacks %s", name); \
  memcpy(&sd.field, &f, sizeof sd.field);
  SYM(open_system, "sd_bus_open_system")
  SYM(open_user, "sd_bus_open_user")
  SYM(close_unref, "sd_bus_flush_close_unref")
  SYM(call_method, "sd_bus_call_method")
  SYM(new_method_call, "sd_bus_message_new_method_call")
  SYM(append, "sd_bus_message_append")
  SYM(append_basic, "sd_bus_message_append_basic")
  SYM(open_container, "sd_bus_message_open_container")
  SYM(close_container, "sd_bus_message_close_container")
  SYM(call, "sd_bus_call")
  SYM(read, "sd_bus_message_read")
  SYM(message_unref, "sd_bus_message_unref")
  SYM(match_signal, "sd_bus_match_signal")
  SYM(slot_unref, "sd_bus_slot_unref")
  SYM(process, "sd_bus_process")
  SYM(wait, "sd_bus_wait")
  SYM(error_free, "sd_bus_error_free")
  SYM(error_has_name, "sd_bus_error_has_name")
  SYM(get_property_string, "sd_bus_get_property_string")
#undef SYM
  sd.loaded = true;
  return 0;
}

/* ---- names ---- */

/* Appends to path[size] at *n; -1 once it does not fit ("a-b-c.slice"
 * nests a directory for each dash). */
static int path_add(char *path, size_t size, size_t *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int path_add(char *path, size_t size, size_t *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(path + *n, size - *n, fmt, ap);
  va_end(ap);
  if (w < 0 || (size_t)w >= size - *n) return -1;
  *n += (size_t)w;
  return 0;
}

static int too_long(crt_err **err) {
  return crt_error(err, ENAMETOOLONG, "systemd cgroup manager: cgroupsPath too long");
}

int cg_systemd_path(const char *cgroups_path, const char *id, bool rootless, char **out, crt_err **err) {
  char slice[256], prefix[256], name[256];
  const char *p = cgroups_path;
  if (!p || !*p) {
    snprintf(slice, sizeof slice, "%s", rootless ? "user.slice" : "system.slice");
    snprintf(prefix, sizeof prefix, "crt");
    if (crt_fmt(name, sizeof name, "%s", id) < 0)
      return crt_error(err, ENAMETOOLONG, "systemd cgroup manager: container id too long for a unit name");
  } else {
    const char *a = strchr(p, ':');
    const char *b = a ? strchr(a + 1, ':') : NULL;
    if (!b || strchr(b + 1, ':') || !b[1] || (size_t)(a - p) >= sizeof slice ||
        (size_t)(b - a - 1) >= sizeof prefix || strlen(b + 1) >= sizeof name)
      return crt_error(err, 0,
                       "systemd cgroup manager: expected cgroupsPath of the form \"slice:prefix:name\", got \"%s\"", p);
    /* the lengths are checked above: these fit */
    snprintf(slice, sizeof slice, "%.*s", (int)(a - p), p);
    snprintf(prefix, sizeof prefix, "%.*s", (int)(b - a - 1), a + 1);
    snprintf(name, sizeof name, "%s", b + 1);
    if (!*slice) snprintf(slice, sizeof slice, "%s", rootless ? "user.slice" : "system.slice");
  }
  size_t sl = strlen(slice);
  if (sl < 7 || strcmp(slice + sl - 6, ".slice") || strchr(slice, '/'))
    return crt_error(err, 0, "systemd cgroup manager: \"%s\" is not a slice name", slice);
  /* "a-b-c.slice" lives at /a.slice/a-b.slice/a-b-c.slice; "-.slice" is the root */
  char path[PATH_MAX] = "";
  size_t n = 0;
  if (strcmp(slice, "-.slice") != 0) {
    const char *stem_end = slice + sl - 6;
    for (const char *c = slice;; c++) {
      if (c == stem_end || *c == '-') {
        if (c == slice || c[-1] == '-' || (c != stem_end && c + 1 == stem_end))
          return crt_error(err, 0, "systemd cgroup manager: invalid slice name \"%s\"", slice);
        if (path_add(path, sizeof path, &n, "/%.*s.slice", (int)(c - slice), slice) < 0) return too_long(err);
        if (c == stem_end) break;
      }
    }
  }
  /* a name ending in .slice is a slice unit of its own (runc does the same) */
  size_t nl = strlen(name);
  int rc;
  if (nl > 6 && !strcmp(name + nl - 6, ".slice"))
    rc = path_add(path, sizeof path, &n, "/%s", name);
  else if (*prefix)
    rc = path_add(path, sizeof path, &n, "/%s-%s.scope", prefix, name);
  else
    rc = path_add(path, sizeof path, &n, "/%s.scope", name);
  if (rc < 0) return too_long(err);
  *out = strdup(path);
  return *out ? 0 : crt_error(err, ENOMEM, "cgroup");
}

bool cg_systemd_running(void) { return access("/run/systemd/system", F_OK) == 0; }

/* ---- D-Bus ---- */

typedef struct {
  const char *job; /* the job we wait for */
  char result[64];
  bool done;
} job_wait;

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret) {
  job_wait *w = userdata;
  uint32_t id;
  const char *path, *unit, *result;
  if (sd.read(m, "uoss", &id, &path, &unit, &result) < 0) return 0;
  if (w->job && !strcmp(path, w->job)) {
    snprintf(w->result, sizeof w->result, "%s", result);
    w->done = true;
  }
  return 0;
}

static void err_free(sd_bus_error *e) {
  if (sd.loaded) sd.error_free(e);
}

static int bus_error(crt_err **err, int rc, const sd_bus_error *e, const char *what, const char *unit) {
  return crt_error(err, -rc, "systemd cgroup manager: %s %s: %s", what, unit,
                   e && e->message ? e->message : crt_strerror(-rc));
}

/* Connects, subscribes and matches JobRemoved before any job can finish. */
static int bus_open(sd_bus **bus, sd_bus_slot **slot, job_wait *w, crt_err **err) {
  if (load_sd(err) < 0) return -1;
  /* rootless: the user's own systemd instance, as runc */
  bool user = crt_rootless();
  int rc = user ? sd.open_user(bus) : sd.open_system(bus);
  if (rc < 0) return crt_error(err, -rc, "systemd cgroup manager: connect to the %s bus", user ? "user" : "system");
  sd_bus_error e = SD_BUS_ERROR_NULL;
  sd_bus_message *reply = NULL;
  rc = sd.call_method(*bus, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", &e, &reply, "");
  sd.message_unref(reply);
  if (rc < 0) {
    bus_error(err, rc, &e, "Subscribe", "");
    err_free(&e);
    return -1;
  }
  rc = sd.match_signal(*bus, slot, SD_DEST, SD_PATH, SD_MANAGER, "JobRemoved", on_job_removed, w);
  if (rc < 0) return crt_error(err, -rc, "systemd cgroup manager: match JobRemoved");
  return 0;
}

static void bus_close(sd_bus *bus, sd_bus_slot *slot) {
  if (slot) sd.slot_unref(slot);
  if (bus) sd.close_unref(bus);
}

static int wait_job(sd_bus *bus, job_wait *w, const char *what, const char *unit, crt_err **err) {
  uint64_t waited = 0;
  while (!w->done) {
    int rc = sd.process(bus, NULL);
    if (rc < 0) return crt_error(err, -rc, "systemd cgroup manager: %s %s", what, unit);
    if (rc > 0) continue;
    if (waited >= JOB_TIMEOUT_USEC)
      return crt_error(err, ETIMEDOUT, "systemd cgroup manager: %s %s: no answer from systemd in 30 s", what, unit);
    rc = sd.wait(bus, 100000);
    if (rc < 0) return crt_error(err, -rc, "systemd cgroup manager: %s %s", what, unit);
    waited += 100000;
  }
  if (strcmp(w->result, "done") != 0)
    return crt_error(err, EIO, "systemd cgroup manager: %s %s: job %s", what, unit, w->result);
  return 0;
}

/* The job a method's reply names, waited for; the reply owns the path. */
static int await_reply_job(sd_bus *bus, job_wait *w, sd_bus_message *reply, const char *what, const char *unit,
                           crt_err **err) {
  const char *job = NULL;
  int r = sd.read(reply, "o", &job);
  if (r < 0) return crt_error(err, -r, "systemd cgroup manager: %s %s: bad reply", what, unit);
  w->job = job;
  return wait_job(bus, w, what, unit, err);
}

/* The limits that are also unit properties, as runc's
 * genV1/genV2ResourcesProperties: systemd writes a unit's properties
 * again at every daemon-reload, so a limit it does not know would be
 * reset to its default there. */
typedef struct {
  crt_u64 mem_max, mem_low, swap_max, mem_high, mem_min, tasks_max, weight, quota_per_sec, period;
  const char *cpus, *mems; /* cgroup v2: AllowedCPUs, AllowedMemoryNodes */
} sd_limits;

static void set_u64(crt_u64 *f, uint64_t v) {
  f->set = true;
  f->v = v;
}

/* quota < 0 is unlimited: "infinity" (UINT64_MAX) per second */
static void cpu_quota(sd_limits *l, int64_t quota, uint64_t period) {
  if (period) set_u64(&l->period, period);
  uint64_t per_sec = UINT64_MAX;
  if (quota > 0) {
    /* systemd takes whole percents: round up like runc */
    per_sec = (uint64_t)quota * 1000000 / (period ? period : 100000);
    if (per_sec % 10000) per_sec = (per_sec / 10000 + 1) * 10000;
  }
  set_u64(&l->quota_per_sec, per_sec);
}

/* The cgroup's own value of a file ("max" → UINT64_MAX, -1 too); false
 * when unreadable. */
static bool file_value(const cg_driver *d, const char *path, const char *ctrl, const char *file, int field,
                       int64_t *v) {
  char *dir = d->dir(d, path, ctrl);
  char *s = dir ? cg_read(dir, file) : NULL;
  free(dir);
  if (!s) return false;
  char *w = s, *save = NULL, *tok = NULL;
  for (int i = 0; i <= field; i++, w = NULL) tok = strtok_r(w, " \n", &save);
  bool ok = tok != NULL;
  if (ok && strcmp(tok, "max") == 0) *v = -1;
  else if (ok) {
    char *end;
    errno = 0;
    *v = strtoll(tok, &end, 10);
    ok = errno == 0 && *end == 0;
  }
  free(s);
  return ok;
}

/* A unified value: a number, or "max" (UINT64_MAX). */
static bool unified_u64(const char *v, uint64_t *out) {
  if (!strcmp(v, "max")) {
    *out = UINT64_MAX;
    return true;
  }
  char *end;
  errno = 0;
  unsigned long long n = strtoull(v, &end, 10);
  if (errno || end == v || *end || v[0] == '-') return false;
  *out = n;
  return true;
}

/* The unified keys systemd has properties for (runc's
 * unifiedResToSystemdProps): they would be reset at a daemon-reload
 * otherwise.  Keys without one stay cgroupfs-only. */
static int unified_limits(const crt_kvv *u, sd_limits *l, crt_err **err) {
  static const struct {
    const char *key;
    size_t off;
  } keys[] = {{"memory.max", offsetof(sd_limits, mem_max)},   {"memory.low", offsetof(sd_limits, mem_low)},
              {"memory.high", offsetof(sd_limits, mem_high)}, {"memory.min", offsetof(sd_limits, mem_min)},
              {"memory.swap.max", offsetof(sd_limits, swap_max)}, {"pids.max", offsetof(sd_limits, tasks_max)},
              {"cpu.weight", offsetof(sd_limits, weight)}};
  for (size_t i = 0; i < u->len; i++) {
    const char *k = u->v[i].key, *v = u->v[i].value ? u->v[i].value : "";
    uint64_t n;
    if (!strcmp(k, "cpuset.cpus") || !strcmp(k, "cpuset.mems")) {
      *(k[7] == 'c' ? &l->cpus : &l->mems) = v;
      continue;
    }
    if (!strcmp(k, "cpu.max")) {
      char q[32];
      unsigned long long period = 100000;
      if (sscanf(v, "%31s %llu", q, &period) < 1 || !unified_u64(q, &n))
        return crt_error(err, 0, "unified.cpu.max: \"%s\" is not \"QUOTA [PERIOD]\"", v);
      cpu_quota(l, n == UINT64_MAX ? -1 : (int64_t)n, period);
      continue;
    }
    for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++) {
      if (strcmp(k, keys[j].key)) continue;
      if (!unified_u64(v, &n)) return crt_error(err, 0, "unified.%s: \"%s\" is not a number or \"max\"", k, v);
      set_u64((crt_u64 *)((char *)l + keys[j].off), n);
    }
  }
  return 0;
}

/* What r sets, as runc derives it.  At update (d set) a quota or a swap
 * given alone is paired with the period or limit the cgroup already has. */
static int limits_of(const crt_resources *r, bool v2, const cg_driver *d, const char *path, sd_limits *l,
                     crt_err **err) {
  memset(l, 0, sizeof *l);
  if (!r) return 0;
  int64_t limit = r->memory.limit.set ? r->memory.limit.v : 0;
  if (limit) set_u64(&l->mem_max, (uint64_t)limit);
  if (v2 && r->memory.reservation.set && r->memory.reservation.v)
    set_u64(&l->mem_low, (uint64_t)r->memory.reservation.v);
  /* an unlimited memory without a swap value makes swap unlimited too
   * (cg_swap_v2, as runc): the unit's old MemorySwapMax would come back */
  if (v2 && ((r->memory.swap.set && r->memory.swap.v) || limit == -1)) {
    if (!limit && d) (void)file_value(d, path, "memory", "memory.max", 0, &limit);
    long long sw;
    /* update: the files written already say what is valid */
    long long swap = r->memory.swap.set ? r->memory.swap.v : 0;
    if (cg_swap_v2(swap, limit, &sw, d ? NULL : err) == 0) set_u64(&l->swap_max, (uint64_t)sw);
    else if (!d) return -1;
  }
  if (r->pids.limit.set && (r->pids.limit.v > 0 || r->pids.limit.v == -1))
    set_u64(&l->tasks_max, (uint64_t)r->pids.limit.v);
  if (r->cpu.shares.set && r->cpu.shares.v)
    set_u64(&l->weight, v2 ? cg_shares_to_weight(r->cpu.shares.v) : r->cpu.shares.v);
  int64_t quota = r->cpu.quota.set ? r->cpu.quota.v : 0;
  uint64_t period = r->cpu.period.set ? r->cpu.period.v : 0;
  if (d && (quota || period) && !(quota && period)) {
    int64_t q = 0, p = 0;
    bool ok = v2 ? file_value(d, path, "cpu", "cpu.max", 0, &q) && file_value(d, path, "cpu", "cpu.max", 1, &p)
                 : file_value(d, path, "cpu", "cpu.cfs_quota_us", 0, &q) &&
                       file_value(d, path, "cpu", "cpu.cfs_period_us", 0, &p);
    if (ok && !quota) quota = q;
    if (ok && !period && p > 0) period = (uint64_t)p;
  }
  if (quota || period) cpu_quota(l, quota, period);
  if (v2 && r->cpu.cpus && *r->cpu.cpus) l->cpus = r->cpu.cpus;
  if (v2 && r->cpu.mems && *r->cpu.mems) l->mems = r->cpu.mems;
  return v2 ? unified_limits(&r->unified, l, err) : 0;
}

/* A cpuset list ("0-3,8") as systemd's AllowedCPUs/AllowedMemoryNodes
 * take it: a byte array, bit N in byte N/8 (runc's RangeToBits).  systemd
 * writes the unit's cpuset again at every daemon-reload: without the
 * property it would reset the cgroup's cpuset.cpus to empty. */
static int append_cpuset(sd_bus_message *m, const char *name, const char *list, crt_err **err) {
  unsigned long mask[CRT_IDLIST_BITS / (8 * sizeof(unsigned long))];
  char trimmed[256];
  /* a value read back from a cpuset file ends in a newline */
  if (crt_fmt(trimmed, sizeof trimmed, "%.*s", (int)strcspn(list, "\n"), list) < 0)
    return crt_error(err, ENAMETOOLONG, "systemd cgroup manager: %s: list too long", name);
  if (crt_parse_id_list(trimmed, mask, CRT_IDLIST_BITS, err) < 0)
    return crt_error_wrap(err, "systemd cgroup manager: %s", name);
  uint8_t bits[CRT_IDLIST_BITS / 8] = {0};
  size_t len = 1;
  for (size_t b = 0; b < CRT_IDLIST_BITS; b++) {
    if (!(mask[b / (8 * sizeof(unsigned long))] & (1UL << (b % (8 * sizeof(unsigned long)))))) continue;
    bits[b / 8] |= (uint8_t)(1u << (b % 8));
    len = b / 8 + 1;
  }
  int rc = sd.open_container(m, 'r', "sv");
  if (rc >= 0) rc = sd.append(m, "s", name);
  if (rc >= 0) rc = sd.open_container(m, 'v', "ay");
  if (rc >= 0) rc = sd.open_container(m, 'a', "y");
  for (size_t i = 0; i < len && rc >= 0; i++) rc = sd.append_basic(m, 'y', &bits[i]);
  for (int i = 0; i < 3 && rc >= 0; i++) rc = sd.close_container(m);
  if (rc < 0) return crt_error(err, -rc, "systemd cgroup manager: %s", name);
  return 0;
}

static int append_limits(sd_bus_message *m, const sd_limits *l, bool v2) {
  const struct {
    const crt_u64 *f;
    const char *v2_name, *v1_name;
  } props[] = {{&l->mem_max, "MemoryMax", "MemoryLimit"},
               {&l->mem_low, "MemoryLow", NULL},
               {&l->swap_max, "MemorySwapMax", NULL},
               {&l->mem_high, "MemoryHigh", NULL},
               {&l->mem_min, "MemoryMin", NULL},
               {&l->tasks_max, "TasksMax", "TasksMax"},
               {&l->weight, "CPUWeight", "CPUShares"},
               {&l->period, "CPUQuotaPeriodUSec", "CPUQuotaPeriodUSec"},
               {&l->quota_per_sec, "CPUQuotaPerSecUSec", "CPUQuotaPerSecUSec"}};
  int rc = 0;
  for (size_t i = 0; i < sizeof props / sizeof props[0] && rc >= 0; i++) {
    const char *name = v2 ? props[i].v2_name : props[i].v1_name;
    if (name && props[i].f->set) rc = sd.append(m, "(sv)", name, "t", props[i].f->v);
  }
  return rc;
}

static int append_cpusets(sd_bus_message *m, const sd_limits *l, crt_err **err) {
  if (l->cpus && append_cpuset(m, "AllowedCPUs", l->cpus, err) < 0) return -1;
  if (l->mems && append_cpuset(m, "AllowedMemoryNodes", l->mems, err) < 0) return -1;
  return 0;
}

static int append_variant(sd_bus_message *m, const char *name, const crt_gvariant *v) {
  char sig[3];
  crt_gvariant_signature(v, sig);
  int rc = sd.open_container(m, 'r', "sv");
  if (rc >= 0) rc = sd.append(m, "s", name);
  if (rc >= 0) rc = sd.open_container(m, 'v', sig);
  if (rc >= 0 && v->array) rc = sd.open_container(m, 'a', sig + 1);
  for (size_t i = 0; i < v->n && rc >= 0; i++) {
    const crt_gv_basic *b = &v->v[i];
    uint8_t y = (uint8_t)b->u;
    int bo = (int)b->u;
    int16_t n16 = (int16_t)b->i;
    uint16_t q16 = (uint16_t)b->u;
    int32_t i32 = (int32_t)b->i;
    uint32_t u32 = (uint32_t)b->u;
    const void *p;
    switch (v->type) {
    case 'y': p = &y; break;
    case 'b': p = &bo; break;
    case 'n': p = &n16; break;
    case 'q': p = &q16; break;
    case 'i': case 'h': p = &i32; break;
    case 'u': p = &u32; break;
    case 'x': case 't': p = &b->u; break;
    case 'd': p = &b->d; break;
    default: p = b->s; break;
    }
    rc = sd.append_basic(m, v->type, p);
  }
  if (rc >= 0 && v->array) rc = sd.close_container(m);
  if (rc >= 0) rc = sd.close_container(m);
  if (rc >= 0) rc = sd.close_container(m);
  return rc;
}

/* A property name systemd could know: letters and digits. */
static bool property_name(const char *n) {
  if (!*n) return false;
  for (; *n; n++)
    if (!((*n >= 'A' && *n <= 'Z') || (*n >= 'a' && *n <= 'z') || (*n >= '0' && *n <= '9'))) return false;
  return true;
}

#define SD_ANNOTATION "org.systemd.property."

/* org.systemd.property.NAME annotations, values in GVariant text as in
 * runc; a NAME ending in "Sec" takes seconds and becomes NAMEUSec
 * (runc's convertSecToUSec).  Appended after crt's own, so they win. */
static int append_annotations(sd_bus_message *m, const crt_spec *spec, crt_err **err) {
  for (size_t i = 0; spec && i < spec->annotations.len; i++) {
    const crt_kv *kv = &spec->annotations.v[i];
    if (strncmp(kv->key, SD_ANNOTATION, strlen(SD_ANNOTATION)) != 0) continue;
    const char *name = kv->key + strlen(SD_ANNOTATION);
    if (!property_name(name))
      return crt_error(err, 0, "annotations[\"%s\"]: not a systemd property name", kv->key);
    char usec[256];
    size_t nl = strlen(name);
    bool sec = nl > 3 && !strcmp(name + nl - 3, "Sec") && !(nl > 4 && !strcmp(name + nl - 4, "USec"));
    if (sec && snprintf(usec, sizeof usec, "%.*sUSec", (int)(nl - 3), name) >= (int)sizeof usec)
      return crt_error(err, ENAMETOOLONG, "annotations[\"%s\"]: name too long", kv->key);
    crt_gvariant v;
    if (crt_gvariant_parse(kv->value ? kv->value : "", &v, err) < 0 || (sec && crt_gvariant_sec_to_usec(&v, err) < 0)) {
      if (v.v) crt_gvariant_free(&v);
      return crt_error_wrap(err, "annotations[\"%s\"]: value \"%s\"", kv->key, kv->value ? kv->value : "");
    }
    if (v.type == 'h') { /* a D-Bus handle is an fd: never one of ours */
      crt_gvariant_free(&v);
      return crt_error(err, 0, "annotations[\"%s\"]: a handle is not a property value", kv->key);
    }
    int rc = append_variant(m, sec ? usec : name, &v);
    crt_gvariant_free(&v);
    if (rc < 0) return crt_error(err, -rc, "annotations[\"%s\"]: add to the unit's properties", kv->key);
  }
  return 0;
}

static int append_props(sd_bus_message *m, const char *unit, const char *slice, const crt_cgroup_config *cfg,
                        pid_t pid, bool v2, crt_err **err) {
  cleanup_free char *desc = NULL;
  if (asprintf(&desc, "crt container %s", cfg->id ? cfg->id : unit) < 0)
    return crt_error(err, ENOMEM, "systemd cgroup manager: unit description");
  int rc = sd.append(m, "(sv)", "Description", "s", desc);
  if (rc >= 0 && slice) rc = sd.append(m, "(sv)", "Slice", "s", slice);
  if (rc >= 0) rc = sd.append(m, "(sv)", "Delegate", "b", 1);
  if (rc >= 0) rc = sd.append(m, "(sv)", "DefaultDependencies", "b", 0);
  if (rc >= 0) rc = sd.append(m, "(sv)", "PIDs", "au", 1, (uint32_t)pid);
  if (rc >= 0) rc = sd.append(m, "(sv)", "MemoryAccounting", "b", 1);
  if (rc >= 0) rc = sd.append(m, "(sv)", "CPUAccounting", "b", 1);
  if (rc >= 0) rc = sd.append(m, "(sv)", "TasksAccounting", "b", 1);
  if (rc < 0) return crt_error(err, -rc, "systemd cgroup manager: build StartTransientUnit for %s", unit);
  const crt_resources *r = cfg->spec && cfg->spec->linux_ ? cfg->spec->linux_->resources : NULL;
  sd_limits l;
  if (limits_of(r, v2, NULL, NULL, &l, err) < 0) return -1;
  if ((rc = append_limits(m, &l, v2)) < 0)
    return crt_error(err, -rc, "systemd cgroup manager: build StartTransientUnit for %s", unit);
  if (append_cpusets(m, &l, err) < 0) return -1;
  return append_annotations(m, cfg->spec, err);
}

int cg_systemd_start(const crt_cgroup_config *cfg, const char *path, pid_t pid, bool v2, crt_err **err) {
  const char *unit = strrchr(path, '/') + 1;
  /* the slice is the parent directory's last component ("/" → -.slice) */
  char slice[256] = "-.slice";
  const char *end = unit - 1, *beg = end;
  while (beg > path && beg[-1] != '/') beg--;
  if (end > beg && crt_fmt(slice, sizeof slice, "%.*s", (int)(end - beg), beg) < 0)
    return crt_error(err, ENAMETOOLONG, "systemd cgroup manager: slice of %s: name too long", path);
  bool is_slice = strlen(unit) > 6 && !strcmp(unit + strlen(unit) - 6, ".slice");
  sd_bus *bus = NULL;
  sd_bus_slot *slot = NULL;
  sd_bus_message *m = NULL, *reply = NULL;
  sd_bus_error e = SD_BUS_ERROR_NULL;
  job_wait w = {0};
  int rc = -1;
  if (bus_open(&bus, &slot, &w, err) < 0) goto out;
  int r = sd.new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "StartTransientUnit");
  if (r >= 0) r = sd.append(m, "ss", unit, "replace");
  if (r >= 0) r = sd.open_container(m, 'a', "(sv)");
  if (r < 0) {
    crt_error(err, -r, "systemd cgroup manager: build StartTransientUnit for %s", unit);
    goto out;
  }
  if (append_props(m, unit, is_slice ? NULL : slice, cfg, pid, v2, err) < 0) goto out;
  r = sd.close_container(m);
  if (r >= 0) r = sd.append(m, "a(sa(sv))", 0);
  if (r < 0) {
    crt_error(err, -r, "systemd cgroup manager: build StartTransientUnit for %s", unit);
    goto out;
  }
  r = sd.call(bus, m, JOB_TIMEOUT_USEC, &e, &reply);
  if (r < 0) {
    bus_error(err, r, &e, "start unit", unit);
    goto out;
  }
  if (await_reply_job(bus, &w, reply, "start unit", unit, err) < 0) goto out;
  crt_debug("systemd: started %s in %s", unit, slice);
  rc = 0;
out:
  err_free(&e);
  if (m) sd.message_unref(m);
  if (reply) sd.message_unref(reply);
  bus_close(bus, slot);
  return rc;
}

int cg_systemd_stop(const char *path, crt_err **err) {
  const char *unit = strrchr(path, '/');
  if (!unit || !unit[1]) return 0;
  unit++;
  sd_bus *bus = NULL;
  sd_bus_slot *slot = NULL;
  sd_bus_message *reply = NULL;
  sd_bus_error e = SD_BUS_ERROR_NULL;
  job_wait w = {0};
  int rc = -1;
  if (bus_open(&bus, &slot, &w, err) < 0) goto out;
  int r = sd.call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "StopUnit", &e, &reply, "ss", unit, "replace");
  if (r < 0) {
    /* a scope whose processes are gone has been collected already */
    if (sd.error_has_name(&e, "org.freedesktop.systemd1.NoSuchUnit")) rc = 0;
    else bus_error(err, r, &e, "stop unit", unit);
    goto out;
  }
  if (await_reply_job(bus, &w, reply, "stop unit", unit, err) < 0) goto out;
  rc = 0;
  /* a unit that failed (its processes OOM-killed, say) stays loaded until
   * its failure is reset: runc resets it too, and an error here (not
   * failed, already collected) changes nothing */
  sd_bus_message *reset = NULL;
  sd_bus_error re = SD_BUS_ERROR_NULL;
  if (sd.call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "ResetFailedUnit", &re, &reset, "s", unit) >= 0)
    crt_debug("systemd: failure of %s reset", unit);
  err_free(&re);
  if (reset) sd.message_unref(reset);
out:
  err_free(&e);
  if (reply) sd.message_unref(reply);
  bus_close(bus, slot);
  return rc;
}

int cg_systemd_update(const cg_driver *d, const char *path, const crt_resources *r, crt_err **err) {
  const char *unit = strrchr(path, '/');
  if (!unit || !unit[1]) return 0;
  unit++;
  sd_limits l;
  if (limits_of(r, d->v2, d, path, &l, err) < 0) return -1;
  static const sd_limits none;
  if (!memcmp(&l, &none, sizeof l)) return 0;
  if (load_sd(err) < 0) return -1;
  bool user = crt_rootless();
  sd_bus *bus = NULL;
  sd_bus_message *m = NULL, *reply = NULL;
  sd_bus_error e = SD_BUS_ERROR_NULL;
  int rc = -1;
  int r2 = user ? sd.open_user(&bus) : sd.open_system(&bus);
  if (r2 < 0) {
    crt_error(err, -r2, "systemd cgroup manager: connect to the %s bus", user ? "user" : "system");
    goto out;
  }
  r2 = sd.new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "SetUnitProperties");
  if (r2 >= 0) r2 = sd.append(m, "sb", unit, 1);
  if (r2 >= 0) r2 = sd.open_container(m, 'a', "(sv)");
  if (r2 >= 0) r2 = append_limits(m, &l, d->v2);
  if (r2 >= 0 && append_cpusets(m, &l, err) < 0) goto out;
  if (r2 >= 0) r2 = sd.close_container(m);
  if (r2 < 0) {
    crt_error(err, -r2, "systemd cgroup manager: build SetUnitProperties for %s", unit);
    goto out;
  }
  r2 = sd.call(bus, m, JOB_TIMEOUT_USEC, &e, &reply);
  if (r2 < 0) {
    bus_error(err, r2, &e, "set properties of unit", unit);
    goto out;
  }
  crt_debug("systemd: properties of %s updated", unit);
  rc = 0;
out:
  err_free(&e);
  if (m) sd.message_unref(m);
  if (reply) sd.message_unref(reply);
  bus_close(bus, NULL);
  return rc;
}

/* A user's systemd instance keeps its slices inside its own cgroup
 * (/user.slice/user-1000.slice/user@1000.service): the unit's path is
 * below the manager's ControlGroup, as runc's user driver asks for it. */
static int user_manager_prefix(char **path, crt_err **err) {
  if (load_sd(err) < 0) return -1;
  sd_bus *bus = NULL;
  sd_bus_error e = SD_BUS_ERROR_NULL;
  char *cg = NULL, *full = NULL;
  int rc = sd.open_user(&bus);
  if (rc < 0) return crt_error(err, -rc, "systemd cgroup manager: connect to the user bus");
  rc = sd.get_property_string(bus, SD_DEST, SD_PATH, SD_MANAGER, "ControlGroup", &e, &cg);
  if (rc < 0) bus_error(err, rc, &e, "read the user manager's", "ControlGroup");
  else if (strcmp(cg, "/") != 0 && asprintf(&full, "%s%s", cg, *path) < 0)
    rc = crt_error(err, ENOMEM, "systemd cgroup manager: unit path");
  if (full) {
    free(*path);
    *path = full;
  }
  free(cg);
  err_free(&e);
  bus_close(bus, NULL);
  return rc < 0 ? -1 : 0;
}

/* ---- the driver ---- */

/* "slice:prefix:name" → "/<slice path>/<prefix>-<name>.scope"; runc's
 * systemd driver.  Creating the unit needs systemd, which we check first. */
static int sd_resolve(const cg_driver *d, const crt_cgroup_config *cfg, char **out, crt_err **err) {
  const char *p = cfg->spec && cfg->spec->linux_ ? cfg->spec->linux_->cgroups_path : NULL;
  if (cg_systemd_path(p, cfg->id, cfg->rootless, out, err) < 0) return -1;
  if (!cg_systemd_running()) {
    free(crt_steal(*out));
    return crt_error(err, ENOENT, "systemd cgroup manager: systemd is not running (no /run/systemd/system)");
  }
  if (crt_rootless() && user_manager_prefix(out, err) < 0) {
    free(crt_steal(*out));
    return -1;
  }
  return 0;
}

/* /sys/fs/cgroup, cleaned as runc compares it ("//" and a trailing "/") */
static bool is_cgroup_dest(const char *d) {
  const char *want = "/sys/fs/cgroup";
  for (;;) {
    while (d[0] == '/' && d[1] == '/') d++;
    if (*want == 0) return *d == 0 || (d[0] == '/' && d[1] == 0);
    if (*d++ != *want++) return false;
  }
}

/* The host uid of container uid id: through the spec's uid mappings with a
 * user namespace, id itself without one (as runc's HostUID). */
static bool host_uid(const crt_spec *spec, uint32_t id, uid_t *out) {
  uint32_t h = id;
  if (crt_spec_namespace(spec, CRT_NS_USER) && !crt_idmap_host(&spec->linux_->uid_mappings, id, &h)) return false;
  *out = h;
  return true;
}

bool cg_systemd_owner(const crt_spec *spec, uid_t *uid) {
  if (!spec || !spec->linux_ || !crt_spec_namespace(spec, CRT_NS_CGROUP)) return false;
  bool rw = false;
  for (size_t i = 0; i < spec->n_mounts && !rw; i++) {
    const crt_mount *m = &spec->mounts[i];
    rw = m->source && strcmp(m->source, "cgroup") == 0 && is_cgroup_dest(m->destination) &&
         !(m->opts.flags & MS_RDONLY);
  }
  /* an unmapped user: refused later, where the process becomes it */
  return rw && host_uid(spec, spec->process ? spec->process->user.uid : 0, uid);
}

/* The scope's cgroup dir and the files the kernel lets a delegatee write
 * (/sys/kernel/cgroup/delegate; cgroups(7)'s three without it) to uid,
 * the group left alone, as runc.  A file this kernel lacks is skipped. */
static int chown_delegated(const char *dir, uid_t uid, crt_err **err) {
  if (chown(dir, uid, (gid_t)-1) < 0) return crt_error(err, errno, "systemd cgroup manager: chown %s", dir);
  char list[4096];
  ssize_t n = crt_read_small("/sys/kernel/cgroup/delegate", list, sizeof list - 1);
  if (n < 0) n = (ssize_t)crt_fmt(list, sizeof list, "cgroup.procs\ncgroup.subtree_control\ncgroup.threads\n");
  list[n < 0 ? 0 : n] = 0;
  char *save;
  for (char *f = strtok_r(list, "\n", &save); f; f = strtok_r(NULL, "\n", &save)) {
    char path[PATH_MAX];
    if (crt_pathf(path, sizeof path, err, "%s/%s", dir, f) < 0) return -1;
    if (chown(path, uid, (gid_t)-1) < 0 && errno != ENOENT)
      return crt_error(err, errno, "systemd cgroup manager: chown %s", path);
  }
  return 0;
}

/* systemd makes the scope and puts the pid in it; the rest (other v1
 * hierarchies, every resource) goes through the cgroupfs driver.  On
 * cgroup v2 a container that may write its cgroup namespace's root gets
 * it (cg_systemd_owner), as runc's systemd driver does. */
static int sd_start(const cg_driver *d, const crt_cgroup_config *cfg, const char *path, pid_t pid, crt_err **err) {
  if (cg_systemd_start(cfg, path, pid, d->v2, err) < 0) return -1;
  uid_t uid;
  if (d->root->mode != CRT_CGROUP_MODE_V2 || !cg_systemd_owner(cfg->spec, &uid)) return 0;
  cleanup_free char *dir = d->dir(d, path, NULL);
  if (!dir) return crt_error(err, ENOMEM, "systemd cgroup manager");
  return chown_delegated(dir, uid, err);
}

static int sd_stop(const cg_driver *d, const char *path, crt_err **err) { return cg_systemd_stop(path, err); }

void cg_systemd_wrap(cg_driver *out, const cg_driver *fs) {
  *out = *fs;
  out->name = "systemd";
  out->resolve = sd_resolve;
  out->start = sd_start;
  out->stop = sd_stop;
  /* the unit is started with the init's pid: nothing to clone into */
  out->prepare = NULL;
  out->prepare_late = NULL;
  out->configure = NULL;
}
