/* crt state / list */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crt/cli.h"
#include "crt/container.h"
#include "crt/log.h"

static int simple_help(int argc, char **argv, const char *usage) {
  static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  int c;
  while ((c = crt_getopt(argc, argv, "+h", opts, argv[0])) != -1) {
    if (c == 'h') {
      printf("%s\n", usage);
      exit(0);
    }
    return -1;
  }
  return 0;
}

int crt_cmd_state(int argc, char **argv) {
  if (simple_help(argc, argv, "Usage: crt state <container-id>\n\nOutputs the state of a container as JSON.") < 0) return 1;
  if (crt_require_args(argv[0], argc - optind, 1, 1, "1 argument") < 0) return 1;
  cleanup_err crt_err *err = NULL;
  crt_state *s = NULL;
  if (crt_state_load(crt_g.root, argv[optind], &s, &err) < 0) return crt_fail(err);
  char *json = crt_state_json(s, crt_state_status(s), true);
  printf("%s\n", json);
  free(json);
  crt_state_free(s);
  return 0;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int crt_cmd_list(int argc, char **argv) {
  static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                       {"quiet", no_argument, NULL, 'q'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *format = "table";
  bool quiet = false;
  int c;
  while ((c = crt_getopt(argc, argv, "+f:qh", opts, argv[0])) != -1) {
    switch (c) {
    case 'f': format = optarg; break;
    case 'q': quiet = true; break;
    case 'h':
      printf("Usage: crt list [command options]\n\nOPTIONS:\n   --format value, -f value  select one of: table or json (default: \"table\")\n"
             "   --quiet, -q               display only container IDs\n");
      return 0;
    default: return 1;
    }
  }
  if (strcmp(format, "table") && strcmp(format, "json")) return crt_usage_error(argv[0], "invalid format option");
  if (crt_require_args(argv[0], argc - optind, 0, 0, "no arguments") < 0) return 1;
  DIR *d = opendir(crt_g.root);
  char **names = NULL;
  size_t n = 0;
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char **nn = realloc(names, (n + 1) * sizeof *names);
      if (!nn) break;
      names = nn;
      names[n++] = strdup(e->d_name);
    }
    closedir(d);
  } else if (errno != ENOENT) {
    cleanup_err crt_err *err = NULL;
    crt_error(&err, errno, "open %s", crt_g.root);
    return crt_fail(err);
  }
  qsort(names, n, sizeof *names, cmp_names);
  /* Table cells first, printed like runc's tabwriter (min width 12, padding 3). */
  enum { NCOL = 6 };
  char *(*rows)[NCOL] = calloc(n + 1, sizeof *rows);
  size_t nrows = 0;
  if (!rows) n = 0;
  static const char *head[NCOL] = {"ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER"};
  for (int k = 0; rows && k < NCOL; k++) rows[0][k] = strdup(head[k]);
  nrows = 1;
  if (!strcmp(format, "json") && !quiet) printf("[");
  bool first = true;
  for (size_t i = 0; i < n; i++) {
    crt_state *s = NULL;
    cleanup_err crt_err *err = NULL;
    if (crt_state_load(crt_g.root, names[i], &s, &err) < 0) {
      free(names[i]);
      continue; /* being created or deleted right now */
    }
    enum crt_status st = crt_state_status(s);
    int pid = st == CRT_STATUS_STOPPED ? 0 : s->pid;
    if (quiet) {
      printf("%s\n", s->id);
    } else if (!strcmp(format, "json")) {
      char *json = crt_state_json(s, st, false);
      printf("%s%s", first ? "" : ",", json);
      free(json);
    } else {
      struct stat sb;
      char owner[64] = "root";
      if (stat(s->dir, &sb) == 0) {
        struct passwd *pw = getpwuid(sb.st_uid);
        if (pw) snprintf(owner, sizeof owner, "%s", pw->pw_name);
        else snprintf(owner, sizeof owner, "#%u", sb.st_uid);
      }
      char pidbuf[24];
      snprintf(pidbuf, sizeof pidbuf, "%d", pid);
      const char *cells[NCOL] = {s->id, pidbuf, crt_status_name(st), s->bundle, s->created, owner};
      for (int k = 0; k < NCOL; k++) rows[nrows][k] = strdup(cells[k]);
      nrows++;
    }
    first = false;
    crt_state_free(s);
    free(names[i]);
  }
  if (!strcmp(format, "json") && !quiet) printf("]\n");
  if (!quiet && !strcmp(format, "table") && rows) {
    size_t w[NCOL] = {0};
    for (size_t r = 0; r < nrows; r++)
      for (int k = 0; k < NCOL; k++)
        if (rows[r][k] && strlen(rows[r][k]) + 3 > w[k]) w[k] = strlen(rows[r][k]) + 3;
    for (size_t r = 0; r < nrows; r++) {
      for (int k = 0; k < NCOL; k++) {
        size_t wk = w[k] < 12 ? 12 : w[k];
        if (k == NCOL - 1) printf("%s\n", rows[r][k] ? rows[r][k] : "");
        else printf("%-*s", (int)wk, rows[r][k] ? rows[r][k] : "");
      }
    }
  }
  for (size_t r = 0; rows && r < nrows; r++)
    for (int k = 0; k < NCOL; k++) free(rows[r][k]);
  free(rows);
  free(names);
  return 0;
}
