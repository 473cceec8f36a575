/* Unit tests of the config model: parser, validation, serialiser, default
 * spec, features, namespace helpers. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "crt/fs.h"
#include "crt/spec.h"
#include "test_spec_cases.h"

/* Single quotes in test JSON stand for double quotes. */
static char *q(const char *s) {
  char *d = strdup(s);
  assert_non_null(d);
  for (char *c = d; *c; c++)
    if (*c == '\'') *c = '"';
  return d;
}

static crt_spec *parse_ok(const char *json) {
  char *t = q(json);
  crt_spec *s = NULL;
  crt_err *err = NULL;
  int r = crt_spec_parse(t, strlen(t), "config.json", &s, &err);
  if (r < 0) fail_msg("unexpected error: %s", err->msg);
  free(t);
  assert_non_null(s);
  return s;
}

static char *parse_err(const char *json) {
  char *t = q(json);
  crt_spec *s = (crt_spec *)1;
  crt_err *err = NULL;
  int r = crt_spec_parse(t, strlen(t), "config.json", &s, &err);
  if (r >= 0) fail_msg("parsed, but an error was expected: %s", t);
  free(t);
  assert_null(s);
  assert_non_null(err);
  char *m = strdup(err->msg);
  crt_err_free(&err);
  return m;
}

static void test_bad_cases(void **state) {
  size_t n = sizeof bad_cases / sizeof bad_cases[0];
  assert_true(n >= 60);
  int failed = 0;
  for (size_t i = 0; i < n; i++) {
    char *m = parse_err(bad_cases[i].json);
    char *want = q(bad_cases[i].msg);
    if (strcmp(m, want) != 0) {
      print_error("case %zu %s:\n got  %s\n want %s\n", i, bad_cases[i].json, m, want);
      failed++;
    }
    free(m);
    free(want);
  }
  assert_int_equal(failed, 0);
}

