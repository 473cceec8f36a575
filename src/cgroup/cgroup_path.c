/* cgroups: the container's cgroup path as runc's cgroupfs driver names it
 * (the systemd driver has its own, in cgroup_systemd.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_internal.h"
#include "crt/procinfo.h"

/* The caller's own cgroup in the hierarchy named by key ("" for the
 * unified line, else a controller name); "/" when it has none there. */
static char *own_cgroup(const char *key) {
  char *p = crt_proc_cgroup_path(0, key);
  return p ? p : strdup("/");
}

/* Lexically cleans p into an absolute path without "." / ".." escaping "/". */
static char *clean_path(const char *base, const char *p) {
  char *joined = NULL;
  if (asprintf(&joined, "%s/%s", base, p) < 0) return NULL;
  char *out = calloc(1, strlen(joined) + 2);
  if (!out) {
    free(joined);
    return NULL;
  }
  char *save;
  for (char *t = strtok_r(joined, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
    if (strcmp(t, ".") == 0) continue;
    if (strcmp(t, "..") == 0) {
      char *s = strrchr(out, '/');
      if (s) *s = 0;
      continue;
    }
    strcat(out, "/");
    strcat(out, t);
  }
  if (*out == 0) strcpy(out, "/");
  free(joined);
  return out;
}

/* The base of a relative path in the caller's own cgroup own (malloc'd):
 * on pure cgroup2 its parent, as runc's fs2 driver: the caller's cgroup
 * most likely holds processes (a service's, a login session's), and a
 * cgroup with processes can have no child with processes and controllers
 * (v2's "no internal processes"), so a container made inside it fails.
 * v1 and hybrid: the cgroup itself, never below systemd's init.scope. */
static char *relative_base(const cg_driver *d, char *own) {
  size_t n = strlen(own);
  if (d->root->mode == CRT_CGROUP_MODE_V2) {
    char *slash = strrchr(own, '/');
    if (slash) slash[slash == own] = 0; /* "/a/b" -> "/a", "/a" -> "/" */
  } else if (n >= 11 && strcmp(own + n - 11, "/init.scope") == 0) {
    own[n - 11] = 0;
  }
  return own;
}

/* runc: an absolute cgroupsPath is taken from the hierarchy root; a relative
 * one (and the default, the container id) is relative to the caller's own
 * cgroup (its parent on v2: relative_base).  We resolve it once, against
 * the unified line on v2 and the pids hierarchy on v1, so that one absolute
 * path can be stored in state.json. */
int cg_fs_resolve(const cg_driver *d, const crt_cgroup_config *cfg, char **out, crt_err **err) {
  const char *p = cfg->spec && cfg->spec->linux_ ? cfg->spec->linux_->cgroups_path : NULL;
  if (!p || !*p) p = cfg->id;
  if (!p || !*p) return crt_error(err, EINVAL, "cgroup: no container id");
  cleanup_free char *base = NULL;
  if (*p == '/')
    base = strdup("/");
  else if (d->root->foreign)
    base = strdup("/"); /* not the kernel's tree: the caller's cgroup means nothing there */
  else if ((base = own_cgroup(d->own_key)))
    base = relative_base(d, base);
  *out = base ? clean_path(base, p) : NULL;
  if (!*out) return crt_error(err, ENOMEM, "cgroup: path");
  if (strcmp(*out, "/") == 0) {
    free(crt_steal(*out));
    return crt_error(err, EINVAL, "cgroup: cgroupsPath %s resolves to the root cgroup", p);
  }
  return 0;
}
