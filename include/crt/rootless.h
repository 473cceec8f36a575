/* What the host allows this runtime: the one rootless decision.
 *
 * crt is rootless in two forms that get the same treatment: a non-zero
 * euid, and euid 0 in a user namespace someone else made (rootless podman,
 * buildah, rootlesskit: /proc/self/uid_map is then e.g. "0 1001 1").  The
 * decision is made once, from crt's own position before it creates any
 * namespace, and every place that asks "may I do what real root may"
 * (state root, cgroups, mknod, setgroups, error hints) asks here. */
#ifndef CRT_ROOTLESS_H
#define CRT_ROOTLESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

typedef struct {
  uid_t euid;
  bool in_userns; /* not the initial user namespace */
  bool rootless;  /* euid != 0 or in_userns: the host's root powers are not ours */
} crt_rootless_ctx;

/* The context, filled on first use (main fills it before anything else). */
const crt_rootless_ctx *crt_rootless_get(void);
bool crt_in_userns(void);
bool crt_rootless(void);

/* Whether the first line of a uid_map says "not the initial user namespace"
 * (runc's uidMapInUserNS): anything but "0 0 4294967295"; an empty map
 * (a namespace not mapped yet) is one, an unreadable line is not. */
bool crt_uid_map_in_userns(const char *line);

/* The default state root, as runc's: $XDG_RUNTIME_DIR/<name> when
 * XDG_RUNTIME_DIR is set and either euid != 0, or euid 0 in a user
 * namespace with $USER unset or not "root"; otherwise /run/<name>.  NULL
 * when that does not fit buf[n] (a cut root would be another directory). */
const char *crt_rootless_state_root(bool euid0, bool in_userns, const char *xdg, const char *user, char *buf,
                                    size_t n);

/* A hint to append to an EPERM/EACCES message when rootless (what the user
 * can do about it), or "" when not rootless or errnum is another error.
 * what: "sysctl", "rlimit", "oom_score_adj", "mqueue", "mknod", "setgroups". */
const char *crt_rootless_hint(const char *what, int errnum);

/* The first limit in r that only a cgroup can enforce ("memory.limit"),
 * or NULL: rootless without a cgroup such a limit is an error, as runc's
 * "container could not join or create cgroup" (devices are not: a rootless
 * container cannot make device nodes anyway). */
const char *crt_rootless_cgroup_demand(const crt_resources *r);

/* Appends crt_rootless_hint(what, (*err)->errnum) to *err; returns -1. */
int crt_rootless_explain(crt_err **err, const char *what);

#endif