/* Every field of the model, valid. */
static const char full_json[] =
    "{'ociVersion':'1.1.0-rc.1',"
    "'root':{'path':'rootfs','readonly':true},"
    "'mounts':[{'destination':'/proc','type':'proc','source':'proc','options':['nosuid']},"
    "  {'destination':'/data','type':'none','source':'/srv','options':['rbind','idmap'],"
    "   'uidMappings':[{'containerID':0,'hostID':100000,'size':65536}],"
    "   'gidMappings':[{'containerID':0,'hostID':200000,'size':65536}]}],"
    "'process':{'terminal':true,'consoleSize':{'height':24,'width':80},"
    "  'user':{'uid':1000,'gid':1001,'umask':18,'additionalGids':[5,4294967295]},"
    "  'args':['sh','-c','true'],'commandLine':'sh','env':['PATH=/bin','A=b=c'],'cwd':'/home',"
    "  'capabilities':{'bounding':['CAP_KILL','CAP_CHOWN'],'effective':['CAP_KILL'],'inheritable':[],"
    "    'permitted':['CAP_KILL'],'ambient':['CAP_KILL']},"
    "  'rlimits':[{'type':'RLIMIT_NOFILE','hard':1024,'soft':512},"
    "    {'type':'RLIMIT_CORE','hard':18446744073709551615,'soft':0}],"
    "  'noNewPrivileges':true,'apparmorProfile':'prof','oomScoreAdj':-500,"
    "  'scheduler':{'policy':'SCHED_DEADLINE','nice':-3,'priority':7,'flags':['SCHED_FLAG_RECLAIM'],"
    "    'runtime':10,'deadline':20,'period':30},"
    "  'selinuxLabel':'system_u:system_r:container_t:s0','ioPriority':{'class':'IOPRIO_CLASS_RT','priority':4},"
    "  'execCPUAffinity':{'initial':'0','final':'0-1,3'}},"
    "'hostname':'box','domainname':'example.org',"
    "'hooks':{'prestart':[{'path':'/bin/p','args':['p','1'],'env':['X=1'],'timeout':5}],"
    "  'createRuntime':[{'path':'/bin/cr'}],'createContainer':[{'path':'/bin/cc'}],"
    "  'startContainer':[{'path':'/bin/sc'}],'poststart':[{'path':'/bin/ps'}],'poststop':[{'path':'/bin/pp'}]},"
    "'annotations':{'org.example.a':'1','b':''},"
    "'linux':{'namespaces':[{'type':'pid'},{'type':'network','path':'/proc/1/ns/net'},{'type':'mount'},"
    "    {'type':'ipc'},{'type':'uts'},{'type':'user'},{'type':'cgroup'},{'type':'time'}],"
    "  'uidMappings':[{'containerID':0,'hostID':1000,'size':1}],'gidMappings':[{'containerID':0,'hostID':1000,'size':1}],"
    "  'timeOffsets':{'monotonic':{'secs':-10,'nanosecs':5},'boottime':{'secs':3600}},"
    "  'devices':[{'type':'c','path':'/dev/fuse','major':10,'minor':229,'fileMode':438,'uid':0,'gid':0},"
    "    {'type':'p','path':'/dev/fifo'}],"
    "  'cgroupsPath':'/crt/box',"
    "  'resources':{'devices':[{'allow':false,'access':'rwm'},{'allow':true,'type':'c','major':10,'minor':229,'access':'rw'}],"
    "    'memory':{'limit':-1,'reservation':1024,'swap':4096,'kernel':0,'kernelTCP':1,'swappiness':60,"
    "      'disableOOMKiller':false,'useHierarchy':true,'checkBeforeUpdate':true},"
    "    'cpu':{'shares':1024,'quota':-1,'burst':100,'period':100000,'realtimeRuntime':950000,"
    "      'realtimePeriod':1000000,'cpus':'0-1','mems':'0','idle':1},"
    "    'pids':{'limit':100},"
    "    'blockIO':{'weight':500,'leafWeight':300,'weightDevice':[{'major':8,'minor':0,'weight':200,'leafWeight':100}],"
    "      'throttleReadBpsDevice':[{'major':8,'minor':0,'rate':1048576}],'throttleWriteBpsDevice':[{'major':8,'minor':1,'rate':2}],"
    "      'throttleReadIOPSDevice':[{'major':8,'minor':2,'rate':3}],'throttleWriteIOPSDevice':[{'major':8,'minor':3,'rate':4}]},"
    "    'hugepageLimits':[{'pageSize':'2MB','limit':209715200}],"
    "    'network':{'classID':1048577,'priorities':[{'name':'eth0','priority':500}]},"
    "    'rdma':{'mlx5_1':{'hcaHandles':3,'hcaObjects':10000}},"
    "    'unified':{'memory.high':'max','io.weight':'default 100'}},"
    "  'intelRdt':{'closID':'guaranteed','l3CacheSchema':'L3:0=7f0','memBwSchema':'MB:0=20','schemata':['L2:0=ff'],"
    "    'enableCMT':true,'enableMBM':true},"
    "  'sysctl':{'net.ipv4.ip_forward':'1'},"
    "  'netDevices':{'eth1':{'name':'net0'},'eth2':{}},"
    "  'seccomp':{'defaultAction':'SCMP_ACT_ERRNO','defaultErrnoRet':1,'architectures':['SCMP_ARCH_X86_64','SCMP_ARCH_X86'],"
    "    'flags':['SECCOMP_FILTER_FLAG_LOG'],'listenerPath':'/run/listener.sock','listenerMetadata':'meta',"
    "    'syscalls':[{'names':['read','write'],'action':'SCMP_ACT_ALLOW'},"
    "      {'names':['personality'],'action':'SCMP_ACT_ERRNO','errnoRet':38,"
    "        'args':[{'index':0,'value':18446744073709551615,'valueTwo':4,'op':'SCMP_CMP_MASKED_EQ'}]},"
    "      {'names':['mkdir'],'action':'SCMP_ACT_NOTIFY'}]},"
    "  'rootfsPropagation':'slave','maskedPaths':['/proc/kcore'],'readonlyPaths':['/proc/sys'],"
    "  'mountLabel':'system_u:object_r:container_file_t:s0','personality':{'domain':'LINUX32','flags':[]},"
    "  'memoryPolicy':{'mode':'MPOL_INTERLEAVE','nodes':'0-1','flags':['MPOL_F_STATIC_NODES']}},"
    "'unknownField':{'ignored':[1,2,3]}}";

