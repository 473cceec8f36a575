/* crt ps: the container's processes, through ps(1) filtered by pid (runc). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crt/cli.h"
#include "crt/ops.h"
#include "crt/spawn.h"
#include "crt/str.h"

enum { PS_OUTPUT_MAX = 64 << 20 }; /* ps's table is read whole: bounded, as every read of crt */

static bool has_pid(const pid_t *v, size_t n, pid_t p) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == p) return true;
  return false;
}

/* Runs ps with args (none: -ef) and returns its whole stdout; its stderr
 * is the error's, as runc's (Go's Output()). */
static int run_ps(char **args, int nargs, char **out, crt_err **err) {
  cleanup_free char **argv = calloc((size_t)nargs + 2, sizeof *argv);
  if (!argv) return crt_error(err, ENOMEM, "ps");
  argv[0] = "ps";
  for (int i = 0; i < nargs; i++) argv[i + 1] = args[i];
  if (nargs == 0) argv[1] = "-ef";
  return crt_spawn(argv, &(crt_spawn_opts){.out = out, .out_max = PS_OUTPUT_MAX}, err);
}

/* Index of the PID column in ps's header. */
static int pid_column(const char *header) {
  cleanup_free char *h = strdup(header);
  char *save;
  int i = 0;
  for (char *t = h ? strtok_r(h, " \t", &save) : NULL; t; t = strtok_r(NULL, " \t", &save), i++)
    if (strcmp(t, "PID") == 0) return i;
  return -1;
}

/* The pid in column col of line; -1 when there is none or it is no number. */
static pid_t field_pid(const char *line, int col) {
  cleanup_free char *l = strdup(line);
  char *save;
  int i = 0;
  long pid;
  for (char *t = l ? strtok_r(l, " \t", &save) : NULL; t; t = strtok_r(NULL, " \t", &save), i++)
    if (i == col) return crt_parse_long(t, 0, INT_MAX, &pid) < 0 ? -1 : (pid_t)pid;
  return -1;
}

static int table(pid_t *pids, size_t n, char **args, int nargs, crt_err **err) {
  cleanup_free char *out = NULL;
  if (run_ps(args, nargs, &out, err) < 0) return -1;
  char *save;
  char *line = strtok_r(out, "\n", &save);
  if (!line) return crt_error(err, 0, "ps: no output");
  int col = pid_column(line);
  if (col < 0) return crt_error(err, 0, "couldn't find PID field in ps output");
  printf("%s\n", line);
  while ((line = strtok_r(NULL, "\n", &save))) {
    pid_t pid = field_pid(line, col);
    if (pid < 0) return crt_error(err, EINVAL, "ps: unable to parse pid in \"%s\"", line); /* as runc */
    if (has_pid(pids, n, pid)) printf("%s\n", line);
  }
  return 0;
}

int crt_cmd_ps(int argc, char **argv) {
  static const struct option opts[] = {
      {"format", required_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  const char *format = "table";
  int c;
  while ((c = crt_getopt(argc, argv, "+f:h", opts, argv[0])) != -1) {
    if (c == 'f') format = optarg;
    else if (c == 'h') { crt_help_command(stdout, argv[0]); return 0; } else return 1;
  }
  if (crt_require_args(argv[0], argc - optind, 1, -1, "1 argument") < 0) return 1;
  if (strcmp(format, "table") && strcmp(format, "json")) return crt_usage_error(argv[0], "invalid format option");
  const char *id = argv[optind];
  cleanup_err crt_err *err = NULL;
  pid_t *pids = NULL;
  size_t n = 0;
  int rc = crt_container_pids(crt_g.root, id, &pids, &n, &err);
  if (rc == 0 && strcmp(format, "json") == 0 && n == 0) {
    printf("null\n"); /* runc encodes its empty (nil) list so */
  } else if (rc == 0 && strcmp(format, "json") == 0) {
    printf("[");
    for (size_t i = 0; i < n; i++) printf("%s%d", i ? "," : "", (int)pids[i]);
    printf("]\n");
  } else if (rc == 0) {
    /* "--" separates our flags from ps's */
    int first = optind + 1;
    if (first < argc && strcmp(argv[first], "--") == 0) first++;
    rc = table(pids, n, argv + first, argc - first, &err);
  }
  free(pids);
  return rc < 0 ? crt_fail(err) : 0;
}
