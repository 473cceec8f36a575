/* Container state directory, state.json, status derivation and locking. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "crt/initcheck.h"
#include "crt/procinfo.h"
#include "crt/cgroup.h"
#include "crt/state.h"
#include "crt/str.h"
#include "crt/execfifo.h"
#include "crt/fs.h"

/* A state.json is a few hundred bytes; one of a megabyte is damage. */
#define STATE_MAX (1 << 20)
/* What `list` reads in one go (see crt_state_load). */
#define STATE_SMALL 16384
/* The longest id accepted as well-formed; a state directory's name is
 * bounded further by the filesystem (NAME_MAX), which mkdir reports. */
#define ID_MAX 1024

int crt_container_id_check(const char *id, crt_err **err) {
  if (id == NULL || *id == 0) return crt_error_kind(err, CRT_ERR_INVALID, 0, "container id cannot be empty");
  if (strcmp(id, ".") == 0 || strcmp(id, "..") == 0 || strlen(id) > ID_MAX)
    return crt_error_kind(err, CRT_ERR_INVALID, 0, "invalid container ID format: %s", id);
  for (const char *p = id; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (!(isalnum(c) || c == '_' || c == '+' || c == '-' || c == '.'))
      return crt_error_kind(err, CRT_ERR_INVALID, 0, "invalid container ID format: %s", id);
  }
  return 0;
}

int crt_container_dir(const char *root, const char *id, char *buf, size_t len, crt_err **err) {
  if (snprintf(buf, len, "%s/%s", root, id) >= (int)len) return crt_error(err, ENAMETOOLONG, "%s/%s", root, id);
  return 0;
}

void crt_state_free(crt_state *s) {
  if (!s) return;
  free(s->id);
  free(s->bundle);
  free(s->rootfs);
  free(s->created);
  free(s->owner);
  free(s->cgroup_path);
  crt_cgroup_close(s->cg);
  free(s->parked_exe);
  free(s->dir);
  free(s->rescue);
  if (s->next) crt_atomic_file_drop(s->next);
  free(s->next);
  for (size_t i = 0; i < s->annotations.len; i++) {
    free(s->annotations.v[i].key);
    free(s->annotations.v[i].value);
  }
  free(s->annotations.v);
  free(s);
}


static bool init_alive(const crt_state *s) { return crt_state_check_init(s, NULL) == CRT_INIT_OK; }

enum crt_status crt_state_status(const crt_state *s) {
  if (!init_alive(s)) return CRT_STATUS_STOPPED;
  if (!s->ready) return CRT_STATUS_CREATING;
  /* Frozen first, as runc: a paused created container is paused. */
  if (crt_cgroup_is_frozen(s->cg) == 1) return CRT_STATUS_PAUSED;
  if (s->dir && crt_exec_fifo_waiting(s->dir, s->pid, s->parked_exe)) return CRT_STATUS_CREATED;
  return CRT_STATUS_RUNNING;
}

const char *crt_status_name(enum crt_status st) {
  switch (st) {
  case CRT_STATUS_CREATING: return "creating";
  case CRT_STATUS_CREATED: return "created";
  case CRT_STATUS_RUNNING: return "running";
  case CRT_STATUS_PAUSED: return "paused";
  default: return "stopped";
  }
}

#define GSTR(g, s) yajl_gen_string(g, (const unsigned char *)(s), strlen(s))

static void gen_kv_str(yajl_gen g, const char *k, const char *v) {
  GSTR(g, k);
  GSTR(g, v ? v : "");
}

static char *gen_finish(yajl_gen g) {
  const unsigned char *buf;
  size_t len;
  yajl_gen_get_buf(g, &buf, &len);
  char *out = malloc(len + 2);
  if (out) {
    memcpy(out, buf, len);
    out[len] = 0;
  }
  yajl_gen_free(g);
  return out;
}

static void gen_common(yajl_gen g, const crt_state *s, const char *status) {
  gen_kv_str(g, "ociVersion", "1.3.0");
  gen_kv_str(g, "id", s->id);
  GSTR(g, "pid");
  yajl_gen_integer(g, strcmp(status, "stopped") == 0 ? 0 : s->pid);
  gen_kv_str(g, "status", status);
  gen_kv_str(g, "bundle", s->bundle);
  gen_kv_str(g, "rootfs", s->rootfs);
  gen_kv_str(g, "created", s->created);
  gen_kv_str(g, "owner", s->owner);
  if (s->annotations.len) {
    GSTR(g, "annotations");
    yajl_gen_map_open(g);
    for (size_t i = 0; i < s->annotations.len; i++) gen_kv_str(g, s->annotations.v[i].key, s->annotations.v[i].value);
    yajl_gen_map_close(g);
  }
}

