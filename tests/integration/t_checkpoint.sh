# checkpoint and restore with CRIU (docs/checkpoint.md).  Every test also
# passes with runc 1.1 in crt's place (CRT_BIN=/usr/sbin/runc): the checks of
# crt's own messages and clean-up guarantees are under is_crt.
#
# The CRIU binary: $CRIU if set, else `criu` on PATH if `criu check` passes,
# else ../shared/criu/criu beside the checkout (CRIU 4.2; Debian 12's 3.17
# fails `criu check` on kernels newer than its vDSO knowledge).

criu_bin() {
  if [ -n "${CRIU:-}" ]; then echo "$CRIU"; return; fi
  if command -v criu >/dev/null && criu check >/dev/null 2>&1; then command -v criu; return; fi
  echo "$REPO/../shared/criu/criu"
}

# ck ARGS...: the runtime with the chosen CRIU.
ck() { "$CRT_BIN" --root "$CRT_ROOT" --criu "$CK_CRIU" "$@"; }

# counting_bundle DIR: prints 1, 2, 3... on stdout, five a second.
counting_bundle() {
  make_bundle "$1" sh -c 'i=0; while true; do i=$((i+1)); echo $i; sleep 0.2; done'
}

# run_piped ID BUNDLE OUT: runs detached with stdio on pipes (criu dumps
# pipes; a host file such as /dev/null is outside the container's mounts),
# stdout and stderr collected in OUT.  restore_piped: the restored process
# gets new pipes (its stderr: OUT.err, where the runtime's errors go too).
run_piped() {
  ck run -d -b "$2" "$1" 0< <(:) > >(cat >"$3") 2>&1 || fail "run $1: $(cat "$3")"
}
restore_piped() { # ID BUNDLE IMAGES OUT [FLAGS...]
  local id=$1 b=$2 img=$3 out=$4; shift 4
  ck restore -d -b "$b" --image-path "$img" "$@" "$id" 0< <(:) > >(cat >"$out") 2>"$out.err" || {
    cat "$out.err"
    return 1
  }
}

last_line() { tail -n1 "$1" 2>/dev/null; }
first_line() { head -n1 "$1" 2>/dev/null; }

# counts OUT: waits until OUT holds at least two numbers
counts() { wait_eval "[ \$(wc -l <'$1') -ge 2 ]" || fail "$1: no counting: $(cat "$1")"; }

setup_ck() {
  CK_CRIU=$(criu_bin)
  "$CK_CRIU" check >/dev/null 2>&1 || fail "criu $CK_CRIU fails 'criu check'"
}

# criu 4.2 leaves an empty /run/criu.kdat.tmp behind
kdat_cleanup() { [ -s /run/criu.kdat.tmp ] || rm -f /run/criu.kdat.tmp; }

test_checkpoint_restore_goes_on_counting() {
  setup_ck
  counting_bundle "$T/b"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out1"
  counts "$T/out1"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(cat "$T/img/dump.log" 2>/dev/null | tail -5)"
  run_rc ck state "$id"
  [ $rc != 0 ] || fail "the checkpointed container still exists: $out"
  local n; n=$(last_line "$T/out1")
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  assert_eq running "$(state_field "$id2" status)" "restored status"
  local pid; pid=$(state_field "$id2" pid)
  kill -0 "$pid" || fail "restored pid $pid not alive"
  counts "$T/out2"
  assert_eq $((n + 1)) "$(first_line "$T/out2")" "first count after restore"
  ck kill "$id2" KILL
  wait_eval "[ \"\$(state_field $id2 status)\" = stopped ]" || fail "restored container did not stop"
  ck delete "$id2" || fail delete
  kdat_cleanup
}

test_checkpoint_leave_running() {
  setup_ck
  counting_bundle "$T/b"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out1"
  counts "$T/out1"
  local pid; pid=$(state_field "$id" pid)
  ck checkpoint --leave-running --image-path "$T/img" "$id" || fail "checkpoint: $(tail -5 "$T/img/dump.log")"
  assert_eq running "$(state_field "$id" status)" "status after --leave-running"
  assert_eq "$pid" "$(state_field "$id" pid)" "pid after --leave-running"
  local n; n=$(last_line "$T/out1")
  wait_eval "[ \$(last_line '$T/out1') -gt $((n + 1)) ]" || fail "stopped counting after --leave-running"
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  counts "$T/out2"
  assert_eq running "$(state_field "$id" status)" "original still running"
  ck delete -f "$id"; ck delete -f "$id2"
  kdat_cleanup
}

