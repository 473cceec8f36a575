# checkpoint and restore with CRIU (docs/checkpoint.md).  Every test also
# passes with runc 1.1 in crt's place (CRT_BIN=/usr/sbin/runc): the checks of
# crt's own messages and clean-up guarantees are under is_crt.
#
# The CRIU binary: $CRIU if set, else sid's CRIU 4.2.1 (tests/lib/peers.sh
# criu: Debian's package with its libraries), else `criu` on PATH if `criu
# check` passes, else ../shared/criu/criu beside the checkout (CRIU 4.2;
# Debian 12's 3.17 fails `criu check` on kernels newer than its vDSO
# knowledge).

criu_bin() {
  if [ -n "${CRIU:-}" ]; then echo "$CRIU"; return; fi
  local c
  if c=$(bash "$REPO/tests/lib/peers.sh" criu 2>/dev/null) && "$c" check >/dev/null 2>&1; then echo "$c"; return; fi
  if command -v criu >/dev/null && criu check >/dev/null 2>&1; then command -v criu; return; fi
  echo "$REPO/../shared/criu/criu"
}

# ck ARGS...: the runtime with the chosen CRIU.  runc 1.2+ ignores --criu
# and runs `criu` from PATH: a directory holding only a link named criu to
# the chosen one comes first.
ck() { PATH="$CK_PATH:$PATH" "$CRT_BIN" --root "$CRT_ROOT" --criu "$CK_CRIU" "$@"; }

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
  CK_PATH=$T/criu-path
  mkdir -p "$CK_PATH" && ln -sf "$(readlink -f "$CK_CRIU")" "$CK_PATH/criu"
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
  if command -v crit >/dev/null; then # the images are CRIU's own: crit reads them
    crit show "$T/img/pstree.img" >"$T/pstree.json" || fail "crit show pstree.img"
    assert_contains "$(cat "$T/pstree.json")" '"magic": "PSTREE"'
  fi
  local n; n=$(last_line "$T/out1")
  bundle_edit "$T/b" "c['annotations']={'org.example.ck':'yes'}"
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  assert_eq running "$(state_field "$id2" status)" "restored status"
  assert_eq "{'org.example.ck': 'yes'}" "$(state_field "$id2" annotations)" "restored state's annotations"
  assert_eq "$T/b" "$(state_field "$id2" bundle)" "restored state's bundle"
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
  ck checkpoint --manage-cgroups-mode full --image-path "$T/img" "$id" || fail "checkpoint: $(tail -5 "$T/img/dump.log")"
  [ ! -d "/sys/fs/cgroup/memory/$id2-cg" ] || fail "the checkpointed container's cgroup is still there"
  # strict at restore: accepted, the cgroup made from the config is used (runc 1.1 too)
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" --manage-cgroups-mode strict || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
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

test_checkpoint_refused_cases_leave_the_container() {
  setup_ck
  counting_bundle "$T/b"
  local id c; id=$(new_id); c=$(new_id)
  run_rc ck checkpoint --image-path "$T/img0" "$(new_id)"
  [ $rc != 0 ] || fail "checkpoint of a missing container succeeded"
  # created, not running
  ck create -b "$T/b" "$c" 0< <(:) > >(cat >"$T/cout") 2>&1 || fail "create"
  run_rc ck checkpoint --image-path "$T/img1" "$c"
  [ $rc != 0 ] || fail "checkpoint of a created container succeeded"
  assert_eq created "$(state_field "$c" status)" "created container after refused checkpoint"
  is_crt && assert_contains "$out" "not running"
  ck delete -f "$c"
  run_piped "$id" "$T/b" "$T/out"
  counts "$T/out"
  local pid; pid=$(state_field "$id" pid)
  # a CRIU that fails `criu check`, named by --criu and first on PATH (runc
  # >= 1.2 ignores --criu)
  mkdir -p "$T/bad"
  printf '#!/bin/sh\necho "Error (criu/kerndat.c:1): cannot run here" >&2\nexit 1\n' >"$T/bad/criu"
  chmod +x "$T/bad/criu"
  run_rc env PATH="$T/bad:$PATH" "$CRT_BIN" --root "$CRT_ROOT" --criu "$T/bad/criu" checkpoint --image-path "$T/img2" "$id"
  [ $rc != 0 ] || fail "checkpoint with a failing criu succeeded"
  is_crt && assert_contains "$out" "bad/criu check: exited with status 1: Error (criu/kerndat.c:1): cannot run here"
  # --pre-dump needs dirty-memory tracking
  if ! "$CK_CRIU" check --feature mem_dirty_track >/dev/null 2>&1; then
    run_rc ck checkpoint --pre-dump --image-path "$T/img3" "$id"
    [ $rc != 0 ] || fail "--pre-dump succeeded on a kernel without dirty-memory tracking"
    is_crt && assert_contains "$out" "--pre-dump needs the kernel's dirty-memory tracking"
  fi
  # --lazy-pages with a --status-fd that cannot be written (as runc); the
  # lazy transfer itself is checked in the cgroup v2 guest (checks.sh:
  # checkpoint_lazy), where criu's lazy restore works
  if "$CK_CRIU" check --feature uffd-noncoop >/dev/null 2>&1; then
    run_rc ck checkpoint --lazy-pages --status-fd 0 --page-server 127.0.0.1:27277 --image-path "$T/img4" "$id" </dev/null
    [ $rc != 0 ] || fail "--lazy-pages with a read-only --status-fd succeeded"
    assert_contains "$out" "invalid --status-fd argument 0"
  fi
  assert_eq running "$(state_field "$id" status)" "status after the refused checkpoints"
  assert_eq "$pid" "$(state_field "$id" pid)" "pid after the refused checkpoints"
  ck delete -f "$id"
  kdat_cleanup
}

