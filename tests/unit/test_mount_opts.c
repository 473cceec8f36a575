#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>

#include <cmocka.h>
#include <libmount.h>

#include "crt/spec.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

typedef struct {
  const char *opts[8];
  unsigned long flags, clear, propagation;
  bool bind, recursive;
  unsigned int attr_set, attr_clr;
  const char *data;
  bool idmap, ridmap, tmpcopyup;
} opt_case;

static const opt_case cases[] = {
    {{NULL}, 0, 0, 0, false, false, 0, 0, NULL},
    {{"ro", NULL}, MS_RDONLY, 0, 0, false, false, 0, 0, NULL},
    {{"ro", "rw", NULL}, 0, MS_RDONLY, 0, false, false, 0, 0, NULL},
    {{"rw", "ro", NULL}, MS_RDONLY, 0, 0, false, false, 0, 0, NULL},
    {{"nosuid", "noexec", "nodev", NULL}, MS_NOSUID | MS_NOEXEC | MS_NODEV, 0, 0, false, false, 0, 0, NULL},
    {{"suid", "exec", "dev", NULL}, 0, MS_NOSUID | MS_NOEXEC | MS_NODEV, 0, false, false, 0, 0, NULL},
    {{"nosuid", "strictatime", "mode=755", "size=65536k", NULL},
     MS_NOSUID | MS_STRICTATIME, 0, 0, false, false, 0, 0, "mode=755,size=65536k"},
    {{"noatime", "nodiratime", "relatime", NULL}, MS_NOATIME | MS_NODIRATIME | MS_RELATIME, 0, 0, false, false, 0, 0, NULL},
    {{"atime", "diratime", NULL}, 0, MS_NOATIME | MS_NODIRATIME, 0, false, false, 0, 0, NULL},
    {{"sync", "dirsync", "mand", NULL}, MS_SYNCHRONOUS | MS_DIRSYNC | MS_MANDLOCK, 0, 0, false, false, 0, 0, NULL},
    {{"bind", NULL}, 0, 0, 0, true, false, 0, 0, NULL},
    {{"rbind", "ro", NULL}, MS_RDONLY, 0, 0, true, true, 0, 0, NULL},
    {{"rbind", "rprivate", NULL}, 0, 0, MS_PRIVATE | MS_REC, true, true, 0, 0, NULL},
    {{"private", NULL}, 0, 0, MS_PRIVATE, false, false, 0, 0, NULL},
    {{"shared", NULL}, 0, 0, MS_SHARED, false, false, 0, 0, NULL},
    {{"rshared", NULL}, 0, 0, MS_SHARED | MS_REC, false, false, 0, 0, NULL},
    {{"slave", NULL}, 0, 0, MS_SLAVE, false, false, 0, 0, NULL},
    {{"rslave", NULL}, 0, 0, MS_SLAVE | MS_REC, false, false, 0, 0, NULL},
    {{"unbindable", NULL}, 0, 0, MS_UNBINDABLE, false, false, 0, 0, NULL},
    {{"runbindable", NULL}, 0, 0, MS_UNBINDABLE | MS_REC, false, false, 0, 0, NULL},
    {{"rro", "rnosuid", "rnodev", "rnoexec", NULL}, 0, 0, 0, false, false,
     MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, 0, NULL},
    {{"rrw", "rsuid", "rdev", "rexec", NULL}, 0, 0, 0, false, false, 0,
     MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, NULL},
    {{"rro", "rrw", NULL}, 0, 0, 0, false, false, 0, MOUNT_ATTR_RDONLY, NULL},
    {{"rnoatime", NULL}, 0, 0, 0, false, false, MOUNT_ATTR_NOATIME, MOUNT_ATTR__ATIME, NULL},
    {{"rnoatime", "rrelatime", NULL}, 0, 0, 0, false, false, MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME, NULL},
    {{"rstrictatime", NULL}, 0, 0, 0, false, false, MOUNT_ATTR_STRICTATIME, MOUNT_ATTR__ATIME, NULL},
    {{"rnodiratime", "rnosymfollow", NULL}, 0, 0, 0, false, false,
     MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_NOSYMFOLLOW, 0, NULL},
    {{"rdiratime", "rsymfollow", NULL}, 0, 0, 0, false, false, 0,
     MOUNT_ATTR_NODIRATIME | MOUNT_ATTR_NOSYMFOLLOW, NULL},
    {{"nosymfollow", NULL}, MS_NOSYMFOLLOW, 0, 0, false, false, 0, 0, NULL},
    {{"nosymfollow", "symfollow", NULL}, 0, MS_NOSYMFOLLOW, 0, false, false, 0, 0, NULL},
    {{"defaults", NULL}, 0, 0, 0, false, false, 0, 0, NULL},
    {{"newinstance", "ptmxmode=0666", "mode=0620", "gid=5", NULL}, 0, 0, 0, false, false, 0, 0,
     "newinstance,ptmxmode=0666,mode=0620,gid=5"},
    {{"lowerdir=/a:/b", "upperdir=/u", "workdir=/w", NULL}, 0, 0, 0, false, false, 0, 0,
     "lowerdir=/a:/b,upperdir=/u,workdir=/w"},
    /* A comma inside one entry is data, never several flags. */
    {{"ro,nosuid", NULL}, 0, 0, 0, false, false, 0, 0, "ro,nosuid"},
    {{"ro=1", NULL}, 0, 0, 0, false, false, 0, 0, "ro=1"},
    {{"user", NULL}, 0, 0, 0, false, false, 0, 0, "user"},
    {{"", "ro", "", NULL}, MS_RDONLY, 0, 0, false, false, 0, 0, NULL},
};

