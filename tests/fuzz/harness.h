/* The bodies of the libFuzzer harnesses (tests/fuzz/fuzz_*.c), shared with
 * the unit tests that replay tests/fuzz/regress/<name>/ (test_spec.c for
 * config, test_fuzz_regress.c for the others), so that a regression input
 * runs exactly the code the fuzzer ran.  Every function takes the raw input
 * and returns 0; a broken invariant calls abort(), which libFuzzer reports
 * as a crash and cmocka as a failed test. */
#ifndef CRT_FUZZ_HARNESS_H
#define CRT_FUZZ_HARNESS_H

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yajl/yajl_tree.h>

#include "crt/cli.h"
#include "crt/gvariant.h"
#include "crt/procinfo.h"
#include "../../src/linux/test_hooks.h"
#include "crt/state.h"
#include "crt/log.h"
#include "crt/spec.h"

/* A NUL-terminated copy of the input (which has none). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1);
  if (!buf) abort();
  if (size) memcpy(buf, data, size);
  buf[size] = 0;
  return buf;
}

/* (1) config.json and process.json parsers, plus the serialiser and the
 * create-time checks on whatever parses. */
static inline int fuzz_config_one(const uint8_t *data, size_t size) {
  crt_spec *s = NULL;
  crt_err *err = NULL;
  if (crt_spec_parse((const char *)data, size, "config.json", &s, &err) == 0) {
    char *j = crt_spec_to_json(s, size & 1);
    crt_spec *s2 = NULL;
    /* What the serialiser writes must parse again. */
    if (j == NULL || crt_spec_parse(j, strlen(j), "gen", &s2, &err) < 0) abort();
    crt_spec_free(s2);
    free(j);
    if (crt_spec_validate_for_create(s, &err) < 0) crt_err_free(&err);
    crt_spec_free(s);
  } else {
    if (err == NULL || err->msg == NULL) abort();
    crt_err_free(&err);
  }
  crt_process *p = NULL;
  if (crt_process_parse((const char *)data, size, "process.json", &p, &err) == 0)
    crt_process_free(p);
  else
    crt_err_free(&err);
  return 0;
}

/* (2) crt_mount_opts_parse: the input is split at NUL bytes into an options
 * list (at most 64 entries). */
static inline int fuzz_mountopts_one(const uint8_t *data, size_t size) {
  char *buf = fuzz_cstr(data, size);
  char *v[65];
  size_t n = 0;
  for (char *p = buf; p <= buf + size && n < 64; p += strlen(p) + 1) v[n++] = p;
  v[n] = NULL;
  crt_strv opts = {v, n};
  crt_mount_opts o;
  crt_err *err = NULL;
  if (crt_mount_opts_parse(&opts, &o, &err) == 0) {
    /* Invariant: a bit is never both set and cleared. */
    if (o.flags & o.clear) abort();
    if (o.attr_set & o.attr_clr & ~0x70u) abort();
    crt_mount_opts_free(&o);
  } else if (err == NULL || err->msg == NULL) {
    abort();
  }
  crt_err_free(&err);
  free(buf);
  return 0;
}

/* (3) the state.json reader (crt_state_parse, what crt_state_load runs on
 * the file's bytes). */
#define FUZZ_STATE_ID "mycontainer"
#define FUZZ_STATE_DIR "/run/crt/" FUZZ_STATE_ID
#define FUZZ_STATE_PATH FUZZ_STATE_DIR "/state.json"

static inline int fuzz_state_one(const uint8_t *data, size_t size) {
  crt_state *s = NULL;
  crt_err *err = NULL;
  if (crt_state_parse((const char *)data, size, FUZZ_STATE_ID, FUZZ_STATE_DIR, FUZZ_STATE_PATH, &s, &err) == 0) {
    if (s == NULL || err != NULL) abort();
    if (!s->id || strcmp(s->id, FUZZ_STATE_ID) || !s->dir || strcmp(s->dir, FUZZ_STATE_DIR)) abort();
    if (!s->bundle || !s->rootfs || !s->created || !s->owner || !s->cgroup_path) abort();
    for (size_t i = 0; i < s->annotations.len; i++)
      if (!s->annotations.v[i].key || !s->annotations.v[i].value) abort();
    /* What `crt state` prints from it must be a JSON object. */
    char *j = crt_state_json(s, (enum crt_status)(size % 5), size & 1);
    if (j == NULL) abort();
    char ebuf[128];
    yajl_val t = yajl_tree_parse(j, ebuf, sizeof ebuf);
    if (t == NULL || !YAJL_IS_OBJECT(t)) abort();
    yajl_tree_free(t);
    free(j);
    crt_state_free(s);
  } else {
    /* Every rejection names the file and says how to recover. */
    if (s != NULL || err == NULL || err->msg == NULL || err->kind != CRT_ERR_NO_STATE) abort();
    static const char want[] = FUZZ_STATE_PATH ": corrupt state file";
    if (strncmp(err->msg, want, sizeof want - 1) != 0) abort();
    crt_err_free(&err);
  }
  return 0;
}