# criu cannot dump a host file as stdio (it is outside the container's
# mounts): the dump fails, and the container goes on as before.
test_checkpoint_failed_dump_keeps_running() {
  setup_ck
  counting_bundle "$T/b"
  local id; id=$(new_id)
  ck run -d -b "$T/b" "$id" </dev/null >"$T/out" 2>&1 || fail "run: $(cat "$T/out")"
  counts "$T/out"
  local pid; pid=$(state_field "$id" pid)
  run_rc ck checkpoint --image-path "$T/img" "$id"
  [ $rc != 0 ] || fail "checkpoint of a container with a host file as stdio succeeded"
  is_crt && assert_contains "$out" "criu dump failed"
  assert_eq running "$(state_field "$id" status)" "status after the failed checkpoint"
  assert_eq "$pid" "$(state_field "$id" pid)" "pid after the failed checkpoint"
  local n; n=$(last_line "$T/out")
  wait_eval "[ \$(last_line '$T/out') -gt $((n + 1)) ]" || fail "the container stopped counting after a failed checkpoint"
  ck delete -f "$id"
  kdat_cleanup
}

# restore_left_nothing ID: no state, no cgroup, no process of the id
restore_left_nothing() {
  run_rc ck state "$1"
  [ $rc != 0 ] || fail "failed restore left a container: $out"
  is_crt || return 0
  [ -z "$(find /sys/fs/cgroup -maxdepth 3 -type d -name "$1*" 2>/dev/null)" ] || fail "failed restore left a cgroup"
  [ ! -e "$CRT_ROOT/$1" ] || fail "failed restore left $CRT_ROOT/$1"
}

test_restore_bad_input_leaves_nothing() {
  setup_ck
  make_bundle "$T/b" sh -c 'i=0; while true; do i=$((i+1)); echo $i > /data/count; sleep 0.2; done'
  mkdir -p "$T/data"
  bundle_edit "$T/b" "c['mounts'].append({'destination':'/data','type':'bind','source':'$T/data','options':['rbind','rw']})"
  local id r; id=$(new_id); r=$(new_id)
  run_rc ck restore -d -b "$T/b" --image-path "$T/none" "$r"
  [ $rc != 0 ] || fail "restore from a missing image directory succeeded"
  is_crt && assert_contains "$out" "image directory $T/none: no such file or directory"
  restore_left_nothing "$r"
  mkdir "$T/empty"
  run_rc ck restore -d -b "$T/b" --image-path "$T/empty" "$r"
  [ $rc != 0 ] || fail "restore from an empty directory succeeded"
  is_crt && assert_contains "$out" "holds no checkpoint"
  restore_left_nothing "$r"
  run_piped "$id" "$T/b" "$T/out"
  wait_eval "[ \$(cat '$T/data/count') -ge 2 ]" || fail "no count"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -3 "$T/img/dump.log")"
  # the id of a container that exists: refused, that container untouched
  local other; other=$(new_id)
  ck create -b "$T/b" "$other" 0< <(:) > >(cat >"$T/cout") 2>&1 || fail "create $other"
  run_rc restore_piped "$other" "$T/b" "$T/img" "$T/o0"
  [ $rc != 0 ] || fail "restore under the id of an existing container succeeded"
  assert_contains "$out" "container with given ID already exists"
  assert_eq created "$(state_field "$other" status)" "the existing container after the refused restore"
  ck delete -f "$other"
  # an image of another container: this bundle has no /data mount
  counting_bundle "$T/other"
  run_rc restore_piped "$r" "$T/other" "$T/img" "$T/o1"
  [ $rc != 0 ] || fail "restore into a bundle without the image's bind mount succeeded"
  is_crt && assert_contains "$out" "has a bind mount at /data that the bundle $T/other does not have"
  restore_left_nothing "$r"
  # a prestart hook that fails at restore: criu aborts, nothing stays
  bundle_edit "$T/b" "c['hooks']={'prestart':[{'path':'/bin/sh','args':['sh','-c','exit 3']}]}"
  local before; before=$(cat "$T/data/count")
  run_rc restore_piped "$r" "$T/b" "$T/img" "$T/o3"
  [ $rc != 0 ] || fail "restore with a failing prestart hook succeeded"
  is_crt && assert_contains "$out" "error running prestart hook #0: exit status 3, stdout: , stderr: "
  restore_left_nothing "$r"
  sleep 0.5
  assert_eq "$before" "$(cat "$T/data/count")" "count after the failed restore (a process was left)"
  kdat_cleanup
}