char *crt_state_json(const crt_state *s, enum crt_status st, bool pretty) {
  yajl_gen g = yajl_gen_alloc(NULL);
  if (!g) return NULL;
  yajl_gen_config(g, yajl_gen_beautify, pretty ? 1 : 0);
  yajl_gen_config(g, yajl_gen_indent_string, "  ");
  yajl_gen_map_open(g);
  gen_common(g, s, crt_status_name(st));
  yajl_gen_map_close(g);
  return gen_finish(g);
}

/* A one-line copy of what cleanup needs, so that delete --force can still
 * kill the init and remove its cgroup when state.json is corrupt or not
 * written yet. */
int crt_state_save_rescue(const char *root, crt_state *s, crt_err **err) {
  char dir[PATH_MAX], rescue[PATH_MAX + 8], line[PATH_MAX + 64];
  if (crt_container_dir(root, s->id, dir, sizeof dir, err) < 0) return -1;
  snprintf(rescue, sizeof rescue, "%s/init", dir);
  int n = crt_fmt(line, sizeof line, "%d %llu %s\n", s->pid, (unsigned long long)s->start_time,
                  s->cgroup_path ? s->cgroup_path : "");
  if (n < 0) return crt_error(err, ENAMETOOLONG, "%s: cgroup path too long", rescue);
  /* create saves the state twice with the same pid and cgroup, holding
   * the lock throughout: what it wrote the first time is still there */
  if (s->rescue && strcmp(s->rescue, line) == 0) return 0;
  if (crt_write_file_atomic(rescue, line, (size_t)n, 0600, err) < 0) return -1;
  free(s->rescue);
  s->rescue = strdup(line);
  return 0;
}

int crt_state_save(const char *root, crt_state *s, crt_err **err) {
  char dir[PATH_MAX], path[PATH_MAX];
  if (crt_container_dir(root, s->id, dir, sizeof dir, err) < 0) return -1;
  if (crt_pathf(path, sizeof path, err, "%s/state.json", dir) < 0) return -1;
  yajl_gen g = yajl_gen_alloc(NULL);
  if (!g) return crt_error(err, ENOMEM, "state.json");
  yajl_gen_map_open(g);
  gen_common(g, s, s->ready ? "created" : "creating");
  GSTR(g, "init_process_start");
  yajl_gen_integer(g, (long long)s->start_time);
  gen_kv_str(g, "cgroup_path", s->cgroup_path);
  GSTR(g, "ready");
  yajl_gen_bool(g, s->ready);
  GSTR(g, "systemd");
  yajl_gen_bool(g, s->systemd);
  if (s->parked_exe) gen_kv_str(g, "parked_exe", s->parked_exe);
  yajl_gen_map_close(g);
  cleanup_free char *json = gen_finish(g);
  if (!json) return crt_error(err, ENOMEM, "state.json");
  if (crt_state_save_rescue(root, s, err) < 0) return -1;
  if (!s->next) return crt_write_file_atomic(path, json, strlen(json), 0600, err);
  int rc = strcmp(s->next->path, path) == 0 ? crt_atomic_file_end(s->next, json, strlen(json), err)
                                            : crt_write_file_atomic(path, json, strlen(json), 0600, err);
  crt_atomic_file_drop(s->next);
  free(s->next);
  s->next = NULL;
  return rc;
}

int crt_state_save_ahead(crt_state *s, crt_err **err) {
  char path[PATH_MAX];
  if (s->next || snprintf(path, sizeof path, "%s/state.json", s->dir) >= (int)sizeof path) return 0;
  if (!(s->next = malloc(sizeof *s->next))) return crt_error(err, ENOMEM, "state.json");
  if (crt_atomic_file_begin(path, 0600, s->next, err) == 0) return 0;
  free(s->next);
  s->next = NULL;
  return -1;
}

/* The handle of the cgroup state.json (or the rescue file) names; none
 * for "" (rootless without one): nothing to look up for it. */
