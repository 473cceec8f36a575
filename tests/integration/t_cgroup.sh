# cgroups with real containers: limits read back from the container's
# cgroup, pause/resume, update, events, ps, kill --all.

# cg_path ID [CONTROLLER]: the container's cgroup as its init's
# /proc/PID/cgroup says (CONTROLLER's v1 line, else the cgroup2 one), so
# that the tests read what runc made too; crt's state.json once the init
# is gone.
cg_path() {
  local pid; pid=$(state_field "$1" pid 2>/dev/null)
  if [ -n "$pid" ] && [ "$pid" != 0 ] && [ -r "/proc/$pid/cgroup" ]; then
    awk -F: -v c="${2:-pids}" '$1 == "0" && $2 == "" { u = $3 }
      { n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) { print $3; f = 1; exit } }
      END { if (!f) print u }' "/proc/$pid/cgroup"
    return
  fi
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("cgroup_path",""))' "$CRT_ROOT/$1/state.json"
}
# cg_file ID CONTROLLER FILE: reads a file of the container's cgroup
cg_file() {
  local p; p=$(cg_path "$1" "$2")
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then cat "/sys/fs/cgroup$p/$3"; else cat "/sys/fs/cgroup/$2$p/$3"; fi
}

run_limited() { # ID: a running container with memory and pids limits
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['linux'].setdefault('resources',{}); c['linux']['resources']['memory']={'limit':67108864}; c['linux']['resources']['pids']={'limit':20}"
  crt run -d -b "$T/b" "$1" </dev/null >/dev/null 2>&1 || fail "run $1"
}

test_memory_and_pids_limit() {
  local id; id=$(new_id); run_limited "$id"
  assert_eq 67108864 "$(cg_file "$id" memory memory.limit_in_bytes 2>/dev/null || cg_file "$id" memory memory.max)" "memory limit"
  assert_eq 20 "$(cg_file "$id" pids pids.max)" "pids.max"
  local pid; pid=$(state_field "$id" pid)
  assert_contains "$(cg_file "$id" pids cgroup.procs)" "$pid" "init in the cgroup"
  local p; p=$(cg_path "$id")
  crt delete -f "$id"
  [ ! -d "/sys/fs/cgroup/pids$p" ] || fail "cgroup $p left after delete"
}

# Cgroups the container made under its own, with a process in the deepest:
# delete's rmdir of the container's cgroup fails (EBUSY) and only then
# walks the children, deepest first (src/cgroup/cgroup_fs.c rmdir_tree).
test_delete_removes_nested_cgroups() {
  local id; id=$(new_id); run_limited "$id"
  local pid p dirs=() d; pid=$(state_field "$id" pid)
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    p=$(sed -n 's/^0:://p' "/proc/$pid/cgroup"); dirs=("/sys/fs/cgroup$p")
  else
    p=$(sed -n 's/^[0-9]*:pids://p' "/proc/$pid/cgroup"); dirs=("/sys/fs/cgroup/pids$p")
    p=$(sed -n 's/^[0-9]*:memory://p' "/proc/$pid/cgroup"); dirs+=("/sys/fs/cgroup/memory$p")
  fi
  [ -n "$p" ] && [ "$p" != / ] || fail "no cgroup of its own: '$p'"
  crt exec -d --pid-file "$T/e.pid" "$id" sleep 60 || fail "exec -d"
  for d in "${dirs[@]}"; do
    mkdir -p "$d/a/b" "$d/c" || fail "mkdir under $d"
    echo "$(cat "$T/e.pid")" >"$d/a/b/cgroup.procs" || fail "move the exec'd process into $d/a/b"
  done
  crt delete -f "$id" || fail "delete -f"
  for d in "${dirs[@]}"; do [ ! -d "$d" ] || fail "cgroup $d left after delete: $(find "$d" -type d)"; done
}

test_pause_resume() {
  local id; id=$(new_id); run_limited "$id"
  crt pause "$id" || fail "pause"
  assert_eq paused "$(state_field "$id" status)" "status after pause"
  run_rc crt pause "$id"; assert_eq 1 "$rc" "pause twice"; assert_contains "$out" "container not running"
  crt resume "$id" || fail "resume"
  assert_eq running "$(state_field "$id" status)" "status after resume"
  run_rc crt resume "$id"; assert_eq 1 "$rc" "resume twice"; assert_contains "$out" "container not paused"
  run_rc crt pause nosuch-ctr; assert_eq 1 "$rc"; assert_contains "$out" "does not exist"
  crt delete -f "$id"
}