# The restored container is created and started again: prestart and
# createRuntime run at criu's setup-namespaces with the restored init's pid,
# poststart after it (crt; runc 1.1 runs the first two only), poststop at
# delete.
test_restore_runs_hooks() {
  setup_ck
  counting_bundle "$T/b"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  counts "$T/out"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -3 "$T/img/dump.log")"
  bundle_edit "$T/b" "c['hooks']={k:[{'path':'/bin/sh','args':['sh','-c','cat > $T/'+k+'.json']}] for k in ('prestart','createRuntime','poststart','poststop')}"
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  local pid; pid=$(state_field "$id2" pid)
  local k
  for k in prestart createRuntime; do
    [ -s "$T/$k.json" ] || fail "$k hook did not run at restore"
    assert_eq "$pid" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$T/$k.json")" "$k hook's pid"
    assert_eq "$id2" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$T/$k.json")" "$k hook's id"
  done
  if is_crt; then
    [ -s "$T/poststart.json" ] || fail "poststart hook did not run at restore"
    assert_contains "$(cat "$T/poststart.json")" '"status":"running"'
  fi
  ck delete -f "$id2"
  [ -s "$T/poststop.json" ] || fail "poststop hook did not run at delete"
  kdat_cleanup
}

# ck_recv_tty NAME [MODE]: a console-socket receiver (tests/lib/recvtty.c)
# on $T/NAME.sock writing what the terminal shows to $T/NAME.out; MODE null
# never writes to the terminal (single, the default, sends ^D at once).
ck_recv_tty() {
  [ -x "$T/recvtty" ] || cc -O2 -Wall -o "$T/recvtty" "$REPO/tests/lib/recvtty.c" || fail "cannot build recvtty"
  timeout 60 "$T/recvtty" --mode "${2:-single}" --pid-file "$T/$1.pid" "$T/$1.sock" >"$T/$1.out" 2>"$T/$1.err" </dev/null &
  wait_for test -s "$T/$1.pid" || fail "recvtty $1 did not start: $(cat "$T/$1.err")"
}

# A terminal container (console socket): the restored process gets a new
# terminal whose master goes to the restore's --console-socket.
test_checkpoint_terminal_console_socket() {
  setup_ck
  counting_bundle "$T/b"
  bundle_edit "$T/b" "c['process']['terminal']=True"
  local id id2; id=$(new_id); id2=$(new_id)
  ck_recv_tty t1
  ck run -d -b "$T/b" --console-socket "$T/t1.sock" "$id" </dev/null >/dev/null 2>"$T/run.err" || fail "run: $(cat "$T/run.err")"
  wait_eval "[ \$(tr -d '\r' <'$T/t1.out' | wc -l) -ge 2 ]" || fail "no counting on the terminal"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -3 "$T/img/dump.log")"
  local n; n=$(tr -d '\r' <"$T/t1.out" | tail -n1)
  run_rc ck restore -d -b "$T/b" --image-path "$T/img" "$id2" </dev/null
  [ $rc != 0 ] || fail "restore of a terminal image without --console-socket succeeded"
  is_crt && assert_contains "$out" "--console-socket is required"
  restore_left_nothing "$id2"
  ck_recv_tty t2
  ck restore -d -b "$T/b" --image-path "$T/img" --console-socket "$T/t2.sock" "$id2" </dev/null >/dev/null 2>"$T/r.err" ||
    fail "restore: $(cat "$T/r.err"; tail -3 "$T/img/restore.log")"
  wait_eval "[ \$(tr -d '\r' <'$T/t2.out' | wc -l) -ge 2 ]" || fail "no counting on the new terminal: $(cat "$T/t2.out")"
  assert_eq $((n + 1)) "$(tr -d '\r' <"$T/t2.out" | head -n1)" "first count on the new terminal"
  ck delete -f "$id2"
  kdat_cleanup
}

# tty_nr PID: the controlling terminal's device number (/proc/PID/stat
# field 7; 0: none).
tty_nr() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f5; }

