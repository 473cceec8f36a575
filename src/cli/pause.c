/* crt pause / resume: freeze and thaw every process of the container. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "crt/cgroup.h"
#include "crt/cli.h"
#include "crt/state.h"

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

/* Locks the container, checks its status and freezes/thaws. */
static int run(const char *id, bool freeze) {
  cleanup_err crt_err *err = NULL;
  cleanup_close int lock = crt_container_lock(crt_g.root, id, &err);
  if (lock < 0) return crt_fail(err);
  crt_state *s = NULL;
  if (crt_state_load(crt_g.root, id, &s, &err) < 0) return crt_fail(err);
  enum crt_status st = crt_state_status(s);
  int rc = 0;
  /* runc pauses created containers too; resume needs a paused one */
  if (freeze && st != CRT_STATUS_RUNNING && st != CRT_STATUS_CREATED)
    rc = crt_error_kind(&err, CRT_ERR_BAD_STATE, 0, "container not running");
  else if (!freeze && st != CRT_STATUS_PAUSED)
    rc = crt_error_kind(&err, CRT_ERR_BAD_STATE, 0, "container not paused");
  else if (!s->cgroup_path || !*s->cgroup_path)
    rc = crt_error(&err, 0, "container %s has no cgroup (rootless?): cannot %s", id, freeze ? "pause" : "resume");
  else
    rc = crt_cgroup_freeze(s->cgroup_path, freeze, &err);
  crt_state_free(s);
  return rc < 0 ? crt_fail(err) : 0;
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
