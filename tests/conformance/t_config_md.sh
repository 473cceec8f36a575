# runtime-spec v1.2 config.md / config-linux.md MUSTs the runtime-tools suite
# does not check, named after their sections.

# config.md#mounts: "The runtime MUST mount entries in the listed order."
test_config_md_mounts_in_listed_order() {
  make_bundle "$T/b" sh -c 'ls /m; cat /m/sub/f'
  mkdir -p "$T/src1/sub" "$T/src2"
  echo inner > "$T/src2/f"
  bundle_edit "$T/b" "c['mounts'] += [{'destination':'/m','type':'bind','source':'$T/src1','options':['bind']},{'destination':'/m/sub','type':'bind','source':'$T/src2','options':['bind']}]"
  out=$(crt run --bundle "$T/b" "$(new_id)")
  assert_eq "$(printf 'sub\ninner')" "$out" "the later mount is on top of the earlier one"
}

# config.md#root: "readonly ... the root filesystem MUST be read-only".
test_config_md_root_readonly() {
  make_bundle "$T/b" sh -c 'touch /x 2>&1; echo rc=$?'
  out=$(crt run --bundle "$T/b" "$(new_id)")
  assert_contains "$out" "Read-only file system"
  bundle_edit "$T/b" "c['root']['readonly']=False"
  out=$(crt run --bundle "$T/b" "$(new_id)")
  assert_eq "rc=0" "$out" "writable root"
}

# config.md#process: "cwd ... MUST be an absolute path" and is the working
# directory; "env" is exactly the environment.
test_config_md_process_cwd_env() {
  make_bundle "$T/b" sh -c 'pwd; env | sort'
  bundle_edit "$T/b" "c['process']['cwd']='/etc'; c['process']['env']=['PATH=/bin','A=1']"
  out=$(crt run --bundle "$T/b" "$(new_id)")
  assert_eq "$(printf '/etc\nA=1\nHOME=/root\nPATH=/bin\nPWD=/etc\nSHLVL=1')" "$out" "cwd and env"
}

# config.md#hostname and #domainname (uts namespace).
test_config_md_hostname_domainname() {
  make_bundle "$T/b" sh -c 'hostname; cat /proc/sys/kernel/domainname'
  bundle_edit "$T/b" "c['hostname']='h1'; c['domainname']='d1.example'"
  out=$(crt run --bundle "$T/b" "$(new_id)")
  assert_eq "$(printf 'h1\nd1.example')" "$out"
}

# config.md#posix-platform-hooks: "Hooks MUST be called in the listed order"
# (the suite's own check of this compares with strings its hooks never print).
test_config_md_hooks_in_listed_order() {
  make_bundle "$T/b" true
  bundle_edit "$T/b" "c['hooks']={k:[{'path':'/bin/sh','args':['sh','-c','echo %s%d >> $T/order' % (k,i)]} for i in (1,2)] for k in ('prestart','createRuntime','poststart','poststop')}"
  crt run --bundle "$T/b" "$(new_id)"
  assert_eq "prestart1 prestart2 createRuntime1 createRuntime2 poststart1 poststart2 poststop1 poststop2" "$(tr '\n' ' ' < "$T/order" | sed 's/ $//')" "hook order"
}

# config-linux.md#sysctl: applied inside the container's namespaces.
test_config_linux_md_sysctl() {
  make_bundle "$T/b" cat /proc/sys/net/ipv4/ip_forward /proc/sys/kernel/shmmni
  bundle_edit "$T/b" "c['linux']['sysctl']={'net.ipv4.ip_forward':'1','kernel.shmmni':'1234'}"
  out=$(crt run --bundle "$T/b" "$(new_id)")
  assert_eq "$(printf '1\n1234')" "$out"
  assert_ne 1234 "$(cat /proc/sys/kernel/shmmni)" "host untouched"
}