# runc's checkpoint.bats "checkpoint and restore" (issue 57, bug 9): an
# interactive shell on the container's terminal, as runc's suite runs it.
# The shell makes the pty its controlling terminal and holds /dev/tty
# (busybox sh: fd 10); criu must find that terminal as a pty of the dump
# ("ctty inheritance detected" otherwise).  Checkpointed and restored twice
# under one id, from the bundle directory, with runc's flags.
test_checkpoint_terminal_shell() { _terminal_shell_cr "pass"; }
# runc's "checkpoint and restore (cgroupns)": the same with a cgroup namespace
test_checkpoint_terminal_shell_cgroupns() { _terminal_shell_cr "c['linux']['namespaces'].append({'type': 'cgroup'})"; }

_terminal_shell_cr() { # BUNDLE_EDIT
  setup_ck
  make_bundle "$T/b" sh
  bundle_edit "$T/b" "c['process']['terminal']=True; $1"
  local id pid i; id=$(new_id)
  # runc 1.1 has no ignore mode (its own suite ran this test without it)
  local cg=(--manage-cgroups-mode ignore)
  runc_before_1_2 && cg=()
  ck_recv_tty t0 null
  ck run -d -b "$T/b" --console-socket "$T/t0.sock" "$id" </dev/null >/dev/null 2>"$T/run.err" || fail "run: $(cat "$T/run.err")"
  pid=$(state_field "$id" pid)
  wait_eval "[ \"\$(readlink /proc/$pid/fd/10)\" = /dev/tty ]" || fail "the shell holds no /dev/tty: $(ls -l /proc/$pid/fd)"
  for i in 1 2; do
    (cd "$T/b" && ck checkpoint --work-path ./work-dir "${cg[@]}" "$id") 2>"$T/ck.err" ||
      fail "checkpoint $i: $(cat "$T/ck.err"; grep -B5 Error "$T/b/work-dir/dump.log" | tail -8)"
    run_rc ck state "$id"
    [ $rc != 0 ] || fail "checkpoint $i: the container still exists: $out"
    ck_recv_tty "t$i" null
    (cd "$T/b" && ck restore -d --work-path ./work-dir "${cg[@]}" --console-socket "$T/t$i.sock" "$id") \
      </dev/null >/dev/null 2>"$T/r.err" || fail "restore $i: $(cat "$T/r.err"; grep -B5 Error "$T/b/work-dir/restore.log" | tail -8)"
    assert_eq running "$(state_field "$id" status)" "status after restore $i"
    pid=$(state_field "$id" pid)
    assert_eq /dev/tty "$(readlink "/proc/$pid/fd/10")" "the shell's fd 10 after restore $i"
    assert_ne 0 "$(tty_nr "$pid")" "the shell's controlling terminal after restore $i"
    assert_eq "$(stat -L -c %t:%T "/proc/$pid/fd/0")" "$(stat -L -c %t:%T "/proc/$pid/fd/1")" "stdin and stdout: one terminal"
    assert_contains "$(readlink "/proc/$pid/fd/0")" "/dev/pts/" "the shell's stdin after restore $i"
  done
  ck delete -f "$id"
  kdat_cleanup
}

