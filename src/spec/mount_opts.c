/* mounts[].options into the typed fields of crt_mount_opts, once, when the
 * spec is parsed: MS_* flags to set and to clear, propagation, runc's
 * recursive options (mount_setattr attributes), bind/rbind, idmap, ridmap,
 * tmpcopyup, and what is left as filesystem data.  libmount's Linux
 * option map names the kernel flags. */
#define _GNU_SOURCE
#include <errno.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "crt/spec.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

typedef struct {
  const char *name;
  unsigned long prop;
} prop_opt;

static const prop_opt prop_opts[] = {
    {"private", MS_PRIVATE},       {"rprivate", MS_PRIVATE | MS_REC}, {"shared", MS_SHARED},
    {"rshared", MS_SHARED | MS_REC}, {"slave", MS_SLAVE},             {"rslave", MS_SLAVE | MS_REC},
    {"unbindable", MS_UNBINDABLE}, {"runbindable", MS_UNBINDABLE | MS_REC},
};

typedef struct {
  const char *name;
  bool clear;
  unsigned int attr;
  bool atime; /* the atime values are an enum: MOUNT_ATTR__ATIME must be cleared */
} rec_opt;

static const rec_opt rec_opts[] = {
    {"rro", false, MOUNT_ATTR_RDONLY, false},
    {"rrw", true, MOUNT_ATTR_RDONLY, false},
    {"rnosuid", false, MOUNT_ATTR_NOSUID, false},
    {"rsuid", true, MOUNT_ATTR_NOSUID, false},
    {"rnodev", false, MOUNT_ATTR_NODEV, false},
    {"rdev", true, MOUNT_ATTR_NODEV, false},
    {"rnoexec", false, MOUNT_ATTR_NOEXEC, false},
    {"rexec", true, MOUNT_ATTR_NOEXEC, false},
    {"rnodiratime", false, MOUNT_ATTR_NODIRATIME, false},
    {"rdiratime", true, MOUNT_ATTR_NODIRATIME, false},
    {"rnosymfollow", false, MOUNT_ATTR_NOSYMFOLLOW, false},
    {"rsymfollow", true, MOUNT_ATTR_NOSYMFOLLOW, false},
    {"rnoatime", false, MOUNT_ATTR_NOATIME, true},
    {"ratime", false, MOUNT_ATTR_RELATIME, true},
    {"rrelatime", false, MOUNT_ATTR_RELATIME, true},
    /* as runc (its issue 5095): every clearing atime option falls back to
     * the kernel's default, relatime, not strictatime */
    {"rnorelatime", false, MOUNT_ATTR_RELATIME, true},
    {"rstrictatime", false, MOUNT_ATTR_STRICTATIME, true},
    {"rnostrictatime", false, MOUNT_ATTR_RELATIME, true},
};

static void set_flag(crt_mount_opts *o, unsigned long f, bool clear) {
  if (clear) {
    o->flags &= ~f;
    o->clear |= f;
  } else {
    o->flags |= f;
    o->clear &= ~f;
  }
}

static void set_attr(crt_mount_opts *o, const rec_opt *r) {
  if (r->atime) {
    o->attr_set = (o->attr_set & ~MOUNT_ATTR__ATIME) | r->attr;
    o->attr_clr |= MOUNT_ATTR__ATIME;
  } else if (r->clear) {
    o->attr_set &= ~r->attr;
    o->attr_clr |= r->attr;
  } else {
    o->attr_set |= r->attr;
    o->attr_clr &= ~r->attr;
  }
}

/* Options crt knows itself, before asking libmount; returns true if taken. */
static bool own_option(crt_mount_opts *o, const char *opt) {
  if (!strcmp(opt, "bind") || !strcmp(opt, "rbind")) {
    o->bind = true;
    if (opt[0] == 'r') o->recursive = true;
    return true;
  }
  for (size_t i = 0; i < sizeof prop_opts / sizeof prop_opts[0]; i++)
    if (!strcmp(opt, prop_opts[i].name)) {
      o->propagation = prop_opts[i].prop;
      return true;
    }
  for (size_t i = 0; i < sizeof rec_opts / sizeof rec_opts[0]; i++)
    if (!strcmp(opt, rec_opts[i].name)) {
      set_attr(o, &rec_opts[i]);
      return true;
    }
  if (!strcmp(opt, "idmap")) return o->idmap = true;
  if (!strcmp(opt, "ridmap")) return o->ridmap = true;
  if (!strcmp(opt, "tmpcopyup")) return o->tmpcopyup = true;
  if (!strcmp(opt, "nosymfollow") || !strcmp(opt, "symfollow")) {
    set_flag(o, MS_NOSYMFOLLOW, opt[0] == 's');
    return true;
  }
  /* Known flags with no bit: not filesystem data. */
  if (!strcmp(opt, "defaults")) return true;
  return false;
}

/* What libmount's Linux map says of the options every config names, so
 * that parsing one does not load libmount (src/util/libmount_lazy.c):
 * the plain kernel flags, set or cleared.  tests/unit/test_mount_opts.c
 * checks each against libmount. */
