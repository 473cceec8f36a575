# Differential tests: runc 1.1.5's observable behaviour, where the spec is
# silent.  Every test passes with crt and with
# `CRT_BIN=/usr/sbin/runc ONLY=t_compat bash tests/integration/run.sh`;
# checks of crt's own message text sit behind `is_crt`.

is_crt() { case $CRT_BIN in *runc) return 1 ;; esac; return 0; }

# stopped ID: true once the container's status is "stopped"
stopped() { [ "$(state_field "$1" status)" = stopped ]; }

# Guards crt_parse_signal (src/cli/common.c): runc's forms only, signal 0
# included, which `kill` sends to check that the init exists.
test_kill_signal_forms() {
  make_bundle "$T/b"
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id" || fail "run -d"
  local s
  for s in 0 +0 00 SigUsr1 usr1 sigWINCH IO 64; do
    run_rc crt kill "$id" "$s"; assert_eq 0 "$rc" "kill $s: $out"
  done
  for s in RTMIN SIGRTMIN+1 IOT POLL CLD " 1" 9x; do
    run_rc crt kill "$id" "$s"; assert_eq 1 "$rc" "kill '$s'"; assert_contains "$out" "unknown signal"
  done
  for s in 65 -1; do run_rc crt kill "$id" "$s"; assert_eq 1 "$rc" "kill $s"; done
  assert_eq running "$(state_field "$id" status)" "signal 0 and ignored signals leave it running"
  crt kill "$id" 9 || fail "kill 9"
  wait_eval "stopped $id" || fail "did not stop"
  run_rc crt kill "$id" 0; assert_eq 1 "$rc" "kill 0 of a stopped container"; assert_contains "$out" "not running"
  crt delete "$id"
}

# Guards crt_container_delete (src/container/lifecycle.c): a plain delete of
# a "created" container kills its parked init; a running one is refused.
test_delete_created_without_force() {
  make_bundle "$T/b"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id" || fail "create"
  local pid; pid=$(state_field "$id" pid)
  run_rc crt delete "$id"; assert_eq 0 "$rc" "delete of a created container: $out"
  wait_for sh -c "! kill -0 $pid 2>/dev/null || grep -q '^State:.*Z' /proc/$pid/status" || fail "init $pid still alive"
  run_rc crt state "$id"; assert_eq 1 "$rc" "state after delete"
  crt run -d --bundle "$T/b" "$id" || fail "run -d"
  run_rc crt delete "$id"; assert_eq 1 "$rc" "delete of a running container"
  assert_contains "$out" "is not stopped: running"
  crt delete -f "$id"
}
