# runtime-spec v1.2 runtime.md: the MUSTs the runtime-tools suite leaves out.
# Each test is named after the section (runtime.md#<section>).

# runtime.md#state: "status" at every step of the lifecycle.  `creating` is
# step 2 (what `state` says while the hooks run); the hooks of steps 3-5 get
# `created` ("after step 2"); then `state` says created, running, stopped.
test_runtime_md_state_status_at_each_step() {
  make_bundle "$T/b" sh -c 'read x'
  local id; id=$(new_id)
  bundle_edit "$T/b" "c['hooks']={'createRuntime':[{'path':'/bin/sh','args':['sh','-c','cat > $T/hook.json; \"$CRT_BIN\" --root \"$CRT_ROOT\" state $id > $T/creating.json']}]}"
  mkfifo "$T/in"
  crt create --bundle "$T/b" "$id" <"$T/in" & local cpid=$!
  exec 7>"$T/in"
  wait $cpid || fail "create"
  python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["status"]=="creating"' "$T/creating.json" || fail "creating: $(cat "$T/creating.json")"
  python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["status"]=="created"' "$T/hook.json" || fail "hook stdin: $(cat "$T/hook.json")"
  assert_eq created "$(state_field "$id" status)" "after create"
  crt start "$id"
  assert_eq running "$(state_field "$id" status)" "after start"
  echo done >&7; exec 7>&-
  wait_for sh -c "\"$CRT_BIN\" --root \"$CRT_ROOT\" state $id | grep -q '\"stopped\"'" || fail "never stopped"
  crt delete "$id"
}

# runtime.md#state: "pid ... as seen by the host".
test_runtime_md_state_pid_is_host_pid() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id"
  local pid; pid=$(state_field "$id" pid)
  [ -d "/proc/$pid" ] || fail "pid $pid is not a host pid"
  assert_eq "1" "$(awk '/^NSpid/{print $NF}' /proc/$pid/status)" "the init is pid 1 inside"
  crt delete -f "$id"
}

# runtime.md#create: "the user-specified program MUST NOT be run at this time"
# and "MUST generate an error if the ID is not unique ... a new container MUST
# not be created".
test_runtime_md_create_does_not_run_program() {
  make_bundle "$T/b" sh -c 'echo ran > /tmp/ran'
  bundle_edit "$T/b" "c['root']['readonly']=False"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id"
  sleep 0.3
  [ ! -e "$T/b/rootfs/tmp/ran" ] || fail "program ran during create"
  local pid; pid=$(state_field "$id" pid)
  run_rc crt create --bundle "$T/b" "$id"
  assert_eq 1 "$rc" "duplicate id"
  assert_eq "$pid" "$(state_field "$id" pid)" "the first container is unchanged"
  crt start "$id"
  wait_for test -e "$T/b/rootfs/tmp/ran" || fail "program did not run at start"
  crt delete -f "$id"
}

# runtime.md#lifecycle step 2: "Any updates to config.json after this step
# MUST NOT affect the container."
test_runtime_md_lifecycle_config_changes_after_create() {
  make_bundle "$T/b" sh -c 'echo first'
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id"
  bundle_edit "$T/b" "c['process']['args']=['sh','-c','echo second']"
  local pid; pid=$(state_field "$id" pid)
  crt start "$id"
  wait_for sh -c "\"$CRT_BIN\" --root \"$CRT_ROOT\" state $id | grep -q '\"stopped\"'"
  crt delete "$id"
  # the process that ran was the one from create time
  [ -n "$pid" ] || fail "no pid"
  out=$(crt run --bundle "$T/b" "$(new_id)")
  assert_eq second "$out" "a new container sees the new config"
}

# runtime.md#kill: "Attempting to send a signal to a container that is
# neither created nor running MUST have no effect on the container and MUST
# generate an error."
test_runtime_md_kill_stopped_no_effect() {
  make_bundle "$T/b" true
  local id; id=$(new_id)
  crt run --keep --bundle "$T/b" "$id"
  local before; before=$(crt state "$id")
  run_rc crt kill "$id" KILL
  assert_eq 1 "$rc" "kill of a stopped container"
  assert_eq "$before" "$(crt state "$id")" "state unchanged"
  crt delete "$id"
}

# runtime.md#kill: a created container can be signalled (it is "created").
test_runtime_md_kill_created() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id"
  crt kill "$id" KILL || fail "kill of a created container"
  wait_for sh -c "\"$CRT_BIN\" --root \"$CRT_ROOT\" state $id | grep -q '\"stopped\"'" || fail "not stopped"
  crt delete "$id"
}

