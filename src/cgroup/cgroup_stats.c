/* cgroups: the helpers the drivers' stats are made of (number files, "key
 * value" files, io entries, hugetlb), and freeing the stats. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_internal.h"
#include "crt/str.h"

unsigned long long cg_rd(const char *dir, const char *file) {
  unsigned long long v = 0;
  if (cg_read_u64(dir, file, &v) < 0 || v == UINT64_MAX) return 0;
  return v;
}

/* A "key value" per line file (memory.stat, cpu.stat); value of key or 0. */
unsigned long long cg_kv_get(const char *s, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (strncmp(p, key, kl) == 0 && p[kl] == ' ') return strtoull(p + kl + 1, NULL, 10);
  return 0;
}

int cg_kv_all(const char *s, crt_cgroup_stat_kv **out, size_t *n) {
  cleanup_free char *dup = strdup(s);
  if (!dup) return -1;
  char *save;
  for (char *l = strtok_r(dup, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    char *sp = strchr(l, ' ');
    if (!sp) continue;
    *sp = 0;
    crt_cgroup_stat_kv *nv = realloc(*out, (*n + 1) * sizeof **out);
    if (!nv) return -1;
    *out = nv;
    nv[*n].name = strdup(l);
    nv[*n].value = strtoull(sp + 1, NULL, 10);
    if (!nv[(*n)++].name) return -1;
  }
  return 0;
}

int cg_push_io(crt_cgroup_blkio_entry **v, size_t *n, unsigned maj, unsigned min, const char *op,
                   unsigned long long val) {
  crt_cgroup_blkio_entry *nv = realloc(*v, (*n + 1) * sizeof **v);
  if (!nv) return -1;
  *v = nv;
  nv[*n] = (crt_cgroup_blkio_entry){maj, min, strdup(op), val};
  return nv[(*n)++].op ? 0 : -1;
}

/* Page sizes from hugetlb.<size>.<suffix> file names. */
int cg_hugetlb_stats(const char *dir, bool v2, crt_cgroup_stats *st) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  const char *suffix = v2 ? ".max" : ".limit_in_bytes";
  int rc = 0;
  while (rc == 0 && (e = readdir(d))) {
    const char *n = e->d_name;
    size_t l = strlen(n), sl = strlen(suffix);
    if (strncmp(n, "hugetlb.", 8) || l <= 8 + sl || strcmp(n + l - sl, suffix) || strstr(n, ".rsvd.")) continue;
    char size[32]; /* "2MB", "1GB": a longer one is no page size */
    if (crt_fmt(size, sizeof size, "%.*s", (int)(l - 8 - sl), n + 8) < 0) continue;
    crt_cgroup_hugetlb_stat *nv = realloc(st->hugetlb, (st->n_hugetlb + 1) * sizeof *nv);
    if (!nv) {
      rc = -1;
      break;
    }
    st->hugetlb = nv;
    crt_cgroup_hugetlb_stat *h = &nv[st->n_hugetlb++];
    memset(h, 0, sizeof *h);
    h->pagesize = strdup(size);
    char f[96]; /* fits "hugetlb.<size>.max_usage_in_bytes" */
    snprintf(f, sizeof f, "hugetlb.%s.%s", size, v2 ? "current" : "usage_in_bytes");
    h->usage = cg_rd(dir, f);
    if (v2) {
      snprintf(f, sizeof f, "hugetlb.%s.events", size);
      cleanup_free char *ev = cg_read(dir, f);
      h->failcnt = ev ? cg_kv_get(ev, "max") : 0;
    } else {
      snprintf(f, sizeof f, "hugetlb.%s.max_usage_in_bytes", size);
      h->max = cg_rd(dir, f);
      snprintf(f, sizeof f, "hugetlb.%s.failcnt", size);
      h->failcnt = cg_rd(dir, f);
    }
    if (!h->pagesize) rc = -1;
  }
  closedir(d);
  return rc;
}

void crt_cgroup_stats_free(crt_cgroup_stats *st) {
  free(st->percpu);
  for (size_t i = 0; i < st->n_mem_raw; i++) free(st->mem_raw[i].name);
  free(st->mem_raw);
  for (size_t i = 0; i < st->n_io_bytes; i++) free(st->io_bytes[i].op);
  free(st->io_bytes);
  for (size_t i = 0; i < st->n_io_ios; i++) free(st->io_ios[i].op);
  free(st->io_ios);
  for (size_t i = 0; i < st->n_hugetlb; i++) free(st->hugetlb[i].pagesize);
  free(st->hugetlb);
  memset(st, 0, sizeof *st);
}