static void test_full_values(void **state) {
  crt_spec *s = parse_ok(full_json);
  assert_string_equal(s->oci_version, "1.1.0-rc.1");
  assert_string_equal(s->root->path, "rootfs");
  assert_true(s->root->readonly);
  assert_int_equal(s->n_mounts, 2);
  assert_int_equal(s->mounts[1].uid_mappings.v[0].host_id, 100000);
  assert_int_equal(s->mounts[1].gid_mappings.v[0].size, 65536);
  assert_string_equal(s->mounts[1].options.v[1], "idmap");
  assert_null(s->mounts[1].options.v[2]);
  /* options parsed once, with the spec */
  assert_int_equal(s->mounts[0].opts.flags, MS_NOSUID);
  assert_false(s->mounts[0].opts.bind);
  assert_true(s->mounts[1].opts.bind && s->mounts[1].opts.recursive && s->mounts[1].opts.idmap);
  assert_int_equal(s->linux_->rootfs_propagation_flags, MS_SLAVE);
  crt_process *p = s->process;
  assert_true(p->terminal && p->has_console_size);
  assert_int_equal(p->console_height, 24);
  assert_int_equal(p->console_width, 80);
  assert_int_equal(p->user.uid, 1000);
  assert_int_equal(p->user.gid, 1001);
  assert_true(p->user.umask.set);
  assert_int_equal(p->user.umask.v, 18);
  assert_int_equal(p->user.n_additional_gids, 2);
  assert_int_equal(p->user.additional_gids[1], 4294967295u);
  assert_int_equal(p->args.len, 3);
  assert_string_equal(p->env.v[1], "A=b=c");
  assert_string_equal(p->cwd, "/home");
  assert_true(p->capabilities->has_inheritable);
  assert_int_equal(p->capabilities->inheritable.len, 0);
  assert_string_equal(p->capabilities->bounding.v[1], "CAP_CHOWN");
  assert_int_equal(p->n_rlimits, 2);
  assert_int_equal(p->rlimits[0].resource, RLIMIT_NOFILE);
  assert_int_equal(p->rlimits[0].soft, 512);
  assert_int_equal(p->rlimits[1].resource, RLIMIT_CORE);
  assert_true(p->rlimits[1].hard == UINT64_MAX);
  assert_true(p->no_new_privileges);
  assert_string_equal(p->apparmor_profile, "prof");
  assert_true(p->oom_score_adj.set);
  assert_int_equal(p->oom_score_adj.v, -500);
  assert_int_equal(p->scheduler->policy_num, 6);
  assert_int_equal(p->scheduler->nice, -3);
  assert_int_equal(p->scheduler->period, 30);
  assert_int_equal(p->io_priority->class_num, 1);
  assert_int_equal(p->io_priority->priority, 4);
  assert_string_equal(p->exec_cpu_affinity->final, "0-1,3");
  assert_string_equal(s->hostname, "box");
  assert_string_equal(s->domainname, "example.org");
  assert_int_equal(s->hooks->prestart.v[0].timeout.v, 5);
  assert_string_equal(s->hooks->poststop.v[0].path, "/bin/pp");
  assert_string_equal(s->hooks->start_container.v[0].path, "/bin/sc");
  assert_int_equal(s->annotations.len, 2);
  assert_string_equal(s->annotations.v[1].value, "");
  crt_linux *l = s->linux_;
  assert_int_equal(l->n_namespaces, 8);
  assert_string_equal(crt_spec_namespace(s, CRT_NS_NETWORK)->path, "/proc/1/ns/net");
  assert_null(crt_spec_namespace(s, CRT_NS_TIME)->path);
  assert_int_equal(l->n_time_offsets, 2);
  assert_string_equal(l->time_offsets[0].clock, "monotonic");
  assert_int_equal(l->time_offsets[0].secs, -10);
  assert_int_equal(l->time_offsets[0].nanosecs, 5);
  assert_int_equal(l->devices[0].file_mode.v, 438);
  assert_false(l->devices[1].uid.set);
  assert_string_equal(l->cgroups_path, "/crt/box");
  crt_resources *r = l->resources;
  assert_int_equal(r->n_devices, 2);
  assert_false(r->devices[0].major.set);
  assert_int_equal(r->devices[1].minor.v, 229);
  assert_int_equal(r->memory.limit.v, -1);
  assert_true(r->memory.check_before_update.set && r->memory.check_before_update.v);
  assert_true(r->memory.disable_oom_killer.set && !r->memory.disable_oom_killer.v);
  assert_int_equal(r->cpu.quota.v, -1);
  assert_string_equal(r->cpu.mems, "0");
  assert_int_equal(r->pids.limit.v, 100);
  assert_int_equal(r->blkio.weight.v, 500);
  assert_int_equal(r->blkio.throttle_write_iops[0].rate, 4);
  assert_int_equal(r->hugepage_limits[0].limit, 209715200);
  assert_int_equal(r->network.class_id.v, 1048577);
  assert_string_equal(r->network.priorities[0].name, "eth0");
  assert_string_equal(r->rdma[0].device, "mlx5_1");
  assert_int_equal(r->rdma[0].hca_objects.v, 10000);
  assert_string_equal(r->unified.v[1].value, "default 100");
  assert_true(l->intel_rdt->enable_mbm);
  assert_string_equal(l->sysctl.v[0].key, "net.ipv4.ip_forward");
  assert_int_equal(l->net_devices.len, 2);
  assert_string_equal(l->net_devices.v[0].value, "net0");
  assert_string_equal(l->net_devices.v[1].value, "");
  assert_int_equal(l->seccomp->default_errno_ret.v, 1);
  assert_int_equal(l->seccomp->n_syscalls, 3);
  assert_true(l->seccomp->syscalls[1].args[0].value == UINT64_MAX);
  assert_int_equal(l->seccomp->syscalls[1].args[0].op, CRT_OP_MASKED_EQ);
  assert_string_equal(l->seccomp->listener_metadata, "meta");
  assert_string_equal(l->rootfs_propagation, "slave");
  assert_string_equal(l->personality->domain, "LINUX32");
  assert_string_equal(l->memory_policy->flags.v[0], "MPOL_F_STATIC_NODES");
  assert_string_equal(l->mount_label, "system_u:object_r:container_file_t:s0");
  crt_spec_free(s);
}