# runtime.md#delete: "Attempting to delete a container that is not stopped
# MUST generate an error" and must have no effect on it.
test_runtime_md_delete_not_stopped() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id"
  local pid; pid=$(state_field "$id" pid)
  run_rc crt delete "$id"
  assert_eq 1 "$rc" "delete of a running container"
  kill -0 "$pid" || fail "the container was affected"
  assert_eq running "$(state_field "$id" status)"
  crt delete -f "$id"
}

# runtime.md#errors: "generating an error MUST leave the state of the
# environment as if the operation were never attempted".
test_runtime_md_errors_leave_no_trace() {
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['mounts'].append({'destination':'/x','type':'nosuchfs','source':'none'})"
  local id; id=$(new_id)
  run_rc crt create --bundle "$T/b" "$id"
  assert_eq 1 "$rc" "create with a bad mount"
  assert_contains "$out" "nosuchfs"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left"
  [ -z "$(find /sys/fs/cgroup -maxdepth 2 -name "$id")" ] || fail "cgroup left"
  ! grep -q "$T/b" /proc/self/mountinfo || fail "mounts left"
}

# runtime.md#lifecycle step 2: "Any updates to config.json after this step
# MUST NOT affect the container."  A poststart hook added to config.json
# after create does not run at start; with config.json gone, start, exec,
# kill, ps and delete (with its poststop hook from the original config)
# still work.  Guards crt_state_save_spec/load_spec (src/container/state.c).
# Passes with CRT_BIN=/usr/sbin/runc.
test_runtime_md_config_fixed_at_create() {
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['hooks']={'poststop':[{'path':'/bin/sh','args':['sh','-c','echo stopped > $T/poststop']}]}"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id" </dev/null || fail "create"
  bundle_edit "$T/b" "c['hooks']['poststart']=[{'path':'/bin/sh','args':['sh','-c','echo ran > $T/poststart']}]; c['process']['args']=['false']"
  crt start "$id" || fail "start after config.json was edited"
  [ ! -e "$T/poststart" ] || fail "a poststart hook added after create ran"
  assert_eq running "$(state_field "$id" status)" "status (the original args: sleep)"
  mv "$T/b/config.json" "$T/b/moved.json"
  run_rc crt exec "$id" echo inside </dev/null
  assert_eq 0 "$rc" "exec without config.json: $out"
  assert_eq inside "$out" "exec output"
  run_rc crt ps "$id"
  assert_eq 0 "$rc" "ps without config.json: $out"
  crt kill "$id" KILL || fail "kill without config.json"
  wait_eval '[ "$(state_field "$id" status)" = stopped ]' || fail "never stopped"
  run_rc crt delete "$id"
  assert_eq 0 "$rc" "delete without config.json: $out"
  assert_eq stopped "$(cat "$T/poststop" 2>/dev/null)" "poststop hook of the original config"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left"
}

# config.md#process: "process (object, OPTIONAL) ... REQUIRED when start is
# called".  create of a config without process succeeds and the container
# is usable (exec); start generates an error and has no effect; delete
# removes it.  runc 1.1.5 refuses such a config at create.  Guards
# validate.c, park_without_process (create.c), crt_container_start.
test_runtime_md_process_optional_until_start() {
  make_bundle "$T/b" true
  bundle_edit "$T/b" "del c['process']"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id" </dev/null >"$T/create.out" 2>&1
  assert_eq 0 "$?" "create without process: $(cat "$T/create.out")"
  assert_eq created "$(state_field "$id" status)" "status after create"
  echo '{"args":["echo","inside"],"env":["PATH=/bin"],"cwd":"/","user":{"uid":0,"gid":0}}' >"$T/p.json"
  run_rc crt exec -p "$T/p.json" "$id"
  assert_eq "0 inside" "$rc $out" "exec --process into it"
  run_rc crt start "$id"
  assert_eq 1 "$rc" "start without process"
  assert_contains "$out" ".process: not set; the runtime-spec requires it at start"
  assert_eq created "$(state_field "$id" status)" "status after the failed start"
  local pid; pid=$(state_field "$id" pid)
  assert_eq "" "$(ls /proc/$pid/fd | grep -vx '[012]')" "fds of the parked init beyond stdio"
  crt delete -f "$id" || fail "delete"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left"
}