test_update() {
  local id; id=$(new_id); run_limited "$id"
  crt update --memory 100M --pids-limit 30 "$id" || fail "update"
  assert_eq 104857600 "$(cg_file "$id" memory memory.limit_in_bytes 2>/dev/null || cg_file "$id" memory memory.max)"
  assert_eq 30 "$(cg_file "$id" pids pids.max)"
  echo '{"pids":{"limit":-1}}' | crt update -r - "$id" || fail "update -r -"
  assert_eq max "$(cg_file "$id" pids pids.max)"
  run_rc crt update --memory 12q "$id"; assert_eq 1 "$rc" "bad size"
  # runc's update takes no device rules (1.1.5 leaves devices.list as it was)
  if ! is_crt; then crt delete -f "$id"; return 0; fi
  # device rules: runc's defaults, then the update's (the last match wins)
  echo '{"devices":[{"allow":true,"type":"b","major":7,"minor":0,"access":"r"}]}' |
    crt update -r - "$id" || fail "update devices"
  local list; list=$(cg_file "$id" devices devices.list)
  assert_contains "$list" "b 7:0 r" "updated rule"
  assert_contains "$list" "c 1:5 rwm" "default /dev/zero rule"
  assert_eq 1 "$(crt exec "$id" sh -c 'head -c1 /dev/zero | wc -c')" "/dev/zero after update"
  crt delete -f "$id"
}

test_events_stats() {
  local id; id=$(new_id); run_limited "$id"
  run_rc crt events --stats "$id"; assert_eq 0 "$rc" "events --stats: $out"
  python3 -c '
import json,sys
e=json.loads(sys.argv[1]); assert e["type"]=="stats" and e["id"]==sys.argv[2], e
d=e["data"]; assert d["pids"]["current"]>=1 and d["pids"]["limit"]==20, d["pids"]
assert d["memory"]["usage"]["limit"]==67108864, d["memory"]["usage"]
assert "total" in d["cpu"]["usage"]' "$out" "$id" || fail "stats JSON: $out"
  crt delete -f "$id"
}

test_ps() {
  local id; id=$(new_id); run_limited "$id"
  local pid; pid=$(state_field "$id" pid)
  assert_eq "[$pid]" "$(crt ps --format json "$id")" "ps json"
  run_rc crt ps "$id"; assert_eq 0 "$rc"; assert_contains "$out" "PID"; assert_contains "$out" "sleep"
  # runc's form: what follows the id goes to ps(1)
  run_rc crt ps "$id" -o pid,comm; assert_eq 0 "$rc" "ps ID -o pid,comm: $out"; assert_contains "$out" "$pid"
  # crt also takes a "--" before ps's options (runc 1.1.5 hands it to ps(1), which refuses it)
  if is_crt; then run_rc crt ps "$id" -- -o pid,comm; assert_contains "$out" "$pid"; fi
  crt delete -f "$id"
}

test_kill_all() {
  local id; id=$(new_id); run_limited "$id"
  crt exec -d "$id" sleep 200 || fail "exec"
  wait_eval 'test "$(crt ps --format json "$id" | tr "," "\n" | wc -l)" -ge 2' || fail "exec'd process not in the cgroup"
  crt kill --all "$id" KILL || fail "kill --all"
  wait_eval 'test "$(state_field "$id" status)" = stopped' || fail "not stopped after kill --all"
  crt delete "$id"
}

# A container that allocates past its memory limit is OOM-killed, and a
# streaming `events` reports it (v1: memory.oom_control eventfd).
test_oom_kill_reported_by_events() {
  local id; id=$(new_id)
  make_bundle "$T/b" sh -c 'sleep 1; x=$(head -c 100000000 /dev/zero | tr "\0" a); echo survived ${#x}'
  bundle_edit "$T/b" "c['linux']['resources']={'memory':{'limit':16777216}}"
  crt create -b "$T/b" "$id" </dev/null >"$T/out" 2>&1 || fail "create: $(cat "$T/out")"
  "$CRT_BIN" --root "$CRT_ROOT" events "$id" >"$T/events" 2>&1 </dev/null &
  local ev=$!
  crt start "$id" || fail "start"
  wait_eval 'grep -q "\"type\":\"oom\"" "$T/events"' || { kill $ev; fail "no oom event: $(cat "$T/events" "$T/out")"; }
  wait_eval '[ "$(state_field "$id" status)" = stopped ]' || fail "not stopped"
  assert_not_contains "$(cat "$T/out")" "survived"
  assert_contains "$(head -1 "$T/events")" "\"id\":\"$id\""
  kill $ev 2>/dev/null; wait $ev 2>/dev/null
  crt delete "$id" || fail "delete"
}

