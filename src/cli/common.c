/* Helpers shared by the subcommands. */
#define _GNU_SOURCE
#include <ctype.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crt/cli.h"
#include "crt/log.h"
#include "crt/rootless.h"
#include "crt/str.h"

/* The global flags: here, below main.c and help.c, which both read them. */
crt_globals crt_g = {.root = NULL, .log_format = "text", .rootless = "auto"};

bool crt_cli_rootless(void) { return crt_rootless() || !strcmp(crt_g.rootless, "true"); }

int crt_fail(crt_err *err) {
  crt_log_error_msg(err && err->msg ? err->msg : "unknown error");
  return 1;
}

int crt_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = NULL;
  if (vasprintf(&msg, fmt, ap) < 0) msg = NULL;
  va_end(ap);
  char *line = NULL;
  if (asprintf(&line, "%s%s%s", cmd ? cmd : "", cmd ? ": " : "", msg ? msg : "usage error") < 0) line = NULL;
  crt_log_error_msg(line ? line : "usage error");
  fprintf(stderr, "Run 'crt %s%s--help' for usage.\n", cmd ? cmd : "", cmd ? " " : "");
  free(msg);
  free(line);
  return 1;
}

const char *crt_go_flag(char *buf, size_t size, const char *arg) {
  if (!arg) return "?";
  while (arg[0] == '-' && arg[1] == '-') arg++;
  size_t n = strcspn(arg, "=");
  (void)crt_fmt(buf, size, "%.*s", (int)n, arg); /* a cut name still names it */
  return buf;
}

int crt_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts, const char *cmd) {
  opterr = 0;
  int idx = -1;
  int c = getopt_long(argc, argv, shortopts, longopts, &idx);
  if (c == '?' || c == ':') {
    const char *arg = argv[optind - 1];
    char name[64];
    bool is_long = arg && strncmp(arg, "--", 2) == 0;
    if (optopt >= 256 || (is_long && optopt != 0)) /* a long option missing its value */
      crt_usage_error(cmd, "flag needs an argument: %s", crt_go_flag(name, sizeof name, arg));
    else if (optopt && optopt < 256 && strchr(shortopts, optopt))
      crt_usage_error(cmd, "flag needs an argument: -%c", optopt);
    else if (optopt && optopt < 256)
      crt_usage_error(cmd, "flag provided but not defined: -%c", optopt);
    else
      crt_usage_error(cmd, "flag provided but not defined: %s", crt_go_flag(name, sizeof name, arg));
    return '?';
  }
  return c;
}

/* what: "1 argument", "1 or 2 arguments", "no arguments": the count says
 * itself how many, like runc's "requires exactly 1 argument(s)". */
int crt_require_args(const char *cmd, int have, int min, int max, const char *what) {
  if (have < min || (max >= 0 && have > max)) {
    const char *how = "";
    if (min == max && min > 0) how = "exactly ";
    else if (max < 0) how = strncmp(what, "at least", 8) ? "at least " : "";
    crt_usage_error(cmd, "requires %s%s", how, what);
    return -1;
  }
  return 0;
}

void crt_operand_add(crt_operands *o, char *arg) {
  if (o->n < (int)(sizeof o->arg / sizeof o->arg[0])) o->arg[o->n] = arg;
  o->n++;
}

/* getopt's '-' mode leaves optind at the first operand after "--". */
int crt_operands_end(crt_operands *o, int argc, char **argv, int min, int max, const char *what) {
  for (int i = optind; i < argc; i++) crt_operand_add(o, argv[i]);
  return crt_require_args(argv[0], o->n, min, max, what);
}

/* The names runc 1.1 knows (golang.org/x/sys/unix signalList): no
 * aliases (IOT, CLD, POLL) and no RTMIN/RTMAX names, which runc refuses
 * too; real-time signals are reachable by number.  glibc's sigabbrev_np
 * is no substitute: it names 29 "POLL" where runc takes only "IO". */
static const char *const runc_signames[] = {
    NULL,   "HUP",  "INT",  "QUIT", "ILL",    "TRAP",   "ABRT",   "BUS",  "FPE",   "KILL", "USR1",
    "SEGV", "USR2", "PIPE", "ALRM", "TERM",   "STKFLT", "CHLD",   "CONT", "STOP",  "TSTP", "TTIN",
    "TTOU", "URG",  "XCPU", "XFSZ", "VTALRM", "PROF",   "WINCH",  "IO",   "PWR",   "SYS"};

/* runc parses a number with strconv.Atoi: an optional sign, then digits.
 * 0 is valid (`kill ID 0` checks that the init exists). */
static int parse_signal_number(const char *s) {
  const char *d = s + (*s == '+' || *s == '-');
  if (*d == 0) return -1;
  long v = 0;
  for (; *d; d++) {
    if (!isdigit((unsigned char)*d)) return -1;
    if (v < NSIG) v = v * 10 + (*d - '0');
  }
  if (*s == '-' && v != 0) return -1; /* kill(2) would refuse it: EINVAL */
  return v < NSIG ? (int)v : -1;
}

int crt_parse_signal(const char *s) {
  if (s == NULL || *s == 0) return -1;
  if (isdigit((unsigned char)*s) || *s == '+' || *s == '-') return parse_signal_number(s);
  const char *n = s;
  if (strncasecmp(n, "SIG", 3) == 0) n += 3;
  for (int i = 1; i < (int)(sizeof runc_signames / sizeof runc_signames[0]); i++)
    if (strcasecmp(runc_signames[i], n) == 0) return i;
  return -1;
}
