/* Freeing the model; every free accepts partially filled structs, which is
 * what the parser leaves behind on error. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "crt/spec.h"

static void strv_free(crt_strv *s) {
  if (s->v)
    for (size_t i = 0; i < s->len; i++) free(s->v[i]);
  free(s->v);
  s->v = NULL;
  s->len = 0;
}

static void kvv_free(crt_kvv *k) {
  for (size_t i = 0; k->v && i < k->len; i++) {
    free(k->v[i].key);
    free(k->v[i].value);
  }
  free(k->v);
}

void crt_process_free(crt_process *p) {
  if (p == NULL) return;
  free(p->user.additional_gids);
  free(p->user.username);
  strv_free(&p->args);
  free(p->command_line);
  strv_free(&p->env);
  free(p->cwd);
  if (p->capabilities) {
    strv_free(&p->capabilities->bounding);
    strv_free(&p->capabilities->effective);
    strv_free(&p->capabilities->inheritable);
    strv_free(&p->capabilities->permitted);
    strv_free(&p->capabilities->ambient);
    free(p->capabilities);
  }
  for (size_t i = 0; p->rlimits && i < p->n_rlimits; i++) free(p->rlimits[i].type);
  free(p->rlimits);
  free(p->apparmor_profile);
  if (p->scheduler) {
    free(p->scheduler->policy);
    strv_free(&p->scheduler->flags);
    free(p->scheduler);
  }
  free(p->selinux_label);
  if (p->io_priority) free(p->io_priority->class_name);
  free(p->io_priority);
  if (p->exec_cpu_affinity) {
    free(p->exec_cpu_affinity->initial);
    free(p->exec_cpu_affinity->final);
  }
  free(p->exec_cpu_affinity);
  free(p);
}

static void hookv_free(crt_hookv *h) {
  for (size_t i = 0; h->v && i < h->len; i++) {
    free(h->v[i].path);
    strv_free(&h->v[i].args);
    strv_free(&h->v[i].env);
  }
  free(h->v);
}

void crt_resources_clear(crt_resources *r) {
  for (size_t i = 0; r->devices && i < r->n_devices; i++) {
    free(r->devices[i].type);
    free(r->devices[i].access);
  }
  free(r->devices);
  free(r->cpu.cpus);
  free(r->cpu.mems);
  free(r->blkio.weight_device);
  free(r->blkio.throttle_read_bps);
  free(r->blkio.throttle_write_bps);
  free(r->blkio.throttle_read_iops);
  free(r->blkio.throttle_write_iops);
  for (size_t i = 0; r->hugepage_limits && i < r->n_hugepage_limits; i++) free(r->hugepage_limits[i].page_size);
  free(r->hugepage_limits);
  for (size_t i = 0; r->network.priorities && i < r->network.n_priorities; i++)
    free(r->network.priorities[i].name);
  free(r->network.priorities);
  for (size_t i = 0; r->rdma && i < r->n_rdma; i++) free(r->rdma[i].device);
  free(r->rdma);
  kvv_free(&r->unified);
  memset(r, 0, sizeof *r);
}

static void resources_free(crt_resources *r) {
  if (r == NULL) return;
  crt_resources_clear(r);
  free(r);
}

static void seccomp_free(crt_seccomp *s) {
  if (s == NULL) return;
  free(s->default_action);
  strv_free(&s->architectures);
  strv_free(&s->flags);
  free(s->listener_path);
  free(s->listener_metadata);
  for (size_t i = 0; s->syscalls && i < s->n_syscalls; i++) {
    crt_seccomp_syscall *c = &s->syscalls[i];
    strv_free(&c->names);
    free(c->action);
    for (size_t j = 0; c->args && j < c->n_args; j++) free(c->args[j].op_name);
    free(c->args);
  }
  free(s->syscalls);
  free(s);
}

static void linux_free(crt_linux *l) {
  if (l == NULL) return;
  for (size_t i = 0; l->namespaces && i < l->n_namespaces; i++) free(l->namespaces[i].path);
  free(l->namespaces);
  free(l->uid_mappings.v);
  free(l->gid_mappings.v);
  for (size_t i = 0; l->time_offsets && i < l->n_time_offsets; i++) free(l->time_offsets[i].clock);
  free(l->time_offsets);
  for (size_t i = 0; l->devices && i < l->n_devices; i++) {
    free(l->devices[i].type);
    free(l->devices[i].path);
  }
  free(l->devices);
  free(l->cgroups_path);
  resources_free(l->resources);
  if (l->intel_rdt) {
    free(l->intel_rdt->clos_id);
    free(l->intel_rdt->l3_cache_schema);
    free(l->intel_rdt->mem_bw_schema);
    strv_free(&l->intel_rdt->schemata);
    free(l->intel_rdt);
  }
  kvv_free(&l->sysctl);
  kvv_free(&l->net_devices);
  seccomp_free(l->seccomp);
  free(l->rootfs_propagation);
  strv_free(&l->masked_paths);
  strv_free(&l->readonly_paths);
  free(l->mount_label);
  if (l->personality) {
    free(l->personality->domain);
    strv_free(&l->personality->flags);
    free(l->personality);
  }
  if (l->memory_policy) {
    free(l->memory_policy->mode);
    free(l->memory_policy->nodes);
    strv_free(&l->memory_policy->flags);
    free(l->memory_policy);
  }
  free(l);
}

void crt_spec_free(crt_spec *spec) {
  if (spec == NULL) return;
  free(spec->oci_version);
  if (spec->root) free(spec->root->path);
  free(spec->root);
  for (size_t i = 0; spec->mounts && i < spec->n_mounts; i++) {
    crt_mount *m = &spec->mounts[i];
    free(m->destination);
    free(m->source);
    free(m->type);
    strv_free(&m->options);
    crt_mount_opts_free(&m->opts);
    free(m->uid_mappings.v);
    free(m->gid_mappings.v);
  }
  free(spec->mounts);
  crt_process_free(spec->process);
  free(spec->hostname);
  free(spec->domainname);
  if (spec->hooks) {
    hookv_free(&spec->hooks->prestart);
    hookv_free(&spec->hooks->create_runtime);
    hookv_free(&spec->hooks->create_container);
    hookv_free(&spec->hooks->start_container);
    hookv_free(&spec->hooks->poststart);
    hookv_free(&spec->hooks->poststop);
    free(spec->hooks);
  }
  kvv_free(&spec->annotations);
  linux_free(spec->linux_);
  free(spec);
}