# pids.max stops a fork bomb: forks beyond the limit fail inside (busybox
# sh gives up at the first), the container's cgroup never holds more than
# the limit, and pids.events counts the refusals.
test_pids_limit_stops_fork_bomb() {
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['linux']['resources']={'pids':{'limit':10}}"
  crt run -d -b "$T/b" "$id" </dev/null >"$T/out" 2>&1 || fail "run"
  run_rc crt exec "$id" sh -c 'while :; do sleep 30 </dev/null >/dev/null 2>&1 & done'
  assert_ne 0 "$rc" "the fork bomb stopped"
  assert_contains "$out" "can't fork"
  local cur; cur=$(cg_file "$id" pids pids.current)
  [ "$cur" -le 10 ] && [ "$cur" -ge 8 ] || fail "pids.current $cur, limit 10"
  [ "$(cg_file "$id" pids pids.events | awk '$1 == "max" {print $2}')" -gt 0 ] ||
    fail "no refused fork counted: $(cg_file "$id" pids pids.events)"
  crt delete -f "$id" || fail "delete"
}

# v1 device cgroup: a device node the rules do not allow cannot be opened,
# even by root with CAP_MKNOD; an allowed one can.
test_device_rules_v1() {
  local id; id=$(new_id)
  make_bundle "$T/b" sh -c 'mknod /tmp/mem c 1 1 && head -c1 /tmp/mem; echo "mem=$?"; mknod /tmp/zero c 1 5 && head -c1 /tmp/zero | wc -c'
  bundle_edit "$T/b" "c['root']['readonly']=False; [c['process']['capabilities'][k].append('CAP_MKNOD') for k in ('bounding','effective','permitted')]"
  run_rc crt run -b "$T/b" "$id"
  assert_eq 0 "$rc" "$out"
  assert_contains "$out" "Operation not permitted" "/dev/mem (1:1) denied"
  assert_contains "$out" "mem=1"
  assert_eq 1 "$(echo "$out" | tail -1)" "/dev/zero (1:5) allowed"
}

# Guards: linux.devices only makes device nodes.  With linux.resources.devices
# denying all, a node listed in linux.devices (/dev/kmsg here) must get no
# cgroup allow rule: opening it for writing fails with EPERM (runc 1.1 does
# the same).  Before the fix every linux.devices entry was allowed rwm.
test_linux_devices_get_no_cgroup_rule() {
  local id; id=$(new_id)
  make_bundle "$T/b" sh -c 'echo crt-test-device-rule >/dev/kmsg; echo "kmsg=$?"; head -c1 /dev/zero | wc -c'
  bundle_edit "$T/b" "c['linux']['devices']=[{'path':'/dev/kmsg','type':'c','major':1,'minor':11,'fileMode':0o644,'uid':0,'gid':0}]; c['linux']['resources']={'devices':[{'allow':False,'access':'rwm'}]}"
  run_rc crt run -b "$T/b" "$id"
  assert_eq 0 "$rc" "run: $out"
  assert_contains "$out" "Operation not permitted" "/dev/kmsg denied by the cgroup"
  assert_contains "$out" "kmsg=1"
  assert_eq 1 "$(echo "$out" | tail -1)" "/dev/zero (a default device) still allowed"
}

# Guards: `update --resources` with a deny-all device rule denies every
# device, the default ones included.  Before the fix the defaults were
# re-added after the update's rules, so a deny-all silently restored the
# default allow-list.
test_update_devices_deny_all() {
  is_crt || return 0 # runc's update takes no device rules (1.1.5 leaves devices.list as it was)
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run"
  assert_eq 1 "$(crt exec "$id" sh -c 'head -c1 /dev/zero | wc -c')" "/dev/zero before the update"
  echo '{"devices":[{"allow":false,"access":"rwm"}]}' | crt update -r - "$id" || fail "update devices"
  assert_eq "" "$(cg_file "$id" devices devices.list)" "devices.list after a deny-all update"
  run_rc crt exec "$id" sh -c 'head -c1 /dev/zero; echo "zero=$?"'
  assert_contains "$out" "Operation not permitted" "/dev/zero denied after the update"
  assert_contains "$out" "zero=1"
  crt delete -f "$id"
}

