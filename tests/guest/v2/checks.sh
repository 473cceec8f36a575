# The cgroup v2 checks, run inside the guest (busybox sh) once per runtime
# with the same expectations, so each is a differential test: crt, runc
# and crun must all pass it.  Each check prints "ok   v2/RT:name" or
# "FAIL v2/RT:name: why"; the last line counts them.
T=/tmp/checks
CG=/sys/fs/cgroup
BASE=/guest/base.json
passed=0 failed=0 n=0

why() { echo "$*" >"$T/why"; return 1; }
# expect WHAT WANT GOT
expect() { [ "$2" = "$3" ] || why "$1: want '$2', got '$3'"; }
# expect_in WHAT NEEDLE HAYSTACK
expect_in() { case $3 in *"$2"*) ;; *) why "$1: want '$2' in '$3'" ;; esac; }

# bundle SCRIPT [JQ]: a new bundle $B (container id $ID, cgroup $C) that
# runs sh -c SCRIPT, with the jq filter JQ applied to the base config.
bundle() {
  n=$((n + 1))
  ID=$RT_NAME-$n B=$T/b$n C=/t-$RT_NAME-$n
  mkdir -p "$B"
  jq --arg s "$1" --arg cg "$C" ".process.args = [\"sh\", \"-c\", \$s] | .linux.cgroupsPath = \$cg | ${2:-.}" \
    "$BASE" >"$B/config.json" || why "jq filter: ${2:-.}"
}
rt() { "$RT" "$@"; }
# runc before 1.2 (Debian 12's 1.1.5) lacks some of what is checked here.
old_runc() { [ "$RT_NAME" = runc ] && runc --version | grep -q '^runc version 1\.1\.'; }
run_d() {
  [ -s "$B/config.json" ] || return 1
  rt run -d -b "$B" "$ID" </dev/null >"$T/out" 2>&1 || why "run -d $ID: $(cat "$T/out")"
}
status() { rt state "$ID" 2>/dev/null | jq -r .status; }
pid_of() { rt state "$ID" | jq -r .pid; }
# wait_for COND...: up to 10 s
wait_for() {
  i=0
  while ! "$@"; do
    i=$((i + 1)); [ $i -lt 100 ] || return 1
    sleep 0.1
  done
}
stopped() { [ "$(status)" = stopped ]; }
gone() { [ ! -d "$CG$C" ]; }
procs_are() { [ "$(wc -l <"$CG$C/cgroup.procs")" = "$1" ]; }
empty() { [ -z "$(cat "$CG$C/cgroup.procs" 2>/dev/null)" ]; }
# cleanup: the check's container and cgroup, and a first one a check kept
# in ID_ALSO/C_ALSO
cleanup() {
  for i in "$ID" ${ID_ALSO:-}; do rt delete -f "$i" >/dev/null 2>&1; done
  for cg in "$C" ${C_ALSO:-}; do [ -d "$CG$cg" ] && rmdir "$CG$cg" 2>/dev/null; done
  ID_ALSO= C_ALSO=
  return 0
}

# A memory hog in a 32M cgroup without swap is OOM-killed in its own
# cgroup: run's exit code is 137 and memory.events counts the kill.
c_memory_oom() {
  hog='x=$(head -c 200000000 /dev/zero | tr "\0" a); echo survived'
  lim='.linux.resources.memory = {"limit": 33554432, "swap": 33554432}'
  bundle "$hog" "$lim"
  rt run -b "$B" "$ID" </dev/null >"$T/out" 2>&1
  expect "run exit code of an OOM-killed init" 137 "$?" || return 1
  bundle "$hog" "$lim"
  run_d || return 1
  wait_for stopped || why "the hog was not killed" || return 1
  expect "memory.swap.max" 0 "$(cat $CG$C/memory.swap.max)" || return 1
  k=$(awk '$1 == "oom_kill" {print $2}' "$CG$C/memory.events")
  [ "${k:-0}" -ge 1 ] || why "memory.events: $(cat "$CG$C/memory.events")"
}

c_memory_files() {
  bundle 'sleep 100' '.linux.resources.memory = {"limit": 67108864, "reservation": 16777216, "swap": 134217728}'
  run_d || return 1
  expect memory.max 67108864 "$(cat $CG$C/memory.max)" || return 1
  expect memory.low 16777216 "$(cat $CG$C/memory.low)" || return 1
  expect memory.swap.max 67108864 "$(cat $CG$C/memory.swap.max)" || return 1
  rt update --memory 100663296 --memory-swap 201326592 "$ID" >"$T/out" 2>&1 || why "update --memory: $(cat "$T/out")" || return 1
  expect "memory.max after update" 100663296 "$(cat $CG$C/memory.max)" || return 1
  expect "memory.swap.max after update" 100663296 "$(cat $CG$C/memory.swap.max)"
}

# A fork loop is held at pids.max, and pids.events counts the refusals.
c_pids() {
  bundle '(i=0; while [ $i -lt 40 ]; do sleep 100 & i=$((i + 1)); done) 2>/dev/null; exec sleep 100' \
    '.linux.resources.pids = {"limit": 20}'
  run_d || return 1
  sleep 2
  expect pids.max 20 "$(cat $CG$C/pids.max)" || return 1
  cur=$(cat $CG$C/pids.current)
  [ "$cur" -le 20 ] && [ "$cur" -ge 10 ] || why "pids.current $cur, want 10..20" || return 1
  ev=$(awk '$1 == "max" {print $2}' $CG$C/pids.events)
  [ "${ev:-0}" -ge 1 ] || why "pids.events: $(cat $CG$C/pids.events)" || return 1
  rt update --pids-limit 30 "$ID" >"$T/out" 2>&1 || why "update --pids-limit: $(cat "$T/out")" || return 1
  expect "pids.max after update" 30 "$(cat $CG$C/pids.max)"
}

