# Lifecycle: create / start / run / state / list / kill / delete.

test_create_start_delete() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt create --bundle "$T/b" --pid-file "$T/pid" "$id" || fail "create"
  assert_eq created "$(state_field "$id" status)" "status after create"
  local pid; pid=$(cat "$T/pid")
  assert_eq "$pid" "$(state_field "$id" pid)" "pid-file"
  # parked: the init is still crt, not sleep
  assert_not_contains "$(readlink /proc/$pid/exe)" busybox "exe before start"
  crt start "$id" || fail "start"
  assert_eq running "$(state_field "$id" status)" "status after start"
  assert_contains "$(readlink /proc/$pid/exe)" busybox "exe after start"
  run_rc crt start "$id"; assert_eq 1 "$rc" "start twice"; assert_contains "$out" "cannot start an already running container"
  run_rc crt delete "$id"; assert_eq 1 "$rc" "delete running"; assert_contains "$out" "not stopped"
  crt kill "$id" KILL || fail "kill"
  wait_for sh -c "[ \"\$(\"$CRT_BIN\" --root \"$CRT_ROOT\" state $id | grep -c stopped)\" = 1 ]" || fail "did not stop"
  run_rc crt kill "$id"; assert_eq 1 "$rc" "kill stopped"; assert_contains "$out" "not running"
  crt delete "$id" || fail "delete"
  run_rc crt state "$id"; assert_eq 1 "$rc" "state after delete"; assert_contains "$out" "does not exist"
  [ ! -d "$CRT_ROOT/$id" ] || fail "state dir left"
}

test_state_json_fields() {
  make_bundle "$T/b"
  bundle_edit "$T/b" "c['annotations']={'org.example.k':'v'}"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id"
  local j; j=$(crt state "$id")
  python3 - "$j" "$id" "$T/b" <<'PY' || fail "state json: $j"
import json, sys, re
s = json.loads(sys.argv[1])
assert s["id"] == sys.argv[2], s
assert s["status"] == "created"
assert s["bundle"] == sys.argv[3], s["bundle"]
assert s["rootfs"] == sys.argv[3] + "/rootfs"
assert s["pid"] > 0
assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$", s["created"]), s["created"]
assert s["ociVersion"].startswith("1.")
assert s["annotations"] == {"org.example.k": "v"}
assert "owner" in s
PY
  crt delete -f "$id"
}

test_run_exit_codes() {
  make_bundle "$T/b" true
  run_rc crt run --bundle "$T/b" "$(new_id)"; assert_eq 0 "$rc" "true"
  bundle_edit "$T/b" "c['process']['args']=['sh','-c','exit 3']"
  run_rc crt run --bundle "$T/b" "$(new_id)"; assert_eq 3 "$rc" "exit 3"
  # PID 1 cannot SIGKILL itself: kill it from outside, run in the foreground.
  bundle_edit "$T/b" "c['process']['args']=['sleep','100']"
  local id; id=$(new_id)
  crt run --bundle "$T/b" "$id" & local bg=$!
  wait_for sh -c "\"$CRT_BIN\" --root \"$CRT_ROOT\" state $id | grep -q running" || fail "not running"
  crt kill "$id" KILL
  wait $bg; rc=$?
  assert_eq 137 "$rc" "SIGKILL"
  [ -z "$(ls "$CRT_ROOT")" ] || fail "run left state: $(ls "$CRT_ROOT")"
}

test_run_output_and_keep() {
  make_bundle "$T/b" sh -c 'echo out; echo err >&2; hostname'
  bundle_edit "$T/b" "c['hostname']='box1'"
  local id; id=$(new_id)
  out=$(crt run --keep --bundle "$T/b" "$id" 2>"$T/err")
  assert_eq "$(printf 'out\nbox1')" "$out" "stdout"
  assert_eq err "$(cat "$T/err")" "stderr"
  assert_eq stopped "$(state_field "$id" status)" "kept container"
  crt delete "$id"
}

test_run_detach() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id" || fail "run -d"
  assert_eq running "$(state_field "$id" status)"
  crt delete --force "$id" || fail "delete --force"
  [ ! -d "$CRT_ROOT/$id" ] || fail "state dir left"
}

