# Differential tests of cgroup handling: runc 1.1.5's observable behaviour
# on this v1 hybrid host.  Every test passes with crt and with
# `CRT_BIN=/usr/sbin/runc ONLY=t_compat_cgroup bash tests/integration/run.sh`.
# The tests make cgroups by hand; their names come from new_id, so that
# run.sh's leak check sees any left behind, and a trap removes them even
# when the test fails.

# mounted_hierarchies: the directories of every cgroup mount (v1 and v2).
mounted_hierarchies() {
  awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i+1) ~ /^cgroup2?$/) print $5; break } }' /proc/self/mountinfo
}

# rm_cgroup NAME: removes /NAME (deepest first) from every hierarchy,
# thawed first, and the stray directory named NAME if one was made.
rm_cgroup() {
  local h d
  for h in $(mounted_hierarchies); do
    [ -d "$h/$1" ] || continue
    [ -f "$h/$1/freezer.state" ] && echo THAWED >"$h/$1/freezer.state"
    for d in $(find "$h/$1" -depth -type d); do rmdir "$d" 2>/dev/null; done
  done
}

# run_detached ID BUNDLE: run -d with the container's stdio off our pipes;
# $rc, and runc's or crt's own stderr in $out.
run_detached() {
  crt run -d --bundle "$2" "$1" </dev/null >/dev/null 2>"$T/run.err"; rc=$?
  out=$(cat "$T/run.err")
}

# Guards cg_v1_hierarchies (src/cgroup/cgroup_v1.c): a hierarchy is a
# cgroup mount, not any directory under /sys/fs/cgroup (runc's own tests
# leave empty ones such as net_cls behind for a moment).
test_stray_controller_directory() {
  local n stray=""
  for n in net_cls net_prio perf_event rdma misc; do
    if [ ! -e "/sys/fs/cgroup/$n" ] && ! mounted_hierarchies | grep -qx "/sys/fs/cgroup/$n"; then stray=$n; break; fi
  done
  [ -n "$stray" ] || fail "every candidate controller is mounted here: no stray directory to make"
  make_bundle "$T/b" true
  local id; id=$(new_id)
  trap 'rmdir "/sys/fs/cgroup/'"$stray"'" 2>/dev/null' EXIT
  # as short as possible: other runs on this machine see the directory too
  mkdir "/sys/fs/cgroup/$stray" || fail "mkdir /sys/fs/cgroup/$stray"
  run_rc crt run --bundle "$T/b" "$id"
  rmdir "/sys/fs/cgroup/$stray"
  assert_eq 0 "$rc" "run with a stray /sys/fs/cgroup/$stray: $out"
  [ -z "$(crt list -q)" ] || fail "run left a container"
}

# Guards crt_cgroup_check_existing (src/cgroup/cgroup.c): a pre-existing
# cgroupsPath whose freezer is FROZEN is refused at once, and nothing is
# left behind (the cgroup itself is not the container's).  On the hybrid
# host and on pure v1, where create checks it after the clone (nothing is
# made before it there).
test_frozen_cgroup_is_refused() {
  [ -d /sys/fs/cgroup/freezer ] || return 0
  _frozen_cgroup_is_refused
  in_v1 _frozen_cgroup_is_refused
}
_frozen_cgroup_is_refused() {
  local b; b=$(mktemp -d "$T/b.XXXXXX")
  local cg; cg=$(new_id)
  trap 'rm_cgroup "'"$cg"'"' EXIT
  mkdir "/sys/fs/cgroup/freezer/$cg" || fail "mkdir freezer/$cg"
  echo FROZEN >"/sys/fs/cgroup/freezer/$cg/freezer.state"
  make_bundle "$b" true
  bundle_edit "$b" "c['linux']['cgroupsPath']='/$cg'"
  local id; id=$(new_id)
  # a process frozen on v1 does not even die of SIGKILL: a hung create is
  # thawed before it is killed
  "$CRT_BIN" --root "$CRT_ROOT" run --bundle "$b" "$id" </dev/null >"$b.out" 2>&1 &
  local cpid=$!
  if ! wait_eval "! kill -0 $cpid"; then
    echo THAWED >"/sys/fs/cgroup/freezer/$cg/freezer.state"
    kill -9 $cpid; wait $cpid
    fail "run in a frozen cgroup hangs"
  fi
  wait $cpid; rc=$?; out=$(cat "$b.out")
  assert_eq 1 "$rc" "run in a frozen cgroup: $out"
  assert_contains "$out" "container's cgroup unexpectedly frozen"
  [ -z "$(crt list -q)" ] || fail "the refused create left a container"
  assert_eq FROZEN "$(cat "/sys/fs/cgroup/freezer/$cg/freezer.state")" "the cgroup is left as it was"
  [ ! -d "/sys/fs/cgroup/pids/$cg" ] || fail "the refused create made /sys/fs/cgroup/pids/$cg"
}

