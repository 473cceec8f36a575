# State that lies (issue 30 item 6): a state.json naming the wrong pid must
# never make crt signal an unrelated process or join its namespaces, and
# delete --force must still remove the container (its real init and its
# cgroup included) at once.  The forgeries need write access to the state
# root; crt must still not be turned against the host by them.  And a
# delete killed midway says "half-deleted", not "half-created".

# sec_forge ID PID [START] [RESCUE]: rewrites the container's state.json
# (pid, and init_process_start when START is given); RESCUE=1 forges the
# rescue file `init` the same way.
sec_forge() {
  python3 - "$CRT_ROOT/$1" "$2" "${3:-}" "${4:-0}" <<'PY' || fail "forge state of $1"
import json, sys
d, pid, start, rescue = sys.argv[1:]
s = json.load(open(d + "/state.json"))
s["pid"] = int(pid)
if start: s["init_process_start"] = int(start)
json.dump(s, open(d + "/state.json", "w"))
if rescue == "1":
    cg = open(d + "/init").read().split()[2:]
    open(d + "/init", "w").write(" ".join([pid, start or str(s["init_process_start"])] + cg) + "\n")
PY
}

# start_time PID: field 22 of /proc/PID/stat
start_time() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $20}'; }

# sec_container ID: a running container; sets $init (its pid) and $cg (its cgroup path)
sec_container() {
  make_bundle "$T/b" sleep 1000
  crt run -d --bundle "$T/b" "$1" </dev/null >/dev/null 2>&1 || fail "run -d"
  init=$(state_field "$1" pid)
  cg=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cgroup_path"])' "$CRT_ROOT/$1/state.json")
  [ -n "$cg" ] || fail "no cgroup path in state.json"
}

# A process of the host, unrelated to any container: must survive.
sec_victim() {
  sleep 1000 </dev/null >/dev/null 2>&1 &
  victim=$!
}

# alive PID: running (not a zombie)
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:.*[ZX]' "/proc/$1/status" 2>/dev/null; }

# sec_gone ID: the container's real init is dead, its cgroup and state dir gone
sec_gone() {
  wait_eval "! alive $init" || fail "$1: the real init $init survived"
  local d left=""
  for d in /sys/fs/cgroup/*"$cg" /sys/fs/cgroup"$cg"; do [ -d "$d" ] && left="$left $d"; done
  [ -z "$left" ] || fail "$1: cgroup left:$left"
  [ ! -e "$CRT_ROOT/$1" ] || fail "$1: state dir left"
}

# delete_quick ID [FLAGS]: delete must succeed, and fast (no retry loop)
delete_quick() {
  local id=$1; shift
  local t0; t0=$(date +%s%N)
  run_rc crt delete "$@" "$id"
  assert_eq 0 "$rc" "delete $* of $id: $out"
  local ms=$((($(date +%s%N) - t0) / 1000000))
  [ "$ms" -lt 3000 ] || fail "delete $* of $id took $ms ms"
}

# A dead pid in state.json: the container reads as stopped, and delete
# --force kills the real init (still in the cgroup) and removes it all.
test_state_dead_pid() {
  local id; id=$(new_id)
  sec_container "$id"
  local dead; dead=$(sh -c 'echo $$')
  sec_forge "$id" "$dead"
  assert_eq stopped "$(state_field "$id" status)" "status with a dead pid"
  run_rc crt kill "$id" KILL; assert_eq 1 "$rc" "kill with a dead pid: $out"
  assert_contains "$out" "not running"
  delete_quick "$id" --force
  sec_gone "$id"
}

# A live unrelated process under the recorded start time: it is not the
# init.  Neither kill nor a plain delete touch it; delete kills the real
# init through the cgroup.
test_state_unrelated_pid_mismatched_start() {
  local id; id=$(new_id)
  sec_container "$id"
  sec_victim
  sec_forge "$id" "$victim"
  assert_eq stopped "$(state_field "$id" status)" "status with an unrelated pid"
  run_rc crt kill "$id" KILL; assert_eq 1 "$rc" "kill: $out"
  alive "$victim" || fail "kill signalled the unrelated process $victim"
  delete_quick "$id"
  assert_contains "$out" "is not its init"; assert_contains "$out" "left in its cgroup"
  alive "$victim" || fail "delete signalled the unrelated process $victim"
  sec_gone "$id"
  kill "$victim"; wait "$victim" 2>/dev/null || true
}

# pid and start time both forged to an unrelated host process: crt finds
# it outside the record (rescue file) and outside the container's cgroup.
# kill and delete --force leave it alone; exec refuses to enter its (the
# host's) namespaces.
sec_forged_both() { # RESCUE(0|1)
  local id; id=$(new_id)
  sec_container "$id"
  sec_victim
  sec_forge "$id" "$victim" "$(start_time "$victim")" "$1"
  run_rc crt kill "$id" KILL
  alive "$victim" || fail "kill signalled the unrelated process $victim"
  assert_eq 1 "$rc" "kill: $out"; assert_contains "$out" "is not its init"
  run_rc crt exec "$id" touch "$T/entered"
  [ ! -e "$T/entered" ] || fail "exec ran in the unrelated process's (host) namespaces"
  [ "$rc" != 0 ] || fail "exec into a forged pid succeeded: $out"
  assert_contains "$out" "is not its init"
  assert_eq stopped "$(state_field "$id" status)" "status with a forged pid and start time"
  run_rc crt ps "$id"
  assert_not_contains "$out" " $victim " "ps lists the unrelated process"
  delete_quick "$id" --force
  alive "$victim" || fail "delete --force signalled the unrelated process $victim"
  sec_gone "$id"
  kill "$victim"; wait "$victim" 2>/dev/null || true
}
test_state_forged_pid_and_start_time() { sec_forged_both 0; }
# ... and the rescue file forged to match: the cgroup still tells.
test_state_forged_pid_start_time_and_rescue() { sec_forged_both 1; }

# A delete killed after it removed state.json: `state` says half-deleted,
# and delete (plain or --force) finishes the job.
test_state_half_deleted() {
  local tp=$REPO/build/crt-testpoints
  [ -x "$tp" ] || fail "no $tp: run make build/crt-testpoints"
  local id; id=$(new_id)
  sec_container "$id"
  CRT_TEST_PAUSE=delete:state CRT_TEST_PAUSE_FILE=$T/paused "$tp" --root "$CRT_ROOT" delete -f "$id" \
    </dev/null >"$T/tp.out" 2>&1 &
  local cpid=$!
  wait_for test -s "$T/paused" || { kill -9 $cpid; fail "never reached delete:state: $(cat "$T/tp.out")"; }
  kill -9 $cpid; wait $cpid 2>/dev/null
  run_rc crt state "$id"; assert_eq 1 "$rc" "state of a half-deleted container"
  assert_contains "$out" "half-deleted"
  assert_not_contains "$out" "half-created"
  delete_quick "$id"
  sec_gone "$id"
}
