/* The pieces of checkpoint/restore that need no CRIU: the image
 * description (crt-checkpoint.txt) and the criu argument builder. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "crt/checkpoint.h"
#include "crt/criu.h"
#include "crt/fs.h"

static char *tmpdir(void) {
  char *d = strdup("/tmp/crt-ut-ckpt.XXXXXX");
  assert_non_null(mkdtemp(d));
  return d;
}

static void write_desc(const char *dir, const char *text) {
  char p[256];
  snprintf(p, sizeof p, "%s/%s", dir, CRT_CKPT_DESC);
  crt_err *err = NULL;
  assert_int_equal(crt_write_file(p, text, strlen(text), 0600, &err), 0);
}

static void test_desc_round_trip(void **state) {
  char *d = tmpdir();
  crt_ckpt_mount m[] = {{"bind", "/data", ""},          {"cgroup", "/sys/fs/cgroup/cpu", "cpu"},
                        {"cgroup", "/sys/fs/cgroup", ""}, {"console", "/dev/console", ""},
                        {"devpts", "/dev/pts", ""}};
  const size_t nm = sizeof m / sizeof m[0];
  crt_ckpt_desc in = {.id = "c1", .stdio = {"pipe:[12]", "/dev/pts/0", NULL}, .tty = "tty[8800:4f]", .ext_netns = true,
                      .mounts = m, .n_mounts = nm};
  crt_err *err = NULL;
  assert_int_equal(crt_ckpt_desc_save(d, &in, &err), 0);
  crt_ckpt_desc out;
  assert_int_equal(crt_ckpt_desc_load(d, &out, &err), 0);
  assert_string_equal(out.id, "c1");
  assert_string_equal(out.stdio[0], "pipe:[12]");
  assert_string_equal(out.stdio[1], "/dev/pts/0");
  assert_null(out.stdio[2]);
  assert_string_equal(out.tty, "tty[8800:4f]");
  assert_true(out.ext_netns);
  assert_int_equal(out.n_mounts, nm);
  for (size_t i = 0; i < nm; i++) {
    assert_string_equal(out.mounts[i].kind, m[i].kind);
    assert_string_equal(out.mounts[i].key, m[i].key);
    assert_string_equal(out.mounts[i].arg, m[i].arg); /* empty fields survive */
  }
  crt_ckpt_desc_free(&out);
  crt_rm_rf(d);
  free(d);
}

static void test_desc_refused(void **state) {
  char *d = tmpdir();
  crt_ckpt_desc out;
  crt_err *err = NULL;
  assert_int_equal(crt_ckpt_desc_load(d, &out, &err), -1);
  assert_non_null(strstr(err->msg, "not an image made by crt checkpoint"));
  crt_err_free(&err);
  static const char *const bad[] = {"id\tc1\nmount\tbind\t/x\n", "id\tc1\nstdio\t7\tpipe:[1]\n",
                                    "id\tc1\nwhat\tever\n", "stdio\t0\tpipe:[1]\n",
                                    "id\tc1\nstdio\t0\tpipe:[1]\nstdio\t0\tpipe:[2]\n",
                                    "id\tc1\nmount\tbind\t/x\t\textra\n", "id\tc1\nid\tc2\n",
                                    "id\tc1\nmount\tproc\t/proc\t\n",
                                    "id\tc1\nmount\tcgroup\t/sys/fs/cgroup/cpu\t..\n",
                                    "id\tc1\nmount\tcgroup\t/sys/fs/cgroup/cpu\t../../etc\n",
                                    "id\tc1\nmount\tconsole\t/etc\t\n", "id\tc1\nmount\tbind\trel\t\n",
                                    "id\tc1\nmount\tdevpts\t/etc\t\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    write_desc(d, bad[i]);
    assert_int_equal(crt_ckpt_desc_load(d, &out, &err), -1);
    assert_non_null(err);
    crt_err_free(&err);
  }
  crt_rm_rf(d);
  free(d);
}