# Guards: an update that allows every device is applied but logged as a
# warning in runc's log format (level=warning).  Before the fix it was silent.
test_update_devices_allow_all_warns() {
  is_crt || return 0 # runc's update takes no device rules (1.1.5 leaves devices.list as it was)
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run"
  echo '{"devices":[{"allow":true,"access":"rwm"}]}' |
    "$CRT_BIN" --root "$CRT_ROOT" --log "$T/log.json" --log-format json update -r - "$id" || fail "update devices"
  assert_contains "$(cat "$T/log.json")" '"level":"warning"' "log level"
  assert_contains "$(cat "$T/log.json")" "allows access to all devices" "warning text"
  assert_contains "$(cg_file "$id" devices devices.list)" "a *:* rwm" "allow-all applied"
  crt delete -f "$id"
}

# Guards: dockerd's zero values (linux.resources blockIO.weight 0, cpu.shares
# 0, ...) mean "not set", as in runc.  This kernel has no blkio.weight: before
# the fix `create` failed writing it, and cpu.shares 0 was written (the
# kernel clamps it to 2).
test_zero_resources_mean_unset() {
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['linux']['resources']={'devices':[{'allow':False,'access':'rwm'}],'memory':{'disableOOMKiller':False},'cpu':{'shares':0,'quota':0,'period':0},'blockIO':{'weight':0,'leafWeight':0},'pids':{'limit':0}}"
  # output to a file: the detached container keeps a pipe open
  crt run -d -b "$T/b" "$id" </dev/null >"$T/out" 2>&1 || fail "run with zero resources: $(cat "$T/out")"
  assert_eq 1024 "$(cg_file "$id" cpu cpu.shares)" "cpu.shares left at the default"
  assert_eq max "$(cg_file "$id" pids pids.max)" "pids.max left at the default"
  # update's pids limit 0 leaves pids.max too, as runc 1.3.6 does on v1
  # (cgroups.bats, update.bats "update pids.limit": runc 1.4 reads 0 as a
  # limit of 1, the runtime-spec 1.2.1 meaning; runc 1.3 does not yet)
  crt update --pids-limit 5 "$id" || fail "update --pids-limit 5"
  crt update --pids-limit 0 "$id" || fail "update --pids-limit 0"
  echo '{"pids":{"limit":0}}' | crt update -r - "$id" || fail "update -r with pids limit 0"
  assert_eq 5 "$(cg_file "$id" pids pids.max)" "pids.max after updates with limit 0"
  crt delete -f "$id"
}

# Guards: `update` is all-or-nothing.  dockerd's `docker update` sends
# cpu.period 0 and memory.limit for the rest: zeros are skipped, and a value
# the kernel refuses is caught before any file is written.
test_update_all_or_nothing() {
  local id; id=$(new_id); run_limited "$id"
  echo '{"memory":{"limit":0,"reservation":0,"kernel":0},"cpu":{"shares":0,"period":0,"quota":0},"blockIO":{"weight":0},"pids":{"limit":30}}' |
    crt update -r - "$id" || fail "update with docker's zeros"
  assert_eq 67108864 "$(cg_file "$id" memory memory.limit_in_bytes)" "memory limit unchanged by limit 0"
  assert_eq 30 "$(cg_file "$id" pids pids.max)" "pids.max updated"
  run_rc crt update --memory 100M --cpu-period 10 "$id"
  assert_eq 1 "$rc" "update with an invalid period"
  if runc_before_1_2; then
    echo "runc 1.1.5: the period is refused by the kernel after the memory limit was written: the rest not asserted"
    crt delete -f "$id"; return 0
  fi
  assert_contains "$out" "invalid cpu.period 10"
  assert_eq 67108864 "$(cg_file "$id" memory memory.limit_in_bytes)" "memory limit not half-applied"
  # the kernel refuses a CPU this VM does not have, after the memory limit
  # was written: the limit is put back
  run_rc crt update --memory 100M --cpuset-cpus 63 "$id"
  assert_eq 1 "$rc" "update with a missing cpu"
  assert_contains "$out" "cgroup: write cpuset.cpus (value 63)"
  assert_contains "$out" "the 1 file(s) already written were restored"
  assert_eq 67108864 "$(cg_file "$id" memory memory.limit_in_bytes)" "memory limit restored"
  crt delete -f "$id"
}

