/* Container state: one directory per container under --root holding
 * state.json and the rescue file `init` (both written atomically), the
 * validated config.json, and exec.fifo until start.  The lock is a flock
 * on the directory itself. */
#ifndef CRT_STATE_H
#define CRT_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "crt/cgroup.h"
#include "crt/error.h"
#include "crt/fs.h"
#include "crt/spec.h"

enum crt_status { CRT_STATUS_CREATING, CRT_STATUS_CREATED, CRT_STATUS_RUNNING, CRT_STATUS_PAUSED, CRT_STATUS_STOPPED };

typedef struct {
  char *id;
  pid_t pid;               /* init's host pid, 0 when none */
  uint64_t start_time;     /* field 22 of /proc/PID/stat, guards against pid reuse */
  char *bundle;            /* absolute */
  char *rootfs;            /* absolute */
  char *created;           /* RFC3339Nano */
  char *owner;             /* "" for root, like runc */
  char *cgroup_path;       /* as given back by crt_cgroup_enter, "" none */
  bool ready;              /* the init reached the exec FIFO (create finished) */
  bool systemd;            /* cgroup made through systemd */
  crt_cgroup *cg;          /* the container's cgroup (cgroup_path under the host's root, opened with the
                            * state; not serialised), NULL: none */
  char *parked_exe;        /* "DEV INO" of the parked init's exe (crt_exec_fifo_parked_id), NULL: none */
  char *dir;               /* the state directory (not serialised) */
  char *rescue;            /* the rescue line this process last wrote (not serialised) */
  crt_atomic_file *next;   /* state.json's next temp file, made ahead (crt_state_save_ahead), or NULL */
  crt_kvv annotations;
} crt_state;

/* In a state directory while delete removes it: a directory without
 * state.json but with this file was half-deleted, not half-created. */
#define CRT_DELETING_MARK "deleting"

/* Checks an ID as runc does: ^[\w+\-.]+$, not "." or "..". */
int crt_container_id_check(const char *id, crt_err **err);

/* <root>/<id> into buf. */
int crt_container_dir(const char *root, const char *id, char *buf, size_t len, crt_err **err);

/* Loads state.json.  Errors: "container does not exist" (CRT_ERR_NOT_FOUND);
 * a directory without a usable state.json (CRT_ERR_NO_STATE). */
int crt_state_load(const char *root, const char *id, crt_state **out, crt_err **err);
/* The parsing and validation half of crt_state_load: buf (len bytes, need not
 * be NUL-terminated; parsing stops at a NUL) must be a state.json whose "id"
 * is id; dir becomes s->dir; path_for_messages names the file in errors
 * ("PATH: corrupt state file ...", CRT_ERR_NO_STATE). */
int crt_state_parse(const char *buf, size_t len, const char *id, const char *dir, const char *path_for_messages,
                    crt_state **out, crt_err **err);
int crt_state_save(const char *root, crt_state *s, crt_err **err);
/* Makes the temp file of the next crt_state_save now, while the caller
 * waits for something anyway (create, for the parked init). */
int crt_state_save_ahead(crt_state *s, crt_err **err);
/* Only the rescue file (pid, start time, cgroup) that delete --force reads. */
int crt_state_save_rescue(const char *root, crt_state *s, crt_err **err);
void crt_state_free(crt_state *s);
/* The minimal state (pid, start time, cgroup) kept beside state.json for
 * cleaning up a container whose state.json is unreadable; -1 if none. */
int crt_state_load_rescue(const char *root, const char *id, crt_state **out);

/* Derived status: stopped when the init is gone, a zombie, or not the
 * process crt started (crt_state_check_init). */
enum crt_status crt_state_status(const crt_state *s);
const char *crt_status_name(enum crt_status st);

/* The runtime-spec state JSON (what `crt state` prints and hooks read). */
char *crt_state_json(const crt_state *s, enum crt_status st, bool pretty);

/* flock on the directory <root>/<id>, exclusive; returns the fd (O_CLOEXEC). */
int crt_container_lock(const char *root, const char *id, crt_err **err);


/* The config is fixed at create (runtime-spec: later changes to the
 * bundle's config.json MUST NOT affect the container): create saves the
 * validated model into the state directory, and every later operation
 * (start, exec, kill, delete, ps, update, hooks) loads it from there. */
int crt_state_save_spec(const crt_state *s, const crt_spec *spec, crt_err **err);
int crt_state_load_spec(const crt_state *s, crt_spec **out, crt_err **err);

/* A container `run` made and keeps in memory, so that its start and
 * delete read neither state.json nor config.json back: what create saved,
 * and the container's lock while it is held (-1 when not). */
typedef struct {
  const char *root;
  crt_state *state;
  crt_spec *spec;
  int lock;
  /* state.json as create left it: every save renames a new file over it,
   * so the same inode and ctime mean nothing rewrote it since */
  struct stat saved;
} crt_held;

/* Records state.json's identity (h->lock held, just after the last save). */
int crt_held_mark(crt_held *h, crt_err **err);
/* Whether state.json, under the lock fd lock, is still the one marked. */
bool crt_held_current(const crt_held *h, int lock);
/* Frees the state and spec, closes the lock if held. */
void crt_held_release(crt_held *h);

/* config.json's annotations into s (state.json carries them); -1 on
 * ENOMEM, what was copied freed with the state. */
int crt_state_copy_annotations(crt_state *s, const crt_kvv *from);

/* Now, as state.json's "created" (RFC 3339, UTC, nanoseconds); malloc'd,
 * NULL on ENOMEM. */
char *crt_state_time_now(void);

#endif