# config-linux.md#namespaces: "If a namespace type is not specified ... the
# container MUST inherit the runtime namespace of that type."
test_config_linux_md_namespace_inherited() {
  make_bundle "$T/b" sh -c 'readlink /proc/self/ns/net; readlink /proc/self/ns/ipc' 
  bundle_edit "$T/b" "c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type'] not in ('network','ipc')]"
  out=$(crt run --bundle "$T/b" "$(new_id)")
  assert_eq "$(printf '%s\n%s' "$(readlink /proc/self/ns/net)" "$(readlink /proc/self/ns/ipc)")" "$out" "net and ipc inherited"
}

# config-linux.md#namespaces: a "path" joins that namespace.
test_config_linux_md_namespace_path_joined() {
  make_bundle "$T/b1" sleep 100
  local a; a=$(new_id)
  crt run -d --bundle "$T/b1" "$a"
  local pid; pid=$(state_field "$a" pid)
  make_bundle "$T/b2" readlink /proc/self/ns/net
  bundle_edit "$T/b2" "[n.update(path='/proc/$pid/ns/net') for n in c['linux']['namespaces'] if n['type']=='network']"
  out=$(crt run --bundle "$T/b2" "$(new_id)")
  assert_eq "$(readlink /proc/$pid/ns/net)" "$out" "joined the other container's netns"
  crt delete -f "$a"
}

