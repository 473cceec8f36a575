/* crt exec */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "crt/caps.h"
#include "crt/cli.h"
#include "crt/cloned_binary.h"
#include "crt/exec.h"
#include "crt/state.h"

static int strv_push(crt_strv *v, const char *s) {
  char **n = realloc(v->v, (v->len + 2) * sizeof(char *));
  if (!n) return -1;
  v->v = n;
  v->v[v->len++] = strdup(s);
  v->v[v->len] = NULL;
  return 0;
}

static void strv_clear(crt_strv *v) {
  for (size_t i = 0; i < v->len; i++) free(v->v[i]);
  free(v->v);
  v->v = NULL;
  v->len = 0;
}

static int parse_u32(const char *s, uint32_t *out) {
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (errno || *end || end == s || v > UINT32_MAX || s[0] == '-') return -1;
  *out = (uint32_t)v;
  return 0;
}

/* Whether a --process file reads the same a second time (a pipe does not). */
static bool rereadable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* --cgroup may be given once per controller (runc's StringSlice). */
static char *join_lines(const crt_strv *v) {
  size_t n = 1;
  for (size_t i = 0; i < v->len; i++) n += strlen(v->v[i]) + 1;
  char *s = calloc(1, n);
  for (size_t i = 0; s && i < v->len; i++) {
    if (i) strcat(s, "\n");
    strcat(s, v->v[i]);
  }
  return s;
}

typedef struct {
  const char *process_file, *cwd, *user, *apparmor, *label;
  crt_strv env, caps, gids, cgroups;
  char *cgroup; /* the --cgroup values, one per line */
  bool tty, no_new_privs;
} exec_flags;

/* The flags' values get the rules their config.json fields get (runc
 * refuses both): a failure is an exec failure (255), not a usage error. */
static int check_flags(const exec_flags *f, crt_err **err) {
  for (size_t i = 0; i < f->env.len; i++)
    if (!crt_env_entry_valid(f->env.v[i]))
      return crt_error(err, 0, "--env \"%s\": invalid environment variable: expected KEY=VALUE", f->env.v[i]);
  if (f->cwd && f->cwd[0] != '/') return crt_error(err, 0, "--cwd \"%s\": not an absolute path", f->cwd);
  return 0;
}

static int apply_flags(crt_process *p, const exec_flags *f, int argc, char **argv, const char *cmd) {
  strv_clear(&p->args);
  for (int i = 0; i < argc; i++) strv_push(&p->args, argv[i]);
  /* Appended, as runc does: crt_build_env keeps the last entry of a key. */
  for (size_t i = 0; i < f->env.len; i++) strv_push(&p->env, f->env.v[i]);
  if (f->cwd) {
    free(p->cwd);
    p->cwd = strdup(f->cwd);
  }
  p->terminal = f->tty; /* as runc: the config's terminal is not inherited */
  if (f->no_new_privs) p->no_new_privileges = true;
  if (f->apparmor) {
    free(p->apparmor_profile);
    p->apparmor_profile = strdup(f->apparmor);
  }
  if (f->label) {
    free(p->selinux_label);
    p->selinux_label = strdup(f->label);
  }
  if (f->user) {
    cleanup_free char *u = strdup(f->user);
    char *colon = strchr(u, ':');
    if (colon) *colon++ = 0;
    if (parse_u32(u, &p->user.uid) < 0 || (colon && parse_u32(colon, &p->user.gid) < 0)) {
      crt_usage_error(cmd, "invalid --user \"%s\": want <uid>[:<gid>]", f->user);
      return -1;
    }
  }
  if (f->gids.len) {
    uint32_t *g = calloc(f->gids.len, sizeof *g);
    if (!g) return -1;
    for (size_t i = 0; i < f->gids.len; i++)
      if (parse_u32(f->gids.v[i], &g[i]) < 0) {
        free(g);
        crt_usage_error(cmd, "invalid --additional-gids \"%s\"", f->gids.v[i]);
        return -1;
      }
    free(p->user.additional_gids);
    p->user.additional_gids = g;
    p->user.n_additional_gids = f->gids.len;
  }
  if (f->caps.len) {
    if (!p->capabilities) p->capabilities = calloc(1, sizeof *p->capabilities);
    crt_capabilities *c = p->capabilities;
    if (!c) return -1;
    /* an unknown name is skipped with runc's warning (src/linux/caps.c) */
    for (size_t i = 0; i < f->caps.len; i++) {
      strv_push(&c->bounding, f->caps.v[i]);
      strv_push(&c->effective, f->caps.v[i]);
      strv_push(&c->permitted, f->caps.v[i]);
      c->has_bounding = c->has_effective = c->has_permitted = true;
      /* ambient needs inheritable; like runc, only when the spec has some */
      if (c->has_inheritable) {
        strv_push(&c->ambient, f->caps.v[i]);
        c->has_ambient = true;
      }
    }
  }
  return 0;
}

/* argv into f and o: 0, 1 after --help, -1 on a usage error. */
static int parse_flags(int argc, char **argv, exec_flags *f, crt_exec_opts *o) {
  enum { O_CONSOLE = 256, O_PIDFD, O_CWD, O_PIDFILE, O_LABEL, O_APPARMOR, O_NNP, O_PRESERVE, O_CGROUP, O_IGNPAUSED };
  static const struct option opts[] = {
      {"console-socket", required_argument, NULL, O_CONSOLE}, {"cwd", required_argument, NULL, O_CWD},
      {"pidfd-socket", required_argument, NULL, O_PIDFD},
      {"env", required_argument, NULL, 'e'},                  {"tty", no_argument, NULL, 't'},
      {"user", required_argument, NULL, 'u'},                 {"additional-gids", required_argument, NULL, 'g'},
      {"process", required_argument, NULL, 'p'},              {"detach", no_argument, NULL, 'd'},
      {"pid-file", required_argument, NULL, O_PIDFILE},       {"process-label", required_argument, NULL, O_LABEL},
      {"apparmor", required_argument, NULL, O_APPARMOR},      {"no-new-privs", no_argument, NULL, O_NNP},
      {"cap", required_argument, NULL, 'c'},                  {"preserve-fds", required_argument, NULL, O_PRESERVE},
      {"cgroup", required_argument, NULL, O_CGROUP},          {"ignore-paused", no_argument, NULL, O_IGNPAUSED},
      {"help", no_argument, NULL, 'h'},                       {NULL, 0, NULL, 0}};
  int c;
  while ((c = crt_getopt(argc, argv, "+e:tu:g:p:dc:h", opts, argv[0])) != -1) {
    switch (c) {
    case O_CONSOLE: o->console_socket = optarg; break;
    case O_PIDFD: o->pidfd_socket = optarg; break;
    case O_CWD: f->cwd = optarg; break;
    case 'e': strv_push(&f->env, optarg); break;
    case 't': f->tty = true; break;
    case 'u': f->user = optarg; break;
    case 'g': strv_push(&f->gids, optarg); break;
    case 'p': f->process_file = optarg; break;
    case 'd': o->detach = true; break;
    case O_PIDFILE: o->pid_file = optarg; break;
    case O_LABEL: f->label = optarg; break;
    case O_APPARMOR: f->apparmor = optarg; break;
    case O_NNP: f->no_new_privs = true; break;
    case 'c': strv_push(&f->caps, optarg); break;
    case O_PRESERVE: {
      char *end;
      long n = strtol(optarg, &end, 10);
      if (*end || n < 0 || n > 1 << 20) {
        crt_usage_error(argv[0], "invalid value \"%s\" for flag --preserve-fds", optarg);
        return -1;
      }
      o->preserve_fds = (int)n;
      break;
    }
    case O_CGROUP: strv_push(&f->cgroups, optarg); break;
    case O_IGNPAUSED: o->ignore_paused = true; break;
    case 'h': crt_help_command(stdout, "exec"); return 1;
    default: return -1;
    }
  }
  return 0;
}

typedef struct {
  crt_spec *spec;
  crt_process *fileproc;
  crt_state *s;
  char *origin;
} exec_process_src;

/* o->process from -p, or from the saved config and the flags: 0, -1 with
 * *err (an exec failure), or 1 (a usage error, already reported). */
static int build_process(exec_flags *f, crt_exec_opts *o, int nargs, char **args, const char *cmd,
                         exec_process_src *src, crt_err **err) {
  if (f->process_file) {
    if (crt_process_load(f->process_file, &src->fileproc, err) < 0) return -1;
    o->process = src->fileproc;
    if (asprintf(&src->origin, "in %s", f->process_file) < 0) src->origin = NULL;
    o->cwd_origin = src->origin;
    return 0;
  }
  if (check_flags(f, err) < 0) return -1;
  o->cwd_origin = f->cwd ? "by --cwd" : "in config.json";
  if (crt_state_load(o->root, o->id, &src->s, err) < 0 || crt_state_load_spec(src->s, &src->spec, err) < 0) return -1;
  if (!src->spec->process) return crt_error(err, 0, "config.json: .process: missing");
  if (apply_flags(src->spec->process, f, nargs - 1, args, cmd) < 0) return 1;
  o->process = src->spec->process;
  return 0;
}

int crt_cmd_exec(int argc, char **argv) {
  exec_flags f = {0};
  crt_exec_opts o = {.root = crt_g.root};
  int rc = 1;
  exec_process_src src = {0};
  cleanup_err crt_err *err = NULL;
  int parsed = parse_flags(argc, argv, &f, &o);
  if (parsed != 0) {
    rc = parsed > 0 ? 0 : 1;
    goto out;
  }
  int nargs = argc - optind;
  if (crt_require_args(argv[0], nargs, 1, -1, "at least 1 argument") < 0) goto out;
  o.id = argv[optind];
  if (f.cgroups.len && !(o.cgroup = f.cgroup = join_lines(&f.cgroups))) goto out;
  if (!f.process_file && nargs < 2) {
    crt_usage_error(argv[0], "exec needs a command or --process");
    goto out;
  }
  /* A process entering the container's pid namespace must not run the
   * on-disk crt: a container process with CAP_SYS_PTRACE could open its
   * /proc/PID/exe and write to the binary once we exit (CVE-2019-5736).
   * crt_container_exec re-executes crt from a sealed copy when the stub
   * entry cannot take the exec; the re-exec starts this command over, so a
   * --process that cannot be read twice (-p /dev/stdin) needs it first. */
  o.argv = crt_g.argv0;
  if (f.process_file && !rereadable(f.process_file) && crt_ensure_cloned_binary(o.argv, &err) < 0) goto fail;
  int built = build_process(&f, &o, nargs, argv + optind + 1, argv[0], &src, &err);
  if (built > 0) goto out;
  if (built < 0) goto fail;
  if (!o.detach) (void)prctl(PR_SET_CHILD_SUBREAPER, 1); /* cannot fail: it only sets a flag */
  int status = 255;
  if (crt_container_exec(&o, &status, &err) < 0) {
    crt_fail(err);
    rc = 255;
    goto out;
  }
  rc = status;
  goto out;
fail:
  /* runc: every exec failure is "exec failed: ..." with status 255 */
  crt_error_wrap(&err, "exec failed");
  crt_fail(err);
  rc = 255;
out:
  strv_clear(&f.env);
  strv_clear(&f.caps);
  strv_clear(&f.gids);
  strv_clear(&f.cgroups);
  free(f.cgroup);
  crt_process_free(src.fileproc);
  crt_spec_free(src.spec);
  crt_state_free(src.s);
  free(src.origin);
  return rc;
}