# Issue 54, item 3: a restored terminal is a pty of the container's own
# devpts, as at create, never of the host's: /dev/console and the
# process's stdio are nodes of the devpts instance on the container's
# /dev/pts, and the container's root, chmod'ing its /dev/console, changes
# no node of the host's /dev/pts.
test_restore_console_on_container_devpts() {
  setup_ck
  counting_bundle "$T/b"
  bundle_edit "$T/b" "c['process']['terminal']=True"
  local id id2 pid; id=$(new_id); id2=$(new_id)
  ck_recv_tty t1
  ck run -d -b "$T/b" --console-socket "$T/t1.sock" "$id" </dev/null >/dev/null 2>"$T/run.err" || fail "run: $(cat "$T/run.err")"
  wait_eval "[ \$(tr -d '\r' <'$T/t1.out' | wc -l) -ge 2 ]" || fail "no counting on the terminal"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -3 "$T/img/dump.log")"
  if is_crt; then # the image's /dev/pts is external: the bundle must mount a devpts there
    grep -q "^mount	devpts	/dev/pts	" "$T/img/crt-checkpoint.txt" || fail "no devpts record: $(cat "$T/img/crt-checkpoint.txt")"
    cp "$T/b/config.json" "$T/config.keep"
    bundle_edit "$T/b" "c['mounts']=[m for m in c['mounts'] if m['destination']!='/dev/pts']"
    run_rc ck restore -d -b "$T/b" --image-path "$T/img" --console-socket "$T/none.sock" "$id2" </dev/null
    [ $rc != 0 ] || fail "restore into a bundle without /dev/pts succeeded"
    assert_contains "$out" "has a devpts at /dev/pts that the bundle"
    restore_left_nothing "$id2"
    cp "$T/config.keep" "$T/b/config.json"
  fi
  ck_recv_tty t2
  ck restore -d -b "$T/b" --image-path "$T/img" --console-socket "$T/t2.sock" "$id2" </dev/null >/dev/null 2>"$T/r.err" ||
    fail "restore: $(cat "$T/r.err"; tail -3 "$T/img/restore.log")"
  wait_eval "[ \$(tr -d '\r' <'$T/t2.out' | wc -l) -ge 2 ]" || fail "no counting on the new terminal: $(cat "$T/t2.out")"
  pid=$(state_field "$id2" pid)
  # the container's root chmods its console: no host pty node changes
  local rdev before after mode
  rdev=$(stat -L -c %t:%T "/proc/$pid/root/dev/console")
  before=$(for f in /dev/pts/[0-9]*; do [ "$(stat -c %t:%T "$f")" = "$rdev" ] && stat -c '%i %a' "$f"; done)
  mode=$(ck exec "$id2" stat -c %a /dev/console)
  [ "$mode" = 604 ] && fail "the console's mode is already 604"
  ck exec "$id2" chmod 604 /dev/console || fail "the container's root cannot chmod its console"
  assert_eq 604 "$(ck exec "$id2" stat -c %a /dev/console)" "the console's mode after chmod, inside"
  after=$(for f in /dev/pts/[0-9]*; do [ "$(stat -c %t:%T "$f")" = "$rdev" ] && stat -c '%i %a' "$f"; done)
  local line ino
  while read -r ino mode; do
    [ -n "$ino" ] || continue
    line=$(grep "^$ino " <<<"$after") || continue # that pty is gone meanwhile
    assert_eq "$ino $mode" "$line" "a host /dev/pts node (inode $ino) after the container's chmod"
  done <<<"$before"
  local host pts console
  host=$(stat -c %d /dev/pts/ptmx)
  pts=$(ck exec "$id2" stat -c %d /dev/pts/ptmx) || fail "exec stat /dev/pts/ptmx"
  console=$(ck exec "$id2" stat -c %d /dev/console) || fail "exec stat /dev/console"
  assert_ne "$host" "$pts" "the container's devpts (st_dev of its /dev/pts/ptmx) is the host's"
  assert_eq "$pts" "$console" "/dev/console's devpts (st_dev) inside the restored container"
  assert_eq "$pts" "$(stat -L -c %d "/proc/$pid/fd/0")" "the restored process's stdin: devpts"
  assert_eq "$pts" "$(stat -L -c %d "/proc/$pid/fd/1")" "the restored process's stdout: devpts"
  # the terminal is named as on the container's /dev/pts, one devpts mount there
  assert_contains "$(ck exec "$id2" readlink /proc/1/fd/0)" "/dev/pts/" "the restored process's stdin, seen inside"
  assert_eq 1 "$(awk '$5 == "/dev/pts"' "/proc/$pid/mountinfo" | wc -l)" "mounts on the container's /dev/pts"
  ck delete -f "$id2"
  kdat_cleanup
}

# A network namespace joined by path stays the bundle's: criu gets it as
# its external (runc: extRootNetNS).
# runc's "checkpoint and restore with bind mount whose destination is a
# symlink": criu names the mount by where it is (/real/conf), not by the
# config's destination (/conf, a symlink in the rootfs).
test_checkpoint_bind_mount_dest_symlink() {
  setup_ck
  make_bundle "$T/b" sh -c 'i=0; while true; do i=$((i+1)); echo $i > /conf/count; sleep 0.2; done'
  mkdir -p "$T/data" "$T/b/rootfs/real/conf"
  ln -s real/conf "$T/b/rootfs/conf"
  bundle_edit "$T/b" "c['mounts'].append({'destination':'/conf','type':'bind','source':'$T/data','options':['rbind','rw']})"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  wait_eval "[ \$(cat '$T/data/count') -ge 2 ]" || fail "no count in the bind mount"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -5 "$T/img/dump.log")"
  local n; n=$(cat "$T/data/count")
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  wait_eval "[ \$(cat '$T/data/count') -gt $((n + 1)) ]" || fail "restored process does not write to the bind mount"
  ck delete -f "$id2"
  kdat_cleanup
}