# run's delete at the end removes only its own container: when someone
# deleted it (delete -f) and made another under the same id before run got
# to its delete, the new one is left alone.  run is stopped (SIGSTOP) while
# that happens, so the order is certain.  runc 1.1.5's destroy removes the
# state directory by id, whichever container it now holds: crt only.
test_run_delete_leaves_a_container_made_again_under_its_id() {
  is_crt || return 0
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  "$CRT_BIN" --root "$CRT_ROOT" run -b "$T/b" "$id" </dev/null >"$T/run.out" 2>&1 &
  local run=$!
  wait_eval 'test "$(state_field "$id" status)" = running' || fail "run did not start: $(cat "$T/run.out")"
  local first; first=$(state_field "$id" pid)
  kill -STOP "$run"
  crt delete -f "$id" || fail "delete -f while run waits"
  crt create -b "$T/b" "$id" || fail "create again under $id"
  local second; second=$(state_field "$id" pid)
  [ "$first" != "$second" ] || fail "the same init pid $first"
  kill -CONT "$run"
  wait "$run"; local rc=$?
  assert_eq 137 "$rc" "run's exit code (its init was killed): $(cat "$T/run.out")"
  assert_eq created "$(state_field "$id" status)" "the container made again"
  assert_eq "$second" "$(state_field "$id" pid)" "its init"
  crt delete -f "$id" || fail "delete"
}

test_list_formats() {
  make_bundle "$T/b"
  local a b; a=$(new_id); b=$(new_id)
  crt create --bundle "$T/b" "$a"; crt create --bundle "$T/b" "$b"
  local q; q=$(crt list -q | sort)
  assert_eq "$(printf '%s\n%s' "$a" "$b" | sort)" "$q" "list -q"
  assert_contains "$(crt list)" "ID"
  assert_contains "$(crt list)" "created"
  crt list --format json | python3 -c 'import json,sys; l=json.load(sys.stdin); assert len(l)==2 and all(x["status"]=="created" for x in l), l' || fail "list json"
  crt list --format=json >/dev/null || fail "--format=json"
  crt delete -f "$a"; crt delete -f "$b"
}

test_kill_signals() {
  make_bundle "$T/b" sh -c 'trap "echo got-usr1 > /tmp/usr1" USR1; while :; do sleep 0.1; done'
  bundle_edit "$T/b" "c['root']['readonly']=False"
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id"
  sleep 0.3
  crt kill "$id" SIGUSR1 || fail "kill SIGUSR1"
  wait_for test -f "$T/b/rootfs/tmp/usr1" || fail "USR1 not delivered"
  crt kill "$id" USR1 || fail "kill USR1 (no SIG prefix)"
  crt kill "$id" 10 || fail "kill 10"
  run_rc crt kill "$id" NOSUCH; assert_eq 1 "$rc" "bad signal"; assert_contains "$out" "unknown signal"
  crt kill --all "$id" KILL || fail "kill --all"
  wait_for sh -c "\"$CRT_BIN\" --root \"$CRT_ROOT\" state $id | grep -q stopped" || fail "not stopped"
  crt delete "$id"
}

test_delete_created_and_force_unknown() {
  make_bundle "$T/b"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id"
  local pid; pid=$(state_field "$id" pid)
  # as runc and crun (docs/spec-conformance.md): a plain delete kills the
  # parked init and deletes the created container
  run_rc crt delete "$id"; assert_eq 0 "$rc" "delete of a created container: $out"
  wait_for sh -c "! kill -0 $pid 2>/dev/null || grep -q '^State:.*Z' /proc/$pid/status" || fail "init $pid still alive"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left"
  crt create --bundle "$T/b" "$id" || fail "create again"
  pid=$(state_field "$id" pid)
  crt delete --force "$id" || fail "delete --force of a created container"
  wait_for sh -c "! kill -0 $pid 2>/dev/null || grep -q '^State:.*Z' /proc/$pid/status" || fail "init $pid still alive"
  run_rc crt delete nosuch-$$; assert_eq 1 "$rc" "delete unknown"; assert_contains "$out" "does not exist"
  run_rc crt delete --force nosuch-$$; assert_eq 0 "$rc" "delete --force unknown"
}

test_duplicate_and_bad_ids() {
  make_bundle "$T/b"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id"
  run_rc crt create --bundle "$T/b" "$id"; assert_eq 1 "$rc"; assert_contains "$out" "container with given ID already exists" # runc >= 1.1's text
  is_crt && assert_contains "$out" "create $id: "
  crt delete -f "$id"
  for bad in "a/b" ".." "x y" "a*b"; do
    run_rc crt create --bundle "$T/b" "$bad"; assert_eq 1 "$rc" "id '$bad'"; assert_contains "$out" "invalid container ID format"
  done
  [ -z "$(ls "$CRT_ROOT")" ] || fail "left: $(ls "$CRT_ROOT")"
}

