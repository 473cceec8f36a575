/* cgroups, v1 (and hybrid) and v2 behind one interface.
 *
 * A container's cgroup is named by one path relative to each hierarchy's
 * root (e.g. "/crt/c1" or the spec's linux.cgroupsPath); that string is what
 * state.json stores and what every later command passes back in. */
#ifndef CRT_CGROUP_H
#define CRT_CGROUP_H

#include <stdbool.h>
#include <sys/types.h>

#include "crt/error.h"
#include "crt/spec.h"

enum crt_cgroup_mode { CRT_CGROUP_MODE_V1, CRT_CGROUP_MODE_HYBRID, CRT_CGROUP_MODE_V2 };

/* What /sys/fs/cgroup is on this host. */
enum crt_cgroup_mode crt_cgroup_mode(void);

typedef struct {
  const char *id;
  const crt_spec *spec;   /* linux.cgroupsPath and linux.resources */
  bool systemd;           /* --systemd-cgroup */
  bool rootless;          /* missing permission is not an error, only skipped */
} crt_cgroup_config;

/* Creates the cgroup (all hierarchies), applies linux.resources (including
 * device rules: eBPF on v2, devices.allow/deny on v1) and moves pid into it.
 * *path_out: the path to store in state.json (malloc'd; "" when rootless
 * and nothing could be made).  On failure removes what it created. */
int crt_cgroup_enter(const crt_cgroup_config *cfg, pid_t pid, char **path_out, crt_err **err);

/* Moves another process (exec) into an existing container cgroup;
 * sub: optional sub-cgroup (exec --cgroup), NULL for the container's own. */
int crt_cgroup_join(const char *path, const char *sub, pid_t pid, crt_err **err);

/* Removes the cgroup on every hierarchy, retrying while processes exit
 * (killing with SIGKILL those that remain when kill_remaining). */
int crt_cgroup_destroy(const char *path, crt_err **err);

/* The pids in the container's cgroup (recursively). */
int crt_cgroup_pids(const char *path, pid_t **pids, size_t *n, crt_err **err);

/* Sends sig to every process of the cgroup (cgroup.kill on v2 for SIGKILL). */
int crt_cgroup_kill(const char *path, int sig, crt_err **err);

/* Freezes/thaws and waits until the state is reached. */
int crt_cgroup_freeze(const char *path, bool freeze, crt_err **err);
/* 1 frozen, 0 not, < 0 error (no freezer: 0). */
int crt_cgroup_is_frozen(const char *path);

/* Applies new resources to an existing cgroup (crt update). */
int crt_cgroup_update(const char *path, const crt_resources *r, crt_err **err);

#endif
