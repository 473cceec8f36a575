/* config.json / process.json parser: the JSON text checked, then the yajl
 * tree read into the typed model, validating as it goes (the parts in
 * parse_*.c).  Every error names the JSON path of the offending value. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "crt/fs.h"
#include "json.h"

#define MAX_CONFIG_SIZE (64u << 20)
#define MAX_DEPTH 256
#define MAX_VALUES 1000000

static int check_version(jp *p, const char *v) {
  const char *c = v;
  char *end;
  bool ok = strncmp(c, "1.", 2) == 0;
  if (ok) {
    c += 2;
    ok = *c >= '0' && *c <= '9';
    unsigned long minor = strtoul(c, &end, 10);
    ok = ok && minor <= 3 && end[0] == '.' && end[1] >= '0' && end[1] <= '9';
    if (ok) {
      strtoul(end + 1, &end, 10);
      ok = *end == 0 || ((*end == '-' || *end == '+') && end[1] != 0);
    }
  }
  if (!ok) return jp_fail(p, "unsupported version \"%s\" (crt supports 1.0.0 to 1.3.x)", v);
  return 0;
}

static int parse_root(jp *p, yajl_val o, crt_root *r) {
  if (f_str(p, o, "path", true, &r->path) < 0) return -1;
  return f_bool(p, o, "readonly", false, &r->readonly, NULL);
}

JP_ADAPT(parse_root)
JP_ADAPT(spec_parse_mount)
JP_ADAPT(spec_parse_process)
JP_ADAPT(spec_parse_hooks)
JP_ADAPT(spec_parse_linux)

static int parse_spec_obj(jp *p, yajl_val o, crt_spec *sp) {
  if (f_str(p, o, "ociVersion", true, &sp->oci_version) < 0) return -1;
  size_t s = jp_push(p, ".ociVersion");
  if (check_version(p, sp->oci_version) < 0) return -1;
  jp_pop(p, s);
  if (SUB(p, o, "root", parse_root, &sp->root) < 0) return -1;
  if (OBJV(p, o, "mounts", spec_parse_mount, &sp->mounts, &sp->n_mounts) < 0) return -1;
  if (SUB(p, o, "process", spec_parse_process, &sp->process) < 0) return -1;
  if (f_str(p, o, "hostname", false, &sp->hostname) < 0) return -1;
  if (f_str(p, o, "domainname", false, &sp->domainname) < 0) return -1;
  if (SUB(p, o, "hooks", spec_parse_hooks, &sp->hooks) < 0) return -1;
  if (f_kvv(p, o, "annotations", &sp->annotations) < 0) return -1;
  return SUB(p, o, "linux", spec_parse_linux, &sp->linux_);
}

/* ---- JSON text ---- */
static void line_col(const char *buf, size_t off, size_t *line, size_t *col) {
  *line = 1;
  size_t start = 0;
  for (size_t i = 0; i < off; i++)
    if (buf[i] == '\n') {
      (*line)++;
      start = i + 1;
    }
  *col = off - start + 1;
}

static int json_error(const char *name, const char *buf, size_t off, const char *what, crt_err **err) {
  size_t line, col;
  line_col(buf, off, &line, &col);
  return crt_error(err, 0, "%s: invalid JSON at line %zu, column %zu: %s", name, line, col, what);
}

/* Bounded nesting so neither yajl's tree nor its recursive free can exhaust
 * the stack on hostile input, and a bounded number of values so that a
 * 64 MiB "[0,0,0,...]" cannot take gigabytes as a tree. */
static int check_depth(const char *name, const char *buf, size_t len, crt_err **err) {
  size_t depth = 0, values = 0;
  bool in_str = false;
  for (size_t i = 0; i < len; i++) {
    char c = buf[i];
    if (in_str) {
      /* C strings cannot carry NUL: "a\u0000b" would silently become "a". */
      if (c == '\\' && len - i >= 6 && memcmp(buf + i + 1, "u0000", 5) == 0)
        return json_error(name, buf, i, "NUL character (\\u0000) in string", err);
      if (c == '\\') i++;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '[' || c == '{') {
      if (++depth > MAX_DEPTH) return json_error(name, buf, i, "nesting deeper than 256 levels", err);
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    } else if (c == ',' && ++values > MAX_VALUES) {
      return json_error(name, buf, i, "more than 1000000 JSON values", err);
    }
  }
  return 0;
}