test_missing_bundle_rootfs_binary() {
  run_rc crt create --bundle "$T/nope" x1; assert_eq 1 "$rc"
  if is_crt; then assert_contains "$out" "$T/nope/config.json"; else assert_contains "$out" "$T/nope: no such file or directory"; fi
  make_bundle "$T/b" nosuchbinary
  run_rc crt create --bundle "$T/b" x2; assert_eq 1 "$rc"
  assert_contains "$out" 'exec: "nosuchbinary": executable file not found in $PATH'
  rm -rf "$T/b/rootfs"
  run_rc crt create --bundle "$T/b" x3; assert_eq 1 "$rc"; assert_contains "$out" "rootfs"
  [ -z "$(ls "$CRT_ROOT" 2>/dev/null)" ] || fail "state left: $(ls "$CRT_ROOT")"
  ! grep -q "$T/b" /proc/self/mountinfo || fail "mounts left"
}

# runc's init resolves process.args[0] and checks that the process's user
# may execute it before it waits on the exec FIFO, so a program that cannot
# run fails `create` (exit 1) and leaves no container; the words are Go's
# (exec.LookPath), which Docker maps to exit codes 127 and 126.
test_program_checked_at_create() {
  make_bundle "$T/b"
  mkdir -p "$T/b/rootfs/adir" "$T/b/rootfs/bin/adir"
  printf 'echo hi\n' >"$T/b/rootfs/plain"; chmod 644 "$T/b/rootfs/plain"
  printf '#!/bin/sh\necho hi\n' >"$T/b/rootfs/rootonly"; chmod 744 "$T/b/rootfs/rootonly"
  local c args uid want id
  for c in '["/x"]|0|exec: "/x": stat /x: no such file or directory' \
    '["nosuch"]|0|exec: "nosuch": executable file not found in $PATH' \
    '["/adir"]|0|exec: "/adir": is a directory' \
    '["adir"]|0|exec: "adir": executable file not found in $PATH' \
    '["/plain"]|0|exec: "/plain": permission denied' \
    '["/rootonly"]|1000|exec: "/rootonly": permission denied' \
    '["/plain/x"]|0|exec: "/plain/x": stat /plain/x: not a directory' \
    '[""]|0|exec: "": executable file not found in $PATH'; do
    IFS='|' read -r args uid want <<<"$c"
    # runc 1.1.5 (Go < 1.20): a directory is EACCES; LookPath checks only
    # the mode bits and runc's own eaccess words the user's refusal
    if runc_before_1_2; then
      want=${want/is a directory/permission denied}
      [ "$uid" = 0 ] || want='exec /rootonly: permission denied'
    fi
    bundle_edit "$T/b" "c['process']['args']=$args; c['process']['user']={'uid':$uid,'gid':$uid}"
    id=$(new_id)
    # not $(...): a create that wrongly succeeds leaves the init holding the pipe
    crt create --bundle "$T/b" "$id" </dev/null >"$T/create.out" 2>&1; rc=$?
    out=$(cat "$T/create.out")
    crt delete -f "$id" >/dev/null 2>&1
    assert_eq 1 "$rc" "create of $args as uid $uid: $out"
    assert_contains "$out" "$want" "create of $args as uid $uid"
  done
  # what the process's user may run is found and run
  bundle_edit "$T/b" "c['process']['args']=['/rootonly']; c['process']['user']={'uid':0,'gid':0}"
  run_rc crt run --bundle "$T/b" "$(new_id)" </dev/null
  assert_eq "0 hi" "$rc $out" "root runs a mode 0744 script"
  [ -z "$(ls "$CRT_ROOT" 2>/dev/null)" ] || fail "state left: $(ls "$CRT_ROOT")"
}

# The process's PATH and nothing else, as Go's exec.LookPath: no PATH finds
# nothing, and a program found through a relative entry is refused.
test_program_path_lookup() {
  make_bundle "$T/b" sh -c true
  local c envpath cwd want
  for c in 'None|/|exec: "sh": executable file not found in $PATH' \
    "'.'|/bin|exec: \"sh\": cannot run executable found relative to current directory" \
    "'bin'|/|exec: \"sh\": cannot run executable found relative to current directory"; do
    IFS='|' read -r envpath cwd want <<<"$c"
    bundle_edit "$T/b" "q=c['process']; q['cwd']='$cwd'; q['env']=[e for e in q['env'] if not e.startswith('PATH=')] + ([] if $envpath is None else ['PATH='+$envpath])"
    run_rc crt run --bundle "$T/b" "$(new_id)" </dev/null
    assert_eq 1 "$rc" "PATH $envpath: $out"
    assert_contains "$out" "$want" "PATH $envpath"
  done
  bundle_edit "$T/b" "c['process']['env'].append('PATH=/nowhere::/bin')"
  run_rc crt run --bundle "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "PATH=/nowhere::/bin from /: $out"
}