# Guards kill_all_sigkill (src/cgroup/cgroup.c): delete --force kills
# without freezing the cgroup, so a delete SIGKILLed right after its kill
# (the test build stops at the point "cgroup:killed") leaves a stopped
# container, not one frozen with its SIGKILL pending (state "paused").
test_delete_force_killed_midway_leaves_no_freeze() {
  is_crt || return 0 # the named points are crt's test build
  local tp=$REPO/build/crt-testpoints
  [ -x "$tp" ] || fail "no $tp: run make build/crt-testpoints (make check builds it)"
  make_bundle "$T/b"
  local id; id=$(new_id)
  crt create -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create"
  CRT_TEST_PAUSE=cgroup:killed CRT_TEST_PAUSE_FILE=$T/paused "$tp" --root "$CRT_ROOT" delete --force "$id" \
    </dev/null >"$T/tp.out" 2>&1 &
  local dpid=$!
  wait_for test -s "$T/paused" || { kill -9 $dpid; fail "delete --force never reached cgroup:killed: $(cat "$T/tp.out")"; }
  kill -9 $dpid; wait $dpid 2>/dev/null
  local st; st=$(state_field "$id" status)
  [ "$st" != paused ] || fail "delete --force killed midway left the container paused"
  wait_eval "[ \"\$(state_field $id status)\" = stopped ]" || fail "the init did not die: $(state_field "$id" status)"
  crt delete "$id" || fail "delete after the interrupted delete --force"
}

# CRT_CGROUP_ROOT / CRT_CGROUP_MODE point crt at a cgroup tree of the
# caller's choosing; only the test build (build/crt-testpoints) reads them,
# so a release crt run by anyone makes its cgroup where the host's are.
test_cgroup_root_env_only_in_test_build() {
  mkdir -p "$T/fakecg/pids" "$T/fakecg/memory"
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  CRT_CGROUP_ROOT=$T/fakecg CRT_CGROUP_MODE=v1 crt run -d -b "$T/b" "$id" </dev/null >"$T/run.out" 2>&1 ||
    fail "run with CRT_CGROUP_ROOT set: $(cat "$T/run.out")"
  local pid; pid=$(state_field "$id" pid)
  assert_contains "$(cat /proc/"$pid"/cgroup)" "$id" "the init in its cgroup on the host's hierarchies"
  [ -z "$(find "$T/fakecg" -mindepth 2)" ] || fail "a release crt made its cgroup under CRT_CGROUP_ROOT"
  crt delete -f "$id" || fail "delete"
  is_crt || return 0
  local tp=$REPO/build/crt-testpoints
  [ -x "$tp" ] || fail "no $tp: run make build/crt-testpoints (make check builds it)"
  id=$(new_id)
  run_rc env CRT_CGROUP_ROOT="$T/fakecg" CRT_CGROUP_MODE=v1 "$tp" --root "$CRT_ROOT" run -d -b "$T/b" "$id"
  assert_contains "$out" "$T/fakecg" "the test build uses CRT_CGROUP_ROOT"
  "$tp" --root "$CRT_ROOT" delete -f "$id" >/dev/null 2>&1
  true
}

# A v1 cgroup the kernel refuses (cpuset.cpus naming a CPU the host lacks)
# fails create with the cgroup's own message and leaves nothing behind: no
# cgroup directory, state directory, process or mount.  crt makes the v1
# cgroup after the clone (create.c: v1_late), so the init exists then: it
# is killed before it joined, and, as when the cgroup was made before the
# clone, no poststop hook runs (the container never had its cgroup).
test_v1_cgroup_refused_after_the_clone_leaves_nothing() {
  is_crt || return 0
  [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ] && [ -d /sys/fs/cgroup/cpuset ] || return 0
  local id cpus; id=$(new_id); cpus=$(( $(nproc) + 1000 ))
  make_bundle "$T/b" true
  bundle_edit "$T/b" "c['linux'].setdefault('resources',{})['cpu']={'cpus':'$cpus'}; c['hooks']={'poststop':[{'path':'/bin/sh','args':['sh','-c','echo ran >>$T/poststop']}]}"
  local before; before=$(suite_procs crt)
  run_rc crt run -b "$T/b" "$id"
  assert_ne 0 "$rc" "run with cpuset.cpus $cpus"
  assert_contains "$out" "msg=\"create $id: cgroup: write cpuset.cpus (value $cpus): " "the error"
  assert_eq "" "$(ls -d /sys/fs/cgroup/*/"$id" /sys/fs/cgroup/"$id" 2>/dev/null)" "cgroup directories left"
  [ ! -e "$CRT_ROOT/$id" ] || fail "the state directory is left"
  assert_eq "$before" "$(suite_procs crt)" "crt processes (the init) left"
  assert_eq 0 "$(grep -c "$T/b/rootfs" /proc/self/mountinfo)" "mounts left"
  [ ! -e "$T/poststop" ] || fail "poststop ran"
}