static void run_case(const opt_case *c, size_t idx) {
  crt_strv v = {(char **)c->opts, 0};
  while (c->opts[v.len]) v.len++;
  crt_mount_opts o;
  crt_err *err = NULL;
  assert_int_equal(crt_mount_opts_parse(&v, &o, &err), 0);
  assert_null(err);
  print_message("case %zu\n", idx);
  assert_int_equal(o.flags, c->flags);
  assert_int_equal(o.clear, c->clear);
  assert_int_equal(o.propagation, c->propagation);
  assert_int_equal(o.bind, c->bind);
  assert_int_equal(o.recursive, c->recursive);
  assert_int_equal(o.attr_set, c->attr_set);
  assert_int_equal(o.attr_clr, c->attr_clr);
  if (c->data) assert_string_equal(o.data, c->data);
  else assert_null(o.data);
  crt_mount_opts_free(&o);
  assert_null(o.data);
}

static void test_table(void **state) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i], i);
}

static void test_flags_recorded(void **state) {
  char *opts[] = {"idmap", "ridmap", "tmpcopyup", "size=1m", NULL};
  crt_strv v = {opts, 4};
  crt_mount_opts o;
  crt_err *err = NULL;
  assert_int_equal(crt_mount_opts_parse(&v, &o, &err), 0);
  assert_true(o.idmap);
  assert_true(o.ridmap);
  assert_true(o.tmpcopyup);
  assert_string_equal(o.data, "size=1m");
  crt_mount_opts_free(&o);
}

static void test_null_options(void **state) {
  crt_mount_opts o;
  crt_err *err = NULL;
  assert_int_equal(crt_mount_opts_parse(NULL, &o, &err), 0);
  assert_int_equal(o.flags, 0);
  assert_null(o.data);
  crt_mount_opts_free(&o);
  crt_mount_opts_free(NULL);
}

/* crt's answer for option name against libmount's (its Linux map, through
 * src/util/libmount_lazy.c): the same flags set and cleared, and filesystem
 * data exactly when libmount knows no flag.  Names crt takes itself into
 * other fields (bind, propagation) are skipped. */
static void check_against_libmount(const char *name) {
  const struct libmnt_optmap *map = mnt_get_builtin_optmap(MNT_LINUX_MAP);
  assert_non_null(map);
  unsigned long on = 0, off = ~0UL;
  assert_int_equal(mnt_optstr_get_flags(name, &on, map), 0);
  assert_int_equal(mnt_optstr_get_flags(name, &off, map), 0);
  char *opts[] = {(char *)name, NULL};
  crt_strv v = {opts, 1};
  crt_mount_opts o;
  crt_err *err = NULL;
  assert_int_equal(crt_mount_opts_parse(&v, &o, &err), 0);
  if (!o.bind && !o.propagation) {
    print_message("%s: crt %#lx/%#lx, libmount %#lx/%#lx\n", name, o.flags, o.clear, on, ~off);
    assert_int_equal(o.flags, on);
    assert_int_equal(o.clear, ~off);
    assert_int_equal(o.data != NULL, on == 0 && off == ~0UL);
  }
  crt_mount_opts_free(&o);
}

/* The options crt parses without loading libmount (src/spec/mount_opts.c:
 * common_flags, known_data), and every name of libmount's map. */
static void test_common_options_match_libmount(void **state) {
  static const char *const common[] = {
      "ro", "rw", "nosuid", "suid", "nodev", "dev", "noexec", "exec", "sync", "async", "dirsync", "mand", "nomand",
      "silent", "loud", "noatime", "atime", "nodiratime", "diratime", "relatime", "norelatime", "strictatime",
      "nostrictatime", "lazytime", "nolazytime", "iversion", "noiversion", "newinstance", "mode=755",
      "size=65536k", "gid=5", "ro=1", "context=\"system_u:object_r:container_file_t:s0\"", NULL};
  for (size_t i = 0; common[i]; i++) check_against_libmount(common[i]);
  for (const struct libmnt_optmap *m = mnt_get_builtin_optmap(MNT_LINUX_MAP); m && m->name; m++)
    if (strpbrk(m->name, "=[") == NULL) check_against_libmount(m->name);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table),
      cmocka_unit_test(test_flags_recorded),
      cmocka_unit_test(test_null_options),
      cmocka_unit_test(test_common_options_match_libmount),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