/* parse -> to_json -> parse -> to_json gives the same text, for both the
 * compact and the pretty form. */
static void round_trip(const crt_spec *s) {
  for (int pretty = 0; pretty < 2; pretty++) {
    char *a = crt_spec_to_json(s, pretty);
    assert_non_null(a);
    crt_spec *s2 = NULL;
    crt_err *err = NULL;
    if (crt_spec_parse(a, strlen(a), "gen", &s2, &err) < 0) fail_msg("%s\n%s", err->msg, a);
    char *b = crt_spec_to_json(s2, pretty);
    assert_string_equal(a, b);
    free(a);
    free(b);
    crt_spec_free(s2);
  }
}

static void test_round_trip_full(void **state) {
  crt_spec *s = parse_ok(full_json);
  round_trip(s);
  /* The serialised form carries every field of the input. */
  char *j = crt_spec_to_json(s, false);
  const char *fields[] = {"\"consoleSize\"", "\"umask\":18", "\"commandLine\"", "\"inheritable\":[]", "\"oomScoreAdj\":-500",
                          "\"execCPUAffinity\"", "\"ioPriority\"", "\"domainname\"", "\"poststop\"", "\"timeOffsets\"",
                          "\"hcaObjects\":10000", "\"unified\"", "\"checkBeforeUpdate\":true", "\"valueTwo\":4",
                          "\"listenerMetadata\"", "\"memoryPolicy\"", "\"enableMBM\":true", "\"idle\":1",
                          "\"value\":18446744073709551615", "\"burst\":100", "\"kernelTCP\":1",
                          "\"netDevices\":{\"eth1\":{\"name\":\"net0\"},\"eth2\":{}}"};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    if (strstr(j, fields[i]) == NULL) fail_msg("%s missing from %s", fields[i], j);
  assert_null(strstr(j, "unknownField"));
  free(j);
  crt_spec_free(s);
}

static void test_default_spec(void **state) {
  crt_spec *s = crt_spec_default(false, false);
  assert_non_null(s);
  assert_string_equal(s->oci_version, "1.2.0");
  assert_string_equal(s->process->args.v[0], "sh");
  assert_true(s->process->terminal);
  assert_int_equal(s->process->capabilities->bounding.len, 3);
  assert_int_equal(s->process->rlimits[0].resource, RLIMIT_NOFILE);
  assert_int_equal(s->n_mounts, 7);
  assert_int_equal(s->linux_->n_namespaces, 5);
  assert_non_null(crt_spec_namespace(s, CRT_NS_NETWORK));
  assert_null(crt_spec_namespace(s, CRT_NS_USER));
  assert_int_equal(s->linux_->masked_paths.len, 10);
  assert_int_equal(s->linux_->readonly_paths.len, 5);
  assert_false(s->linux_->resources->devices[0].allow);
  crt_err *err = NULL;
  assert_int_equal(crt_spec_validate_for_create(s, &err), 0);
  round_trip(s);
  char *j = crt_spec_to_json(s, true);
  assert_non_null(strstr(j, "{\n\t\"ociVersion\": \"1.2.0\",\n\t\"process\": {\n\t\t\"terminal\": true,"));
  free(j);
  crt_spec_free(s);
}

static void test_default_rootless(void **state) {
  crt_spec *s = crt_spec_default(true, false);
  assert_non_null(s);
  assert_null(crt_spec_namespace(s, CRT_NS_NETWORK));
  assert_non_null(crt_spec_namespace(s, CRT_NS_USER));
  assert_int_equal(s->linux_->uid_mappings.len, 1);
  assert_int_equal(s->linux_->uid_mappings.v[0].host_id, geteuid());
  assert_int_equal(s->linux_->gid_mappings.v[0].host_id, getegid());
  assert_null(s->linux_->resources);
  for (size_t i = 0; i < s->n_mounts; i++) {
    if (strcmp(s->mounts[i].destination, "/sys") == 0) {
      assert_string_equal(s->mounts[i].source, "/sys");
      assert_string_equal(s->mounts[i].options.v[0], "rbind");
    }
    for (size_t k = 0; k < s->mounts[i].options.len; k++) assert_string_not_equal(s->mounts[i].options.v[k], "gid=5");
  }
  crt_err *err = NULL;
  assert_int_equal(crt_spec_validate_for_create(s, &err), 0);
  round_trip(s);
  crt_spec_free(s);
}

/* runc's spec on a pure cgroup2 host: the five namespaces and a cgroup one
 * after them; rootless drops the network one and adds the user one last. */