# `spec` adds a cgroup namespace on a pure cgroup2 host (runc's specconv),
# and only there: on v1 and hybrid the same five namespaces as runc.  The
# host's layout is checked with whatever runs (runc 1.3.6 too); the v2
# decision through the test build's CRT_CGROUP_MODE (crt only), and on a
# real v2 host in tests/guest/v2 (spec_cgroupns).
ns_types() { # CONFIG: its namespaces' types as a JSON list
  python3 -c 'import json,sys; print(json.dumps([n["type"] for n in json.load(open(sys.argv[1]))["linux"]["namespaces"]], separators=(",",":")))' "$1"
}
test_spec_cgroupns_on_v2_only() {
  local want='["pid","network","ipc","uts","mount"]' got
  [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] && want='["pid","network","ipc","uts","mount","cgroup"]'
  mkdir -p "$T/s1" "$T/s2" "$T/s3" "$T/fakecg"
  (cd "$T/s1" && "$CRT_BIN" spec) || fail "spec"
  got=$(ns_types "$T/s1/config.json")
  assert_eq "$want" "$got" "spec's namespaces on this host"
  is_crt || return 0
  local tp=$REPO/build/crt-testpoints
  [ -x "$tp" ] || fail "no $tp: run make build/crt-testpoints (make check builds it)"
  (cd "$T/s2" && CRT_CGROUP_ROOT=$T/fakecg CRT_CGROUP_MODE=v2 "$tp" spec) || fail "spec (v2)"
  got=$(ns_types "$T/s2/config.json")
  assert_eq '["pid","network","ipc","uts","mount","cgroup"]' "$got" "spec's namespaces on cgroup v2"
  (cd "$T/s3" && CRT_CGROUP_ROOT=$T/fakecg CRT_CGROUP_MODE=hybrid "$tp" spec) || fail "spec (hybrid)"
  got=$(ns_types "$T/s3/config.json")
  assert_eq '["pid","network","ipc","uts","mount"]' "$got" "spec's namespaces on hybrid"
}

# ps of a stopped container whose cgroup is gone (systemd removes an empty
# scope at once; here it is removed by hand): runc's header alone (json:
# null) and exit 0, not an error about cgroup.procs.  Passes with runc 1.3.6.
test_ps_stopped_cgroup_gone() {
  local id; id=$(new_id)
  make_bundle "$T/b" true
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='/$id'"
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  wait_eval 'test "$(state_field "$id" status)" = stopped' || fail "the container did not stop"
  local h
  for h in $(awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts); do
    [ -d "$h/$id" ] && { rmdir "$h/$id" || fail "remove the container's cgroup on $h"; }
  done
  run_rc crt ps "$id"
  assert_eq 0 "$rc" "ps of a stopped container without its cgroup: $out"
  assert_eq 1 "$(printf '%s\n' "$out" | wc -l)" "ps's lines: $out"; assert_contains "$out" "PID"
  run_rc crt ps -f json "$id"
  assert_eq 0 "$rc" "ps -f json: $out"; assert_eq null "$out" "ps -f json"
  crt delete "$id" || fail "delete"
}

# cpus_allowed: the Cpus_allowed_list of a /proc/PID/status on stdin
cpus_allowed() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' | tr -d '\r'; }
has_cpuset() {
  [ -e /sys/fs/cgroup/cpuset/cpuset.cpus ] || grep -qw cpuset /sys/fs/cgroup/cgroup.controllers 2>/dev/null
}