# A program that passes the check but that execve refuses fails at start,
# in Go's words (runc's run.bats "[execve error]").
test_execve_error_words() {
  make_bundle "$T/b" /run.sh
  printf '#!/mmnnttbb foo bar\nsh\n' >"$T/b/rootfs/run.sh"; chmod +x "$T/b/rootfs/run.sh"
  run_rc crt run --bundle "$T/b" "$(new_id)" </dev/null
  assert_ne 0 "$rc" "run of a script whose interpreter is missing"
  assert_contains "$out" "exec /run.sh: no such file or directory"
}

test_exits_on_its_own() {
  make_bundle "$T/b" sh -c 'sleep 0.2'
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id"
  wait_for sh -c "\"$CRT_BIN\" --root \"$CRT_ROOT\" state $id | grep -q stopped" || fail "never stopped"
  assert_eq 0 "$(state_field "$id" pid)" "pid of stopped"
  crt delete "$id" || fail "delete stopped"
}

test_json_log_format() {
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --log "$T/log.json" --log-format json start nosuch
  assert_eq 1 "$rc"
  python3 -c 'import json,sys; l=[json.loads(x) for x in open(sys.argv[1])]; assert l[-1]["level"]=="error" and "does not exist" in l[-1]["msg"] and l[-1]["time"], l' "$T/log.json" || fail "log: $(cat "$T/log.json")"
  run_rc "$CRT_BIN" --root "$CRT_ROOT" --log="$T/log2.json" --log-format=json start nosuch
  [ -s "$T/log2.json" ] || fail "= form of flags"
}

test_cli_surface() {
  run_rc "$CRT_BIN" --version; assert_eq 0 "$rc"; assert_contains "$out" "libseccomp"
  if is_crt; then assert_contains "$out" "crt version"; assert_contains "$out" "spec: 1.3.0"; else assert_contains "$out" "runc version"; fi
  run_rc crt create --bogus x; assert_eq 1 "$rc"; assert_contains "$out" "flag provided but not defined: -bogus"
  run_rc crt create; assert_eq 1 "$rc"; assert_contains "$out" "requires"
  run_rc crt create --bundle; assert_eq 1 "$rc"; assert_contains "$out" "flag needs an argument: -bundle" # Go's flag names, as runc
  run_rc crt nosuchcmd; assert_eq 3 "$rc" "unknown command (runc: 3)"; assert_contains "$out" "No help topic for 'nosuchcmd'"
  for c in create start run state list kill delete exec spec features pause resume update events ps; do
    run_rc crt "$c" --help; assert_eq 0 "$rc" "$c --help"
  done
}

test_no_pivot() {
  make_bundle "$T/b" sh -c 'cat /proc/self/mountinfo | wc -l'
  run_rc crt run --no-pivot --bundle "$T/b" "$(new_id)"
  assert_eq 0 "$rc" "no-pivot run: $out"
}

test_preserve_fds() {
  make_bundle "$T/b" sh -c 'cat <&3'
  echo preserved > "$T/f"
  out=$(crt run --preserve-fds 1 --bundle "$T/b" "$(new_id)" 3<"$T/f")
  assert_eq preserved "$out"
  make_bundle "$T/b2" ls /proc/self/fd
  out=$(crt run --bundle "$T/b2" "$(new_id)" 3<"$T/f" 4<"$T/f" | tr '\n' ' ')
  assert_eq "0 1 2 3 " "$out" "fds without --preserve-fds (3 is ls's own)"
}

test_corrupt_state_delete_force_cleans_up() {
  make_bundle "$T/b"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id"
  local pid; pid=$(state_field "$id" pid)
  printf '{"trunc' > "$CRT_ROOT/$id/state.json"
  run_rc crt state "$id"; assert_eq 1 "$rc"
  if runc_before_1_2; then
    echo "runc 1.1.5: state says \"unexpected EOF\", and delete --force of the container fails: not asserted"
    "$CRT_BIN" --root "$CRT_ROOT" kill "$id" KILL 2>/dev/null; kill -9 "$pid" 2>/dev/null; return 0
  fi
  assert_contains "$out" "corrupt state file"
  crt delete --force "$id" || fail "delete --force"
  [ ! -d "$CRT_ROOT/$id" ] || fail "state dir left"
  wait_for sh -c "! kill -0 $pid 2>/dev/null || grep -q '^State:.*Z' /proc/$pid/status" || fail "init $pid left running"
  [ -z "$(find /sys/fs/cgroup -maxdepth 2 -name "$id")" ] || fail "cgroups left: $(find /sys/fs/cgroup -maxdepth 2 -name "$id")"
}