/* (6) crt_gvariant_parse (org.systemd.property.* annotation values).  A
 * parse either fails with a message and nothing held, or gives a basic type
 * (or an array of one) whose strings are all there; the seconds conversion
 * of any result never crashes. */
static inline int fuzz_gvariant_one(const uint8_t *data, size_t size) {
  char *buf = fuzz_cstr(data, size);
  crt_gvariant v;
  crt_err *err = NULL;
  if (crt_gvariant_parse(buf, &v, &err) < 0) {
    if (!err || !err->msg || v.v || v.n) abort();
    crt_err_free(&err);
    free(buf);
    return 0;
  }
  if (!v.type || !strchr("bynqiuxthdsog", v.type) || (!v.array && v.n != 1)) abort();
  for (size_t i = 0; i < v.n; i++)
    if (strchr("sog", v.type) && !v.v[i].s) abort();
  if (crt_gvariant_sec_to_usec(&v, &err) < 0) crt_err_free(&err);
  crt_gvariant_free(&v);
  free(buf);
  return 0;
}

/* (4) crt_parse_signal (`crt kill ID SIGNAL`).  The input up to its first
 * NUL is the argument. */
static inline int fuzz_signal_one(const uint8_t *data, size_t size) {
  char *buf = fuzz_cstr(data, size);
  int sig = crt_parse_signal(buf);
  if (sig != -1 && (sig < 0 || sig >= NSIG)) abort();
  /* Names are case-insensitive. */
  for (char *p = buf; *p; p++) *p = (char)toupper((unsigned char)*p);
  if (crt_parse_signal(buf) != sig) abort();
  if (sig >= 0) {
    /* The number of a signal names it too. */
    char num[16];
    snprintf(num, sizeof num, "%d", sig);
    if (crt_parse_signal(num) != sig) abort();
  }
  /* runc's forms only: a number ([+-]digits, as strconv.Atoi) or one of
   * its 31 names; nothing else, RTMIN+N and aliases like IOT included. */
  const char *n = buf;
  if (strncmp(n, "SIG", 3) == 0) n += 3;
  if (sig != -1 && !(*buf >= '0' && *buf <= '9') && *buf != '+' && *buf != '-') {
    const char *abbr = sigabbrev_np(sig);
    /* sigabbrev_np agrees with runc except for 29, which it calls POLL */
    if (strcmp(n, sig == SIGIO ? "IO" : abbr ? abbr : "") != 0) abort();
  }
  if (sig == -1 && *buf >= '1' && *buf <= '9' && strspn(buf, "0123456789") == strlen(buf) && strlen(buf) < 3 &&
      atoi(buf) < NSIG)
    abort(); /* every number of a signal is one */
  free(buf);
  return 0;
}

/* (5) crt_mountinfo_parse, the reader of /proc/self/mountinfo: whatever
 * the lines, every entry has all its fields, no more entries than lines,
 * and the filtered read keeps exactly the entries of that type under that
 * directory, in order. */
static inline int fuzz_mountinfo_one(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  char *buf = fuzz_cstr(data, size);
  size_t lines = 1;
  for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
  FILE *f = fmemopen(buf, size, "r");
  if (!f) abort();
  crt_mountinfo all, some;
  crt_err *err = NULL;
  if (crt_mountinfo_parse(f, NULL, NULL, &all, &err) < 0) abort();
  rewind(f);
  if (crt_mountinfo_parse(f, "cgroup", "/sys/fs/cgroup/", &some, &err) < 0) abort();
  fclose(f);
  if (all.n > lines) abort();
  size_t k = 0;
  for (size_t i = 0; i < all.n; i++) {
    const crt_mountinfo_entry *e = &all.v[i];
    if (!e->root || !e->target || !e->fstype || !e->fs_opts || !e->optional) abort();
    if (strcmp(e->fstype, "cgroup") || strncmp(e->target, "/sys/fs/cgroup/", 15)) continue;
    if (k >= some.n || strcmp(some.v[k].target, e->target) || strcmp(some.v[k].fs_opts, e->fs_opts)) abort();
    k++;
  }
  if (k != some.n) abort();
  crt_mountinfo_free(&all);
  crt_mountinfo_free(&some);
  free(buf);
  return 0;
}

#endif
