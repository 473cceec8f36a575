/* The default config.json, the same as `runc spec` (ociVersion 1.2.0), and
 * its rootless variant (`runc spec --rootless`). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crt/spec.h"

static const char default_json[] =
    "{\n"
    "  \"ociVersion\": \"1.2.0\",\n"
    "  \"process\": {\n"
    "    \"terminal\": true,\n"
    "    \"user\": {\n"
    "      \"uid\": 0,\n"
    "      \"gid\": 0\n"
    "    },\n"
    "    \"args\": [\n"
    "      \"sh\"\n"
    "    ],\n"
    "    \"env\": [\n"
    "      \"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\",\n"
    "      \"TERM=xterm\"\n"
    "    ],\n"
    "    \"cwd\": \"/\",\n"
    "    \"capabilities\": {\n"
    "      \"bounding\": [\n"
    "        \"CAP_AUDIT_WRITE\",\n"
    "        \"CAP_KILL\",\n"
    "        \"CAP_NET_BIND_SERVICE\"\n"
    "      ],\n"
    "      \"effective\": [\n"
    "        \"CAP_AUDIT_WRITE\",\n"
    "        \"CAP_KILL\",\n"
    "        \"CAP_NET_BIND_SERVICE\"\n"
    "      ],\n"
    "      \"permitted\": [\n"
    "        \"CAP_AUDIT_WRITE\",\n"
    "        \"CAP_KILL\",\n"
    "        \"CAP_NET_BIND_SERVICE\"\n"
    "      ]\n"
    "    },\n"
    "    \"rlimits\": [\n"
    "      {\n"
    "        \"type\": \"RLIMIT_NOFILE\",\n"
    "        \"hard\": 1024,\n"
    "        \"soft\": 1024\n"
    "      }\n"
    "    ],\n"
    "    \"noNewPrivileges\": true\n"
    "  },\n"
    "  \"root\": {\n"
    "    \"path\": \"rootfs\",\n"
    "    \"readonly\": true\n"
    "  },\n"
    "  \"hostname\": \"runc\",\n"
    "  \"mounts\": [\n"
    "    {\n"
    "      \"destination\": \"/proc\",\n"
    "      \"type\": \"proc\",\n"
    "      \"source\": \"proc\"\n"
    "    },\n"
    "    {\n"
    "      \"destination\": \"/dev\",\n"
    "      \"type\": \"tmpfs\",\n"
    "      \"source\": \"tmpfs\",\n"
    "      \"options\": [\n"
    "        \"nosuid\",\n"
    "        \"strictatime\",\n"
    "        \"mode=755\",\n"
    "        \"size=65536k\"\n"
    "      ]\n"
    "    },\n"
    "    {\n"
    "      \"destination\": \"/dev/pts\",\n"
    "      \"type\": \"devpts\",\n"
    "      \"source\": \"devpts\",\n"
    "      \"options\": [\n"
    "        \"nosuid\",\n"
    "        \"noexec\",\n"
    "        \"newinstance\",\n"
    "        \"ptmxmode=0666\",\n"
    "        \"mode=0620\",\n"
    "        \"gid=5\"\n"
    "      ]\n"
    "    },\n"
    "    {\n"
    "      \"destination\": \"/dev/shm\",\n"
    "      \"type\": \"tmpfs\",\n"
    "      \"source\": \"shm\",\n"
    "      \"options\": [\n"
    "        \"nosuid\",\n"
    "        \"noexec\",\n"
    "        \"nodev\",\n"
    "        \"mode=1777\",\n"
    "        \"size=65536k\"\n"
    "      ]\n"
    "    },\n"
    "    {\n"
    "      \"destination\": \"/dev/mqueue\",\n"
    "      \"type\": \"mqueue\",\n"
    "      \"source\": \"mqueue\",\n"
    "      \"options\": [\n"
    "        \"nosuid\",\n"
    "        \"noexec\",\n"
    "        \"nodev\"\n"
    "      ]\n"
    "    },\n"
    "    {\n"
    "      \"destination\": \"/sys\",\n"
    "      \"type\": \"sysfs\",\n"
    "      \"source\": \"sysfs\",\n"
    "      \"options\": [\n"
    "        \"nosuid\",\n"
    "        \"noexec\",\n"
    "        \"nodev\",\n"
    "        \"ro\"\n"
    "      ]\n"
    "    },\n"
    "    {\n"
    "      \"destination\": \"/sys/fs/cgroup\",\n"
    "      \"type\": \"cgroup\",\n"
    "      \"source\": \"cgroup\",\n"
    "      \"options\": [\n"
    "        \"nosuid\",\n"
    "        \"noexec\",\n"
    "        \"nodev\",\n"
    "        \"relatime\",\n"
    "        \"ro\"\n"
    "      ]\n"
    "    }\n"
    "  ],\n"
    "  \"linux\": {\n"
    "    \"resources\": {\n"
    "      \"devices\": [\n"
    "        {\n"
    "          \"allow\": false,\n"
    "          \"access\": \"rwm\"\n"
    "        }\n"
    "      ]\n"
    "    },\n"
    "    \"namespaces\": [\n"
    "      {\n"
    "        \"type\": \"pid\"\n"
    "      },\n"
    "      {\n"
    "        \"type\": \"network\"\n"
    "      },\n"
    "      {\n"
    "        \"type\": \"ipc\"\n"
    "      },\n"
    "      {\n"
    "        \"type\": \"uts\"\n"
    "      },\n"
    "      {\n"
    "        \"type\": \"mount\"\n"
    "      }\n"
    "    ],\n"
    "    \"maskedPaths\": [\n"
    "      \"/proc/acpi\",\n"
    "      \"/proc/asound\",\n"
    "      \"/proc/kcore\",\n"
    "      \"/proc/keys\",\n"
    "      \"/proc/latency_stats\",\n"
    "      \"/proc/timer_list\",\n"
    "      \"/proc/timer_stats\",\n"
    "      \"/proc/sched_debug\",\n"
    "      \"/sys/firmware\",\n"
    "      \"/proc/scsi\"\n"
    "    ],\n"
    "    \"readonlyPaths\": [\n"
    "      \"/proc/bus\",\n"
    "      \"/proc/fs\",\n"
    "      \"/proc/irq\",\n"
    "      \"/proc/sys\",\n"
    "      \"/proc/sysrq-trigger\"\n"
    "    ]\n"
    "  }\n"
    "}\n";

static void strv_remove(crt_strv *l, const char *s) {
  for (size_t i = 0; i < l->len; i++)
    if (strcmp(l->v[i], s) == 0) {
      free(l->v[i]);
      memmove(&l->v[i], &l->v[i + 1], (l->len - i) * sizeof(char *));
      l->len--;
      return;
    }
}

static char *xstrdup(const char *s) {
  char *d = strdup(s);
  if (d == NULL) abort();
  return d;
}

static crt_idmapv one_mapping(uid_t host) {
  crt_idmapv m = {.v = calloc(1, sizeof(crt_idmap)), .len = 1};
  if (m.v == NULL) abort();
  m.v[0] = (crt_idmap){.container_id = 0, .host_id = (uint32_t)host, .size = 1};
  return m;
}

/* What runc's ToRootless does: user namespace mapping the caller to root,
 * no network namespace, /sys bound from the host, no devpts gid=5, no
 * cgroup resources. */