# Guards crt_cgroup_check_existing (src/cgroup/cgroup.c): a cgroup that
# already has processes is refused, as runc >= 1.2 (1.1 warned), and left
# as it was (hybrid and pure v1, as above).
test_nonempty_cgroup_refused() {
  _nonempty_cgroup_refused
  [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] || in_v1 _nonempty_cgroup_refused
}
_nonempty_cgroup_refused() {
  local b; b=$(mktemp -d "$T/b.XXXXXX")
  local cg h; cg=$(new_id)
  sleep 100 &
  local spid=$!
  trap 'kill -9 '"$spid"' 2>/dev/null; wait '"$spid"' 2>/dev/null; rm_cgroup "'"$cg"'"' EXIT
  for h in $(mounted_hierarchies); do
    mkdir "$h/$cg" || fail "mkdir $h/$cg"
    # a new cpuset is empty: it would refuse the process
    [ -f "$h/$cg/cpuset.cpus" ] && cat "$h/cpuset.cpus" >"$h/$cg/cpuset.cpus" && cat "$h/cpuset.mems" >"$h/$cg/cpuset.mems"
    echo "$spid" >"$h/$cg/cgroup.procs" || fail "cannot put a process in $h/$cg"
  done
  make_bundle "$b"
  bundle_edit "$b" "c['linux']['cgroupsPath']='/$cg'"
  local id; id=$(new_id)
  run_detached "$id" "$b"
  if runc_before_1_2; then
    assert_eq 0 "$rc" "runc 1.1: run in a non-empty cgroup: $out"
    assert_contains "$out" "container's cgroup is not empty: 1 process(es) found"
    kill -9 "$spid"; wait "$spid" 2>/dev/null
    crt delete -f "$id" || fail "delete -f"
    return 0
  fi
  assert_eq 1 "$rc" "run in a non-empty cgroup: $out"
  assert_contains "$out" "container's cgroup is not empty: 1 process(es) found"
  [ -z "$(crt list -q)" ] || fail "the refused create left a container"
  for h in $(mounted_hierarchies); do
    assert_eq "$spid" "$(cat "$h/$cg/cgroup.procs")" "$h/$cg is left as it was"
  done
  kill -9 "$spid"; wait "$spid" 2>/dev/null
  return 0
}

# Guards mkdir_cg's cpuset_inherit (src/cgroup/cgroup_v1.c): an empty
# pre-existing parent cpuset is filled from its parent (runc's
# ensureParent), so create and update of cpus work.
test_empty_parent_cpuset_is_filled() {
  local p; p=$(new_id)
  local cs=/sys/fs/cgroup/cpuset
  [ -f $cs/cpuset.cpus ] || fail "no v1 cpuset hierarchy at $cs"
  trap 'rm_cgroup "'"$p"'"' EXIT
  mkdir "$cs/$p" || fail "mkdir $cs/$p"
  [ -z "$(tr -d ' \n' <"$cs/$p/cpuset.cpus")" ] || fail "a new cpuset is not empty here (clone_children?)"
  make_bundle "$T/b"
  local id; id=$(new_id)
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='/$p/$id'"
  run_detached "$id" "$T/b"
  assert_eq 0 "$rc" "run below an empty parent cpuset: $out"
  assert_eq "$(cat $cs/cpuset.cpus)" "$(cat "$cs/$p/cpuset.cpus")" "parent cpus filled from the root"
  assert_eq "$(cat $cs/cpuset.mems)" "$(cat "$cs/$p/cpuset.mems")" "parent mems filled from the root"
  run_rc crt update --cpuset-cpus 0 "$id"; assert_eq 0 "$rc" "update --cpuset-cpus 0: $out"
  assert_eq 0 "$(cat "$cs/$p/$id/cpuset.cpus")" "the container's cpus after update"
  crt delete -f "$id" || fail "delete -f"
}