# Issue 57 bug 8 (runc's cpu_affinity.bats 4-7): a caller pinned to one CPU
# (taskset, systemd's CPUAffinity=) does not pin the container: its init
# and an exec'd process run on every CPU of the container's cpuset (every
# CPU without one), as runc >= 1.2 resets them; execCPUAffinity.final
# still decides for an exec.  Guards crt_cpu_move_off (src/linux/numa.c,
# create) and the resets in src/container/exec.c.  runc 1.1.5 passes the
# caller's affinity on: skipped there.
test_affinity_of_a_pinned_caller_is_reset() {
  [ "$(nproc)" -ge 2 ] || { echo "skip: one CPU"; return 0; }
  runc_before_1_2 && { echo "skip: runc < 1.2 keeps its caller's affinity"; return 0; }
  local all; all=$(cpus_allowed </proc/self/status)
  local first=${all%%[-,]*}
  local second=$((first + 1))
  make_bundle "$T/b" grep Cpus_allowed_list /proc/self/status
  assert_eq "$all" "$(taskset -c "$first" "$CRT_BIN" --root "$CRT_ROOT" run -b "$T/b" "$(new_id)" </dev/null | cpus_allowed)" \
    "the init's CPUs, run under taskset -c $first"
  if has_cpuset; then
    local cpus
    for cpus in "$first-$second" "$second"; do
      bundle_edit "$T/b" "c['linux'].setdefault('resources',{})['cpu']={'cpus':'$cpus','mems':'0'}"
      assert_eq "$cpus" "$(taskset -c "$first" "$CRT_BIN" --root "$CRT_ROOT" run -b "$T/b" "$(new_id)" </dev/null | cpus_allowed)" \
        "the init's CPUs with cpuset $cpus, run under taskset -c $first"
    done
    bundle_edit "$T/b" "c['linux']['resources'].pop('cpu')"
  fi
  bundle_edit "$T/b" "c['process']['args']=['sleep','100']"
  local id; id=$(new_id)
  taskset -c "$first" "$CRT_BIN" --root "$CRT_ROOT" run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  assert_eq "$all" "$(cpus_allowed <"/proc/$(state_field "$id" pid)/status")" "the detached init's CPUs"
  assert_eq "$all" "$(taskset -c "$first" "$CRT_BIN" --root "$CRT_ROOT" exec "$id" grep Cpus_allowed_list /proc/self/status </dev/null | cpus_allowed)" \
    "an exec'd process's CPUs, exec under taskset -c $first"
  python3 - "$T/b/config.json" "$T/p.json" "$second" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["process"]
p["args"] = ["grep", "Cpus_allowed_list", "/proc/self/status"]
p["execCPUAffinity"] = {"final": sys.argv[3]}
json.dump(p, open(sys.argv[2], "w"))
PY
  assert_eq "$second" "$(taskset -c "$first" "$CRT_BIN" --root "$CRT_ROOT" exec -p "$T/p.json" "$id" </dev/null | cpus_allowed)" \
    "an exec'd process's CPUs with execCPUAffinity.final $second"
  crt delete -f "$id"
}

# Guards jp_get (src/spec/json.c): runc decodes config.json and update -r
# with Go's encoding/json, where a key matches its field case-insensitively
# when no key matches exactly; crt used to drop such keys silently (an
# update that changed nothing, exit 0).  A process.user without gid is gid
# 0 (Go's zero value), where crt refused it.
test_go_key_matching_and_zero_gid() {
  local id; id=$(new_id); run_limited "$id"
  echo '{"CPU":{"Cpus":"0","Mems":"0"},"Memory":{"Limit":100663296},"pids":{"LIMIT":33}}' |
    crt update -r - "$id" || fail "update -r with Go-cased keys"
  assert_eq 0 "$(cg_file "$id" cpuset cpuset.cpus)" "cpuset.cpus from \"Cpus\""
  assert_eq 100663296 "$(cg_file "$id" memory memory.limit_in_bytes)" "memory limit from \"Memory\".\"Limit\""
  assert_eq 33 "$(cg_file "$id" pids pids.max)" "pids.max from \"LIMIT\""
  crt delete -f "$id"
  make_bundle "$T/u" id
  bundle_edit "$T/u" "c['process']['user']={'uid':1000}"
  run_rc crt run -b "$T/u" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run with a user without gid: $out"
  assert_contains "$out" "uid=1000 gid=0"
}