c_cpu() {
  bundle 'sleep 100' '.linux.resources.cpu = {"quota": 50000, "period": 100000, "shares": 1024, "burst": 10000}'
  run_d || return 1
  expect cpu.max "50000 100000" "$(cat $CG$C/cpu.max)" || return 1
  expect "cpu.weight (shares 1024)" 39 "$(cat $CG$C/cpu.weight)" || return 1
  old_runc || [ "$RT_NAME" = crun ] || expect cpu.max.burst 10000 "$(cat $CG$C/cpu.max.burst)" || return 1
  rt update --cpu-quota 20000 --cpu-period 200000 --cpu-share 2048 "$ID" >"$T/out" 2>&1 ||
    why "update --cpu-*: $(cat "$T/out")" || return 1
  expect "cpu.max after update" "20000 200000" "$(cat $CG$C/cpu.max)" || return 1
  expect "cpu.weight after update (shares 2048)" 79 "$(cat $CG$C/cpu.weight)"
}

c_cpu_idle() {
  old_runc && return 0 # cpu.idle: runc >= 1.2
  bundle 'sleep 100' '.linux.resources.cpu = {"idle": 1}'
  run_d || return 1
  expect cpu.idle 1 "$(cat $CG$C/cpu.idle)"
}

# A quota is enforced: a busy loop at 10% of one CPU uses about 0.2 s of
# CPU time in 2 s (counted from after the start: the runtime's own init
# runs in the cgroup before the limits are written).
c_cpu_enforced() {
  bundle 'while :; do :; done' '.linux.resources.cpu = {"quota": 10000, "period": 100000}'
  run_d || return 1
  sleep 1
  u0=$(awk '$1 == "usage_usec" {print $2}' $CG$C/cpu.stat)
  sleep 2
  u=$(($(awk '$1 == "usage_usec" {print $2}' $CG$C/cpu.stat) - u0))
  [ "$u" -lt 500000 ] && [ "$u" -gt 50000 ] || why "usage_usec +$u in 2 s at 10% (cpu.max $(cat $CG$C/cpu.max))"
}

c_cpuset() {
  bundle 'grep Cpus_allowed_list /proc/self/status; sleep 100' '.linux.resources.cpu = {"cpus": "1", "mems": "0"}'
  run_d || return 1
  expect cpuset.cpus 1 "$(cat $CG$C/cpuset.cpus)" || return 1
  expect cpuset.mems 0 "$(cat $CG$C/cpuset.mems)" || return 1
  p=$(pid_of)
  expect "affinity of the init" 1 "$(awk '/Cpus_allowed_list/ {print $2}' /proc/$p/status)"
}