# kill_paused BUNDLE ARGS...: runs a container, pauses it, then `kill ARGS`
# (the id goes before the last one); $id, and $rc of the kill.
kill_paused() {
  local b=$1; shift
  id=$(new_id)
  crt run -d --bundle "$b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  crt pause "$id" || fail "pause"
  local n=$(($# - 1))
  run_rc crt kill "${@:1:n}" "$id" "${@: -1}"
  sleep 0.3
}

# Guards crt_container_kill (src/container/lifecycle.c) and crt_cgroup_kill
# (src/cgroup/cgroup.c) on a paused container, as runc 1.1.5: kill of the
# init with SIGKILL thaws the container (a frozen task's SIGKILL stays
# pending on v1), with another signal leaves it paused; kill --all freezes,
# signals and thaws, so a paused container ends up running (or stopped).
test_kill_paused_container() {
  make_bundle "$T/b"
  kill_paused "$T/b" TERM; assert_eq 0 "$rc" "kill TERM of a paused container: $out"
  assert_eq paused "$(state_field "$id" status)" "after kill TERM"
  crt delete -f "$id" || fail "delete -f"
  kill_paused "$T/b" --all USR1; assert_eq 0 "$rc" "kill --all USR1 of a paused container: $out"
  assert_eq running "$(state_field "$id" status)" "after kill --all USR1"
  crt delete -f "$id" || fail "delete -f"
  local a
  for a in KILL "--all KILL"; do
    kill_paused "$T/b" $a; assert_eq 0 "$rc" "kill $a of a paused container: $out"
    wait_eval "[ \"\$(state_field $id status)\" = stopped ]" || fail "kill $a left it $(state_field "$id" status)"
    crt delete "$id" || fail "delete after kill $a"
  done
}

# cg_line PID CONTROLLER: the pid's cgroup path on the v1 hierarchy that
# holds the controller.
cg_line() {
  awk -F: -v c="$2" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' "/proc/$1/cgroup"
}

# Guards cg_sub_for and crt_cgroup_sub_check (src/cgroup/cgroup.c):
# exec --cgroup in runc's per-controller form, given once per hierarchy;
# the hierarchies not named keep the container's cgroup.
test_exec_cgroup_controller_form() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  run_detached "$id" "$T/b"; assert_eq 0 "$rc" "run -d: $out"
  local pid pcg mcg
  pid=$(state_field "$id" pid)
  pcg=$(cg_line "$pid" pids); mcg=$(cg_line "$pid" memory)
  [ -n "$pcg" ] && [ -n "$mcg" ] || fail "no pids or memory cgroup for $pid"
  mkdir "/sys/fs/cgroup/pids$pcg/sub" "/sys/fs/cgroup/memory$mcg/msub" || fail "mkdir sub-cgroups"
  crt exec -d --pid-file "$T/e.pid" --cgroup pids:sub --cgroup memory:msub "$id" sleep 50 \
    </dev/null >/dev/null 2>"$T/e.err"
  assert_eq 0 "$?" "exec --cgroup pids:sub --cgroup memory:msub: $(cat "$T/e.err")"
  local e; e=$(cat "$T/e.pid")
  assert_eq "$pcg/sub" "$(cg_line "$e" pids)" "pids cgroup of the exec'd process"
  assert_eq "$mcg/msub" "$(cg_line "$e" memory)" "memory cgroup of the exec'd process"
  assert_eq "$(cg_line "$pid" cpu)" "$(cg_line "$e" cpu)" "a hierarchy not named: the container's"
  run_rc crt exec --cgroup pids:sub --cgroup pids:sub "$id" true
  if runc_before_1_2; then
    assert_eq 0 "$rc" "runc 1.1.5: a controller named twice, the last wins"
  else
    assert_eq 255 "$rc" "a controller named twice"
    is_crt && assert_contains "$out" "controller pids specified multiple times"
  fi
  run_rc crt exec --cgroup sub --cgroup memory:msub "$id" true
  assert_eq 255 "$rc" "a bare path beside a prefixed one"
  is_crt && assert_contains "$out" "(missing <controller>: prefix)"
  run_rc crt exec --cgroup ,pids:sub "$id" true
  assert_eq 255 "$rc" "an empty controller name"
  is_crt && assert_contains "$out" "(empty <controller> prefix)"
  run_rc crt exec --cgroup pids:nosuch "$id" true
  assert_eq 255 "$rc" "a sub-cgroup that does not exist"
  crt delete -f "$id" || fail "delete -f"
  rmdir "/sys/fs/cgroup/pids$pcg/sub" "/sys/fs/cgroup/memory$mcg/msub" "/sys/fs/cgroup/pids$pcg" \
    "/sys/fs/cgroup/memory$mcg" 2>/dev/null
  return 0
}

# Guards crt_cgroup_sub_check and join_each (src/cgroup/cgroup.c) with
# runc's exec.bats "runc exec --cgroup sub-cgroups [v1]": a path out of the
# container's cgroup is refused in runc 1.3's words (" .. is not a sub
# cgroup path") and runc main's ("bad sub cgroup path"), a sub-cgroup that
# does not exist in runc's (" adding pid ", "no such file or directory"),
# a controller no hierarchy has too ("unknown controller ").
test_exec_cgroup_sub_refusals_v1() {
  [ -d /sys/fs/cgroup/cpu ] || { echo "SKIP: no cgroup v1 cpu hierarchy"; return 0; }
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  run_detached "$id" "$T/b"; assert_eq 0 "$rc" "run -d: $out"
  local cpu; cpu=$(cg_line "$(state_field "$id" pid)" cpu)
  local sibling; sibling="$(basename "$cpu")-sibling"
  mkdir "/sys/fs/cgroup/cpu$(dirname "$cpu")/$sibling" || fail "mkdir the sibling cgroup"
  run_rc crt exec --cgroup .. "$id" cat /proc/self/cgroup
  assert_ne 0 "$rc" "exec --cgroup .."
  assert_contains "$out" " .. is not a sub cgroup path"
  is_crt && assert_contains "$out" "bad sub cgroup path"
  run_rc crt exec --cgroup "../$sibling" "$id" cat /proc/self/cgroup
  assert_ne 0 "$rc" "exec --cgroup ../$sibling"
  # runc 1.3.6 joins the sibling through cpu:../sibling (runc main refuses)
  if is_crt; then
    assert_contains "$out" "bad sub cgroup path"
    run_rc crt exec --cgroup "cpu:../$sibling" "$id" cat /proc/self/cgroup
    assert_ne 0 "$rc" "exec --cgroup cpu:../$sibling"
    assert_contains "$out" "bad sub cgroup path"
  fi
  local sub
  for sub in nonexistent cpu:nonexistent; do
    run_rc crt exec --cgroup "$sub" "$id" cat /proc/self/cgroup
    assert_ne 0 "$rc" "exec --cgroup $sub"
    assert_contains "$out" " adding pid "
    assert_contains "$(echo "$out" | tr A-Z a-z)" "no such file or directory"
  done
  run_rc crt exec --cgroup whaaat:/ "$id" true
  assert_ne 0 "$rc" "exec --cgroup whaaat:/"
  assert_contains "$out" "unknown controller "
  crt delete -f "$id" || fail "delete -f"
  rmdir "/sys/fs/cgroup/cpu$(dirname "$cpu")/$sibling"
  return 0
}

# update_bundle: update.bats' setup (its cgroupsPath, memory, cpu and pids)
# running sleep; sets $id and $cg (the cpu controller's directory).
update_bundle() {
  make_bundle "$T/b" sleep 300
  id=$(new_id)
  cg=/sys/fs/cgroup/cpu/$id
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='/$id'
c['linux']['resources'].update({'memory':{'limit':33554432,'reservation':25165824},
  'cpu':{'shares':100,'quota':500000,'period':1000000},'pids':{'limit':20}})"
}

# Guards update's --cpu-burst and --cpu-idle (src/cli/update.c): runc's
# update.bats "cpu burst" and "update cgroup cpu.idle" on v1 (the cgroup
# files cpu.cfs_burst_us and cpu.idle; runc 1.1.5 has neither flag).
test_update_cpu_burst_and_idle() {
  [ -f /sys/fs/cgroup/cpu/cpu.cfs_burst_us ] && [ -f /sys/fs/cgroup/cpu/cpu.idle ] ||
    { echo "skip: this kernel's cpu controller has no cpu.cfs_burst_us or cpu.idle"; return 0; }
  runc_before_1_2 && return 0
  local id cg v
  update_bundle
  run_detached "$id" "$T/b"; assert_eq 0 "$rc" "run -d: $out"
  assert_eq 0 "$(cat $cg/cpu.cfs_burst_us)" "initial burst"
  run_rc crt update "$id" --cpu-period 900000 --cpu-burst 500000; assert_eq 0 "$rc" "--cpu-burst 500000: $out"
  assert_eq 500000 "$(cat $cg/cpu.cfs_burst_us)" "burst"
  run_rc crt update "$id" --cpu-period 900000 --cpu-burst 0; assert_eq 0 "$rc" "--cpu-burst 0: $out"
  assert_eq 0 "$(cat $cg/cpu.cfs_burst_us)" "burst 0"
  assert_eq 0 "$(cat $cg/cpu.idle)" "initial cpu.idle"
  for v in 1 0 1; do
    run_rc crt update -r - "$id" <<<"{\"cpu\": {\"idle\": $v}}"; assert_eq 0 "$rc" "-r idle $v: $out"
    assert_eq "$v" "$(cat $cg/cpu.idle)" "cpu.idle from -r"
  done
  for v in 1 0 1; do
    run_rc crt update --cpu-idle "$v" "$id"; assert_eq 0 "$rc" "--cpu-idle $v: $out"
    assert_eq "$v" "$(cat $cg/cpu.idle)" "cpu.idle from --cpu-idle"
  done
  for v in -1 2 3; do
    run_rc crt update --cpu-idle "$v" "$id"; assert_ne 0 "$rc" "--cpu-idle $v"
    assert_eq 1 "$(cat $cg/cpu.idle)" "cpu.idle after --cpu-idle $v"
  done
  run_rc crt update --cpu-period 10000 "$id"; assert_eq 0 "$rc" "--cpu-period: $out"
  assert_eq 1 "$(cat $cg/cpu.idle)" "cpu.idle after another update"
  crt delete -f "$id"
}

# Guards v1 realtime limits (src/cgroup/cgroup_v1.c): runc's update.bats
# "update rt period and runtime": the container's cgroup and its parent
# made beforehand with the root's realtime budget (the kernel gives none
# by default), then realtimeRuntime alone, period and runtime together,
# and the --cpu-rt-* flags.  A cgroup removed just before (another test's)
# may hold its budget for a moment: the setup retries.
test_update_rt_period_and_runtime() {
  local B=/sys/fs/cgroup/cpu
  [ -f $B/cpu.rt_runtime_us ] || { echo "skip: no CONFIG_RT_GROUP_SCHED"; return 0; }
  local id cg d parent; id=$(new_id); parent=$id-p
  trap 'rm_cgroup "'"$parent"'"' EXIT
  mkdir -p "$B/$parent/$id" || fail "mkdir"
  for d in "$parent" "$parent/$id"; do
    wait_eval "cat $B/cpu.rt_period_us >$B/$d/cpu.rt_period_us && cat $B/cpu.rt_runtime_us >$B/$d/cpu.rt_runtime_us" 2>/dev/null ||
      fail "no realtime budget for $B/$d"
  done
  cg=$B/$parent/$id
  make_bundle "$T/b" sleep 300
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='/$parent/$id'"
  run_detached "$id" "$T/b"; assert_eq 0 "$rc" "run -d: $out"
  run_rc crt update -r - "$id" <<<'{"cpu": {"realtimeRuntime": 500001}}'; assert_eq 0 "$rc" "realtimeRuntime: $out"
  assert_eq "$(cat $B/cpu.rt_period_us) 500001" "$(cat $cg/cpu.rt_period_us) $(cat $cg/cpu.rt_runtime_us)" "rt period, runtime"
  run_rc crt update -r - "$id" <<<'{"cpu": {"realtimePeriod": 800001, "realtimeRuntime": 500001}}'
  assert_eq 0 "$rc" "realtimePeriod and Runtime: $out"
  assert_eq "800001 500001" "$(cat $cg/cpu.rt_period_us) $(cat $cg/cpu.rt_runtime_us)" "rt period, runtime (2)"
  run_rc crt update "$id" --cpu-rt-period 900001 --cpu-rt-runtime 600001; assert_eq 0 "$rc" "--cpu-rt-*: $out"
  assert_eq "900001 600001" "$(cat $cg/cpu.rt_period_us) $(cat $cg/cpu.rt_runtime_us)" "rt period, runtime (3)"
  crt delete -f "$id"
}