/* restore's devpts for the terminal: the config's options; with a user
 * namespace, uid= and gid= through the mappings (host ids). */
static void test_devpts_data(void **state) {
  crt_mount m = {.destination = "/dev/pts", .type = "devpts"};
  m.opts.data = "newinstance,ptmxmode=0666,mode=0620,gid=5,uid=7";
  crt_linux lx = {0};
  crt_spec spec = {.linux_ = &lx};
  char *d = crt_ckpt_devpts_data(&spec, &m);
  assert_string_equal(d, "newinstance,ptmxmode=0666,mode=0620,gid=5,uid=7");
  free(d);
  d = crt_ckpt_devpts_data(&spec, NULL);
  assert_string_equal(d, "newinstance,ptmxmode=0666,mode=0620");
  free(d);
  crt_namespace ns = {.type = CRT_NS_USER};
  crt_idmap gids[] = {{.container_id = 0, .host_id = 100000, .size = 3}, {.container_id = 3, .host_id = 200000, .size = 10}};
  crt_idmap uids[] = {{.container_id = 0, .host_id = 300000, .size = 5}};
  lx.namespaces = &ns;
  lx.n_namespaces = 1;
  lx.gid_mappings = (crt_idmapv){gids, 2};
  lx.uid_mappings = (crt_idmapv){uids, 1};
  d = crt_ckpt_devpts_data(&spec, &m);
  /* gid 5: the second range; uid 7 is not mapped and left out */
  assert_string_equal(d, "newinstance,ptmxmode=0666,mode=0620,gid=200002");
  free(d);
}

static void test_args(void **state) {
  crt_args a = {0};
  crt_args_add(&a, "criu");
  crt_args_addf(&a, "--tree=%d", 42);
  crt_criu_opts c = {.tcp_established = true, .file_locks = true, .empty_netns = true, .page_server = "10.0.0.1:27"};
  crt_err *err = NULL;
  assert_int_equal(crt_ckpt_common_args(&a, &c, "/img", "/work", "/work/dump.log", &err), 0);
  char *all = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&all, &len);
  for (size_t i = 0; i < a.n; i++) fprintf(f, "%s%s", i ? " " : "", a.v[i]);
  fclose(f);
  assert_string_equal(all, "criu --tree=42 --images-dir=/img --work-dir=/work --log-file=/work/dump.log -v4 "
                           "--manage-cgroups --tcp-established --file-locks --empty-ns=net --page-server "
                           "--address=10.0.0.1 --port=27");
  assert_null(a.v[a.n]);
  free(all);
  crt_args_free(&a);
  c.page_server = "nocolon";
  assert_int_equal(crt_ckpt_common_args(&a, &c, "/i", "/w", "/l", &err), -1);
  assert_non_null(strstr(err->msg, "--page-server nocolon: want IP:PORT"));
  crt_err_free(&err);
  crt_args_free(&a);
}

static void test_check_reports_output(void **state) {
  char *d = tmpdir();
  char p[256];
  snprintf(p, sizeof p, "%s/criu", d);
  const char *script = "#!/bin/sh\necho \"Error (x.c:1): no vdso\" >&2\nexit 1\n";
  crt_err *err = NULL;
  assert_int_equal(crt_write_file(p, script, strlen(script), 0700, &err), 0);
  assert_int_equal(crt_criu_check(p, NULL, &err), -1);
  assert_non_null(strstr(err->msg, "criu check: exited with status 1: Error (x.c:1): no vdso"));
  crt_err_free(&err);
  assert_int_equal(crt_criu_check("/nonexistent/criu", "mem_dirty_track", &err), -1);
  assert_non_null(strstr(err->msg, "/nonexistent/criu check --feature mem_dirty_track: exec /nonexistent/criu: no such file or directory"));
  crt_err_free(&err);
  crt_rm_rf(d);
  free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_desc_round_trip),
      cmocka_unit_test(test_desc_refused),
      cmocka_unit_test(test_devpts_data), cmocka_unit_test(test_args),
      cmocka_unit_test(test_check_reports_output),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