static int open_cgroup(crt_state *s, crt_err **err) {
  if (!s->cgroup_path || !*s->cgroup_path) return 0;
  return crt_cgroup_open(crt_cgroup_host(), s->cgroup_path, s->systemd, &s->cg, err);
}

int crt_state_load_rescue(const char *root, const char *id, crt_state **out) {
  char dir[PATH_MAX], path[PATH_MAX + 8];
  if (snprintf(dir, sizeof dir, "%s/%s", root, id) >= (int)sizeof dir) return -1;
  snprintf(path, sizeof path, "%s/init", dir);
  char buf[PATH_MAX + 64];
  if (crt_read_small_regular(path, buf, sizeof buf, NULL) < 0) return -1;
  int pid = 0;
  unsigned long long st = 0;
  char cg[PATH_MAX] = "";
  int got = sscanf(buf, "%d %llu %4095s", &pid, &st, cg);
  if (got < 2) return -1;
  crt_state *s = calloc(1, sizeof *s);
  if (!s) return -1;
  s->id = strdup(id);
  s->pid = pid;
  s->start_time = st;
  s->cgroup_path = strdup(cg);
  s->dir = strdup(dir);
  if (open_cgroup(s, NULL) < 0) {
    crt_state_free(s);
    return -1;
  }
  /* unknown: a half-made container's init may not be in its cgroup yet,
   * and must still be found (crt_state_check_init) */
  s->ready = false;
  *out = s;
  return 0;
}

static char *tree_str(yajl_val root, const char *key) {
  const char *path[] = {key, NULL};
  yajl_val v = yajl_tree_get(root, path, yajl_t_string);
  const char *str = v ? YAJL_GET_STRING(v) : NULL;
  return strdup(str ? str : "");
}

static long long tree_int(yajl_val root, const char *key) {
  const char *path[] = {key, NULL};
  yajl_val v = yajl_tree_get(root, path, yajl_t_number);
  return v && YAJL_IS_INTEGER(v) ? YAJL_GET_INTEGER(v) : 0;
}

static bool tree_bool(yajl_val root, const char *key) {
  const char *path[] = {key, NULL};
  yajl_val v = yajl_tree_get(root, path, yajl_t_any);
  return v && YAJL_IS_TRUE(v);
}

/* state.json nests two levels (annotations), but yajl_tree_free recurses:
 * a 1 MiB "[[[[...]]]]" (within crt_read_file's limit) overflowed the
 * stack.  A first pass with yajl's own lexer, configured as yajl_tree_parse
 * configures it (comments allowed), stops at the first too deep value. */
#define STATE_MAX_DEPTH 64
static int depth_open(void *ctx) { return ++*(size_t *)ctx <= STATE_MAX_DEPTH; }
static int depth_close(void *ctx) {
  --*(size_t *)ctx;
  return 1;
}

static bool nested_too_deep(const char *s) {
  static const yajl_callbacks cb = {.yajl_start_map = depth_open, .yajl_end_map = depth_close,
                                    .yajl_start_array = depth_open, .yajl_end_array = depth_close};
  size_t depth = 0;
  yajl_handle h = yajl_alloc(&cb, NULL, &depth);
  if (!h) return true;
  yajl_config(h, yajl_allow_comments, 1);
  yajl_status st = yajl_parse(h, (const unsigned char *)s, strlen(s));
  yajl_free(h);
  return st == yajl_status_client_canceled;
}