test_restore_twice_from_one_image() {
  setup_ck
  counting_bundle "$T/b"
  local id a b; id=$(new_id); a=$(new_id); b=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  counts "$T/out"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -5 "$T/img/dump.log")"
  local n; n=$(last_line "$T/out")
  restore_piped "$a" "$T/b" "$T/img" "$T/outa" --work-path "$T/wa" || fail "restore a: $(tail -5 "$T/wa/restore.log")"
  restore_piped "$b" "$T/b" "$T/img" "$T/outb" --work-path "$T/wb" || fail "restore b: $(tail -5 "$T/wb/restore.log")"
  counts "$T/outa"; counts "$T/outb"
  assert_eq $((n + 1)) "$(first_line "$T/outa")" "a's first count"
  assert_eq $((n + 1)) "$(first_line "$T/outb")" "b's first count"
  assert_ne "$(state_field "$a" pid)" "$(state_field "$b" pid)" "two processes"
  [ -s "$T/wa/restore.log" ] || fail "--work-path: no restore.log in $T/wa"
  ck delete -f "$a"; ck delete -f "$b"
  kdat_cleanup
}

test_checkpoint_bind_mount() {
  setup_ck
  make_bundle "$T/b" sh -c 'i=0; while true; do i=$((i+1)); echo $i > /data/count; sleep 0.2; done'
  mkdir -p "$T/data"
  bundle_edit "$T/b" "c['mounts'].append({'destination':'/data','type':'bind','source':'$T/data','options':['rbind','rw']})"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  wait_eval "[ \$(cat '$T/data/count') -ge 2 ]" || fail "no count in the bind mount"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -5 "$T/img/dump.log")"
  local n; n=$(cat "$T/data/count")
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  wait_eval "[ \$(cat '$T/data/count') -gt $((n + 1)) ]" || fail "restored process does not write to the bind mount"
  local pid; pid=$(state_field "$id2" pid)
  grep -q " /data " "/proc/$pid/mountinfo" || fail "no /data mount in the restored container"
  ck delete -f "$id2"
  kdat_cleanup
}

test_checkpoint_cgroup_with_limits() {
  setup_ck
  counting_bundle "$T/b"
  local id id2; id=$(new_id); id2=$(new_id)
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='/$id2-cg'; c['linux']['resources']={'memory':{'limit':67108864},'pids':{'limit':50}}"
  run_piped "$id" "$T/b" "$T/out"
  counts "$T/out"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -5 "$T/img/dump.log")"
  [ ! -d "/sys/fs/cgroup/memory/$id2-cg" ] || fail "the checkpointed container's cgroup is still there"
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  local pid; pid=$(state_field "$id2" pid)
  local mem pids
  mem=$(sed -n 's/^[0-9]*:memory://p' "/proc/$pid/cgroup")
  pids=$(sed -n 's/^[0-9]*:pids://p' "/proc/$pid/cgroup")
  [ -n "$mem" ] || mem=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
  assert_eq "/$id2-cg" "$mem" "restored process's memory cgroup"
  if [ -e "/sys/fs/cgroup/memory/$id2-cg/memory.limit_in_bytes" ]; then
    assert_eq 67108864 "$(cat "/sys/fs/cgroup/memory/$id2-cg/memory.limit_in_bytes")" "memory limit"
    assert_eq 50 "$(cat "/sys/fs/cgroup/pids$pids/pids.max")" "pids limit"
  else
    assert_eq 67108864 "$(cat "/sys/fs/cgroup/$id2-cg/memory.max")" "memory limit"
  fi
  counts "$T/out2"
  ck delete -f "$id2"
  [ ! -d "/sys/fs/cgroup/memory/$id2-cg" ] || fail "delete left the cgroup"
  kdat_cleanup
}
