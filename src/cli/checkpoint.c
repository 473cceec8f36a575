/* crt checkpoint / restore: the flags of runc 1.1 (the work is in
 * src/container/checkpoint.c and restore.c). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crt/checkpoint.h"
#include "crt/cli.h"
#include "crt/criu.h"
#include "crt/log.h"
#include "crt/restore.h"
#include "crt/str.h"

enum {
  O_IMAGE = 256, O_WORK, O_PARENT, O_LEAVE, O_TCP, O_EXTUNIX, O_SHELL, O_LAZY, O_STATUSFD, O_PAGESERVER, O_LOCKS,
  O_PREDUMP, O_CGMODE, O_EMPTYNS, O_DEDUP, O_CONSOLE, O_BUNDLE = 'b', O_DETACH = 'd', O_PIDFILE = 300, O_NOSUB,
  O_NOPIVOT, O_LSMPROFILE, O_LSMMOUNT, O_NOTIFY
};

#define COMMON_OPTS                                                                                      \
  {"image-path", required_argument, NULL, O_IMAGE}, {"work-path", required_argument, NULL, O_WORK},     \
      {"tcp-established", no_argument, NULL, O_TCP}, {"ext-unix-sk", no_argument, NULL, O_EXTUNIX},     \
      {"shell-job", no_argument, NULL, O_SHELL}, {"file-locks", no_argument, NULL, O_LOCKS},            \
      {"manage-cgroups-mode", required_argument, NULL, O_CGMODE},                                       \
      {"empty-ns", required_argument, NULL, O_EMPTYNS}, {"auto-dedup", no_argument, NULL, O_DEDUP},     \
      {"lazy-pages", no_argument, NULL, O_LAZY}, {"help", no_argument, NULL, 'h'}

static const struct option checkpoint_opts[] = {
    COMMON_OPTS,
    {"parent-path", required_argument, NULL, O_PARENT},
    {"leave-running", no_argument, NULL, O_LEAVE},
    {"status-fd", required_argument, NULL, O_STATUSFD},
    {"page-server", required_argument, NULL, O_PAGESERVER},
    {"pre-dump", no_argument, NULL, O_PREDUMP},
    {NULL, 0, NULL, 0}};

static const struct option restore_opts[] = {
    COMMON_OPTS,
    {"console-socket", required_argument, NULL, O_CONSOLE},
    {"bundle", required_argument, NULL, O_BUNDLE},
    {"detach", no_argument, NULL, O_DETACH},
    {"pid-file", required_argument, NULL, O_PIDFILE},
    {"no-subreaper", no_argument, NULL, O_NOSUB},
    {"no-pivot", no_argument, NULL, O_NOPIVOT},
    {"lsm-profile", required_argument, NULL, O_LSMPROFILE},
    {"lsm-mount-context", required_argument, NULL, O_LSMMOUNT},
    /* not for users: criu's action script during restore */
    {"criu-notify", no_argument, NULL, O_NOTIFY},
    {NULL, 0, NULL, 0}};

/* The flags both commands have; 0 when c was one of them, 1 when not, -1
 * on a bad value. */
static int common_flag(int c, const char *cmd, crt_criu_opts *o) {
  switch (c) {
  case O_IMAGE: o->image_path = optarg; return 0;
  case O_WORK: o->work_path = optarg; return 0;
  case O_TCP: o->tcp_established = true; return 0;
  case O_EXTUNIX: o->ext_unix_sk = true; return 0;
  case O_SHELL: o->shell_job = true; return 0;
  case O_LOCKS: o->file_locks = true; return 0;
  case O_DEDUP: o->auto_dedup = true; return 0;
  case O_LAZY: o->lazy_pages = true; return 0;
  case O_CGMODE:
    if (strcmp(optarg, "soft") && strcmp(optarg, "full") && strcmp(optarg, "strict") && strcmp(optarg, "ignore")) {
      crt_usage_error(cmd, "invalid --manage-cgroups-mode %s: want soft, full, strict or ignore", optarg);
      return -1;
    }
    o->manage_cgroups_mode = optarg;
    return 0;
  case O_EMPTYNS:
    if (strcmp(optarg, "network")) {
      crt_usage_error(cmd, "--empty-ns %s: only the network namespace is supported", optarg);
      return -1;
    }
    o->empty_netns = true;
    return 0;
  default: return 1;
  }
}

static void short_usage(const char *cmd, const char *what) {
  printf("Usage: crt %s [command options] <container-id>\n\n%s\n", cmd, what);
}

static void go_style_flags(int argc, char **argv, const struct option *opts);