# runc's "checkpoint and restore with nested bind mounts": a bind inside
# another; both are external and both come back, the inner one on top.
test_checkpoint_nested_bind_mounts() {
  setup_ck
  make_bundle "$T/b" sh -c 'i=0; while true; do i=$((i+1)); echo $i > /data/sub/count; sleep 0.2; done'
  mkdir -p "$T/data/sub" "$T/sub"
  bundle_edit "$T/b" "c['mounts'] += [{'destination':'/data','type':'bind','source':'$T/data','options':['rbind','rw']}, {'destination':'/data/sub','type':'bind','source':'$T/sub','options':['rbind','rw']}]"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  wait_eval "[ \$(cat '$T/sub/count') -ge 2 ]" || fail "no count in the inner bind mount"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -5 "$T/img/dump.log")"
  local n; n=$(cat "$T/sub/count")
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  wait_eval "[ \$(cat '$T/sub/count') -gt $((n + 1)) ]" || fail "restored process does not write to the inner bind mount"
  [ ! -e "$T/data/sub/count" ] || fail "the write went to the outer mount"
  ck delete -f "$id2"
  kdat_cleanup
}

# runc's "checkpoint and restore (cgroupns)": a container with its own
# cgroup namespace comes back in one, rooted at its new cgroup.
test_checkpoint_cgroupns() {
  setup_ck
  counting_bundle "$T/b"
  bundle_edit "$T/b" "c['linux']['namespaces'].append({'type':'cgroup'})"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  counts "$T/out"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -3 "$T/img/dump.log")"
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  local pid; pid=$(state_field "$id2" pid)
  [ "$(readlink /proc/$pid/ns/cgroup)" != "$(readlink /proc/self/ns/cgroup)" ] || fail "restored into the host's cgroup namespace"
  # exec into the restored container: in its cgroup namespace, at its root
  local cg; cg=$(ck exec "$id2" cat /proc/self/cgroup) || fail "exec into the restored container"
  assert_eq "" "$(grep -v ':/$' <<<"$cg")" "cgroup paths seen in the restored container"
  counts "$T/out2"
  ck delete -f "$id2"
  kdat_cleanup
}

# runc's "checkpoint --manage-cgroups-mode ignore and restore into a
# different cgroup": criu leaves cgroups alone, so the restored process is
# where the new config says.
test_checkpoint_cgroups_ignore_other_cgroup() {
  if runc_before_1_2; then echo "runc 1.1.5 has no --manage-cgroups-mode ignore (\"Invalid manage cgroups mode\"): not asserted"; return 0; fi
  setup_ck
  counting_bundle "$T/b"
  local a=/crt-ck-a-$$ b=/crt-ck-b-$$
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='$a'"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  counts "$T/out"
  ck checkpoint --manage-cgroups-mode ignore --image-path "$T/img" "$id" || fail "checkpoint: $(tail -3 "$T/img/dump.log")"
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='$b'"
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" --manage-cgroups-mode ignore ||
    fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  local pid; pid=$(state_field "$id2" pid)
  assert_contains "$(grep memory "/proc/$pid/cgroup")" ":$b"
  [ ! -d "/sys/fs/cgroup/memory$a" ] || fail "the old cgroup $a is left"
  counts "$T/out2"
  ck delete -f "$id2"
  [ ! -d "/sys/fs/cgroup/memory$b" ] || fail "$b left after delete"
  kdat_cleanup
}

# runc's "checkpoint and restore with container specific CRIU config": the
# org.criu.config annotation names a CRIU config file whose options win over
# crt's (here its log-file); without the annotation /etc/criu/runc.conf is
# read, as runc does, and an empty annotation reads none.
test_checkpoint_criu_config_annotation() {
  setup_ck
  counting_bundle "$T/b"
  echo "log-file=ck-from-config.log" >"$T/criu.conf"
  bundle_edit "$T/b" "c['annotations']={'org.criu.config':'$T/criu.conf'}"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  counts "$T/out"
  ck checkpoint --image-path "$T/img" --work-path "$T/work" "$id" || fail "checkpoint: $(tail -3 "$T/work/ck-from-config.log")"
  [ -s "$T/work/ck-from-config.log" ] || fail "the config file's log-file was not used: $(ls "$T/work")"
  [ ! -e "$T/work/dump.log" ] || fail "crt's dump.log was written although the config names another log"
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" --work-path "$T/work2" ||
    fail "restore: $(tail -3 "$T/work2/ck-from-config.log" 2>/dev/null)"
  [ -s "$T/work2/ck-from-config.log" ] || fail "restore: the config file's log-file was not used: $(ls "$T/work2")"
  counts "$T/out2"
  ck delete -f "$id2"
  # a config file that cannot be read: the error says which
  bundle_edit "$T/b" "c['annotations']={'org.criu.config':'$T/no-such.conf'}"
  run_piped "$id" "$T/b" "$T/out3"
  run_rc ck checkpoint --image-path "$T/img3" "$id"
  if is_crt; then
    assert_eq 1 "$rc" "checkpoint with a missing CRIU config file"
    assert_contains "$out" "CRIU config file (org.criu.config)"
    assert_contains "$out" "$T/no-such.conf"
    assert_eq running "$(state_field "$id" status)" "the container after the refused checkpoint"
    ck delete -f "$id"
  else
    # runc hands the name to CRIU over RPC, and CRIU 4.2 dumps without the file
    assert_eq 0 "$rc" "runc: checkpoint with a missing CRIU config file: $out"
  fi
  # no annotation: /etc/criu/runc.conf, when this machine has none of its own
  if [ ! -e /etc/criu/runc.conf ]; then
    mkdir -p /etc/criu
    echo "log-file=from-runc-conf.log" >/etc/criu/runc.conf
    bundle_edit "$T/b" "c.pop('annotations',None)"
    run_piped "$id" "$T/b" "$T/out4"
    counts "$T/out4"
    ck checkpoint --image-path "$T/img4" "$id"; rc=$?
    rm -f /etc/criu/runc.conf; rmdir /etc/criu 2>/dev/null
    assert_eq 0 "$rc" "checkpoint with /etc/criu/runc.conf"
    [ -s "$T/img4/from-runc-conf.log" ] || fail "/etc/criu/runc.conf was not read: $(ls "$T/img4")"
  fi
  kdat_cleanup
}

