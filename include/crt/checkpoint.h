/* checkpoint and restore: a running container's processes to CRIU images
 * and back, as runc 1.1 does (docs/checkpoint.md).  This header: checkpoint
 * (src/container/checkpoint.c) and what restore shares with it; restore
 * itself: restore.h. */
#ifndef CRT_CHECKPOINT_H
#define CRT_CHECKPOINT_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

/* What checkpoint and restore share (runc's flags of the same names). */
typedef struct {
  const char *criu;       /* the criu binary (--criu, default "criu") */
  const char *image_path; /* NULL: ./checkpoint, as runc */
  const char *work_path;  /* NULL: the image path */
  const char *parent_path;
  const char *page_server;         /* "IP:PORT" */
  const char *manage_cgroups_mode; /* soft|full|strict|ignore, NULL: criu's default */
  bool leave_running, tcp_established, ext_unix_sk, shell_job, file_locks, pre_dump, auto_dedup;
  bool empty_netns; /* --empty-ns network */
  /* --lazy-pages: the dump serves the memory from its page server until a
   * lazy restore has fetched it; the restore gets it through userfaultfd */
  bool lazy_pages;
  int status_fd; /* checkpoint --status-fd (criu writes \0 when serving), -1: none */
} crt_criu_opts;

typedef struct {
  const char *root;
  const char *id;
  crt_criu_opts c;
} crt_checkpoint_opts;

int crt_container_checkpoint(const crt_checkpoint_opts *o, crt_err **err);

/* ---- the image directory's description, written by checkpoint ---- */

/* A mount criu must treat as external: its key is the mount point in the
 * container; kind "bind" (restored from the bundle's source), "cgroup"
 * (restored from the new container's cgroup; arg: the hierarchy's name
 * under /sys/fs/cgroup, "" on v2), "console" (/dev/console: the new
 * terminal's slave) or "devpts" (/dev/pts, the terminal's devpts: a new
 * instance, the one the new terminal comes from). */
typedef struct {
  char *kind, *key, *arg;
} crt_ckpt_mount;

typedef struct {
  char *id;
  char *stdio[3]; /* readlink of /proc/PID/fd/0..2: "pipe:[N]" are inherited */
  char *tty;      /* "tty[RDEV:DEV]": stdio was a terminal (console socket) */
  bool ext_netns; /* the network namespace was joined by path */
  crt_ckpt_mount *mounts;
  size_t n_mounts;
} crt_ckpt_desc;

#define CRT_CKPT_DESC "crt-checkpoint.txt"

int crt_ckpt_desc_save(const char *dir, const crt_ckpt_desc *d, crt_err **err);
int crt_ckpt_desc_load(const char *dir, crt_ckpt_desc *d, crt_err **err);
void crt_ckpt_desc_free(crt_ckpt_desc *d);

/* A bind mount's key: its destination as criu sees the mount point, with
 * the symlinks of the rootfs (the host directory rootfs) resolved inside
 * it, as runc's SecureJoin; dest itself when it does not resolve.
 * malloc'd, NULL when out of memory. */
char *crt_ckpt_bind_key(const char *rootfs, const char *dest);

/* The container's own CRIU configuration file, as runc: the annotation
 * org.criu.config names it ("" for none); without the annotation
 * /etc/criu/runc.conf when it exists (the file runc reads, so a drop-in
 * keeps its settings).  NULL: none. */
const char *crt_ckpt_config_file(const crt_spec *spec);
/* Puts --config=FILE into args (after the command) and leaves out every
 * option of crt's that the file sets: runc's RPC lets the file override
 * the request, criu's command line would let crt's options win.  When the
 * file names a log-file, *log (malloc'd, what errors quote) becomes it
 * (relative to work). */
/* The data of a devpts mount like the container's /dev/pts (m, NULL:
 * crt's defaults), for one made from the host's user namespace (restore's
 * terminal); malloc'd, NULL when out of memory. */
char *crt_ckpt_devpts_data(const crt_spec *spec, const crt_mount *m);
struct crt_args;
int crt_ckpt_apply_config(struct crt_args *a, const char *file, const char *work, char **log, crt_err **err);

/* Parts of the criu command line both commands build. */
struct crt_args;
int crt_ckpt_common_args(struct crt_args *a, const crt_criu_opts *c, const char *images, const char *work,
                         const char *log, crt_err **err);
/* The image directory: given, or ./checkpoint; the work directory: given,
 * or the image directory.  malloc'd. */
int crt_ckpt_dirs(const crt_criu_opts *c, char **images, char **work, crt_err **err);
/* `criu check`, and dirty-memory tracking when track_mem. */
int crt_ckpt_criu_usable(const crt_criu_opts *c, bool track_mem, crt_err **err);

#endif
