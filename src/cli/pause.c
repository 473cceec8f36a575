/* crt pause / resume: freeze and thaw every process of the container. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crt/cli.h"
#include "crt/ops.h"

static int parse(int argc, char **argv) {
  static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  int c;
  while ((c = crt_getopt(argc, argv, "+h", opts, argv[0])) != -1) {
    if (c == 'h') {
      crt_help_command(stdout, argv[0]);
      return 0;
    }
    return 1;
  }
  if (crt_require_args(argv[0], argc - optind, 1, 1, "1 argument") < 0) return 1;
  return -1;
}

static int run(const char *id, bool freeze) {
  cleanup_err crt_err *err = NULL;
  return crt_container_pause(crt_g.root, id, freeze, &err) < 0 ? crt_fail(err) : 0;
}

int crt_cmd_pause(int argc, char **argv) {
  int rc = parse(argc, argv);
  if (rc >= 0) return rc;
  return run(argv[optind], true);
}

int crt_cmd_resume(int argc, char **argv) {
  int rc = parse(argc, argv);
  if (rc >= 0) return rc;
  return run(argv[optind], false);
}
