/* libmount, loaded when first called instead of at every start.
 *
 * crt uses libmount for its mount option map (mountinfo it reads by hand:
 * src/linux/procinfo.c), which only some commands and configs need; linked
 * the usual way it brings libblkid, libselinux and libpcre2, and their
 * symbol relocations cost every crt process ~0.9 M instructions (~0.3 ms)
 * before main.  So crt is not linked against libmount: these definitions
 * of the libmount calls it makes (the prototypes come from <libmount.h>)
 * dlopen the library on first use and forward.  Common mount options are parsed without it
 * (src/spec/mount_opts.c).
 *
 * The library is only loaded while the process still has the root it
 * started with (a dlopen after a chroot or pivot_root into a container
 * would run the container's code): later, and when it cannot be loaded,
 * the calls fail (NULL, or a negative number) with errno set. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <libmount.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "crt/log.h"

#define LIBMOUNT_SONAME "libmount.so.1"

static struct stat start_root;
static bool have_start_root;

__attribute__((constructor)) static void note_start_root(void) { have_start_root = stat("/", &start_root) == 0; }

static bool same_root(void) {
  struct stat now;
  return have_start_root && stat("/", &now) == 0 && now.st_dev == start_root.st_dev &&
         now.st_ino == start_root.st_ino;
}

static void *libmount(void) {
  static void *handle;
  static bool tried;
  if (tried) return handle;
  tried = true;
  if (!same_root()) {
    crt_warn("not loading %s: the root directory is no longer the one crt started with", LIBMOUNT_SONAME);
    return NULL;
  }
  handle = dlopen(LIBMOUNT_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle) crt_warn("loading %s: %s", LIBMOUNT_SONAME, dlerror());
  return handle;
}

static void *libmount_sym(const char *name) {
  void *h = libmount();
  void *f = h ? dlsym(h, name) : NULL;
  if (h && !f) crt_warn("%s: no %s: %s", LIBMOUNT_SONAME, name, dlerror());
  if (!f) errno = ELIBACC;
  return f;
}

/* One forwarding definition: RET NAME PARAMS calls the library's NAME with
 * ARGS, or returns FAIL when it is not there. */
#define LAZY(ret, name, params, args, fail)          \
  ret name params {                                 \
    static ret(*fn) params;                         \
    if (!fn) fn = (ret(*) params)libmount_sym(#name); \
    if (!fn) return fail;                           \
    return fn args;                                 \
  }

/* the option map and its parser: src/spec/mount_opts.c, features.c */
LAZY(const struct libmnt_optmap *, mnt_get_builtin_optmap, (int id), (id), NULL)
LAZY(int, mnt_optstr_get_flags, (const char *optstr, unsigned long *flags, const struct libmnt_optmap *map),
     (optstr, flags, map), -ELIBACC)