static void make_rootless(crt_spec *s) {
  crt_linux *l = s->linux_;
  for (size_t i = 0; i < s->n_mounts; i++) {
    crt_mount *m = &s->mounts[i];
    if (strcmp(m->destination, "/dev/pts") == 0) strv_remove(&m->options, "gid=5");
    if (strcmp(m->destination, "/sys") == 0) {
      free(m->type);
      free(m->source);
      m->type = xstrdup("none");
      m->source = xstrdup("/sys");
      char **v = realloc(m->options.v, (m->options.len + 2) * sizeof(char *));
      if (v == NULL) abort();
      memmove(&v[1], &v[0], (m->options.len + 1) * sizeof(char *));
      v[0] = xstrdup("rbind");
      m->options.v = v;
      m->options.len++;
    }
  }
  size_t n = 0;
  for (size_t i = 0; i < l->n_namespaces; i++)
    if (l->namespaces[i].type != CRT_NS_NETWORK) l->namespaces[n++] = l->namespaces[i];
  crt_namespace *ns = realloc(l->namespaces, (n + 1) * sizeof *ns);
  if (ns == NULL) abort();
  ns[n] = (crt_namespace){.type = CRT_NS_USER, .path = NULL};
  l->namespaces = ns;
  l->n_namespaces = n + 1;
  l->uid_mappings = one_mapping(geteuid());
  l->gid_mappings = one_mapping(getegid());
  crt_resources *r = l->resources;
  if (r) {
    for (size_t i = 0; i < r->n_devices; i++) {
      free(r->devices[i].type);
      free(r->devices[i].access);
    }
    free(r->devices);
    free(r);
    l->resources = NULL;
  }
}

/* runc's specconv.Example on a pure cgroup2 host: a cgroup namespace
 * after the others, so that the container sees its own cgroup as
 * /sys/fs/cgroup, not the host's tree. */
static void add_cgroupns(crt_spec *s) {
  crt_linux *l = s->linux_;
  crt_namespace *ns = realloc(l->namespaces, (l->n_namespaces + 1) * sizeof *ns);
  if (ns == NULL) abort();
  ns[l->n_namespaces++] = (crt_namespace){.type = CRT_NS_CGROUP, .path = NULL};
  l->namespaces = ns;
}

crt_spec *crt_spec_default(bool rootless, bool cgroupns) {
  crt_spec *s = NULL;
  crt_err *err = NULL;
  /* The literal is covered by unit tests; failing here is a build bug. */
  if (crt_spec_parse(default_json, sizeof default_json - 1, "default spec", &s, &err) < 0) {
    crt_err_free(&err);
    return NULL;
  }
  if (cgroupns) add_cgroupns(s);
  if (rootless) make_rootless(s);
  return s;
}
