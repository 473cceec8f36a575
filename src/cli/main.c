/* crt: dispatch to subcommands after the global flags. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crt/cli.h"
#include "crt/log.h"
#include "crt/rootless.h"

static const crt_command commands[] = {
    {"checkpoint", crt_cmd_checkpoint}, {"create", crt_cmd_create}, {"delete", crt_cmd_delete},
    {"events", crt_cmd_events},         {"exec", crt_cmd_exec},     {"features", crt_cmd_features},
    {"kill", crt_cmd_kill},             {"list", crt_cmd_list},     {"pause", crt_cmd_pause},
    {"ps", crt_cmd_ps},                 {"restore", crt_cmd_restore}, {"resume", crt_cmd_resume},
    {"run", crt_cmd_run},               {"spec", crt_cmd_spec},     {"start", crt_cmd_start},
    {"state", crt_cmd_state},           {"update", crt_cmd_update},
};

static const crt_command *find_command(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(commands[i].name, name) == 0) return &commands[i];
  return NULL;
}

/* runc (urfave/cli) answers an unknown topic with status 3. */
static int no_help_topic(const char *name) {
  char msg[512];
  snprintf(msg, sizeof msg, "No help topic for '%s'", name);
  crt_log_error_msg(msg);
  return 3;
}

/* `crt help [COMMAND]`, `crt h [COMMAND]` */
static int help_command(int argc, char **argv) {
  if (argc < 2) {
    crt_help_main(stdout);
    return 0;
  }
  return crt_help_command(stdout, argv[1]) < 0 ? no_help_topic(argv[1]) : 0;
}

static void default_root(void) {
  if (crt_g.root) return;
  static char buf[PATH_MAX];
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
    case O_ROOT:
      crt_g.root = optarg;
      crt_g.root_given = true;
      break;
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
    case 'h': crt_help_main(stdout); return 0;
    case 'v': crt_version_print(stdout, true); return 0;
    default: return 1;
    }
  }
  default_root();
  if (crt_log_init(crt_g.log, strcmp(crt_g.log_format, "json") == 0, crt_g.debug) < 0) {
    fprintf(stderr, "crt: open log file %s: %s\n", crt_g.log, crt_strerror(errno));
    return 1;
  }
  if (!crt_g.root) {
    crt_log_error_msg("XDG_RUNTIME_DIR is too long for the state root (give --root)");
    return 1;
  }
  if (optind >= argc) { /* runc: the help, status 0 */
    crt_help_main(stdout);
    return 0;
  }
  const char *name = argv[optind];
  int sub_argc = argc - optind;
  char **sub_argv = argv + optind;
  if (strcmp(name, "help") == 0 || strcmp(name, "h") == 0) return help_command(sub_argc, sub_argv);
  const crt_command *cmd = find_command(name);
  if (!cmd) return no_help_topic(name);
  /* Before the command parses anything: -h answers even where the
   * arguments would not parse. */
  if (crt_help_requested(sub_argc, sub_argv)) return crt_help_command(stdout, name) < 0 ? 1 : 0;
  optind = 0; /* re-initialise getopt for the subcommand */
  return cmd->fn(sub_argc, sub_argv);
}
