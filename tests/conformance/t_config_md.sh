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
             "{'mode':'MPOL_BIND'}|.linux.memoryPolicy.nodes: MPOL_BIND needs nodes" \
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
  assert_contains "$out" "netDevices: host interface \"$a\": No such device"
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