/* Strict syntax check (no comments) with the position of the first error. */
static int check_syntax(const char *name, const char *buf, size_t len, crt_err **err) {
  if (len == 0) return crt_error(err, 0, "%s: invalid JSON: empty document", name);
  const char *nul = memchr(buf, 0, len);
  if (nul) return json_error(name, buf, (size_t)(nul - buf), "NUL byte in JSON text", err);
  if (check_depth(name, buf, len, err) < 0) return -1;
  yajl_handle h = yajl_alloc(NULL, NULL, NULL);
  if (h == NULL) abort();
  yajl_status st = yajl_parse(h, (const unsigned char *)buf, len);
  size_t off = yajl_get_bytes_consumed(h);
  bool at_end = false;
  if (st == yajl_status_ok) {
    st = yajl_complete_parse(h);
    off = len;
    at_end = true;
  }
  int ret = 0;
  if (st != yajl_status_ok) {
    unsigned char *m = yajl_get_error(h, 0, (const unsigned char *)buf, len);
    char *msg = m ? strdup((char *)m) : NULL;
    if (m) yajl_free_error(h, m);
    size_t n = msg ? strlen(msg) : 0;
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ' || msg[n - 1] == '.')) msg[--n] = 0;
    /* After a grammar error yajl counts the offending token as consumed;
     * after a lexical one it stops before it.  Point at the byte itself. */
    if (msg && strncmp(msg, "parse error", 11) == 0 && off > 0 && !at_end) off--;
    ret = json_error(name, buf, off > len ? len : off, msg && *msg ? msg : "syntax error", err);
    free(msg);
  }
  yajl_free(h);
  return ret;
}

static int parse_tree(const char *buf, size_t len, const char *name, yajl_val *out, crt_err **err) {
  if (check_syntax(name, buf, len, err) < 0) return -1;
  cleanup_free char *copy = malloc(len + 1);
  if (copy == NULL) return crt_error(err, ENOMEM, "%s: parse", name);
  memcpy(copy, buf, len);
  copy[len] = 0;
  char ebuf[256] = "";
  *out = yajl_tree_parse(copy, ebuf, sizeof ebuf);
  if (*out == NULL) return crt_error(err, 0, "%s: invalid JSON: %s", name, ebuf[0] ? ebuf : "parse error");
  if ((*out)->type != yajl_t_object) {
    crt_error(err, 0, "%s: expected a JSON object at the top level, got %s", name, jp_type_name(*out));
    yajl_tree_free(*out);
    return -1;
  }
  return 0;
}

int crt_spec_parse(const char *buf, size_t len, const char *name, crt_spec **out, crt_err **err) {
  *out = NULL;
  yajl_val tree;
  if (parse_tree(buf, len, name, &tree, err) < 0) return -1;
  jp p = {.name = name, .err = err};
  crt_spec *sp = jp_calloc(1, sizeof *sp);
  int r = parse_spec_obj(&p, tree, sp);
  yajl_tree_free(tree);
  if (r < 0) {
    crt_spec_free(sp);
    return -1;
  }
  *out = sp;
  return 0;
}

int crt_process_parse(const char *buf, size_t len, const char *name, crt_process **out, crt_err **err) {
  *out = NULL;
  yajl_val tree;
  if (parse_tree(buf, len, name, &tree, err) < 0) return -1;
  jp p = {.name = name, .err = err};
  crt_process *pr = jp_calloc(1, sizeof *pr);
  int r = spec_parse_process(&p, tree, pr);
  yajl_tree_free(tree);
  if (r < 0) {
    crt_process_free(pr);
    return -1;
  }
  *out = pr;
  return 0;
}

int crt_resources_parse(const char *buf, size_t len, const char *name, crt_resources *out, crt_err **err) {
  memset(out, 0, sizeof *out);
  yajl_val tree;
  if (parse_tree(buf, len, name, &tree, err) < 0) return -1;
  jp p = {.name = name, .err = err};
  int r = spec_parse_resources(&p, tree, out);
  yajl_tree_free(tree);
  if (r < 0) crt_resources_clear(out);
  return r;
}

/* config.json must be a regular file; a process file (exec -p) may be any
 * readable file, a pipe such as /dev/stdin included, as in runc.  Opening
 * a FIFO for it blocks until a writer comes, as runc's os.Open does. */
static int load(const char *path, bool any_file, char **buf, size_t *len, crt_err **err) {
  cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (any_file ? 0 : O_NONBLOCK));
  if (fd < 0) return crt_error(err, errno, "open %s", path);
  struct stat st;
  if (fstat(fd, &st) < 0) return crt_error(err, errno, "stat %s", path);
  if (!any_file && !S_ISREG(st.st_mode)) return crt_error(err, 0, "%s: not a regular file", path);
  if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > MAX_CONFIG_SIZE)
    return crt_error(err, 0, "%s: file too large (%lld bytes, at most 64 MiB)", path, (long long)st.st_size);
  if (crt_read_fd(fd, MAX_CONFIG_SIZE, buf, len, err) < 0) return crt_error_wrap(err, "read %s", path);
  return 0;
}

int crt_spec_load(const char *path, crt_spec **out, crt_err **err) {
  *out = NULL;
  cleanup_free char *buf = NULL;
  size_t len = 0;
  if (load(path, false, &buf, &len, err) < 0) return -1;
  const char *base = strrchr(path, '/');
  return crt_spec_parse(buf, len, base ? base + 1 : path, out, err);
}

int crt_process_load(const char *path, crt_process **out, crt_err **err) {
  *out = NULL;
  cleanup_free char *buf = NULL;
  size_t len = 0;
  if (load(path, true, &buf, &len, err) < 0) return -1;
  return crt_process_parse(buf, len, path, out, err);
}

