/* crt kill / delete */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crt/cli.h"
#include "crt/lifecycle.h"

int crt_cmd_kill(int argc, char **argv) {
  static const struct option opts[] = {
      {"all", no_argument, NULL, 'a'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  bool all = false;
  crt_operands ops = {0};
  int c;
  while ((c = crt_getopt(argc, argv, "-ah", opts, argv[0])) != -1) {
    if (c == 1) crt_operand_add(&ops, optarg);
    else if (c == 'a') all = true;
    else if (c == 'h') { crt_help_command(stdout, argv[0]); return 0; } else return 1;
  }
  if (crt_operands_end(&ops, argc, argv, 1, 2, "1 or 2 arguments") < 0) return 1;
  int sig = SIGTERM;
  if (ops.n == 2) {
    sig = crt_parse_signal(ops.arg[1]);
    if (sig < 0) return crt_usage_error(argv[0], "unknown signal \"%s\"", ops.arg[1]);
  }
  cleanup_err crt_err *err = NULL;
  if (crt_container_kill(crt_g.root, ops.arg[0], sig, all, &err) < 0) return crt_fail(err);
  return 0;
}

int crt_cmd_delete(int argc, char **argv) {
  static const struct option opts[] = {
      {"force", no_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  bool force = false;
  crt_operands ops = {0};
  int c;
  while ((c = crt_getopt(argc, argv, "-fh", opts, argv[0])) != -1) {
    if (c == 1) crt_operand_add(&ops, optarg);
    else if (c == 'f') force = true;
    else if (c == 'h') { crt_help_command(stdout, argv[0]); return 0; } else return 1;
  }
  if (crt_operands_end(&ops, argc, argv, 1, 1, "1 argument") < 0) return 1;
  cleanup_err crt_err *err = NULL;
  if (crt_container_delete(crt_g.root, ops.arg[0], force, &err) < 0) return crt_fail(err);
  return 0;
}