static void test_default_cgroupns(void **state) {
  const char *want[2][6] = {{"pid", "network", "ipc", "uts", "mount", "cgroup"},
                            {"pid", "ipc", "uts", "mount", "cgroup", "user"}};
  for (int rootless = 0; rootless < 2; rootless++) {
    crt_spec *s = crt_spec_default(rootless, true);
    assert_non_null(s);
    assert_int_equal(s->linux_->n_namespaces, 6);
    for (size_t i = 0; i < 6; i++) {
      assert_string_equal(crt_ns_name(s->linux_->namespaces[i].type), want[rootless][i]);
      assert_null(s->linux_->namespaces[i].path);
    }
    crt_err *err = NULL;
    assert_int_equal(crt_spec_validate_for_create(s, &err), 0);
    round_trip(s);
    crt_spec_free(s);
  }
  crt_spec *s = crt_spec_default(false, false);
  assert_null(crt_spec_namespace(s, CRT_NS_CGROUP));
  crt_spec_free(s);
}

static void test_versions(void **state) {
  const char *ok[] = {"1.0.0", "1.0.2-dev", "1.1.0-rc.1", "1.2.0", "1.2.15", "1.3.0", "1.0.0+build.5"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    char buf[128];
    snprintf(buf, sizeof buf, "{'ociVersion':'%s'}", ok[i]);
    crt_spec_free(parse_ok(buf));
  }
}

static void test_null_and_relative(void **state) {
  /* null is absent; a relative mount destination is deprecated, not an error. */
  crt_spec *s = parse_ok("{'ociVersion':'1.2.0','hostname':null,'process':null,"
                         "'mounts':[{'destination':'tmp','type':'tmpfs'}]}");
  assert_null(s->hostname);
  assert_null(s->process);
  assert_string_equal(s->mounts[0].destination, "tmp");
  crt_spec_free(s);
}

/* runc decodes with Go's encoding/json: a key matches its field exactly
 * or, when none does, case-insensitively (the Kelvin sign and long s fold
 * to k and s); an exact key wins over a folded one; a missing uid or gid
 * is 0. */
static void test_go_key_matching(void **state) {
  crt_spec *s = parse_ok("{'ociVersion':'1.2.0','process':{'cwd':'/','args':['sh'],'user':{'UID':7}},"
                         "'linux':{'resources':{'hugepageLimits':[{'pagesize':'2MB','LIMIT':4194304}],"
                         "'CPU':{'Cpus':'0','MEMS':'0','shares':2,'SHARES':3},"
                         "'memory':{'\xe2\x84\xaa" "ernel':5,'\xc5\xbf" "wap':6}}}}");
  assert_int_equal(s->process->user.uid, 7);
  assert_int_equal(s->process->user.gid, 0);
  const crt_resources *r = s->linux_->resources;
  assert_int_equal(r->n_hugepage_limits, 1);
  assert_string_equal(r->hugepage_limits[0].page_size, "2MB");
  assert_int_equal(r->hugepage_limits[0].limit, 4194304);
  assert_true(r->has_cpu);
  assert_string_equal(r->cpu.cpus, "0");
  assert_string_equal(r->cpu.mems, "0");
  assert_int_equal(r->cpu.shares.v, 2);
  assert_int_equal(r->memory.kernel.v, 5);
  assert_int_equal(r->memory.swap.v, 6);
  crt_spec_free(s);
  /* a key that only looks alike is still unknown (ignored) */
  s = parse_ok("{'ociVersion':'1.2.0','process':{'cwd':'/','args':['sh'],'user':{'ui_d':7}}}");
  assert_int_equal(s->process->user.uid, 0);
  crt_spec_free(s);
}

