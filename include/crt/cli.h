/* Command-line surface shared by every subcommand (runc's). */
#ifndef CRT_CLI_H
#define CRT_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "crt/error.h"

typedef struct {
  const char *root;       /* --root, default /run/crt (rootless: $XDG_RUNTIME_DIR/crt) */
  const char *log;        /* --log */
  const char *log_format; /* --log-format text|json */
  const char *rootless;   /* --rootless true|false|auto */
  const char *criu;
  bool debug;
  bool systemd_cgroup;
  bool root_given;        /* --root was on the command line */
  char **argv0;           /* the original argv, for re-exec */
} crt_globals;

extern crt_globals crt_g;

/* A subcommand: argv[0] is the command name, flags follow. */
typedef int (*crt_cmd_fn)(int argc, char **argv);

typedef struct {
  const char *name;
  crt_cmd_fn fn;
} crt_command;

/* Help in runc's (urfave/cli's) layout, from the tables in src/cli/help.c.
 * crt_help_command prints NAME/USAGE/DESCRIPTION/OPTIONS of one command
 * (-1: no such command); crt_help_main the global help, listing every
 * command. */
int crt_help_command(FILE *f, const char *name);
void crt_help_main(FILE *f);
/* true when argv (argv[0] the command) asks for -h/--help */
bool crt_help_requested(int argc, char **argv);
/* "crt version X\ncommit: ..." (with_name) or the lines after "version" */
void crt_version_print(FILE *f, bool with_name);

/* Whether a command that makes a cgroup runs rootless (cgroup permission
 * errors tolerated): src/linux/rootless.c's decision (euid != 0 or a user
 * namespace) or --rootless true.  create and restore both ask it. */
bool crt_cli_rootless(void);

/* Prints "crt: MSG" (and logs it); returns exit code 1. */
int crt_fail(crt_err *err);
/* Usage error: "crt CMD: MSG" + hint; returns 1. */
int crt_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A flag as Go's flag package names it in runc's usage errors: one dash,
 * no "=value" ("--bundle=x" is "-bundle"); in buf, or "?" for NULL. */
const char *crt_go_flag(char *buf, size_t size, const char *arg);

/* getopt_long wrapper: --flag=value and --flag value alike, unknown flags
 * reported by name.  shortopts starting with "+" stop at the first operand
 * (exec, ps: what follows the id is the command); "-" returns each operand
 * as code 1 (see crt_operands).  Returns the option value, -1 at the end,
 * '?' after printing a usage error. */
int crt_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts, const char *cmd);

/* Parses a signal as runc does: "KILL", "sigkill", "9", "0" (existence
 * check); -1 when unknown. */
int crt_parse_signal(const char *s);

/* Exact positional-argument check: prints a usage error and returns -1. */
int crt_require_args(const char *cmd, int have, int min, int max, const char *what);

/* Operands of a command whose flags may follow them, as with runc's
 * urfave/cli, which moves flags in front of the operands (`runc kill ID 9
 * --all`, `runc delete ID --force`).  Parse with a '-' optstring: each
 * operand comes back as code 1 and goes to crt_operand_add; crt_operands_end
 * adds what follows "--" and checks the count. */
typedef struct {
  char *arg[2]; /* the first two operands: no command takes more */
  int n;        /* how many were given */
} crt_operands;
void crt_operand_add(crt_operands *o, char *arg);
int crt_operands_end(crt_operands *o, int argc, char **argv, int min, int max, const char *what);

/* Subcommands. */
int crt_cmd_create(int argc, char **argv);
int crt_cmd_start(int argc, char **argv);
int crt_cmd_run(int argc, char **argv);
int crt_cmd_state(int argc, char **argv);
int crt_cmd_list(int argc, char **argv);
int crt_cmd_kill(int argc, char **argv);
int crt_cmd_delete(int argc, char **argv);
int crt_cmd_exec(int argc, char **argv);
int crt_cmd_spec(int argc, char **argv);
int crt_cmd_features(int argc, char **argv);
int crt_cmd_pause(int argc, char **argv);
int crt_cmd_resume(int argc, char **argv);
int crt_cmd_update(int argc, char **argv);
int crt_cmd_events(int argc, char **argv);
int crt_cmd_ps(int argc, char **argv);
int crt_cmd_checkpoint(int argc, char **argv);
int crt_cmd_restore(int argc, char **argv);

#endif
