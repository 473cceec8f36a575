/* crt features: the runtime-spec features document. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crt/cli.h"
#include "crt/spec.h"

int crt_cmd_features(int argc, char **argv) {
  static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  int c;
  while ((c = crt_getopt(argc, argv, "+h", opts, "features")) != -1) {
    if (c == 'h') { crt_help_command(stdout, "features"); return 0; }
    return 1;
  }
  if (crt_require_args("features", argc - optind, 0, 0, "0 arguments") < 0) return 1;
  char *json = crt_features_json();
  if (json == NULL) {
    fprintf(stderr, "crt: features: out of memory\n");
    return 1;
  }
  fputs(json, stdout);
  if (json[0] && json[strlen(json) - 1] != '\n') fputc('\n', stdout);
  free(json);
  return 0;
}