int crt_state_parse(const char *buf, size_t len, const char *id, const char *dir, const char *path_for_messages,
                    crt_state **out, crt_err **err) {
  const char *path = path_for_messages;
  /* yajl_tree_parse reads a C string: stop at the first NUL like before. */
  cleanup_free char *copy = malloc(len + 1);
  if (!copy) return crt_error(err, ENOMEM, "state");
  memcpy(copy, buf, len);
  copy[len] = 0;
  char ebuf[256];
  yajl_val tree = nested_too_deep(copy) ? NULL : yajl_tree_parse(copy, ebuf, sizeof ebuf);
  if (!tree || !YAJL_IS_OBJECT(tree)) {
    if (tree) yajl_tree_free(tree);
    return crt_error_kind(err, CRT_ERR_NO_STATE, 0, "%s: corrupt state file (use delete --force)", path);
  }
  /* Fields of the wrong type mean a damaged file, not an empty state. */
  static const struct { const char *key; yajl_type type; } need[] = {
      {"id", yajl_t_string}, {"pid", yajl_t_number}, {"bundle", yajl_t_string},
      {"init_process_start", yajl_t_number}, {"cgroup_path", yajl_t_string}};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
    const char *kp[] = {need[i].key, NULL};
    yajl_val v = yajl_tree_get(tree, kp, need[i].type);
    const char *str = v && YAJL_IS_STRING(v) ? v->u.string : NULL;
    bool bad_id = !strcmp(need[i].key, "id") && (!str || strcmp(str, id) != 0);
    /* a pid is 0..INT_MAX (pid_t), a start time never negative */
    bool bad_num = need[i].type == yajl_t_number && v && YAJL_IS_INTEGER(v) &&
                   (YAJL_GET_INTEGER(v) < 0 || (!strcmp(need[i].key, "pid") && YAJL_GET_INTEGER(v) > INT_MAX));
    if (!v || (need[i].type == yajl_t_number && !YAJL_IS_INTEGER(v)) || bad_id || bad_num) {
      yajl_tree_free(tree);
      return crt_error_kind(err, CRT_ERR_NO_STATE, 0, "%s: corrupt state file: .%s (use delete --force)", path,
                            need[i].key);
    }
  }
  crt_state *s = calloc(1, sizeof *s);
  if (!s) {
    yajl_tree_free(tree);
    return crt_error(err, ENOMEM, "state");
  }
  s->id = strdup(id);
  s->pid = (pid_t)tree_int(tree, "pid");
  s->start_time = (uint64_t)tree_int(tree, "init_process_start");
  s->bundle = tree_str(tree, "bundle");
  s->rootfs = tree_str(tree, "rootfs");
  s->created = tree_str(tree, "created");
  s->owner = tree_str(tree, "owner");
  s->cgroup_path = tree_str(tree, "cgroup_path");
  s->ready = tree_bool(tree, "ready");
  s->systemd = tree_bool(tree, "systemd");
  const char *ppath[] = {"parked_exe", NULL};
  yajl_val pv = yajl_tree_get(tree, ppath, yajl_t_string);
  const char *pstr = pv ? YAJL_GET_STRING(pv) : NULL;
  if (pstr) s->parked_exe = strdup(pstr);
  s->dir = strdup(dir);
  const char *apath[] = {"annotations", NULL};
  yajl_val ann = yajl_tree_get(tree, apath, yajl_t_object);
  if (ann && YAJL_GET_OBJECT(ann)->len) {
    size_t n = YAJL_GET_OBJECT(ann)->len;
    s->annotations.v = calloc(n, sizeof(crt_kv));
    for (size_t i = 0; s->annotations.v && i < n; i++) {
      yajl_val v = YAJL_GET_OBJECT(ann)->values[i];
      s->annotations.v[s->annotations.len].key = strdup(YAJL_GET_OBJECT(ann)->keys[i]);
      const char *str = YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
      s->annotations.v[s->annotations.len].value = strdup(str ? str : "");
      s->annotations.len++;
    }
  }
  yajl_tree_free(tree);
  if (open_cgroup(s, err) < 0) {
    crt_state_free(s);
    return -1;
  }
  *out = s;
  return 0;
}

