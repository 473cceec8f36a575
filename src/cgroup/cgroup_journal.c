/* cgroups: the update journal.  crt update records each file's old content
 * once before its first write, so that a failed update can put back what
 * it already changed.  The journal is the caller's (crt_cgroup_update's),
 * passed down to every write of the update. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_internal.h"
#include "crt/log.h"

struct cg_undo {
  char *dir, *file, *old;
};

static bool noted(const cg_journal *j, const char *dir, const char *file) {
  for (size_t i = 0; i < j->n; i++)
    if (strcmp(j->v[i].dir, dir) == 0 && strcmp(j->v[i].file, file) == 0) return true;
  return false;
}

static void free_entry(struct cg_undo *u) {
  free(u->dir);
  free(u->file);
  free(u->old);
}

static bool push_entry(cg_journal *j, const char *dir, const char *file, char *old) {
  struct cg_undo *nv = realloc(j->v, (j->n + 1) * sizeof *nv);
  if (!nv) {
    crt_warn("cgroup: out of memory recording %s/%s for a rollback", dir, file);
    free(old);
    return false;
  }
  j->v = nv;
  nv[j->n++] = (struct cg_undo){strdup(dir), strdup(file), old};
  return true;
}

/* true: recorded now (the caller drops it again if its write fails) */
static bool note(cg_journal *j, const char *dir, const char *file) {
  /* device rules are restored from the devices.list snapshot */
  if (!j || strcmp(file, "devices.allow") == 0 || strcmp(file, "devices.deny") == 0 || noted(j, dir, file))
    return false;
  char *old = cg_read(dir, file);
  if (!old) return false; /* nothing to put back: the write fails too */
  size_t len = strlen(old);
  while (len && old[len - 1] == '\n') old[--len] = 0;
  return push_entry(j, dir, file, old);
}

int cg_jwrite(cg_journal *j, const char *dir, const char *file, const char *val, crt_err **err) {
  bool recorded = note(j, dir, file);
  int rc = cg_write(dir, file, val, err);
  if (rc < 0 && recorded) free_entry(&j->v[--j->n]); /* unchanged: nothing to restore */
  return rc;
}

int cg_jwritef(cg_journal *j, const char *dir, const char *file, crt_err **err, const char *fmt, ...) {
  char buf[CG_VALUE_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof buf) return crt_error(err, E2BIG, "cgroup: write %s: value too long", file);
  return cg_jwrite(j, dir, file, buf, err);
}

void cg_journal_note_devices(cg_journal *j, const char *dir) {
  if (!j || noted(j, dir, "devices.list")) return;
  char *old = cg_read(dir, "devices.list");
  if (old) push_entry(j, dir, "devices.list", old);
}

void cg_journal_free(cg_journal *j) {
  for (size_t i = 0; i < j->n; i++) free_entry(&j->v[i]);
  free(j->v);
  j->v = NULL;
  j->n = 0;
}

/* One line per write: keyed files (io.max, *_device) take one key a write. */
static int write_lines(const char *dir, const char *file, const char *text, crt_err **err) {
  if (!*text) return cg_write(dir, file, "", err);
  cleanup_free char *copy = strdup(text);
  if (!copy) return crt_error(err, ENOMEM, "cgroup: restore %s", file);
  char *save = NULL;
  for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
    if (cg_write(dir, file, l, err) < 0) return -1;
  return 0;
}

static int restore(const struct cg_undo *u, crt_err **err) {
  if (strcmp(u->file, "devices.list") != 0) return write_lines(u->dir, u->file, u->old, err);
  if (cg_write(u->dir, "devices.deny", "a", err) < 0) return -1;
  return write_lines(u->dir, "devices.allow", u->old, err);
}

/* Newest first: the order in which the kernel's cross-file checks
 * (memsw >= limit, quota vs period) accepted the writes. */
void cg_journal_rollback(cg_journal *j, crt_err **err) {
  size_t ok = 0, bad = 0;
  char failed[256] = "";
  for (size_t i = j->n; i-- > 0;) {
    crt_err *e = NULL;
    if (restore(&j->v[i], &e) == 0) {
      ok++;
      continue;
    }
    if (bad++ == 0) snprintf(failed, sizeof failed, "%s", e->msg);
    crt_err_free(&e);
  }
  if (bad)
    crt_error_wrap(err, "cgroup: update failed, and %zu of %zu file(s) already written could not be restored (first: %s)",
                   bad, ok + bad, failed);
  else if (ok)
    crt_error_wrap(err, "cgroup: update failed; the %zu file(s) already written were restored", ok);
}
