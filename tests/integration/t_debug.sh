# --debug stage timings (CRT_STAGE in include/crt/log.h): create, start,
# exec and delete log each stage with the time it took, so that a user can
# see where a slow or failing container spends its time.

# ms_now: monotonic-enough wall clock in ms
ms_now() { echo $(($(date +%s%N) / 1000000)); }

# stage_ms LOG CMD NAME-PREFIX: the ms of CMD's stage whose name starts so
stage_ms() {
  grep -oE "msg=\"$2: stage $3[^\"]* took [0-9.]+ms\"" "$1" | head -1 | sed -E 's/.* took ([0-9.]+)ms"$/\1/'
}

# check_sum LOG CMD WALL_MS MIN_SHARE: CMD's stages add up to its total,
# which fits in the command's wall time and, when MIN_SHARE (percent) is
# given, covers at least that share of it.
check_sum() {
  local log=$1 cmd=$2 wall=$3 share=${4:-0} sum total
  sum=$(grep -oE "msg=\"$cmd: stage .* took [0-9.]+ms\"" "$log" | sed -E 's/.* took ([0-9.]+)ms"$/\1/' |
    awk '{s += $1} END {printf "%.3f", s}')
  total=$(grep -oE "msg=\"$cmd: all stages took [0-9.]+ms\"" "$log" | sed -E 's/.* took ([0-9.]+)ms"$/\1/')
  [ -n "$total" ] || fail "$cmd: no total line in: $(cat "$log")"
  awk -v s="$sum" -v t="$total" 'BEGIN {exit !(s <= t + 0.01 && s >= t - 1)}' ||
    fail "$cmd: stages add up to ${sum}ms, total says ${total}ms"
  awk -v t="$total" -v w="$wall" -v p="$share" 'BEGIN {exit !(t <= w + 1 && t >= w * p / 100)}' ||
    fail "$cmd: total ${total}ms against a wall time of ${wall}ms (at least $share% expected)"
}

test_debug_stage_timings() {
  make_bundle "$T/b" sleep 100
  local h="{'path':'/bin/true'}" slow="{'path':'/bin/sh','args':['sh','-c','sleep 0.3']}"
  bundle_edit "$T/b" "c['hooks']={'prestart':[$slow],'createRuntime':[$h],'createContainer':[$h],'startContainer':[$h],'poststart':[$slow],'poststop':[$h]}"
  local id log=$T/debug.log t0 wall_create wall_start wall_exec n
  id=$(new_id)
  t0=$(ms_now)
  crt --debug --log "$log" create -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create: $(cat "$log")"
  wall_create=$(($(ms_now) - t0))
  t0=$(ms_now)
  crt --debug --log "$log" start "$id" || fail "start: $(cat "$log")"
  wall_start=$(($(ms_now) - t0))
  t0=$(ms_now)
  crt --debug --log "$log" exec "$id" true || fail "exec: $(cat "$log")"
  wall_exec=$(($(ms_now) - t0))
  crt --debug --log "$log" delete -f "$id" || fail "delete"
  # every stage named, in runc's logrus text format
  for n in "create: stage config loaded" "create: stage state dir ready" "create: stage clone (init pid" \
    "create: stage cgroup joined" "init: stage in the cgroup" "create: stage waited for the init's mounts" \
    "create: stage prestart hooks (1)" "create: stage createRuntime hooks (1)" \
    "create: stage waited for the init: createContainer hooks, rootfs ready" "create: stage state saved" \
    "init: stage namespaces joined" "init: stage mounts" "init: stage createContainer hooks (1)" \
    "init: stage rootfs ready" "init: stage process set up" "start: stage exec FIFO released" \
    "start: stage startContainer hooks (1) and execve" "start: stage poststart hooks (1)" \
    "exec: stage clone (namespaces joined" "exec: stage cgroup joined" "exec: stage process set up and execve" \
    "delete: stage poststop hooks (1)"; do
    grep -qF "level=debug msg=\"$n" "$log" || fail "no '$n' line in: $(grep stage "$log")"
  done
  grep -E 'stage|all stages' "$log" | grep -vE '^time="[^"]+" level=debug msg="[a-z]+: (stage .+|all stages) took [0-9]+\.[0-9]{3}ms"$' &&
    fail "a stage line not in logrus's text format"
  # the times are real: the hooks' sleeps show in their stages, and the
  # stages add up to the total, which is most of the command's wall time
  awk -v v="$(stage_ms "$log" create "prestart hooks")" 'BEGIN {exit !(v >= 300)}' || fail "prestart stage under 300ms"
  awk -v v="$(stage_ms "$log" start "poststart hooks")" 'BEGIN {exit !(v >= 300)}' || fail "poststart stage under 300ms"
  check_sum "$log" create "$wall_create" 50
  check_sum "$log" init "$wall_create"
  check_sum "$log" start "$wall_start" 50
  check_sum "$log" exec "$wall_exec"
  # JSON with --log-format json; nothing of it without --debug
  make_bundle "$T/c" true
  crt --debug --log-format json --log "$T/json.log" run -b "$T/c" "$(new_id)" </dev/null || fail "run json"
  python3 - "$T/json.log" <<'PY' || fail "json stage lines: $(cat "$T/json.log")"
import json, re, sys
stages = [d for d in map(json.loads, open(sys.argv[1])) if " stage " in d["msg"]]
assert stages and all(d["level"] == "debug" and re.search(r" took [0-9.]+ms$", d["msg"]) for d in stages), stages
assert any(d["msg"].startswith("init: stage rootfs ready") for d in stages)
PY
  crt --log "$T/quiet.log" run -b "$T/c" "$(new_id)" </dev/null 2>"$T/quiet.err" || fail "run without --debug"
  assert_eq "" "$(cat "$T/quiet.log" "$T/quiet.err")" "log without --debug"
  return 0
}

# Guards crt_log_hold (src/util/log.c): the init's debug lines (its stages,
# and any warning of crt_process_finalize, which comes after stdio moved to
# the pty) go to create's stderr, never to the
# container's terminal; and create's stderr is not held open after create
# (the $(...) below returns).
test_debug_init_lines_not_on_the_terminal() {
  make_bundle "$T/b" echo done
  bundle_edit "$T/b" "c['process']['terminal']=True"
  cc -O2 -Wall -o "$T/recvtty" "$REPO/tests/lib/recvtty.c" || fail "cannot build recvtty"
  timeout 20 "$T/recvtty" --pid-file "$T/tty.pid" "$T/tty.sock" >"$T/tty.out" 2>"$T/tty.err" </dev/null &
  local rpid=$! id err
  wait_for test -s "$T/tty.pid" || fail "recvtty did not start: $(cat "$T/tty.err")"
  id=$(new_id)
  err=$(timeout 10 "$CRT_BIN" --root "$CRT_ROOT" --debug create --console-socket "$T/tty.sock" -b "$T/b" "$id" 2>&1 </dev/null) ||
    fail "create: $err"
  crt start "$id" || fail "start"
  wait "$rpid" || fail "recvtty: $(cat "$T/tty.err")"
  assert_contains "$(cat "$T/tty.out")" "done"
  assert_not_contains "$(cat "$T/tty.out")" "level=debug"
  assert_contains "$err" "init: stage rootfs ready"
  crt delete -f "$id"
  return 0
}