/* Device paths are cleaned as runc's securejoin cleans them. */
static void test_device_paths_cleaned(void **state) {
  static const char *const cases[][2] = {
      {"/dev/fuse/", "/dev/fuse"}, {"/dev//x/./y/../fuse", "/dev/x/fuse"}, {"/../dev/../../null", "/null"},
      {"/dev/a..b/.c", "/dev/a..b/.c"}, {"//", "/"}, {"/dev/fuse", "/dev/fuse"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char json[256];
    snprintf(json, sizeof json, "{'ociVersion':'1.2.0','linux':{'devices':[{'type':'p','path':'%s'}]}}", cases[i][0]);
    crt_spec *s = parse_ok(json);
    assert_string_equal(s->linux_->devices[0].path, cases[i][1]);
    crt_spec_free(s);
  }
}

static char *process_err(const char *json) {
  char *t = q(json);
  crt_process *p = NULL;
  crt_err *err = NULL;
  assert_true(crt_process_parse(t, strlen(t), "process.json", &p, &err) < 0);
  assert_null(p);
  char *m = strdup(err->msg);
  crt_err_free(&err);
  free(t);
  return m;
}

static void test_process_parse(void **state) {
  char *t = q("{'args':['ls'],'cwd':'/','env':['A=1'],'user':{'uid':3,'gid':4},'terminal':false}");
  crt_process *p = NULL;
  crt_err *err = NULL;
  assert_int_equal(crt_process_parse(t, strlen(t), "process.json", &p, &err), 0);
  assert_string_equal(p->args.v[0], "ls");
  assert_int_equal(p->user.gid, 4);
  crt_process_free(p);
  free(t);
  char *m = process_err("{'args':[true]}");
  assert_string_equal(m, "process.json: .args[0]: expected string, got boolean");
  free(m);
  m = process_err("{'cwd':'rel'}");
  assert_string_equal(m, "process.json: .cwd: path \"rel\" is not absolute");
  free(m);
}

static void test_validate_for_create(void **state) {
  static const struct {
    const char *json, *msg;
  } cases[] = {
      {"{" V "}", ".root.path: missing required field"},
      {"{" V ",'root':{'path':'r'},'process':{'cwd':'/'}}", ".process.args: must contain at least one entry"},
      {"{" V ",'root':{'path':'r'},'process':{'args':['a']}}", ".process.cwd: missing required field"},
      {"{" V ",'root':{'path':'r'},'process':{'args':['a'],'cwd':'/'},'linux':{'namespaces':[{'type':'user'}]}}",
       ".linux.uidMappings: a new user namespace needs uidMappings and gidMappings"},
      {"{" V ",'root':{'path':'r'},'process':{'args':['a'],'cwd':'/'},'linux':{'namespaces':[{'type':'user'}],'uidMappings':[{'containerID':0,'hostID':0,'size':1}]}}",
       ".linux.gidMappings: a new user namespace needs uidMappings and gidMappings"},
      {"{" V ",'root':{'path':'r'},'process':{'args':['a'],'cwd':'/'},'domainname':'d'}",
       ".domainname: setting the domainname needs a new UTS namespace"},
      {"{" V ",'root':{'path':'r'},'process':{'args':['a'],'cwd':'/'},'mounts':[{'destination':'/m','options':['bind'],'uidMappings':[{'containerID':0,'hostID':0,'size':1}]}]}",
       ".mounts[0]: idmapped mounts need both uidMappings and gidMappings"},
      {"{" V ",'root':{'path':'r'},'process':{'args':['a'],'cwd':'/'},'hostname':'h'}",
       ".hostname: setting the hostname needs a new UTS namespace"},
      {"{" V ",'root':{'path':'r'},'process':{'args':['a'],'cwd':'/'},'linux':{'timeOffsets':{'boottime':{'secs':1}}}}",
       ".linux.timeOffsets: set but no time namespace is requested"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    crt_spec *s = parse_ok(cases[i].json);
    crt_err *err = NULL;
    assert_true(crt_spec_validate_for_create(s, &err) < 0);
    assert_non_null(strstr(err->msg, cases[i].msg));
    assert_true(strncmp(err->msg, "config.json: ", 13) == 0);
    crt_err_free(&err);
    crt_spec_free(s);
  }
  crt_spec *s = parse_ok("{" V ",'root':{'path':'r'},'process':{'args':['a'],'cwd':'/'},"
                         "'linux':{'namespaces':[{'type':'user'},{'type':'uts'}],"
                         "'uidMappings':[{'containerID':0,'hostID':0,'size':1}],'gidMappings':[{'containerID':0,'hostID':0,'size':1}]},"
                         "'hostname':'h'}");
  crt_err *err = NULL;
  assert_int_equal(crt_spec_validate_for_create(s, &err), 0);
  crt_spec_free(s);
  /* process is OPTIONAL at create (REQUIRED only at start) */
  s = parse_ok("{" V ",'root':{'path':'r'}}");
  assert_int_equal(crt_spec_validate_for_create(s, &err), 0);
  crt_spec_free(s);
}

static void test_hostile_input(void **state) {
  crt_spec *s = NULL;
  crt_err *err = NULL;
  /* Binary. */
  const char bin[] = {'{', 0, (char)0xff, '}'};
  assert_true(crt_spec_parse(bin, sizeof bin, "config.json", &s, &err) < 0);
  assert_string_equal(err->msg, "config.json: invalid JSON at line 1, column 2: NUL byte in JSON text");
  crt_err_free(&err);
  const char utf[] = "{\"ociVersion\":\"\xff\xfe\"}";
  assert_true(crt_spec_parse(utf, sizeof utf - 1, "config.json", &s, &err) < 0);
  assert_non_null(strstr(err->msg, "invalid JSON at line 1, column"));
  crt_err_free(&err);
  /* Deep nesting. */
  size_t n = 1 << 20;
  char *deep = malloc(n);
  memset(deep, '[', n);
  assert_true(crt_spec_parse(deep, n, "config.json", &s, &err) < 0);
  assert_string_equal(err->msg, "config.json: invalid JSON at line 1, column 257: nesting deeper than 256 levels");
  crt_err_free(&err);
  free(deep);
  /* Huge flat arrays are refused before building a tree. */
  n = 3000000;
  char *flat = malloc(n);
  flat[0] = '[';
  for (size_t i = 1; i < n - 1; i += 2) {
    flat[i] = '0';
    flat[i + 1] = ',';
  }
  flat[n - 1] = '0';
  assert_true(crt_spec_parse(flat, n, "config.json", &s, &err) < 0);
  assert_string_equal(err->msg, "config.json: invalid JSON at line 1, column 2000003: more than 1000000 JSON values");
  crt_err_free(&err);
  free(flat);
  /* Every truncation of a valid document fails cleanly. */
  char *full = q(full_json);
  size_t len = strlen(full);
  for (size_t i = 0; i < len; i += 7) {
    assert_true(crt_spec_parse(full, i, "config.json", &s, &err) < 0);
    assert_null(s);
    crt_err_free(&err);
  }
  free(full);
}

static void test_load(void **state) {
  char dir[] = "/tmp/crt-test-spec-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/config.json", dir);
  crt_spec *s = NULL;
  crt_err *err = NULL;
  assert_true(crt_spec_load(path, &s, &err) < 0);
  assert_non_null(strstr(err->msg, "open "));
  crt_err_free(&err);
  /* Sparse 100 MB file: refused before reading. */
  int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, 100 << 20), 0);
  close(fd);
  assert_true(crt_spec_load(path, &s, &err) < 0);
  assert_non_null(strstr(err->msg, "file too large (104857600 bytes, at most 64 MiB)"));
  crt_err_free(&err);
  assert_true(crt_spec_load(dir, &s, &err) < 0);
  assert_non_null(strstr(err->msg, "not a regular file"));
  crt_err_free(&err);
  assert_true(crt_spec_load("/dev/null", &s, &err) < 0);
  assert_string_equal(err->msg, "/dev/null: not a regular file");
  crt_err_free(&err);
  const char *doc = "{\"ociVersion\":\"1.0.0\",\"process\":{\"args\":[1]}}";
  assert_int_equal(crt_write_file(path, doc, strlen(doc), 0600, &err), 0);
  assert_true(crt_spec_load(path, &s, &err) < 0);
  assert_string_equal(err->msg, "config.json: .process.args[0]: expected string, got number");
  crt_err_free(&err);
  doc = "{\"ociVersion\":\"1.0.0\",\"hostname\":\"x\"}";
  assert_int_equal(crt_write_file(path, doc, strlen(doc), 0600, &err), 0);
  assert_int_equal(crt_spec_load(path, &s, &err), 0);
  assert_string_equal(s->hostname, "x");
  crt_spec_free(s);
  crt_process *p = NULL;
  doc = "{\"args\":[\"x\"],\"cwd\":\"/\"}";
  assert_int_equal(crt_write_file(path, doc, strlen(doc), 0600, &err), 0);
  assert_int_equal(crt_process_load(path, &p, &err), 0);
  assert_string_equal(p->args.v[0], "x");
  crt_process_free(p);
  /* A process file may be a pipe (exec -p /dev/stdin), as in runc. */
  int pfd[2];
  assert_int_equal(pipe(pfd), 0);
  assert_int_equal(write(pfd[1], doc, strlen(doc)), (ssize_t)strlen(doc));
  close(pfd[1]);
  char pipe_path[64];
  snprintf(pipe_path, sizeof pipe_path, "/proc/self/fd/%d", pfd[0]);
  assert_int_equal(crt_process_load(pipe_path, &p, &err), 0);
  assert_string_equal(p->args.v[0], "x");
  crt_process_free(p);
  close(pfd[0]);
  unlink(path);
  rmdir(dir);
}

