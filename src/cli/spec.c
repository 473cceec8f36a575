/* crt spec: writes runc's default config.json. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crt/cgroup.h"
#include "crt/cli.h"
#include "crt/fs.h"
#include "crt/spec.h"

int crt_cmd_spec(int argc, char **argv) {
  enum { O_ROOTLESS = 256 };
  static const struct option opts[] = {{"bundle", required_argument, NULL, 'b'},
                                       {"rootless", no_argument, NULL, O_ROOTLESS},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *bundle = NULL;
  bool rootless = false;
  int c;
  while ((c = crt_getopt(argc, argv, "+b:h", opts, "spec")) != -1) {
    switch (c) {
    case 'b': bundle = optarg; break;
    case O_ROOTLESS: rootless = true; break;
    case 'h': crt_help_command(stdout, "spec"); return 0;
    default: return 1;
    }
  }
  if (crt_require_args("spec", argc - optind, 0, 0, "0 arguments") < 0) return 1;
  cleanup_err crt_err *err = NULL;
  if (bundle && chdir(bundle) < 0) {
    crt_error(&err, errno, "chdir %s", bundle);
    return crt_fail(err);
  }
  struct stat st;
  if (lstat("config.json", &st) == 0) {
    crt_error(&err, 0, "File config.json exists. Remove it first");
    return crt_fail(err);
  }
  /* as runc: a cgroup namespace on a pure cgroup2 host only (on v1 and
   * hybrid the same five namespaces as runc's) */
  crt_spec *s = crt_spec_default(rootless, crt_cgroup_host()->mode == CRT_CGROUP_MODE_V2);
  char *json = s ? crt_spec_to_json(s, true) : NULL;
  crt_spec_free(s);
  if (json == NULL) {
    crt_error(&err, ENOMEM, "generate config.json");
    return crt_fail(err);
  }
  size_t len = strlen(json);
  if (len && json[len - 1] == '\n') len--; /* runc writes no trailing newline */
  int r = crt_write_file("config.json", json, len, 0666, &err);
  free(json);
  return r < 0 ? crt_fail(err) : 0;
}
