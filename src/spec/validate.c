/* Whole-spec checks for create/run, beyond what a single field shows. */
#define _GNU_SOURCE
#include <string.h>

#include "crt/spec.h"

int crt_spec_validate_for_create(const crt_spec *s, crt_err **err) {
  const char *n = "config.json";
  if (s->root == NULL || s->root->path == NULL || s->root->path[0] == 0)
    return crt_error(err, 0, "%s: .root.path: missing required field", n);
  const crt_process *p = s->process;
  if (p == NULL) return crt_error(err, 0, "%s: .process: missing required field", n);
  if (p->args.len == 0) return crt_error(err, 0, "%s: .process.args: must contain at least one entry", n);
  if (p->cwd == NULL || p->cwd[0] == 0) return crt_error(err, 0, "%s: .process.cwd: missing required field", n);
  if (p->cwd[0] != '/') return crt_error(err, 0, "%s: .process.cwd: path \"%s\" is not absolute", n, p->cwd);
  const crt_linux *l = s->linux_;
  const crt_namespace *user = crt_spec_namespace(s, CRT_NS_USER);
  /* Mappings without a new user namespace are left alone (joining one). */
  bool new_user = user && user->path == NULL;
  if (new_user && (l->uid_mappings.len == 0 || l->gid_mappings.len == 0))
    return crt_error(err, 0, "%s: .linux.%s: a new user namespace needs uidMappings and gidMappings", n,
                     l->uid_mappings.len == 0 ? "uidMappings" : "gidMappings");
  for (size_t i = 0; l && i < l->n_time_offsets; i++)
    if (crt_spec_namespace(s, CRT_NS_TIME) == NULL)
      return crt_error(err, 0, "%s: .linux.timeOffsets: set but no time namespace is requested", n);
  /* HOST_NAME_MAX: the kernel refuses longer names; say so before forking */
  if (s->hostname && strlen(s->hostname) > 64)
    return crt_error(err, 0, "%s: .hostname: longer than 64 bytes (%zu)", n, strlen(s->hostname));
  if (s->domainname && strlen(s->domainname) > 64)
    return crt_error(err, 0, "%s: .domainname: longer than 64 bytes (%zu)", n, strlen(s->domainname));
  if (s->hostname && s->hostname[0] && crt_spec_namespace(s, CRT_NS_UTS) == NULL)
    return crt_error(err, 0, "%s: .hostname: setting the hostname needs a new UTS namespace", n);
  if (s->domainname && s->domainname[0] && crt_spec_namespace(s, CRT_NS_UTS) == NULL)
    return crt_error(err, 0, "%s: .domainname: setting the domainname needs a new UTS namespace", n);
  for (size_t i = 0; i < s->n_mounts; i++)
    if ((s->mounts[i].uid_mappings.len == 0) != (s->mounts[i].gid_mappings.len == 0))
      return crt_error(err, 0, "%s: .mounts[%zu]: idmapped mounts need both uidMappings and gidMappings", n, i);
  return 0;
}