static bool list_has(yajl_val arr, const char *s) {
  for (size_t i = 0; arr && i < arr->u.array.len; i++)
    if (YAJL_IS_STRING(arr->u.array.values[i]) && strcmp(arr->u.array.values[i]->u.string, s) == 0) return true;
  return false;
}

static void test_features(void **state) {
  char *j = crt_features_json();
  assert_non_null(j);
  char ebuf[128];
  yajl_val t = yajl_tree_parse(j, ebuf, sizeof ebuf);
  assert_non_null(t);
  const char *pmin[] = {"ociVersionMin", NULL}, *pmax[] = {"ociVersionMax", NULL};
  assert_string_equal(YAJL_GET_STRING(yajl_tree_get(t, pmin, yajl_t_string)), "1.0.0");
  assert_string_equal(YAJL_GET_STRING(yajl_tree_get(t, pmax, yajl_t_string)), "1.3.0");
  const char *ph[] = {"hooks", NULL};
  yajl_val hooks = yajl_tree_get(t, ph, yajl_t_array);
  assert_int_equal(hooks->u.array.len, 6);
  assert_true(list_has(hooks, "createRuntime") && list_has(hooks, "poststop"));
  const char *pm[] = {"mountOptions", NULL};
  yajl_val mo = yajl_tree_get(t, pm, yajl_t_array);
  const char *opts[] = {"ro", "nosuid", "bind", "rbind", "rro", "rprivate", "idmap", "tmpcopyup", "strictatime"};
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    if (!list_has(mo, opts[i])) fail_msg("mount option %s missing", opts[i]);
  const char *pn[] = {"linux", "namespaces", NULL};
  yajl_val ns = yajl_tree_get(t, pn, yajl_t_array);
  assert_int_equal(ns->u.array.len, 8);
  assert_true(list_has(ns, "time") && list_has(ns, "network"));
  const char *pc[] = {"linux", "capabilities", NULL};
  yajl_val caps = yajl_tree_get(t, pc, yajl_t_array);
  assert_true(list_has(caps, "CAP_CHOWN") && list_has(caps, "CAP_CHECKPOINT_RESTORE"));
  assert_true(caps->u.array.len >= 41);
  const char *pv2[] = {"linux", "cgroup", "v2", NULL}, *psd[] = {"linux", "cgroup", "systemd", NULL};
  assert_true(YAJL_IS_TRUE(yajl_tree_get(t, pv2, yajl_t_any)));
  assert_true(YAJL_IS_TRUE(yajl_tree_get(t, psd, yajl_t_any)));
  const char *pa[] = {"linux", "seccomp", "actions", NULL}, *parch[] = {"linux", "seccomp", "archs", NULL};
  const char *psf[] = {"linux", "seccomp", "supportedFlags", NULL}, *pkf[] = {"linux", "seccomp", "knownFlags", NULL};
  assert_true(list_has(yajl_tree_get(t, pa, yajl_t_array), "SCMP_ACT_NOTIFY"));
  assert_true(list_has(yajl_tree_get(t, parch, yajl_t_array), "SCMP_ARCH_X86_64"));
  assert_true(list_has(yajl_tree_get(t, psf, yajl_t_array), "SECCOMP_FILTER_FLAG_LOG"));
  assert_true(list_has(yajl_tree_get(t, psf, yajl_t_array), "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"));
  assert_true(list_has(yajl_tree_get(t, pkf, yajl_t_array), "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"));
  const char *pidm[] = {"linux", "mountExtensions", "idmap", "enabled", NULL};
  assert_true(YAJL_IS_TRUE(yajl_tree_get(t, pidm, yajl_t_any)));
  const char *prdt[] = {"linux", "intelRdt", "enabled", NULL};
  assert_true(YAJL_IS_FALSE(yajl_tree_get(t, prdt, yajl_t_any)));
  const char *pann[] = {"annotations", "io.github.seccomp.libseccomp.version", NULL};
  assert_non_null(yajl_tree_get(t, pann, yajl_t_string));
  yajl_tree_free(t);
  free(j);
}