test_checkpoint_joined_netns() {
  setup_ck
  unshare -n sleep 60 &
  local holder=$!
  wait_eval "[ \"\$(readlink /proc/$holder/ns/net)\" != \"\$(readlink /proc/self/ns/net)\" ]" || fail "no netns holder"
  counting_bundle "$T/b"
  bundle_edit "$T/b" "[n.__setitem__('path','/proc/$holder/ns/net') for n in c['linux']['namespaces'] if n['type']=='network']"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  counts "$T/out"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -3 "$T/img/dump.log")"
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  local pid; pid=$(state_field "$id2" pid)
  assert_eq "$(readlink /proc/$holder/ns/net)" "$(readlink /proc/$pid/ns/net)" "restored process's network namespace"
  counts "$T/out2"
  ck delete -f "$id2"
  kill "$holder"; wait "$holder" 2>/dev/null
  kdat_cleanup
}

# Without --detach, restore stays in the foreground as run does: the exit
# status is the process's, and the container is deleted after it.
test_restore_foreground() {
  setup_ck
  counting_bundle "$T/b"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  counts "$T/out"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -3 "$T/img/dump.log")"
  ck restore -b "$T/b" --image-path "$T/img" "$id2" 0< <(:) > >(cat >"$T/out2") 2>"$T/err2" &
  local fg=$!
  wait_eval "[ \"\$(state_field $id2 status)\" = running ]" || fail "not restored: $(cat "$T/err2")"
  counts "$T/out2"
  ck kill "$id2" KILL
  local rc=0
  wait "$fg" || rc=$?
  assert_eq 137 "$rc" "foreground restore's exit status"
  run_rc ck state "$id2"
  [ $rc != 0 ] || fail "foreground restore left the container: $out"
  kdat_cleanup
}

# stdin on the caller's /dev/null (conmon does this): the init reopens the
# container's own /dev/null (runc's reOpenDevNull), which CRIU can dump.
test_checkpoint_stdin_dev_null() {
  setup_ck
  counting_bundle "$T/b"
  local id id2; id=$(new_id); id2=$(new_id)
  ck run -d -b "$T/b" "$id" </dev/null > >(cat >"$T/out") 2>&1 || fail "run: $(cat "$T/out")"
  counts "$T/out"
  local pid; pid=$(state_field "$id" pid)
  [ "$(stat -L -c %d:%i "/proc/$pid/fd/0")" != "$(stat -L -c %d:%i /dev/null)" ] || fail "stdin is still the host's /dev/null"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -3 "$T/img/dump.log")"
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  counts "$T/out2"
  ck delete -f "$id2"
  kdat_cleanup
}

