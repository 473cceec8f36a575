/* crt create / start / run */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crt/cli.h"
#include "crt/create.h"
#include "crt/lifecycle.h"

enum { O_BUNDLE = 'b', O_PIDFILE = 256, O_CONSOLE, O_PIDFD, O_NOPIVOT, O_NOKEYRING, O_PRESERVE, O_DETACH = 'd', O_KEEP, O_NOSUBREAPER };

static const struct option create_opts[] = {
    {"bundle", required_argument, NULL, O_BUNDLE},      {"pid-file", required_argument, NULL, O_PIDFILE},
    {"console-socket", required_argument, NULL, O_CONSOLE}, {"no-pivot", no_argument, NULL, O_NOPIVOT},
    {"pidfd-socket", required_argument, NULL, O_PIDFD},
    {"no-new-keyring", no_argument, NULL, O_NOKEYRING}, {"preserve-fds", required_argument, NULL, O_PRESERVE},
    {"detach", no_argument, NULL, O_DETACH},            {"keep", no_argument, NULL, O_KEEP},
    {"no-subreaper", no_argument, NULL, O_NOSUBREAPER}, {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

static int parse(int argc, char **argv, crt_create_opts *o, bool run, bool *detach, bool *keep, bool *nosub) {
  crt_operands ops = {0};
  int c;
  while ((c = crt_getopt(argc, argv, run ? "-b:dh" : "-b:h", create_opts, argv[0])) != -1) {
    switch (c) {
    case 1: crt_operand_add(&ops, optarg); break;
    case O_BUNDLE: o->bundle = optarg; break;
    case O_PIDFILE: o->pid_file = optarg; break;
    case O_CONSOLE: o->console_socket = optarg; break;
    case O_PIDFD: o->pidfd_socket = optarg; break;
    case O_NOPIVOT: o->no_pivot = true; break;
    case O_NOKEYRING: o->no_new_keyring = true; break;
    case O_PRESERVE: {
      char *end;
      long n = strtol(optarg, &end, 10);
      if (*end || n < 0 || n > 1 << 20) {
        crt_usage_error(argv[0], "invalid value \"%s\" for flag --preserve-fds", optarg);
        return -1;
      }
      o->preserve_fds = (int)n;
      break;
    }
    case O_DETACH:
    case O_KEEP:
    case O_NOSUBREAPER:
      if (!run) {
        char name[64];
        crt_usage_error(argv[0], "flag provided but not defined: %s", crt_go_flag(name, sizeof name, argv[optind - 1]));
        return -1;
      }
      if (c == O_DETACH) *detach = true;
      else if (c == O_KEEP) *keep = true;
      else *nosub = true;
      break;
    case 'h': crt_help_command(stdout, argv[0]); exit(0);
    default: return -1;
    }
  }
  if (crt_operands_end(&ops, argc, argv, 1, 1, "1 argument") < 0) return -1;
  o->id = ops.arg[0];
  o->root = crt_g.root;
  o->argv = crt_g.argv0;
  o->systemd_cgroup = crt_g.systemd_cgroup;
  o->rootless = crt_cli_rootless();
  return 0;
}

int crt_cmd_create(int argc, char **argv) {
  crt_create_opts o = {0};
  bool d, k, n;
  if (parse(argc, argv, &o, false, &d, &k, &n) < 0) return 1;
  crt_create_result res;
  cleanup_err crt_err *err = NULL;
  if (crt_container_create(&o, &res, &err) < 0) return crt_fail(err);
  return 0;
}

int crt_cmd_start(int argc, char **argv) {
  int c;
  static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  while ((c = crt_getopt(argc, argv, "+h", opts, argv[0])) != -1) {
    if (c == 'h') { crt_help_command(stdout, argv[0]); return 0; }
    return 1;
  }
  if (crt_require_args(argv[0], argc - optind, 1, 1, "1 argument") < 0) return 1;
  cleanup_err crt_err *err = NULL;
  if (crt_container_start(crt_g.root, argv[optind], &err) < 0) return crt_fail(err);
  return 0;
}

int crt_cmd_run(int argc, char **argv) {
  crt_run_opts o = {0};
  if (parse(argc, argv, &o.create, true, &o.detach, &o.keep, &o.no_subreaper) < 0) return 1;
  if (o.create.console_socket && !o.detach)
    return crt_usage_error(argv[0], "cannot use console socket if runc will not detach or allocate tty");
  int code = 0;
  cleanup_err crt_err *err = NULL;
  if (crt_container_run(&o, &code, &err) < 0) return crt_fail(err);
  return code;
}