int crt_state_load(const char *root, const char *id, crt_state **out, crt_err **err) {
  char dir[PATH_MAX], path[PATH_MAX];
  if (crt_container_id_check(id, err) < 0) return -1;
  if (crt_container_dir(root, id, dir, sizeof dir, err) < 0) return -1;
  if (crt_pathf(path, sizeof path, err, "%s/state.json", dir) < 0) return -1;
  /* `list` loads every container: most state files fit one read (four
   * system calls); a bigger one is read again to the end.  Only a regular
   * file is read, and opening it never waits: a FIFO put there by whoever
   * can write the state root must not hang `state` or `list`. */
  char small[STATE_SMALL];
  cleanup_err crt_err *rerr = NULL;
  ssize_t n = crt_read_small_regular(path, small, sizeof small, &rerr);
  if (n >= 0 && (size_t)n < sizeof small - 1) return crt_state_parse(small, (size_t)n, id, dir, path, out, err);
  cleanup_free char *buf = NULL;
  size_t len = 0;
  if (n >= 0) {
    cleanup_close int fd = crt_open_regular(path, &rerr);
    if (fd >= 0 && crt_read_fd(fd, STATE_MAX, &buf, &len, &rerr) < 0) crt_error_wrap(&rerr, "%s", path);
  }
  if (rerr) {
    if (rerr->errnum == ENOENT) {
      struct stat st;
      char mark[PATH_MAX + 16];
      snprintf(mark, sizeof mark, "%s/%s", dir, CRT_DELETING_MARK);
      if (stat(mark, &st) == 0)
        return crt_error_kind(err, CRT_ERR_NO_STATE, 0,
                              "container \"%s\" has no state (being deleted, or left half-deleted by an "
                              "interrupted delete: delete finishes it)", id);
      if (stat(dir, &st) == 0)
        return crt_error_kind(err, CRT_ERR_NO_STATE, ENOENT,
                              "container \"%s\" has no state yet (being created, or left half-created)", id);
      return crt_error_kind(err, CRT_ERR_NOT_FOUND, 0, "container does not exist");
    }
    if (rerr->errnum == 0) /* crt_open_regular: a FIFO, a device, a directory */
      return crt_error_kind(err, CRT_ERR_NO_STATE, 0, "%s: corrupt state file: not a regular file (use delete --force)", path);
    return crt_error(err, rerr->errnum, "read state of %s: %s", id, rerr->msg);
  }
  return crt_state_parse(buf, len, id, dir, path, out, err);
}

int crt_container_lock(const char *root, const char *id, crt_err **err) {
  char dir[PATH_MAX];
  if (crt_container_dir(root, id, dir, sizeof dir, err) < 0) return -1;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return crt_error_kind(err, CRT_ERR_NOT_FOUND, 0, "container does not exist");
    return crt_error(err, errno, "open %s", dir);
  }
  while (flock(fd, LOCK_EX) < 0) {
    if (errno == EINTR) continue;
    int e = errno;
    close(fd);
    return crt_error(err, e, "lock %s", dir);
  }
  return fd;
}

int crt_state_save_spec(const crt_state *s, const crt_spec *spec, crt_err **err) {
  char path[PATH_MAX];
  if (crt_pathf(path, sizeof path, err, "%s/config.json", s->dir) < 0) return -1;
  cleanup_free char *json = crt_spec_to_json(spec, false);
  if (!json) return crt_error(err, ENOMEM, "save %s", path);
  return crt_write_file_atomic(path, json, strlen(json), 0600, err);
}

int crt_state_load_spec(const crt_state *s, crt_spec **out, crt_err **err) {
  char path[PATH_MAX];
  if (crt_pathf(path, sizeof path, err, "%s/config.json", s->dir) < 0) return -1;
  return crt_spec_load(path, out, err);
}

int crt_state_copy_annotations(crt_state *s, const crt_kvv *from) {
  if (!from->len) return 0;
  if (!(s->annotations.v = calloc(from->len, sizeof(crt_kv)))) return -1;
  for (size_t i = 0; i < from->len; i++) {
    crt_kv *kv = &s->annotations.v[i];
    kv->key = strdup(from->v[i].key);
    kv->value = strdup(from->v[i].value);
    s->annotations.len = i + 1; /* freed with the state, even half made */
    if (!kv->key || !kv->value) return -1;
  }
  return 0;
}

char *crt_state_time_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char buf[64], *out = NULL;
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  if (asprintf(&out, "%s.%09ldZ", buf, ts.tv_nsec) < 0) return NULL;
  return out;
}

int crt_held_mark(crt_held *h, crt_err **err) {
  if (fstatat(h->lock, "state.json", &h->saved, AT_SYMLINK_NOFOLLOW) < 0)
    return crt_error(err, errno, "stat %s/state.json", h->state->dir);
  return 0;
}

bool crt_held_current(const crt_held *h, int lock) {
  struct stat st;
  if (fstatat(lock, "state.json", &st, AT_SYMLINK_NOFOLLOW) < 0) return false;
  return st.st_dev == h->saved.st_dev && st.st_ino == h->saved.st_ino && st.st_ctim.tv_sec == h->saved.st_ctim.tv_sec &&
         st.st_ctim.tv_nsec == h->saved.st_ctim.tv_nsec && st.st_size == h->saved.st_size;
}

void crt_held_release(crt_held *h) {
  if (h->lock >= 0) close(h->lock);
  h->lock = -1;
  crt_state_free(h->state);
  h->state = NULL;
  crt_spec_free(h->spec);
  h->spec = NULL;
}