# config-linux.md#memory-policy (v1.3): linux.memoryPolicy is applied to
# the container's processes (set_mempolicy, seen in /proc/self/numa_maps),
# the exec'd ones too; bad values fail create naming the field.  Guards
# src/linux/numa.c.
test_config_linux_md_memory_policy() {
  make_bundle "$T/b" sh -c 'head -1 /proc/self/numa_maps | cut -d" " -f2; sleep 100'
  local mode want
  for mode in "MPOL_BIND::bind:0" "MPOL_INTERLEAVE::interleave:0" "MPOL_PREFERRED::prefer:0" \
              "MPOL_BIND:MPOL_F_STATIC_NODES:bind=static:0"; do
    want=${mode#*:*:}; local flag=${mode#*:}; flag=${flag%%:*}; local m=${mode%%:*}
    bundle_edit "$T/b" "c['linux']['memoryPolicy']={'mode':'$m','nodes':'0','flags':[f for f in ['$flag'] if f]}"
    local id; id=$(new_id)
    crt run -d -b "$T/b" "$id" </dev/null >"$T/out" 2>&1 || fail "run with $m: $(cat "$T/out")"
    local pid; pid=$(state_field "$id" pid)
    assert_eq "$want" "$(head -1 /proc/$pid/numa_maps | cut -d' ' -f2)" "numa_maps policy of the init ($m $flag)"
    run_rc crt exec "$id" sh -c 'head -1 /proc/self/numa_maps | cut -d" " -f2'
    assert_eq "$want" "$out" "numa_maps policy of an exec'd process ($m $flag)"
    crt delete -f "$id"
  done
  local bad
  for bad in "{'mode':'MPOL_BIND','nodes':'0-x'}|.linux.memoryPolicy.nodes" \
             "{'mode':'MPOL_BIND'}|.linux.memoryPolicy.nodes: MPOL_BIND mode requires nodes but got 0" \
             "{'mode':'MPOL_BOGUS','nodes':'0'}|.linux.memoryPolicy.mode"; do
    bundle_edit "$T/b" "c['linux']['memoryPolicy']=${bad%%|*}"
    run_rc crt run -b "$T/b" "$(new_id)" </dev/null
    assert_eq 1 "$rc" "run with memoryPolicy ${bad%%|*}"
    assert_contains "$out" "${bad#*|}"
  done
}

# config.md#process (v1.2): process.execCPUAffinity for `exec`: final is the
# affinity the process runs with in the container; with only initial, the
# process is not left on the initial CPUs.  Guards src/container/exec.c.
test_config_md_exec_cpu_affinity() {
  [ "$(nproc)" -ge 2 ] || fail "needs 2 CPUs"
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null || fail "run -d"
  local all; all=$(awk '/Cpus_allowed_list/ {print $2}' /proc/self/status)
  python3 - "$T/b/config.json" "$T/p.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["process"]
p["args"] = ["sh", "-c", "grep Cpus_allowed_list /proc/self/status | cut -f2"]
p["execCPUAffinity"] = {"initial": "0", "final": "1"}
json.dump(p, open(sys.argv[2], "w"))
p["execCPUAffinity"] = {"initial": "1"}
json.dump(p, open(sys.argv[2] + ".initial", "w"))
p["execCPUAffinity"] = {"final": "0-x"}
json.dump(p, open(sys.argv[2] + ".bad", "w"))
PY
  run_rc crt exec -p "$T/p.json" "$id"
  assert_eq "0 1" "$rc $out" "exec with final 1"
  run_rc crt exec -p "$T/p.json.initial" "$id"
  assert_eq "0 $all" "$rc $out" "exec with only initial: all CPUs again"
  run_rc crt exec -p "$T/p.json.bad" "$id"
  assert_eq 255 "$rc" "exec with a bad list"
  assert_contains "$out" ".execCPUAffinity.final: invalid CPU list"
  crt delete -f "$id"
}

# config-linux.md#network-devices (v1.3): linux.netDevices moves a host
# interface into the container's network namespace under its new name; a
# veth end dies with the namespace, taking its peer along.  A missing
# interface fails create naming it; without a private network namespace the
# field is refused.  Guards src/linux/netdev.c.
test_config_linux_md_net_devices() {
  local a=crtv$$a b=crtv$$b
  ip link add "$a" type veth peer name "$b" || fail "ip link add veth"
  make_bundle "$T/b" sh -c 'ip -o link show net7 | cut -d: -f2 | cut -d@ -f1'
  bundle_edit "$T/b" "c['linux']['netDevices']={'$a':{'name':'net7'}}"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  ip link del "$a" 2>/dev/null
  assert_eq 0 "$rc" "run with netDevices: $out"
  assert_eq " net7" "$out" "the interface in the container"
  # the kernel tears a dead network namespace down asynchronously
  wait_eval "! ip link show $b" || { ip link del "$b"; fail "the veth peer outlived the container"; }
  local id; id=$(new_id)
  run_rc crt run -b "$T/b" "$id" </dev/null
  assert_eq 1 "$rc" "run with a missing interface"
  assert_contains "$out" "netDevices: host interface \"$a\": no such device"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left"
  bundle_edit "$T/b" "c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!='network']"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 1 "$rc" "run with netDevices and no network namespace"
  assert_contains "$out" ".linux.netDevices: moving interfaces needs a private network namespace"
  bundle_edit "$T/b" "c['linux']['netDevices']={'a/b':{}}"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_contains "$out" ".linux.netDevices[\"a/b\"]: not a valid interface name"
}

# config-linux.md#intel-rdt: not supported by crt, so refused (never
# silently ignored), and `features` says so.
test_config_linux_md_intel_rdt_refused() {
  make_bundle "$T/b" true
  bundle_edit "$T/b" "c['linux']['intelRdt']={'closID':'x','l3CacheSchema':'L3:0=f'}"
  local id; id=$(new_id)
  run_rc crt run -b "$T/b" "$id" </dev/null
  assert_eq 1 "$rc" "run with intelRdt"
  assert_contains "$out" ".linux.intelRdt: Intel RDT is not supported by crt"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left"
  "$CRT_BIN" features | python3 -c 'import json,sys; assert json.load(sys.stdin)["linux"]["intelRdt"]["enabled"] is False' \
    || fail "features: intelRdt.enabled"
}

# --- v1.3 MUSTs that had no test (docs/spec-musts.md) ---

# refused CONFIG_EDIT NEEDLE: create of $T/b edited by CONFIG_EDIT fails,
# names NEEDLE (the JSON path) and leaves no container behind.
refused() {
  cp "$T/b/config.json" "$T/b/good.json"
  bundle_edit "$T/b" "$1"
  local id; id=$(new_id)
  # not a pipe: an init wrongly left parked would hold it open
  crt create --bundle "$T/b" "$id" </dev/null >"$T/refused.out" 2>&1
  rc=$? out=$(cat "$T/refused.out")
  mv "$T/b/good.json" "$T/b/config.json"
  [ $rc = 0 ] && crt delete -f "$id"
  assert_eq 1 "$rc" "create with $1: $out"
  assert_contains "$out" "$2" "error of $1"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state left after a refused $1"
}

# config.md#mounts: "For the Linux platform ... a relative path ... MUST be
# interpreted as relative to /" (with a deprecation warning, as runc).
test_config_md_mounts_relative_destination() {
  make_bundle "$T/b" sh -c 'grep " /rel/dir " /proc/mounts | cut -d" " -f1-3'
  bundle_edit "$T/b" "c['process']['cwd']='/bin'; c['mounts'].append({'destination':'rel/dir','type':'tmpfs','source':'reltmp'})"
  run_rc crt run --bundle "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run: $out"
  assert_contains "$out" "reltmp /rel/dir tmpfs" "the mount is at /rel/dir, not under the cwd /bin"
}

# config.md#linux-mount-options: idmap "If no mappings are specified for the
# mount and the container does not use a user namespace ... an error MUST be
# returned".
test_config_md_idmap_without_mappings() {
  make_bundle "$T/b" true
  mkdir -p "$T/src"
  refused "c['mounts'].append({'destination':'/m','type':'bind','source':'$T/src','options':['bind','idmap']})" "idmap without uid and gid mappings"
  refused "c['mounts'].append({'destination':'/m','type':'bind','source':'$T/src','options':['rbind','ridmap']})" "without uid and gid mappings"
}

# config.md#process: "Runtimes MUST ignore consoleSize if terminal is false
# or unset" (a size crt would refuse with a terminal).
test_config_md_console_size_ignored_without_terminal() {
  make_bundle "$T/b" sh -c 'echo ran'
  bundle_edit "$T/b" "c['process']['consoleSize']={'height':4294967295,'width':4294967295}"
  run_rc crt run --bundle "$T/b" "$(new_id)" </dev/null
  assert_eq "0 ran" "$rc $out" "terminal false"
  bundle_edit "$T/b" "del c['process']['terminal']"
  run_rc crt run --bundle "$T/b" "$(new_id)" </dev/null
  assert_eq "0 ran" "$rc $out" "terminal unset"
}

# config.md#linux-process: "If oomScoreAdj is not set, the runtime MUST NOT
# change the value of oom_score_adj" (the caller's, inherited).
test_config_md_oom_score_adj_unset_unchanged() {
  make_bundle "$T/b" cat /proc/self/oom_score_adj
  bundle_edit "$T/b" "c['process'].pop('oomScoreAdj', None)"
  run_rc sh -c "echo 123 >/proc/self/oom_score_adj && exec \"$CRT_BIN\" --root \"$CRT_ROOT\" run --bundle \"$T/b\" $(new_id) </dev/null"
  assert_eq "0 123" "$rc $out" "oom_score_adj of the caller"
  bundle_edit "$T/b" "c['process']['oomScoreAdj']=7"
  run_rc sh -c "echo 123 >/proc/self/oom_score_adj && exec \"$CRT_BIN\" --root \"$CRT_ROOT\" run --bundle \"$T/b\" $(new_id) </dev/null"
  assert_eq "0 7" "$rc $out" "oomScoreAdj set"
}

# config.md#linux-process: scheduler "nice ... If not set, the runtime must
# use the value 0" (lowercase must): a caller at nice 5 gives no nice to a
# SCHED_OTHER process without nice; without scheduler the nice is inherited.
test_config_md_scheduler_nice_defaults_to_zero() {
  make_bundle "$T/b" sh -c 'cut -d" " -f19 /proc/self/stat'
  bundle_edit "$T/b" "c['process']['scheduler']={'policy':'SCHED_OTHER'}"
  run_rc nice -n 5 "$CRT_BIN" --root "$CRT_ROOT" run --bundle "$T/b" "$(new_id)" </dev/null
  assert_eq "0 0" "$rc $out" "nice with scheduler and no nice"
  bundle_edit "$T/b" "c['process']['scheduler']={'policy':'SCHED_OTHER','nice':3}"
  run_rc nice -n 5 "$CRT_BIN" --root "$CRT_ROOT" run --bundle "$T/b" "$(new_id)" </dev/null
  assert_eq "0 3" "$rc $out" "nice 3"
  bundle_edit "$T/b" "del c['process']['scheduler']"
  run_rc nice -n 5 "$CRT_BIN" --root "$CRT_ROOT" run --bundle "$T/b" "$(new_id)" </dev/null
  assert_eq "0 5" "$rc $out" "no scheduler: the caller's nice"
}

# config.md#linux-process: ioPriority "class (string, REQUIRED)";
# config.md#annotations: "Annotations MUST be a key-value map".  A missing
# "priority (int, REQUIRED)" is 0, as runc and crun read it
# (docs/spec-conformance.md; t_compat:test_ioprio_applied_priority_optional).
test_config_md_required_fields_and_annotations() {
  make_bundle "$T/b" true
  refused "c['process']['ioPriority']={'priority':1}" ".process.ioPriority.class: missing required field"
  refused "c['annotations']=['a=b']" ".annotations: expected object"
  refused "c['annotations']='a=b'" ".annotations: expected object"
}

# config.md#prestart ... #poststop: every hook's path "MUST resolve in the
# runtime namespace", except startContainer's, which "MUST resolve in the
# container namespace".  The runtime-namespace hooks are a script that
# exists only on the host, the startContainer hook one only in the rootfs.
test_config_md_hook_paths_resolve() {
  make_bundle "$T/b" true
  mkdir -p "$T/hostonly"
  printf '#!/bin/sh\necho "$1" >> %s/resolved\n' "$T" >"$T/hostonly/hook"
  printf '#!/bin/sh\necho startContainer > /tmp/resolved\n' >"$T/b/rootfs/rootfsonly-hook"
  chmod 755 "$T/hostonly/hook" "$T/b/rootfs/rootfsonly-hook"
  [ ! -e /rootfsonly-hook ] || fail "/rootfsonly-hook exists on the host"
  bundle_edit "$T/b" "c['root']['readonly']=False
c['hooks']={k:[{'path':'$T/hostonly/hook','args':['hook',k]}] for k in ('prestart','createRuntime','createContainer','poststart','poststop')}
c['hooks']['startContainer']=[{'path':'/rootfsonly-hook'}]"
  run_rc crt run --bundle "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run: $out"
  assert_eq "prestart createRuntime createContainer poststart poststop" "$(tr '\n' ' ' <"$T/resolved" | sed 's/ $//')" "host-only hook path"
  assert_eq startContainer "$(cat "$T/b/rootfs/tmp/resolved")" "rootfs-only startContainer hook path"
}

# config.md#createContainer-hooks: "The createContainer hooks MUST be called
# after the createRuntime hooks"; config.md#posix-platform-hooks: "Hooks
# MUST be called in the listed order", all six kinds.  $T is bind-mounted at
# the same path so that the in-container hooks write to the same file.
test_config_md_all_hook_kinds_in_order() {
  make_bundle "$T/b" sh -c "echo process >> $T/order"
  bundle_edit "$T/b" "c['mounts'].append({'destination':'$T','type':'bind','source':'$T','options':['bind']})
c['hooks']={k:[{'path':'/bin/sh','args':['sh','-c','echo %s%d >> $T/order' % (k,i)]} for i in (1,2)] for k in ('prestart','createRuntime','createContainer','startContainer','poststart','poststop')}"
  run_rc crt run --bundle "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run: $out"
  local got; got=$(tr '\n' ' ' <"$T/order" | sed 's/ $//')
  # the process and the poststart hooks run at the same time (step 8 and 9)
  got=$(echo "$got" | sed 's/ process//')
  assert_eq "prestart1 prestart2 createRuntime1 createRuntime2 createContainer1 createContainer2 startContainer1 startContainer2 poststart1 poststart2 poststop1 poststop2" "$got" "hook order"
  assert_contains "$(cat "$T/order")" process "the process ran"
}

# config-linux.md#user-namespace-mappings: containerID, hostID, size
# REQUIRED; #memory-policy: mode REQUIRED; #seccomp: listenerMetadata "MUST
# NOT be set if listenerPath is not set"; #readonly-paths: "The values MUST
# be absolute paths".
test_config_linux_md_required_fields_refused() {
  make_bundle "$T/b" true
  refused "c['linux']['uidMappings']=[{'hostID':0,'size':1}]; c['linux']['gidMappings']=[{'containerID':0,'hostID':0,'size':1}]" ".linux.uidMappings[0].containerID: missing required field"
  refused "c['linux']['uidMappings']=[{'containerID':0,'size':1}]" ".linux.uidMappings[0].hostID: missing required field"
  refused "c['linux']['gidMappings']=[{'containerID':0,'hostID':0}]" ".linux.gidMappings[0].size: missing required field"
  refused "c['linux']['memoryPolicy']={'nodes':'0'}" '.linux.memoryPolicy.mode: invalid memory policy mode ""'
  refused "c['linux']['readonlyPaths']=['proc/sys']" ".linux.readonlyPaths[0]: path \"proc/sys\" is not absolute"
  refused "c['linux']['seccomp']={'defaultAction':'SCMP_ACT_ALLOW','listenerMetadata':'x'}" ".linux.seccomp.listenerMetadata: set without listenerPath"
}

# config-linux.md#devices: "If a file already exists at path that does not
# match the requested device, the runtime MUST generate an error".
test_config_linux_md_device_path_exists_mismatch() {
  make_bundle "$T/b" true
  echo data >"$T/b/rootfs/etc/notadev"
  refused "c['linux']['devices']=[{'path':'/etc/notadev','type':'c','major':1,'minor':3}]" "/etc/notadev"
  assert_eq data "$(cat "$T/b/rootfs/etc/notadev")" "the file is untouched"
}

# config-linux.md#network-devices: a name that exists in the container
# namespace "MUST generate an error", unless it ends in %d: then "the
# runtime MUST allow the move, and the kernel will generate a unique name".
# (The addresses and "up" MUSTs fail on crt: docs/spec-musts.md rows 130, 131.)
test_config_linux_md_net_devices_name_exists_or_template() {
  local a=crtw$$a b=crtw$$b
  ip link add "$a" type veth peer name "$b" || fail "ip link add veth"
  make_bundle "$T/b" sh -c 'ls /sys/class/net | grep -vx lo'
  bundle_edit "$T/b" "c['linux']['netDevices']={'$a':{'name':'lo'}}"
  local id; id=$(new_id)
  run_rc crt run -b "$T/b" "$id" </dev/null
  assert_eq 1 "$rc" "run with a name that exists in the container: $out"
  assert_contains "$out" "into the container as \"lo\": file exists"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left"
  # "MUST check if moving is possible": the name is looked up in the
  # container's namespace first, so the host interface stays
  ip link show "$a" >/dev/null 2>&1 || { ip link del "$b" 2>/dev/null; fail "the host interface was lost"; }
  # config-linux.md#network-devices: "MUST preserve existing network
  # interface attributes, including all permanent IP addresses ... global
  # scope" and "MUST set the network device state to "up" after moving it"
  ip addr add 192.0.2.7/24 dev "$a" || fail "ip addr add"
  ip addr add 2001:db8::7/64 dev "$a" nodad 2>/dev/null
  local v6=$?
  bundle_edit "$T/b" "c['linux']['netDevices']={'$a':{'name':'net%d'}}"
  bundle_edit "$T/b" "c['process']['args']=['sh','-c','ls /sys/class/net | grep -vx lo; echo flags=\$((\$(cat /sys/class/net/net0/flags) & 1)); ip -o addr show dev net0 scope global | awk \'{print \$4}\'']"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  ip link del "$a" 2>/dev/null
  assert_eq 0 "$rc" "run with net%d: $out"
  assert_eq net0 "$(echo "$out" | sed -n 1p)" "the name the kernel chose from net%d"
  assert_contains "$out" "flags=1"
  assert_contains "$out" "192.0.2.7/24"
  [ "$v6" != 0 ] || assert_contains "$out" "2001:db8::7/64"
  wait_eval "! ip link show $b" || { ip link del "$b"; fail "the veth peer outlived the container"; }
}

# config-linux.md#cgroups-path: "the runtime MUST consistently attach to the
# same place in the cgroups hierarchy given the same value of cgroupsPath",
# absolute and relative.
test_config_linux_md_cgroups_path_consistent() {
  make_bundle "$T/b" sleep 100
  local p first id
  for p in "/$(new_id)" "$(new_id)"; do
    first=""
    for _ in 1 2; do
      bundle_edit "$T/b" "c['linux']['cgroupsPath']='$p'"
      id=$(new_id)
      crt run -d -b "$T/b" "$id" </dev/null || fail "run with cgroupsPath $p"
      local cg; cg=$(awk -F: '$2=="pids" {print $3}' "/proc/$(state_field "$id" pid)/cgroup")
      crt delete -f "$id" || fail "delete"
      case $p in /*) assert_eq "$p" "$cg" "absolute cgroupsPath, under the mount point" ;; esac
      [ -z "$first" ] && first=$cg
      assert_eq "$first" "$cg" "cgroup of cgroupsPath $p, again"
    done
  done
}

# config-linux.md#memory: checkBeforeUpdate "runtime MAY check if a new
# memory limit is lower than the current usage, and MUST reject the new
# limit".  8 MB in a tmpfs (/dev/shm) is usage no reclaim can free (no
# swap).  cgroup v1 only: this machine's cgroup2 has no memory controller.
test_config_linux_md_memory_check_before_update() {
  make_bundle "$T/b" sh -c 'head -c 8000000 /dev/zero > /dev/shm/big && echo filled > /dev/shm/done; sleep 100'
  bundle_edit "$T/b" "c['linux']['resources']['memory']={'limit':268435456}"
  local id; id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null || fail "run -d"
  local pid; pid=$(state_field "$id" pid)
  local f=/sys/fs/cgroup/memory$(awk -F: '$2=="memory" {print $3}' "/proc/$pid/cgroup")
  wait_for test -e "/proc/$pid/root/dev/shm/done" || fail "the container did not fill /dev/shm"
  echo '{"memory":{"limit":4194304,"checkBeforeUpdate":true}}' >"$T/r.json"
  run_rc crt update -r "$T/r.json" "$id"
  assert_eq 1 "$rc" "update below usage ($(cat "$f/memory.usage_in_bytes")): $out"
  assert_contains "$out" "rejecting memory limit 4194304 <= usage "
  assert_eq 268435456 "$(cat "$f/memory.limit_in_bytes")" "the limit is unchanged"
  kill -0 "$pid" || fail "the container died"
  echo '{"memory":{"limit":134217728,"checkBeforeUpdate":true}}' >"$T/r.json"
  run_rc crt update -r "$T/r.json" "$id"
  assert_eq 0 "$rc" "update above usage: $out"
  assert_eq 134217728 "$(cat "$f/memory.limit_in_bytes")" "the new limit"
  crt delete -f "$id"
}