# io.max for the guest's virtio disk, and the read limit enforced on it.
c_io() {
  mm=$(cat /sys/block/vda/dev) maj=${mm%:*} min=${mm#*:}
  bundle 'sleep 100' "(.linux.resources.blockIO = {\"throttleReadBpsDevice\": [{\"major\": $maj, \"minor\": $min, \"rate\": 1048576}],
      \"throttleWriteIOPSDevice\": [{\"major\": $maj, \"minor\": $min, \"rate\": 100}]})
    | .linux.devices = [{\"path\": \"/dev/vda\", \"type\": \"b\", \"major\": $maj, \"minor\": $min}]
    | .linux.resources.devices += [{\"allow\": true, \"type\": \"b\", \"major\": $maj, \"minor\": $min, \"access\": \"rw\"}]"
  run_d || return 1
  expect io.max "$mm rbps=1048576 wbps=max riops=max wiops=100" "$(cat $CG$C/io.max)" || return 1
  echo 3 >/proc/sys/vm/drop_caches
  t0=$(date +%s)
  rt exec "$ID" dd if=/dev/vda of=/dev/null bs=64k count=40 iflag=direct >"$T/out" 2>&1 || why "dd: $(cat "$T/out")" || return 1
  t=$(($(date +%s) - t0))
  [ $t -ge 1 ] || why "2.5 MB read at 1 MB/s took $t s"
}

c_hugetlb() {
  bundle 'sleep 100' '.linux.resources.hugepageLimits = [{"pageSize": "2MB", "limit": 4194304}]'
  run_d || return 1
  expect hugetlb.2MB.max 4194304 "$(cat $CG$C/hugetlb.2MB.max)"
}

c_unified() {
  bundle 'sleep 100' '.linux.resources.unified = {"memory.high": "52428800", "pids.max": "7"}'
  run_d || return 1
  expect memory.high 52428800 "$(cat $CG$C/memory.high)" || return 1
  expect pids.max 7 "$(cat $CG$C/pids.max)"
}

c_freeze() {
  bundle 'while :; do :; done'
  run_d || return 1
  rt pause "$ID" || why "pause" || return 1
  expect status paused "$(status)" || return 1
  expect cgroup.freeze 1 "$(cat $CG$C/cgroup.freeze)" || return 1
  expect_in cgroup.events "frozen 1" "$(cat $CG$C/cgroup.events)" || return 1
  u0=$(awk '$1 == "usage_usec" {print $2}' $CG$C/cpu.stat)
  sleep 1
  expect "CPU time used while paused" "$u0" "$(awk '$1 == "usage_usec" {print $2}' $CG$C/cpu.stat)" || return 1
  rt resume "$ID" || why "resume" || return 1
  expect status running "$(status)" || return 1
  expect_in cgroup.events "frozen 0" "$(cat $CG$C/cgroup.events)"
}

c_kill_all() {
  bundle 'sleep 100 & sleep 100 & sleep 100'
  run_d || return 1
  wait_for procs_are 3 || why "$(wc -l <$CG$C/cgroup.procs) processes, want 3" || return 1
  rt kill --all "$ID" KILL || why "kill --all" || return 1
  wait_for empty || why "kill --all left: $(cat $CG$C/cgroup.procs)" || return 1
  rt delete "$ID" || why "delete" || return 1
  gone || why "cgroup $C left after delete"
}

# Without a pid namespace of its own, what the init leaves behind is
# killed by delete -f (and by kill KILL: runc >= 1.2).
c_kill_host_pidns() {
  bundle 'sleep 100 & sleep 100 & exec sleep 100' '.linux.namespaces |= map(select(.type != "pid"))'
  run_d || return 1
  wait_for procs_are 3 || why "$(wc -l <$CG$C/cgroup.procs) processes, want 3" || return 1
  rt kill "$ID" KILL || why "kill KILL" || return 1
  wait_for stopped || why "still $(status) after KILL" || return 1
  # runc 1.1 and crun 1.8 signal the init alone
  old_runc || [ "$RT_NAME" = crun ] || wait_for empty || why "kill KILL left: $(cat $CG$C/cgroup.procs)" || return 1
  rt delete -f "$ID" || why "delete -f" || return 1
  wait_for empty || why "delete -f left: $(cat $CG$C/cgroup.procs)" || return 1
  old_runc && return 0 # runc 1.1 removes the cgroup before the kills land
  wait_for gone || why "cgroup $C left after delete -f"
}

c_kill_signal() {
  bundle 'trap "exit 42" TERM; sleep 100 & wait'
  run_d || return 1
  sleep 0.5
  rt kill "$ID" TERM || why "kill TERM" || return 1
  wait_for stopped || why "still $(status) after TERM"
}

# eBPF device filter (on the guest's virtio disk): a node without a rule
# cannot be opened, one with an "r" rule only read, a major wildcard
# allows every minor.  mknod of any node is allowed (runc's default
# "b *:* m"), but the node made is no more usable than the rules say.
c_devices() {
  mm=$(cat /sys/block/vda/dev) maj=${mm%:*} min=${mm#*:}
  k=".linux.devices = [{\"path\": \"/dev/vda\", \"type\": \"b\", \"major\": $maj, \"minor\": $min}]
     | .process.capabilities.bounding += [\"CAP_MKNOD\"] | .process.capabilities.effective += [\"CAP_MKNOD\"]
     | .process.capabilities.permitted += [\"CAP_MKNOD\"]"
  bundle 'sleep 100' "$k"
  run_d || return 1
  rt exec "$ID" dd if=/dev/vda of=/dev/null count=1 >"$T/out" 2>&1 && { why "read /dev/vda without a rule"; return 1; }
  expect_in "open without a rule" "Operation not permitted" "$(cat "$T/out")" || return 1
  cleanup
  bundle 'sleep 100' "$k | .linux.resources.devices += [{\"allow\": true, \"type\": \"b\", \"major\": $maj, \"minor\": $min, \"access\": \"r\"}]"
  run_d || return 1
  rt exec "$ID" dd if=/dev/vda of=/dev/null count=1 >"$T/out" 2>&1 || why "read with an r rule: $(cat "$T/out")" || return 1
  rt exec "$ID" dd if=/dev/zero of=/dev/vda count=1 >"$T/out" 2>&1 && { why "wrote /dev/vda with an r rule"; return 1; }
  rt exec "$ID" sh -c "mknod /dev/v2 b $maj $min && dd if=/dev/v2 of=/dev/null count=1 && dd if=/dev/zero of=/dev/v2 count=1" \
    >"$T/out" 2>&1 && { why "wrote through a node made by mknod with an r rule"; return 1; }
  expect_in "write through a node made by mknod" "Operation not permitted" "$(cat "$T/out")" || return 1
  cleanup
  bundle 'sleep 100' "$k | .linux.resources.devices += [{\"allow\": true, \"type\": \"b\", \"major\": $maj, \"access\": \"rwm\"}]"
  run_d || return 1
  rt exec "$ID" sh -c "dd if=/dev/vda of=/dev/null count=1 && mknod /dev/v2 b $maj $min && dd if=/dev/v2 of=/dev/null count=1" \
    >"$T/out" 2>&1 || why "a major wildcard rule: $(cat "$T/out")"
}

# A device allowed by update (-r with devices, crt's whole-policy update:
# docs/cgroups.md): the attached eBPF program is replaced, the read works;
# a later update denying every device takes it away again.  crun 1.8 does
# the same; runc 1.1 ignores devices in update: the read stays refused.
c_devices_update() {
  mm=$(cat /sys/block/vda/dev) maj=${mm%:*} min=${mm#*:}
  bundle 'sleep 100' ".linux.devices = [{\"path\": \"/dev/vda\", \"type\": \"b\", \"major\": $maj, \"minor\": $min}]"
  run_d || return 1
  rt exec "$ID" dd if=/dev/vda of=/dev/null count=1 >"$T/out" 2>&1 && { why "read /dev/vda without a rule"; return 1; }
  echo "{\"devices\": [{\"allow\": true, \"type\": \"b\", \"major\": $maj, \"minor\": $min, \"access\": \"r\"}]}" >"$T/r.json"
  rt update -r "$T/r.json" "$ID" >"$T/out" 2>&1 || why "update -r: $(cat "$T/out")" || return 1
  if [ "$RT_NAME" = runc ]; then
    rt exec "$ID" dd if=/dev/vda of=/dev/null count=1 >"$T/out" 2>&1 && { why "$RT_NAME now applies devices in update"; return 1; }
    return 0
  fi
  rt exec "$ID" dd if=/dev/vda of=/dev/null count=1 >"$T/out" 2>&1 || why "read after update allowed it: $(cat "$T/out")" || return 1
  rt exec "$ID" dd if=/dev/zero of=/dev/vda count=1 >"$T/out" 2>&1 && { why "wrote /dev/vda with an r rule"; return 1; }
  echo '{"devices": [{"allow": false, "access": "rwm"}]}' >"$T/r.json"
  rt update -r "$T/r.json" "$ID" >"$T/out" 2>&1 || why "update -r deny: $(cat "$T/out")" || return 1
  rt exec "$ID" dd if=/dev/vda of=/dev/null count=1 >"$T/out" 2>&1 && { why "read after update denied it"; return 1; }
  expect_in "open after the deny update" "Operation not permitted" "$(cat "$T/out")"
}

# update of what the other checks do not change: cpuset cpus, memory
# reservation (memory.low), blkio weight (io.weight, runc's conversion).
c_update_more() {
  bundle 'sleep 100' '.linux.resources.cpu = {"cpus": "0-1"} | .linux.resources.memory = {"limit": 67108864}'
  run_d || return 1
  rt update --cpuset-cpus 1 --memory-reservation 16777216 "$ID" >"$T/out" 2>&1 || why "update: $(cat "$T/out")" || return 1
  expect "cpuset.cpus after update" 1 "$(cat $CG$C/cpuset.cpus)" || return 1
  expect "the init's affinity after update" 1 "$(awk '/^Cpus_allowed_list/ {print $2}' /proc/$(pid_of)/status)" || return 1
  expect "memory.low after update" 16777216 "$(cat $CG$C/memory.low)" || return 1
  [ -e $CG$C/io.weight ] || return 0
  rt update --blkio-weight 500 "$ID" >"$T/out" 2>&1 || why "update --blkio-weight: $(cat "$T/out")" || return 1
  expect "io.weight after update --blkio-weight 500" "default 4950" "$(cat $CG$C/io.weight)"
}

# With a cgroup namespace the container sees its own cgroup as / and its
# own limits under /sys/fs/cgroup.
c_cgroupns() {
  bundle 'cat /proc/self/cgroup; cat /sys/fs/cgroup/memory.max; sleep 100' \
    '.linux.namespaces += [{"type": "cgroup"}] | .linux.resources.memory = {"limit": 67108864}'
  run_d || return 1
  rt exec "$ID" sh -c 'cat /proc/self/cgroup; cat /sys/fs/cgroup/memory.max' >"$T/out" 2>&1
  expect "the container's view" "0::/
67108864" "$(cat "$T/out")"
}

c_nested_path() {
  bundle 'sleep 100' ".linux.cgroupsPath = \"/nest-$RT_NAME/a/b\""
  C=/nest-$RT_NAME/a/b
  run_d || return 1
  expect "cgroup.procs of the nested cgroup" "$(pid_of)" "$(cat $CG$C/cgroup.procs)" || return 1
  rt delete -f "$ID" || why "delete -f" || return 1
  gone || why "$C left after delete"
  rmdir $CG/nest-$RT_NAME/a $CG/nest-$RT_NAME 2>/dev/null
  return 0
}

# A cgroup that already holds a process is refused (runc >= 1.2, crun).
c_nonempty_refused() {
  bundle 'sleep 100'
  mkdir $CG$C
  sleep 100 &
  sp=$!
  echo $sp >$CG$C/cgroup.procs
  rt run -d -b "$B" "$ID" </dev/null >"$T/out" 2>&1
  r=$?
  kill $sp; wait $sp 2>/dev/null
  if [ "$RT_NAME" = runc ] && runc --version | grep -q '^runc version 1\.1\.'; then
    return 0 # runc 1.1 only warns
  fi
  [ "$RT_NAME" = crun ] && return 0 # crun 1.8 joins it
  [ $r != 0 ] || why "create in a non-empty cgroup succeeded" || return 1
  expect "state dir after the refusal" "" "$(rt list -q | grep -x "$ID")"
}

c_exec_sub_cgroup() {
  bundle 'sleep 100' '.linux.namespaces += [{"type": "cgroup"}]'
  run_d || return 1
  mkdir $CG$C/sub
  expect "exec --cgroup sub" "0::/sub" "$(rt exec --cgroup sub "$ID" cat /proc/self/cgroup 2>&1)" || return 1
  rt exec --cgroup memory:sub "$ID" true >"$T/out" 2>&1
  r=$?
  [ $r != 0 ] || why "a controller form on cgroup v2 was accepted" || return 1
  rt exec --cgroup nosuch "$ID" true >"$T/out" 2>&1 && { why "exec into a missing sub-cgroup succeeded"; return 1; }
  rmdir $CG$C/sub
}

c_ps_events() {
  bundle 'sleep 100' '.linux.resources.memory = {"limit": 67108864} | .linux.resources.pids = {"limit": 50}'
  run_d || return 1
  p=$(pid_of)
  expect_in "ps" "$p" "$(rt ps "$ID" 2>&1)" || return 1
  [ "$RT_NAME" = crun ] && return 0 # crun has no events command
  rt events --stats "$ID" >"$T/out" 2>&1 || why "events --stats: $(cat "$T/out")" || return 1
  expect "events type" stats "$(jq -r .type "$T/out")" || return 1
  expect "events pids.current" 1 "$(jq -r .data.pids.current "$T/out")" || return 1
  expect "events memory limit" 67108864 "$(jq -r .data.memory.usage.limit "$T/out")" || return 1
  u=$(jq -r .data.memory.usage.usage "$T/out")
  [ "$u" -gt 0 ] || why "events memory usage $u"
}

c_delete_removes() {
  bundle 'sleep 100'
  rt create -b "$B" "$ID" </dev/null >"$T/out" 2>&1 || why "create: $(cat "$T/out")" || return 1
  [ -d $CG$C ] || why "no cgroup after create" || return 1
  rt delete "$ID" || why "delete of a created container" || return 1
  gone || why "$C left after delete"
}

# events reports the OOM kill (crun 1.8 has no events command).
c_events_oom() {
  [ "$RT_NAME" = crun ] && return 0
  # the hog waits until `events` (slow to start under TCG) watches memory.events
  bundle 'sleep 4; x=$(head -c 200000000 /dev/zero | tr "\0" a)' '.linux.resources.memory = {"limit": 33554432, "swap": 33554432}'
  run_d || return 1
  rt events "$ID" >"$T/events" 2>&1 &
  ep=$!
  sleep 4
  wait_for stopped || why "the hog was not killed" || return 1
  sleep 1
  kill $ep 2>/dev/null; wait $ep 2>/dev/null
  expect_in "events" '"type":"oom"' "$(cat "$T/events")"
}

# An RLIMIT_NOFILE above the runtime's own hard limit (the guest's root
# has CAP_SYS_RESOURCE, the test host has not).
c_rlimit_above_hard() {
  bundle 'ulimit -n; ulimit -Hn' '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 65536, "hard": 65536}]'
  out=$(ulimit -Hn 4096; rt run -b "$B" "$ID" </dev/null 2>&1)
  expect "ulimit -n, -Hn in the container" "65536
65536" "$out"
}

# linux.netDevices (runc >= 1.3; not runc 1.1 or crun 1.8): dummy devices
# (the module the test host lacks) moved in, one renamed, its address kept;
# also into a network namespace owned by a user namespace.
c_netdevices() {
  old_runc || [ "$RT_NAME" = crun ] && return 0
  for u in "" userns; do
    k=$n a=nd$n r=ndr$n
    ip link add $a type dummy && ip link add $r type dummy && ip addr add 10.9.$k.1/24 dev $a || why "ip link add" || return 1
    f=".linux.netDevices = {\"$a\": {}, \"$r\": {\"name\": \"ctr0\"}}"
    [ -n "$u" ] && f="$f"' | .linux.namespaces += [{"type": "user"}, {"type": "cgroup"}]
      | .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
      | .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
    bundle 'sleep 100' "$f"
    run_d || return 1
    links=$(rt exec "$ID" ip -o link 2>&1)
    expect_in "links in the container${u:+ ($u)}" "$a:" "$links" || return 1
    expect_in "the renamed link${u:+ ($u)}" "ctr0:" "$links" || return 1
    expect_in "the moved address${u:+ ($u)}" "10.9.$k.1/24" "$(rt exec "$ID" ip -o addr show $a 2>&1)" || return 1
    ip link show $a >/dev/null 2>&1 && { why "$a still on the host"; return 1; }
    cleanup
  done
  return 0
}

# Rootless on a delegated subtree (what systemd's Delegate=yes gives a
# user: the directory and its cgroup.procs, cgroup.subtree_control and
# cgroup.threads owned by the user, memory and pids delegated): the
# runtime, run by uid 1000 from inside the subtree, applies the delegated
# limits, and a limit on a controller not delegated (not in the subtree's
# cgroup.controllers) fails the create.
c_rootless() {
  U=$CG/deleg/user1000
  mkdir -p $U && echo "+memory +pids" >$CG/deleg/cgroup.subtree_control && echo "+memory +pids" >$U/cgroup.subtree_control &&
    mkdir -p $U/shell || why "delegating $U" || return 1
  chown 1000:1000 $U $U/cgroup.procs $U/cgroup.subtree_control $U/cgroup.threads $U/shell $U/shell/cgroup.procs
  mkdir -p $T/rl && chown 1000:1000 $T/rl
  rl_bundle '.linux.resources = {"memory": {"limit": 67108864}, "pids": {"limit": 30}}' || return 1
  as_user run -d -b "$B" "$ID" >"$T/out" 2>&1 || why "rootless run -d: $(cat "$T/out")" || return 1
  expect "the init's cgroup" "0::$C" "$(cat /proc/$(as_user state "$ID" | jq -r .pid)/cgroup)" || return 1
  expect "memory.max (delegated)" 67108864 "$(cat $CG$C/memory.max)" || return 1
  expect "pids.max (delegated)" 30 "$(cat $CG$C/pids.max)" || return 1
  as_user delete -f "$ID" || why "rootless delete -f" || return 1
  gone || why "$C left after the rootless delete" || return 1
  rl_bundle '.linux.resources = {"cpu": {"quota": 10000, "period": 100000}}' || return 1
  as_user run -d -b "$B" "$ID" >"$T/out" 2>&1 && { why "a cpu limit without cpu delegated was accepted: $(cat "$T/out")"; return 1; }
  [ "$RT_NAME" = crt ] && { expect_in "the refusal" "cpu" "$(cat "$T/out")" || return 1; }
  expect "containers left by the refused create" "" "$(as_user list -q)" || return 1
  [ "$RT_NAME" = crun ] && return 0 # crun 1.8 leaves the cgroup of a refused rootless create
  gone || why "$C left after the refused create"
}
rl_bundle() {
  n=$((n + 1))
  ID=$RT_NAME-$n B=$T/b$n C=/deleg/user1000/rl-$RT_NAME-$n
  mkdir -p "$B"
  jq --arg cg "$C" ".process.args = [\"sleep\", \"100\"] | .linux.cgroupsPath = \$cg | $1" /guest/rootless.json >"$B/config.json" ||
    why "jq filter: $1"
  chown -R 1000:1000 "$B"
}
# as_user ARGS...: the runtime as uid 1000, from the delegated subtree.
as_user() {
  sh -c 'echo $$ >/sys/fs/cgroup/deleg/user1000/shell/cgroup.procs && exec /usr/bin/setpriv --reuid=1000 --regid=1000 --clear-groups "$@"' \
    as_user env HOME=/tmp XDG_RUNTIME_DIR=$T/rl "$RT" --root "$T/rl/$RT_NAME" "$@" </dev/null
}

# ---- checkpoint and restore (CRIU 4.2 in the guest; crun 1.8 here is
# built without CRIU: its checks return at once) ----
COUNT='i=0; while :; do i=$((i + 1)); echo $i; sleep 0.2; done'
no_criu() { [ "$RT_NAME" = crun ]; }
# piped ID OUT CMD...: CMD with stdout and stderr on a pipe to OUT (criu
# dumps pipes; a file of the guest is outside the container's mounts)
piped() {
  pid_id=$1 out=$2; shift 2
  { "$@" </dev/null 2>&1 || echo "exit status $?"; } | cat >"$out" &
  wait_for is_running "$pid_id" || why "$* did not give a running $pid_id: $(cat "$out")"
}
is_running() { [ "$(rt state "$1" 2>/dev/null | jq -r .status)" = running ]; }
counted() { [ "$(wc -l <"$1")" -ge 2 ]; }
# goes_on OUT1 OUT2: the restored process counts on from where the
# checkpointed one stopped (its memory came back)
goes_on() {
  wait_for counted "$2" || why "no counting after restore: $(cat "$2")" || return 1
  expect "first count after restore" $(($(tail -n1 "$1") + 1)) "$(head -n1 "$2")"
}
ck_log() { grep -h 'Error' "$@" 2>/dev/null | tail -3; }

# A plain container (cgroup namespace, cgroup v2): checkpoint, restore,
# the count goes on, exec works in the restored container.
c_checkpoint() {
  no_criu && return 0
  bundle "$COUNT" '.linux.namespaces |= (map(select(.type != "cgroup")) + [{"type": "cgroup"}])'
  piped "$ID" "$T/o0" rt run -d -b "$B" "$ID" || return 1
  wait_for counted "$T/o0" || why "no counting: $(cat "$T/o0")" || return 1
  for k in 1; do # runc's simple_cr does two rounds; one keeps the suite short
    rt checkpoint --image-path "$T/img$k" --work-path "$T/w$k" "$ID" >"$T/out" 2>&1 ||
      why "checkpoint $k: $(cat "$T/out") $(ck_log "$T/w$k/dump.log")" || return 1
    rt state "$ID" >/dev/null 2>&1 && { why "$ID still there after checkpoint $k"; return 1; }
    piped "$ID" "$T/o$k" rt restore -d -b "$B" --image-path "$T/img$k" --work-path "$T/w$k" "$ID" ||
      why "restore $k: $(cat "$T/o$k") $(ck_log "$T/w$k/restore.log")" || return 1
    goes_on "$T/o$((k - 1))" "$T/o$k" || return 1
    expect "the restored init's cgroup" "0::$C" "$(cat /proc/$(pid_of)/cgroup)" || return 1
    expect "exec in the restored container" "0::/" "$(rt exec "$ID" cat /proc/self/cgroup 2>&1)" || return 1
  done
}

# runc's "checkpoint --lazy-pages and restore": the dump serves the memory
# from a page server (readiness: a \0 on --status-fd), criu's lazy-pages
# daemon fetches it for a restore under another id and cgroup (the first
# container lives until every page is gone), the dump ends when it has.
c_checkpoint_lazy() {
  no_criu && return 0
  criu check --feature uffd-noncoop >/dev/null 2>&1 || why "criu check --feature uffd-noncoop: no userfaultfd" || return 1
  bundle "$COUNT"
  id1=$ID b1=$B ID_ALSO=$ID C_ALSO=$C
  piped "$ID" "$T/o0" rt run -d -b "$B" "$ID" || return 1
  wait_for counted "$T/o0" || why "no counting: $(cat "$T/o0")" || return 1
  # the status fd: write-only (runc 1.1 refuses a read-write one), read
  # through fd 8
  mkfifo "$T/status"
  exec 8<>"$T/status" 7>"$T/status"
  ign=--manage-cgroups-mode=ignore
  old_runc && ign= # runc 1.1 has no ignore mode
  rt checkpoint --lazy-pages --page-server 0.0.0.0:27277 --status-fd 7 $ign \
    --work-path "$T/w" --image-path "$T/img" "$ID" >"$T/ck.out" 2>&1 &
  ckp=$!
  exec 7>&-
  st=$(timeout 60 dd bs=1 count=1 <&8 2>/dev/null | od -An -tx1 | tr -d ' ')
  exec 8>&-
  expect "the status fd byte" 00 "$st" || { kill $ckp; why "status fd: '$st' $(ck_log "$T/w/dump.log") $(cat "$T/ck.out")"; return 1; }
  [ -e "$T/img/inventory.img" ] || why "no inventory.img while the pages are served" || return 1
  criu lazy-pages --page-server --address 127.0.0.1 --port 27277 -D "$T/img" >"$T/lp.out" 2>&1 &
  lpp=$!
  bundle "$COUNT" # the restored one: another id and cgroup
  cp "$b1/config.json" "$B/config.json.in"
  jq --arg cg "$C" '.linux.cgroupsPath = $cg' "$B/config.json.in" >"$B/config.json"
  piped "$ID" "$T/o1" rt restore -d -b "$B" --lazy-pages $ign \
    --work-path "$T/img" --image-path "$T/img" "$ID" ||
    why "lazy restore: $(cat "$T/o1") $(ck_log "$T/img/restore.log" "$T/img/lazy-pages.log") $(cat "$T/lp.out")" ||
    { kill $ckp $lpp; return 1; }
  goes_on "$T/o0" "$T/o1" || { kill $ckp $lpp; return 1; }
  wait $ckp || why "lazy checkpoint: $(cat "$T/ck.out") $(ck_log "$T/w/dump.log")" || return 1
  wait $lpp || why "criu lazy-pages: $(cat "$T/lp.out")" || return 1
  wait_for gone_id "$id1" || why "$id1 still there after the pages went" || return 1
  expect "exec in the lazily restored container" ok "$(rt exec "$ID" echo ok 2>&1)"
}
gone_id() { ! rt state "$1" >/dev/null 2>&1; }

# runc's "checkpoint and restore with netdevice": a dummy device moved in
# by linux.netDevices (runc >= 1.3) into a network namespace joined by
# path, which criu leaves as external: after the restore the device is
# there with its address and mtu.  A container with a network namespace of
# its own and such a device cannot be dumped (criu has no dummy links).
c_checkpoint_netdev() {
  no_criu && return 0
  old_runc && return 0
  ns=ckns-$RT_NAME d=ckd$n addr=10.7.$n.1/24 ip=/usr/local/bin/ip # iproute2, not busybox's applet
  { $ip netns add $ns && $ip link add $d type dummy && $ip link set $d mtu 1789 && $ip addr add $addr dev $d; } >"$T/out" 2>&1 ||
    why "ip netns add, ip link add: $(cat "$T/out")" || return 1
  bundle "$COUNT" ".linux.netDevices = {\"$d\": {}}
    | .linux.namespaces |= map(if .type == \"network\" then .path = \"/run/netns/$ns\" else . end)"
  piped "$ID" "$T/o0" rt run -d -b "$B" "$ID" || { $ip netns del $ns; return 1; }
  wait_for counted "$T/o0" || why "no counting: $(cat "$T/o0")" || { $ip netns del $ns; return 1; }
  rt checkpoint --image-path "$T/img" --work-path "$T/w" "$ID" >"$T/out" 2>&1 ||
    why "checkpoint: $(cat "$T/out") $(ck_log "$T/w/dump.log")" || { $ip netns del $ns; return 1; }
  piped "$ID" "$T/o1" rt restore -d -b "$B" --image-path "$T/img" --work-path "$T/w" "$ID" ||
    why "restore: $(cat "$T/o1") $(ck_log "$T/w/restore.log")" || { $ip netns del $ns; return 1; }
  goes_on "$T/o0" "$T/o1" || { $ip netns del $ns; return 1; }
  a=$(rt exec "$ID" ip -o addr show $d 2>&1) l=$(rt exec "$ID" ip -o link show $d 2>&1)
  cleanup
  $ip netns del $ns
  expect_in "the device's address after restore" "$addr" "$a" || return 1
  expect_in "the device's mtu after restore" "mtu 1789" "$l" || return 1
  # its own network namespace: the dump fails, the container goes on
  $ip link add $d type dummy || why "ip link add $d" || return 1
  bundle "$COUNT" ".linux.netDevices = {\"$d\": {}}"
  piped "$ID" "$T/o2" rt run -d -b "$B" "$ID" || return 1
  wait_for counted "$T/o2" || why "no counting: $(cat "$T/o2")" || return 1
  rt checkpoint --image-path "$T/img2" --work-path "$T/w2" "$ID" >"$T/out" 2>&1 && { why "dumped a dummy device"; return 1; }
  expect_in "the dump's error" "Unsupported link" "$(cat "$T/out")" || return 1
  expect "status after the failed dump" running "$(status)"
}

# ---- issue 57: exec's cgroup, spec's cgroup namespace, the default
# path, ps without a cgroup ----

# `spec` on a pure cgroup2 host adds a cgroup namespace (runc's specconv).
c_spec_cgroupns() {
  mkdir -p "$T/spec" && (cd "$T/spec" && rt spec) >"$T/out" 2>&1 || why "spec: $(cat "$T/out")" || return 1
  # crun lists the cgroup namespace before the mount one
  ord=.
  [ "$RT_NAME" = crun ] && ord=sort
  expect "spec's namespaces" "$(echo '["pid","network","ipc","uts","mount","cgroup"]' | jq -r "$ord | join(\" \")")" \
    "$(jq -r "[.linux.namespaces[].type] | $ord | join(\" \")" "$T/spec/config.json")"
}

# gone_cg DIR: DIR removed, once its processes left (up to 10 s)
rm_cg() { rmdir "$CG$1" 2>/dev/null; }
gone_cg() { wait_for rm_cg "$1" || [ ! -d "$CG$1" ]; }

# runc's exec.bats "runc exec [init changes cgroup]": the init moves to
# another cgroup and the container's own is removed (systemd does so by
# itself with its driver): an exec joins the init's cgroup, never the
# caller's.
c_exec_init_moved() {
  [ "$RT_NAME" = crun ] && return 0 # crun 1.8 fails: error opening .../cgroup.freeze of the gone cgroup
  bundle 'sleep 100' '.linux.namespaces |= map(select(.type != "cgroup"))'
  run_d || return 1
  M=/moved-$RT_NAME-$n
  mkdir "$CG$M" && echo "$(pid_of)" >"$CG$M/cgroup.procs" || why "move the init to $M" || return 1
  C_ALSO=$M
  rmdir "$CG$C" || why "rmdir $C" || return 1
  rt exec "$ID" cat /proc/self/cgroup >"$T/out" 2>&1
  r=$?
  rt delete -f "$ID" >/dev/null 2>&1
  gone_cg "$M" || why "$M still busy after delete -f: $(cat "$CG$M/cgroup.procs")" || return 1
  expect "exec's status: $(cat "$T/out")" 0 "$r" || return 1
  expect "the exec'd process's cgroup" "0::$M" "$(cat "$T/out")"
}

# cgroups.bats "runc exec (cgroup v2 + init process in non-root cgroup)
# succeeds": the init in a sub-cgroup, memory enabled in the container's
# cgroup, which then refuses processes (EBUSY): an exec joins the init's
# cgroup; exec --cgroup / asks for the container's own and fails.
c_exec_init_sub() {
  bundle 'sleep 100' '.linux.namespaces |= (map(select(.type != "cgroup")) + [{"type": "cgroup"}])'
  run_d || return 1
  mkdir "$CG$C/foobar" && echo "$(pid_of)" >"$CG$C/foobar/cgroup.procs" || why "move the init to foobar" || return 1
  expect "exec before a controller is enabled" "0::/" "$(rt exec "$ID" cat /proc/self/cgroup 2>&1)" || return 1
  echo +memory >"$CG$C/cgroup.subtree_control" || why "enable memory in $C" || return 1
  expect "exec with memory enabled" "0::/foobar" "$(rt exec "$ID" cat /proc/self/cgroup 2>&1)" || return 1
  expect "exec --cgroup foobar" "0::/foobar" "$(rt exec --cgroup foobar "$ID" cat /proc/self/cgroup 2>&1)" || return 1
  [ "$RT_NAME" = crun ] && return 0 # crun 1.8: exec --cgroup / lands in the init's cgroup too
  rt exec --cgroup / "$ID" true >"$T/out" 2>&1 && { why "exec --cgroup / into a cgroup refusing processes succeeded"; return 1; }
  expect_in "exec --cgroup /'s error" "evice or resource busy" "$(cat "$T/out")" || return 1
  expect_in "exec --cgroup /'s error" " adding pid " "$(cat "$T/out")"
}

# No cgroupsPath, the runtime started from a cgroup holding processes (a
# systemd service's, a login session's): the container's cgroup is made
# under the parent of the caller's (runc's fs2 driver), not inside it.
c_default_path_parent() {
  bundle 'sleep 100' 'del(.linux.cgroupsPath) | .linux.resources.memory = {"limit": 67108864}'
  S=/svc-$RT_NAME-$n C=/$ID
  mkdir "$CG$S" || why "mkdir $S" || return 1
  C_ALSO=$S
  sleep 100 &
  sp=$!
  echo $sp >"$CG$S/cgroup.procs"
  sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG$S" "$RT" run -d -b "$B" "$ID" </dev/null >"$T/out" 2>&1
  r=$?
  kill $sp; wait $sp 2>/dev/null
  expect "run -d from $S: $(cat "$T/out")" 0 $r || return 1
  expect "the init's cgroup" "0::/$ID" "$(cat /proc/$(pid_of)/cgroup)" || return 1
  expect memory.max 67108864 "$(cat "$CG/$ID/memory.max")"
}

# ps of a stopped container whose cgroup is gone (systemd removes an empty
# scope at once): the header and exit 0, as runc.
c_ps_cgroup_gone() {
  [ "$RT_NAME" = crun ] && return 0 # crun 1.8 fails: open /sys/fs/cgroup/ID: No such file or directory
  bundle 'true'
  run_d || return 1
  wait_for stopped || why "the container did not stop" || return 1
  rmdir "$CG$C" || why "rmdir $C" || return 1
  rt ps "$ID" >"$T/out" 2>&1 || why "ps of a stopped container without its cgroup: $(cat "$T/out")" || return 1
  expect "ps's lines: $(cat "$T/out")" 1 "$(wc -l <"$T/out")" || return 1
  expect_in "ps's header" PID "$(cat "$T/out")"
}

c_nothing_left() {
  left=$(ls -d $CG/t-$RT_NAME-* $CG/nest-$RT_NAME 2>/dev/null)
  expect "cgroups left behind" "" "$left" || return 1
  expect "containers left behind" "" "$(rt list -q)"
}

CHECKS="memory_oom memory_files pids cpu cpu_idle cpu_enforced cpuset io hugetlb unified freeze kill_all
 kill_host_pidns kill_signal devices devices_update update_more cgroupns nested_path nonempty_refused exec_sub_cgroup ps_events delete_removes rootless events_oom rlimit_above_hard netdevices
 checkpoint checkpoint_lazy checkpoint_netdev spec_cgroupns exec_init_moved exec_init_sub default_path_parent ps_cgroup_gone
 nothing_left"

for RT_NAME in "$@"; do
  RT=$(command -v "$RT_NAME")
  for c in ${GUEST_CHECKS:-$CHECKS}; do
    rm -rf "$T"; mkdir -p "$T"
    t0=$(date +%s)
    if "c_$c"; then
      passed=$((passed + 1)); echo "ok   v2/$RT_NAME:$c ($(($(date +%s) - t0))s)"
    else
      failed=$((failed + 1)); echo "FAIL v2/$RT_NAME:$c: $(cat "$T/why" 2>/dev/null)"
    fi
    [ "$c" = nothing_left ] || cleanup
  done
done
echo "guest-v2: $passed passed, $failed failed"