typedef struct {
  const char *name;
  unsigned long set, clear;
} flag_opt;

static const flag_opt common_flags[] = {
    {"ro", MS_RDONLY, 0},           {"rw", 0, MS_RDONLY},
    {"nosuid", MS_NOSUID, 0},       {"suid", 0, MS_NOSUID},
    {"nodev", MS_NODEV, 0},         {"dev", 0, MS_NODEV},
    {"noexec", MS_NOEXEC, 0},       {"exec", 0, MS_NOEXEC},
    {"sync", MS_SYNCHRONOUS, 0},    {"async", 0, MS_SYNCHRONOUS},
    {"dirsync", MS_DIRSYNC, 0},     {"mand", MS_MANDLOCK, 0},
    {"nomand", 0, MS_MANDLOCK},     {"silent", MS_SILENT, 0},
    {"loud", 0, MS_SILENT},         {"noatime", MS_NOATIME, 0},
    {"atime", 0, MS_NOATIME},       {"nodiratime", MS_NODIRATIME, 0},
    {"diratime", 0, MS_NODIRATIME}, {"relatime", MS_RELATIME, 0},
    {"norelatime", 0, MS_RELATIME}, {"strictatime", MS_STRICTATIME, 0},
    {"nostrictatime", 0, MS_STRICTATIME}, {"lazytime", MS_LAZYTIME, 0},
    {"nolazytime", 0, MS_LAZYTIME}, {"iversion", MS_I_VERSION, 0},
    {"noiversion", 0, MS_I_VERSION},
};

/* Filesystem data libmount has no flag for: name=value (its Linux map
 * takes no values), and devpts's newinstance. */
static bool known_data(const char *opt) { return strchr(opt, '=') != NULL || !strcmp(opt, "newinstance"); }

static bool common_option(crt_mount_opts *o, const char *opt) {
  for (size_t i = 0; i < sizeof common_flags / sizeof common_flags[0]; i++)
    if (!strcmp(opt, common_flags[i].name)) {
      if (common_flags[i].set) set_flag(o, common_flags[i].set, false);
      if (common_flags[i].clear) set_flag(o, common_flags[i].clear, true);
      return true;
    }
  return false;
}

/* libmount's Linux map: a flag sets bits when applied to 0 or clears bits
 * when applied to ~0; both unchanged means libmount does not know it. */
static bool libmount_option(crt_mount_opts *o, const char *opt) {
  const struct libmnt_optmap *map = mnt_get_builtin_optmap(MNT_LINUX_MAP);
  unsigned long on = 0, off = ~0UL;
  if (mnt_optstr_get_flags(opt, &on, map) < 0 || mnt_optstr_get_flags(opt, &off, map) < 0) return false;
  /* "user"/"users" come from the userspace map; they are not kernel flags. */
  if (!strcmp(opt, "user") || !strcmp(opt, "users") || !strcmp(opt, "nouser")) return false;
  if (on == 0 && off == ~0UL) return false;
  if (on) set_flag(o, on, false);
  if (~off) set_flag(o, ~off, true);
  return true;
}

static int append_data(char **data, const char *opt, crt_err **err) {
  char *n = NULL;
  if (asprintf(&n, "%s%s%s", *data ? *data : "", *data ? "," : "", opt) < 0)
    return crt_error(err, ENOMEM, "mount options");
  free(*data);
  *data = n;
  return 0;
}

int crt_mount_opts_parse(const crt_strv *options, crt_mount_opts *out, crt_err **err) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; options && i < options->len; i++) {
    const char *opt = options->v[i];
    if (opt == NULL || *opt == 0) continue;
    /* One option per entry: a comma inside would smuggle several. */
    if (strchr(opt, ',') == NULL &&
        (own_option(out, opt) || common_option(out, opt) || (!known_data(opt) && libmount_option(out, opt))))
      continue;
    if (append_data(&out->data, opt, err) < 0) {
      crt_mount_opts_free(out);
      return -1;
    }
  }
  /* libmount knows "bind"/"rbind" as MS_BIND(|MS_REC); keep one source of truth. */
  if (out->flags & MS_BIND) {
    out->bind = true;
    out->flags &= ~MS_BIND;
  }
  if (out->bind && (out->flags & MS_REC)) out->recursive = true;
  out->flags &= ~MS_REC;
  out->clear &= ~(MS_BIND | MS_REC);
  return 0;
}

void crt_mount_opts_free(crt_mount_opts *o) {
  if (o == NULL) return;
  free(o->data);
  o->data = NULL;
}


unsigned long crt_mount_propagation(const char *name) {
  for (size_t i = 0; name && i < sizeof prop_opts / sizeof prop_opts[0]; i++)
    if (!strcmp(name, prop_opts[i].name)) return prop_opts[i].prop;
  return 0;
}

bool crt_mount_is_bind(const crt_mount *m) { return m->opts.bind || (m->type && !strcmp(m->type, "bind")); }