static void test_ns_helpers(void **state) {
  assert_string_equal(crt_ns_name(CRT_NS_NETWORK), "network");
  assert_string_equal(crt_ns_proc_name(CRT_NS_NETWORK), "net");
  assert_string_equal(crt_ns_proc_name(CRT_NS_MOUNT), "mnt");
  assert_string_equal(crt_ns_name(CRT_NS_MOUNT), "mount");
  assert_string_equal(crt_ns_proc_name(CRT_NS_TIME), "time");
  assert_int_equal(crt_ns_clone_flag(CRT_NS_USER), CLONE_NEWUSER);
  assert_int_equal(crt_ns_clone_flag(CRT_NS_MOUNT), CLONE_NEWNS);
  assert_int_equal(crt_ns_clone_flag(CRT_NS_CGROUP), CLONE_NEWCGROUP);
  assert_null(crt_ns_name(CRT_NS_COUNT));
  assert_int_equal(crt_ns_clone_flag(CRT_NS_COUNT), 0);
  assert_null(crt_spec_namespace(NULL, CRT_NS_PID));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_cases),       cmocka_unit_test(test_full_values),
      cmocka_unit_test(test_round_trip_full), cmocka_unit_test(test_default_spec),
      cmocka_unit_test(test_default_rootless), cmocka_unit_test(test_default_cgroupns),
      cmocka_unit_test(test_versions),
      cmocka_unit_test(test_null_and_relative), cmocka_unit_test(test_go_key_matching), cmocka_unit_test(test_process_parse),
      cmocka_unit_test(test_validate_for_create), cmocka_unit_test(test_hostile_input),
      cmocka_unit_test(test_load),            cmocka_unit_test(test_features),
      cmocka_unit_test(test_ns_helpers),      cmocka_unit_test(test_device_paths_cleaned),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