# A pre-dump chain: pre-dump (memory only, the container keeps running),
# then a dump on top of it with --parent-path.  With dirty-memory tracking
# (not on this kernel) it runs for real and the restore goes on counting;
# without, crt's part is checked against a stand-in criu that records its
# arguments (crt only: runc asks criu over RPC).
test_pre_dump_chain() {
  setup_ck
  counting_bundle "$T/b"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  counts "$T/out"
  if "$CK_CRIU" check --feature mem_dirty_track >/dev/null 2>&1; then
    ck checkpoint --pre-dump --image-path "$T/img/1" "$id" || fail "pre-dump: $(tail -3 "$T/img/1/pre-dump.log")"
    assert_eq running "$(state_field "$id" status)" "status after --pre-dump"
    ck checkpoint --parent-path ../1 --image-path "$T/img/2" "$id" || fail "dump: $(tail -3 "$T/img/2/dump.log")"
    local n; n=$(last_line "$T/out")
    restore_piped "$id2" "$T/b" "$T/img/2" "$T/out2" || fail "restore: $(tail -3 "$T/img/2/restore.log")"
    counts "$T/out2"
    assert_eq $((n + 1)) "$(first_line "$T/out2")" "first count after restore from the chain"
    ck delete -f "$id2"
  else
    is_crt || { ck delete -f "$id"; return 0; }
    printf '#!/bin/sh\n[ "$1" = check ] && exit 0\necho "$*" >>"%s/args"\nexit 0\n' "$T" >"$T/criu"
    chmod +x "$T/criu"
    "$CRT_BIN" --root "$CRT_ROOT" --criu "$T/criu" checkpoint --pre-dump --image-path "$T/img/1" "$id" || fail "pre-dump"
    assert_eq running "$(state_field "$id" status)" "status after --pre-dump"
    [ ! -e "$T/img/1/crt-checkpoint.txt" ] || fail "a pre-dump is not a checkpoint to restore from"
    "$CRT_BIN" --root "$CRT_ROOT" --criu "$T/criu" checkpoint --leave-running --parent-path ../1 --image-path "$T/img/2" "$id" ||
      fail "dump on the pre-dump"
    assert_contains "$(sed -n 1p "$T/args")" "pre-dump --tree=$(state_field "$id" pid)"
    assert_contains "$(sed -n 1p "$T/args")" "--images-dir=$T/img/1"
    assert_contains "$(sed -n 1p "$T/args")" "--track-mem"
    assert_not_contains "$(sed -n 1p "$T/args")" "--leave-running"
    assert_contains "$(sed -n 2p "$T/args")" "dump --tree="
    assert_contains "$(sed -n 2p "$T/args")" "--track-mem --prev-images-dir=../1 --leave-running"
    [ -s "$T/img/2/crt-checkpoint.txt" ] || fail "no description written by the dump"
    ck delete -f "$id"
  fi
  kdat_cleanup
}

# cgroup v2 (a private cgroup2 mount: this VM is a v1 hybrid): the
# container's cgroup2 mount is restored from the new container's cgroup
# (no controllers to limit: v1 holds them here).
_v2_checkpoint() {
  setup_ck
  counting_bundle "$T/b"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out"
  counts "$T/out"
  ck checkpoint --image-path "$T/img" "$id" || fail "checkpoint: $(tail -3 "$T/img/dump.log")"
  restore_piped "$id2" "$T/b" "$T/img" "$T/out2" || fail "restore: $(tail -3 "$T/img/restore.log" 2>/dev/null)"
  local pid cg; pid=$(state_field "$id2" pid)
  cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
  # runc 1.1.5 leaves the restored process in the checkpointed container's
  # path on this mixed mount (it passes no root for the unified hierarchy)
  is_crt && assert_contains "$cg" "$id2" "restored process's cgroup"
  grep -q " /sys/fs/cgroup .* - cgroup2 " "/proc/$pid/mountinfo" || fail "no cgroup2 mount in the restored container"
  counts "$T/out2"
  ck delete -f "$id2"
  kdat_cleanup
}
test_checkpoint_cgroup2() { in_cg2 _v2_checkpoint; }
# runc's "checkpoint and restore (with --debug)": the global --debug
# changes nothing but the runtime's own log: both succeed, the debug lines
# go to the runtime's stderr (crt: the criu command line it ran, from
# crt_criu_run), none to the restored process's stdio.
test_checkpoint_debug() {
  setup_ck
  counting_bundle "$T/b"
  local id id2; id=$(new_id); id2=$(new_id)
  run_piped "$id" "$T/b" "$T/out1"
  counts "$T/out1"
  ck --debug checkpoint --image-path "$T/img" "$id" 2>"$T/ck.err" || fail "checkpoint: $(cat "$T/ck.err")"
  assert_contains "$(cat "$T/ck.err")" "level=debug"
  ck --debug restore -d -b "$T/b" --image-path "$T/img" "$id2" 0< <(:) > >(cat >"$T/out2") 2>"$T/rs.err" ||
    fail "restore: $(cat "$T/rs.err")"
  assert_contains "$(cat "$T/rs.err")" "level=debug"
  counts "$T/out2"
  assert_not_contains "$(cat "$T/out2")" "level="
  if is_crt; then
    assert_contains "$(cat "$T/ck.err")" "criu: exec $CK_CRIU dump"
    assert_contains "$(cat "$T/rs.err")" "criu: exec $CK_CRIU restore"
    assert_contains "$(cat "$T/rs.err")" "criu restore: done"
  fi
  ck delete -f "$id2"
  kdat_cleanup
}

