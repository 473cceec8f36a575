/* crt state / list */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crt/cgroup.h"
#include "crt/cli.h"
#include "crt/fs.h"
#include "crt/state.h"
#include "crt/log.h"
#include "crt/numa.h"
#include "crt/str.h"

static int simple_help(int argc, char **argv) {
  static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  int c;
  while ((c = crt_getopt(argc, argv, "+h", opts, argv[0])) != -1) {
    if (c == 'h') {
      crt_help_command(stdout, argv[0]);
      exit(0);
    }
    return -1;
  }
  return 0;
}

int crt_cmd_state(int argc, char **argv) {
  if (simple_help(argc, argv) < 0) return 1;
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

/* The entries of the state root, sorted; none when it does not exist. */
/* A missing default root is an empty list (no container made yet); a
 * missing --root is an error, as in runc >= 1.2. */
static int list_names(const char *dir, bool given, char ***out, size_t *count, crt_err **err) {
  DIR *d = opendir(dir);
  char **names = NULL;
  size_t n = 0;
  if (!d) {
    *out = NULL;
    *count = 0;
    return errno == ENOENT && !given ? 0 : crt_error(err, errno, "open %s", dir);
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char **nn = realloc(names, (n + 1) * sizeof *names);
    if (!nn) break;
    names = nn;
    if ((names[n] = strdup(e->d_name))) n++;
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_names);
  *out = names;
  *count = n;
  return 0;
}

/* Table cells, printed like runc's tabwriter (min width 12, padding 3). */
enum { NCOL = 6 };
typedef struct {
  char *(*rows)[NCOL];
  size_t n;
} list_table;

static void table_add(list_table *t, const char *const cells[NCOL]) {
  if (!t->rows) return;
  for (int k = 0; k < NCOL; k++) t->rows[t->n][k] = strdup(cells[k]);
  t->n++;
}

static void table_print(const list_table *t) {
  size_t w[NCOL] = {0};
  for (size_t r = 0; r < t->n; r++)
    for (int k = 0; k < NCOL; k++)
      if (t->rows[r][k] && strlen(t->rows[r][k]) + 3 > w[k]) w[k] = strlen(t->rows[r][k]) + 3;
  for (size_t r = 0; r < t->n; r++) {
    for (int k = 0; k < NCOL; k++) {
      size_t wk = w[k] < 12 ? 12 : w[k];
      if (k == NCOL - 1) printf("%s\n", t->rows[r][k] ? t->rows[r][k] : "");
      else printf("%-*s", (int)wk, t->rows[r][k] ? t->rows[r][k] : "");
    }
  }
}

static void table_free(list_table *t) {
  for (size_t r = 0; t->rows && r < t->n; r++)
    for (int k = 0; k < NCOL; k++) free(t->rows[r][k]);
  free(t->rows);
}

/* The owner column: the state directory's owner, as runc shows it; the
 * last name is kept, since a list's containers mostly share one (getpwuid
 * reads /etc/passwd each time). */
#define OWNER_MAX 256 /* LOGIN_NAME_MAX */
static void owner_name(uid_t uid, char *buf, size_t len) {
  static uid_t last_uid = (uid_t)-1;
  static char last_name[OWNER_MAX];
  if (uid != last_uid) {
    struct passwd *pw = getpwuid(uid);
    /* a name too long to show whole shows as the uid, as one without a name */
    if (!pw || crt_fmt(last_name, sizeof last_name, "%s", pw->pw_name) < 0)
      snprintf(last_name, sizeof last_name, "#%u", uid);
    last_uid = uid;
  }
  if (crt_fmt(buf, len, "%s", last_name) < 0) snprintf(buf, len, "#%u", uid);
}

/* One container as probed: its state (NULL: none, being created or
 * deleted right now), status and owner. */
typedef struct {
  crt_state *s;
  enum crt_status st;
  bool owner_known;
  uid_t owner;
} list_entry;

static void probe(const char *name, bool quiet, list_entry *e) {
  cleanup_err crt_err *err = NULL;
  if (crt_state_load(crt_g.root, name, &e->s, &err) < 0) {
    e->s = NULL;
    return;
  }
  /* -q prints every container whose state loads, whatever its status
   * (runc's too): the init check is not needed for it. */
  if (quiet) return;
  e->st = crt_state_status(e->s);
  struct stat sb;
  e->owner_known = crt_anchored_stat(e->s->dir, &sb) == 0;
  e->owner = e->owner_known ? sb.st_uid : 0;
}

/* The probes' shared work: the next container not yet taken. */
typedef struct {
  char **names;
  list_entry *entries;
  size_t n;
  size_t next;
  bool quiet;
} probe_work;

static void anchor_dirs(void);
static void *probe_all(void *arg) {
  probe_work *w = arg;
  /* each thread its own: threads sharing one fd bounce its count */
  if (w->n > 1 && !w->quiet) anchor_dirs();
  for (size_t i; (i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->n;)
    probe(w->names[i], w->quiet, &w->entries[i]);
  crt_anchors_drop();
  return NULL;
}

/* A container's status costs ~45 us of system calls on files no other
 * container shares (its state dir, /proc/PID, its cgroup), all CPU: with
 * many containers they are probed on one thread per usable CPU (at most 4,
 * one per 32 containers), each taking the next container not yet taken
 * (a thread the scheduler starts late, or that shares its CPU, then does
 * less), and printed in order after.  Every probe runs the same checks. */
enum { PROBES_PER_THREAD = 32, MAX_PROBE_THREADS = 4 };
static void probe_list(char **names, size_t n, bool quiet, list_entry *entries) {
  size_t k = n / PROBES_PER_THREAD;
  if (k > MAX_PROBE_THREADS) k = MAX_PROBE_THREADS;
  cpu_set_t cpus;
  /* the CPUs this process may run on (taskset, a cpuset), not all online */
  if (k > 1 && sched_getaffinity(0, sizeof cpus, &cpus) == 0 && (size_t)CPU_COUNT(&cpus) < k)
    k = (size_t)CPU_COUNT(&cpus);
  probe_work w = {names, entries, n, 0, quiet};
  pthread_t tid[MAX_PROBE_THREADS];
  size_t started = 0;
  /* off this thread's CPU (crt_thread_start_beside); one that fails to
   * start leaves its share to the others */
  for (size_t t = 1; t < k; t++)
    if (crt_thread_start_beside(&tid[started], probe_all, &w) == 0) started++;
  probe_all(&w);
  for (size_t t = 0; t < started; t++) pthread_join(tid[t], NULL);
}

/* One container: its id (quiet), its state JSON, or a table row. */
static void list_one(const list_entry *e, bool json, bool quiet, bool first, list_table *t) {
  const crt_state *s = e->s;
  if (quiet) {
    printf("%s\n", s->id);
    return;
  }
  if (json) {
    char *j = crt_state_json(s, e->st, false);
    printf("%s%s", first ? "" : ",", j);
    free(j);
  } else {
    char owner[OWNER_MAX] = "root", pid[24];
    if (e->owner_known) owner_name(e->owner, owner, sizeof owner);
    snprintf(pid, sizeof pid, "%d", e->st == CRT_STATUS_STOPPED ? 0 : s->pid);
    const char *cells[NCOL] = {s->id, pid, crt_status_name(e->st), s->bundle, s->created, owner};
    table_add(t, cells);
  }
}

/* Every container's status reads its state dir, /proc/PID and its
 * freezer file: paths under these are opened relative to them (list
 * starts no process, so these fds reach no container). */
static void anchor_dirs(void) {
  crt_anchor_dir(crt_g.root);
  crt_anchor_dir("/proc");
  cleanup_free char *freezer = crt_cgroup_freezer_root(crt_cgroup_host());
  crt_anchor_dir(freezer);
}

static int list_parse(int argc, char **argv, const char **format, bool *quiet) {
  static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                       {"quiet", no_argument, NULL, 'q'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  int c;
  while ((c = crt_getopt(argc, argv, "+f:qh", opts, argv[0])) != -1) {
    switch (c) {
    case 'f': *format = optarg; break;
    case 'q': *quiet = true; break;
    case 'h': crt_help_command(stdout, argv[0]); return 0;
    default: return 1;
    }
  }
  if (strcmp(*format, "table") && strcmp(*format, "json")) return crt_usage_error(argv[0], "invalid format option");
  if (crt_require_args(argv[0], argc - optind, 0, 0, "no arguments") < 0) return 1;
  return -1;
}

int crt_cmd_list(int argc, char **argv) {
  const char *format = "table";
  bool quiet = false;
  int rc = list_parse(argc, argv, &format, &quiet);
  if (rc >= 0) return rc;
  cleanup_err crt_err *err = NULL;
  char **names = NULL;
  size_t n = 0;
  if (list_names(crt_g.root, crt_g.root_given, &names, &n, &err) < 0) return crt_fail(err);
  bool json = !strcmp(format, "json");
  list_table t = {.rows = calloc(n + 1, sizeof *t.rows)};
  if (!t.rows) n = 0;
  static const char *const head[NCOL] = {"ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER"};
  table_add(&t, head);
  list_entry *entries = calloc(n ? n : 1, sizeof *entries);
  size_t shown = entries ? n : 0;
  probe_list(names, shown, quiet, entries);
  if (json && !quiet) printf("[");
  bool first = true;
  for (size_t i = 0; i < shown; i++) {
    if (!entries[i].s) continue;
    list_one(&entries[i], json, quiet, first, &t);
    first = false;
    crt_state_free(entries[i].s);
  }
  free(entries);
  if (json && !quiet) printf("]\n");
  if (!quiet && !json) table_print(&t);
  table_free(&t);
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return 0;
}