static int checkpoint_parse(int argc, char **argv, crt_checkpoint_opts *o) {
  int c;
  long fd;
  go_style_flags(argc, argv, checkpoint_opts);
  while ((c = crt_getopt(argc, argv, "+h", checkpoint_opts, argv[0])) != -1) {
    int r = common_flag(c, argv[0], &o->c);
    if (r < 0) return 1;
    if (r == 0) continue;
    switch (c) {
    case O_PARENT: o->c.parent_path = optarg; break;
    case O_LEAVE: o->c.leave_running = true; break;
    case O_STATUSFD: /* used with --lazy-pages only, as runc */
      if (crt_parse_long(optarg, -1, INT_MAX, &fd) < 0) {
        crt_usage_error(argv[0], "invalid --status-fd %s: want a file descriptor number", optarg);
        return 1;
      }
      o->c.status_fd = (int)fd;
      break;
    case O_PAGESERVER: o->c.page_server = optarg; break;
    case O_PREDUMP: o->c.pre_dump = true; break;
    case 'h': short_usage(argv[0], "Checkpoint a running container with CRIU."); return 0;
    default: return 1;
    }
  }
  if (crt_require_args(argv[0], argc - optind, 1, 1, "1 argument") < 0) return 1;
  return -1;
}

int crt_cmd_checkpoint(int argc, char **argv) {
  crt_checkpoint_opts o = {.root = crt_g.root, .c.status_fd = -1};
  int rc = checkpoint_parse(argc, argv, &o);
  if (rc >= 0) return rc;
  o.id = argv[optind];
  o.c.criu = crt_criu_binary(crt_g.criu);
  cleanup_err crt_err *err = NULL;
  if (crt_container_checkpoint(&o, &err) < 0) return crt_fail(err);
  return 0;
}

typedef struct {
  bool detach, no_subreaper, notify;
} restore_flags;

/* Go's flag syntax, which urfave/cli (runc) accepts and go-runc uses:
 * containerd's shim passes "-no-subreaper".  A single-dash word that names
 * one of our long flags becomes "--word" (the strings live until exit). */
static void go_style_flags(int argc, char **argv, const struct option *opts) {
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
    const char *a = argv[i];
    if (a[0] != '-' || a[1] == '-' || strlen(a) < 3) continue;
    size_t n = strcspn(a + 1, "=");
    for (const struct option *o = opts; o->name; o++) {
      char *d = NULL;
      if (strlen(o->name) == n && !strncmp(o->name, a + 1, n) && asprintf(&d, "-%s", a) >= 0) {
        argv[i] = d;
        break;
      }
    }
  }
}

static int restore_parse(int argc, char **argv, crt_restore_opts *o, restore_flags *f) {
  int c;
  go_style_flags(argc, argv, restore_opts);
  while ((c = crt_getopt(argc, argv, "+b:dh", restore_opts, argv[0])) != -1) {
    int r = common_flag(c, argv[0], &o->c);
    if (r < 0) return 1;
    if (r == 0) continue;
    switch (c) {
    case O_CONSOLE: o->console_socket = optarg; break;
    case O_BUNDLE: o->bundle = optarg; break;
    case O_DETACH: f->detach = true; break;
    case O_PIDFILE: o->pid_file = optarg; break;
    case O_NOSUB: f->no_subreaper = true; break;
    case O_NOPIVOT: break; /* criu rebuilds the mount tree itself: nothing to choose (docs/checkpoint.md) */
    case O_LSMPROFILE: o->lsm_profile = optarg; break;
    case O_LSMMOUNT: o->lsm_mount_context = optarg; break;
    case O_NOTIFY: f->notify = true; break;
    case 'h': short_usage(argv[0], "Restore a container from a checkpoint made by crt checkpoint."); return 0;
    default: return 1;
    }
  }
  if (crt_require_args(argv[0], argc - optind, 1, 1, "1 argument") < 0) return 1;
  return -1;
}

/* criu runs its action scripts with stdio closed: a hook's pipes must not
 * land on 0-2. */
static int notify(const char *id) {
  for (int fd = 0; fd < 3; fd++)
    if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd) return 1;
  cleanup_err crt_err *err = NULL;
  if (crt_restore_notify(crt_g.root, id, getenv("CRTOOLS_SCRIPT_ACTION"), &err) < 0) return crt_fail(err);
  return 0;
}

int crt_cmd_restore(int argc, char **argv) {
  crt_restore_opts o = {.root = crt_g.root, .systemd_cgroup = crt_g.systemd_cgroup, .c.status_fd = -1};
  restore_flags f = {0};
  int rc = restore_parse(argc, argv, &o, &f);
  if (rc >= 0) return rc;
  o.id = argv[optind];
  if (f.notify) return notify(o.id);
  o.c.criu = crt_criu_binary(crt_g.criu);
  o.rootless = crt_cli_rootless();
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return crt_usage_error(argv[0], "cannot find crt's own binary (/proc/self/exe)");
  self[n] = 0;
  o.self = self;
  if (o.console_socket && !f.detach)
    return crt_usage_error(argv[0], "cannot use console socket if runc will not detach or allocate tty");
  o.detach = f.detach;
  o.no_subreaper = f.no_subreaper;
  int code = 0;
  cleanup_err crt_err *err = NULL;
  if (crt_container_restore_run(&o, &code, &err) < 0) return crt_fail(err);
  return code;
}
