/* crt: dispatch to subcommands after the global flags. */
#define _GNU_SOURCE
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crt/cli.h"
#include "crt/log.h"
#include "crt/rootless.h"

/* Subcommands that are not part of this build are weak: crt says so
 * instead of failing to link. */
#pragma weak crt_cmd_create
#pragma weak crt_cmd_start
#pragma weak crt_cmd_run
#pragma weak crt_cmd_state
#pragma weak crt_cmd_list
#pragma weak crt_cmd_kill
#pragma weak crt_cmd_delete
#pragma weak crt_cmd_exec
#pragma weak crt_cmd_spec
#pragma weak crt_cmd_features
#pragma weak crt_cmd_pause
#pragma weak crt_cmd_resume
#pragma weak crt_cmd_update
#pragma weak crt_cmd_events
#pragma weak crt_cmd_ps
#pragma weak crt_cmd_checkpoint
#pragma weak crt_cmd_restore

static const crt_command commands[] = {
    {"checkpoint", "checkpoint a running container", crt_cmd_checkpoint},
    {"create", "create a container", crt_cmd_create},
    {"delete", "delete any resources held by the container", crt_cmd_delete},
    {"events", "display container events such as OOM notifications, cpu, memory, and IO usage statistics", crt_cmd_events},
    {"exec", "execute new process inside the container", crt_cmd_exec},
    {"features", "show the enabled features", crt_cmd_features},
    {"kill", "kill sends the specified signal (default: SIGTERM) to the container's init process", crt_cmd_kill},
    {"list", "lists containers started by crt with the given root", crt_cmd_list},
    {"pause", "pause suspends all processes inside the container", crt_cmd_pause},
    {"ps", "ps displays the processes running inside a container", crt_cmd_ps},
    {"restore", "restore a container from a previous checkpoint", crt_cmd_restore},
    {"resume", "resumes all processes that have been previously paused", crt_cmd_resume},
    {"run", "create and run a container", crt_cmd_run},
    {"spec", "create a new specification file", crt_cmd_spec},
    {"start", "executes the user defined process in a created container", crt_cmd_start},
    {"state", "output the state of a container", crt_cmd_state},
    {"update", "update container resource constraints", crt_cmd_update},
};

crt_globals crt_g = {.root = NULL, .log_format = "text", .rootless = "auto"};

static void print_version(void) {
  const struct scmp_version *v = seccomp_version();
  printf("crt version %s\ncommit: %s\nspec: 1.3.0\nlibseccomp: %u.%u.%u\n", CRT_VERSION, CRT_COMMIT,
         v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0);
}

static void print_help(FILE *f) {
  fprintf(f,
          "crt - a runc-compatible OCI container runtime\n\n"
          "USAGE:\n   crt [global options] command [command options] [arguments...]\n\n"
          "COMMANDS:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (commands[i].fn) fprintf(f, "   %-12s%s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "\nGLOBAL OPTIONS:\n"
          "   --debug                  enable debug logging\n"
          "   --log value              set the log file to write crt logs to (default is '/dev/stderr')\n"
          "   --log-format value       set the log format ('text' (default), or 'json') (default: \"text\")\n"
          "   --root value             root directory for storage of container state (default: \"/run/crt\")\n"
          "   --criu value             path to the criu binary used for checkpoint and restore\n"
          "   --systemd-cgroup         enable systemd cgroup support\n"
          "   --rootless value         ignore cgroup permission errors ('true', 'false', or 'auto') (default: \"auto\")\n"
          "   --help, -h               show help\n"
          "   --version, -v            print the version\n");
}

static void default_root(void) {
  if (crt_g.root) return;
  static char buf[4096];
  const crt_rootless_ctx *r = crt_rootless_get();
  crt_g.root = crt_rootless_state_root(r->euid == 0, r->in_userns, getenv("XDG_RUNTIME_DIR"), getenv("USER"), buf,
                                       sizeof buf);
}

int main(int argc, char **argv) {
  enum { O_ROOT = 256, O_LOG, O_LOGFMT, O_DEBUG, O_SYSTEMD, O_ROOTLESS, O_CRIU };
  static const struct option opts[] = {
      {"root", required_argument, NULL, O_ROOT},         {"log", required_argument, NULL, O_LOG},
      {"log-format", required_argument, NULL, O_LOGFMT}, {"debug", no_argument, NULL, O_DEBUG},
      {"systemd-cgroup", no_argument, NULL, O_SYSTEMD},  {"rootless", required_argument, NULL, O_ROOTLESS},
      {"criu", required_argument, NULL, O_CRIU},         {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'v'},               {NULL, 0, NULL, 0}};
  crt_g.argv0 = argv;
  int c;
  while ((c = crt_getopt(argc, argv, "+hv", opts, NULL)) != -1) {
    switch (c) {
    case O_ROOT: crt_g.root = optarg; break;
    case O_LOG: crt_g.log = optarg; break;
    case O_LOGFMT:
      if (strcmp(optarg, "text") && strcmp(optarg, "json"))
        return crt_usage_error(NULL, "invalid log-format: %s", optarg);
      crt_g.log_format = optarg;
      break;
    case O_DEBUG: crt_g.debug = true; break;
    case O_SYSTEMD: crt_g.systemd_cgroup = true; break;
    case O_ROOTLESS:
      if (strcmp(optarg, "true") && strcmp(optarg, "false") && strcmp(optarg, "auto"))
        return crt_usage_error(NULL, "invalid --rootless value: %s", optarg);
      crt_g.rootless = optarg;
      break;
    case O_CRIU: crt_g.criu = optarg; break;
    case 'h': print_help(stdout); return 0;
    case 'v': print_version(); return 0;
    default: return 1;
    }
  }
  default_root();
  if (crt_log_init(crt_g.log, strcmp(crt_g.log_format, "json") == 0, crt_g.debug) < 0) {
    fprintf(stderr, "crt: open log file %s: %s\n", crt_g.log, strerror(errno));
    return 1;
  }
  if (optind >= argc) {
    print_help(stderr);
    return 1;
  }
  const char *name = argv[optind];
  if (strcmp(name, "help") == 0) {
    print_help(stdout);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(commands[i].name, name) != 0) continue;
    if (!commands[i].fn) {
      fprintf(stderr, "crt: %s: not supported by this build\n", name);
      return 1;
    }
    int sub_argc = argc - optind;
    char **sub_argv = argv + optind;
    optind = 0; /* re-initialise getopt for the subcommand */
    return commands[i].fn(sub_argc, sub_argv);
  }
  crt_log_error_msg("unknown command");
  fprintf(stderr, "No help topic for '%s'\n", name);
  return 1;
}
