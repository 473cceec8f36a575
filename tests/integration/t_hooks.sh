# Hooks exactly where runtime-spec v1.2 puts them.

# add_hook BUNDLE KIND SCRIPT [TIMEOUT]: appends a /bin/sh -c SCRIPT hook
add_hook() {
  local to=${4:-}
  bundle_edit "$1" "h=c.setdefault('hooks',{}).setdefault('$2',[]); d={'path':'/bin/sh','args':['sh','-c',r'''$3''']}
if '$to': d['timeout']=int('$to')
h.append(d)"
}

test_poststart_runs_in_start_after_exec() {
  make_bundle "$T/b" sleep 100
  add_hook "$T/b" poststart "cat > $T/ps.json; pid=\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"pid\"])' $T/ps.json); readlink /proc/\$pid/exe > $T/exe; sleep 2"
  local id; id=$(new_id)
  local t0 t1 t2
  t0=$(date +%s%N); crt create --bundle "$T/b" "$id" || fail create; t1=$(date +%s%N)
  [ ! -e "$T/ps.json" ] || fail "poststart ran during create"
  crt start "$id" || fail start; t2=$(date +%s%N)
  [ $(( (t1 - t0) / 1000000 )) -lt 1000 ] || fail "create took $(( (t1 - t0) / 1000000 )) ms"
  [ $(( (t2 - t1) / 1000000 )) -ge 2000 ] || fail "start took only $(( (t2 - t1) / 1000000 )) ms"
  assert_contains "$(cat "$T/exe")" busybox "poststart saw the user program"
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["status"]=="running", s' "$T/ps.json" || fail "poststart state: $(cat "$T/ps.json")"
  crt delete -f "$id"
}

test_hook_namespaces_and_status() {
  make_bundle "$T/b" sleep 100
  add_hook "$T/b" prestart "cat > $T/pre.json; readlink /proc/self/ns/mnt > $T/pre.ns"
  add_hook "$T/b" createRuntime "cat > $T/cr.json; readlink /proc/self/ns/mnt > $T/cr.ns"
  add_hook "$T/b" createContainer "cat > $T/cc.json; readlink /proc/self/ns/mnt > $T/cc.ns; hostname > $T/cc.host"
  add_hook "$T/b" startContainer "cat > /tmp/sc.json; readlink /proc/self/ns/mnt > /tmp/sc.ns"
  add_hook "$T/b" poststop "cat > $T/stop.json"
  bundle_edit "$T/b" "c['root']['readonly']=False; c['hostname']='hooked'"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id" || fail create
  local pid; pid=$(state_field "$id" pid)
  local host_ns; host_ns=$(readlink /proc/self/ns/mnt)
  assert_eq "$host_ns" "$(cat "$T/pre.ns")" "prestart in the runtime's mount ns"
  assert_eq "$host_ns" "$(cat "$T/cr.ns")" "createRuntime in the runtime's mount ns"
  assert_eq "$(readlink /proc/$pid/ns/mnt)" "$(cat "$T/cc.ns")" "createContainer in the container's mount ns"
  assert_eq hooked "$(cat "$T/cc.host")" "createContainer sees the container's hostname"
  [ ! -e "$T/b/rootfs/tmp/sc.json" ] || fail "startContainer ran in create"
  for f in pre cr cc; do
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["status"]=="created" and s["pid"]>0, s' "$T/$f.json" || fail "$f state"
  done
  crt start "$id"
  assert_eq "$(readlink /proc/$pid/ns/mnt)" "$(cat "$T/b/rootfs/tmp/sc.ns")" "startContainer in the container"
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["status"]=="created", s' "$T/b/rootfs/tmp/sc.json" || fail "startContainer state"
  crt delete -f "$id"
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["status"]=="stopped", s' "$T/stop.json" || fail "poststop state"
}

test_sysctl_before_prestart_hooks() {
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['linux']['sysctl']={'net.ipv4.ip_forward':'1'}"
  add_hook "$T/b" prestart "pid=\$(python3 -c 'import json,sys; print(json.load(sys.stdin)[\"pid\"])'); nsenter --net=/proc/\$pid/ns/net cat /proc/sys/net/ipv4/ip_forward > $T/fwd"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id" || fail create
  assert_eq 1 "$(cat "$T/fwd")" "sysctl seen by prestart hook"
  crt delete -f "$id"
}

test_failing_create_hooks_tear_down() {
  local kind
  for kind in prestart createRuntime createContainer; do
    make_bundle "$T/b-$kind" sleep 100
    add_hook "$T/b-$kind" "$kind" "echo hook-says-no >&2; exit 3"
    local id; id=$(new_id)
    run_rc crt create --bundle "$T/b-$kind" "$id"
    assert_eq 1 "$rc" "$kind failure"
    assert_contains "$out" "$kind hook"
    assert_contains "$out" "hook-says-no"
    [ ! -d "$CRT_ROOT/$id" ] || fail "$kind: state dir left"
    [ ! -d "/sys/fs/cgroup/pids/$id" ] || fail "$kind: cgroup left"
    ! grep -q "$T/b-$kind" /proc/self/mountinfo || fail "$kind: mounts left"
  done
}

# runtime.md lifecycle (v1.3) steps 3-5, 7 and 9: a failing prestart,
# createRuntime, createContainer, startContainer or poststart hook makes the
# operation fail; the container is stopped and destroyed (step 12) and the
# poststop hooks run (step 13).  Guards undo_create (create.c) and
# stop_and_destroy (lifecycle.c).
test_failing_hooks_destroy_and_run_poststop() {
  local kind
  for kind in prestart createRuntime createContainer startContainer poststart; do
    make_bundle "$T/b-$kind" sleep 100
    add_hook "$T/b-$kind" "$kind" "exit 4"
    add_hook "$T/b-$kind" poststop "cat > $T/poststop-$kind"
    local id; id=$(new_id)
    case $kind in
      startContainer|poststart)
        crt create --bundle "$T/b-$kind" "$id" || fail "$kind create"
        run_rc crt start "$id" ;;
      *) run_rc crt create --bundle "$T/b-$kind" "$id" ;;
    esac
    assert_eq 1 "$rc" "$kind failure fails the operation: $out"
    assert_contains "$out" "$kind hook"
    run_rc crt state "$id"
    assert_eq 1 "$rc" "$kind: the container is destroyed: $out"
    [ ! -d "$CRT_ROOT/$id" ] || fail "$kind: state dir left"
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["status"]=="stopped" and s["id"]==sys.argv[2], s' \
      "$T/poststop-$kind" "$id" || fail "$kind: poststop hook did not run with the stopped state: $(cat "$T/poststop-$kind" 2>&1)"
  done
}

# config.md / runtime.md state "pid": for hooks run in the container's
# namespaces (createContainer, startContainer) the pid as seen by the
# container (1 in a new pid namespace; runc passes 1 too); for the others
# the host's.  Guards container_view_json (create.c).
test_hook_state_pid_as_seen_by_the_hook() {
  make_bundle "$T/b" sleep 100
  local kind
  for kind in createRuntime createContainer startContainer poststart; do
    add_hook "$T/b" "$kind" "cat > /tmp/$kind.json"
  done
  bundle_edit "$T/b" "c['root']['readonly']=False"
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id" || fail "create"
  crt start "$id" || fail "start"
  local pid; pid=$(state_field "$id" pid)
  local want
  for kind in createRuntime createContainer startContainer poststart; do
    # createContainer runs before pivot_root: /tmp is still the host's
    case $kind in createContainer) want=1 f=/tmp/$kind.json ;; startContainer) want=1 f=$T/b/rootfs/tmp/$kind.json ;;
      *) want=$pid f=/tmp/$kind.json ;; esac
    assert_eq "$want" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$f")" "$kind state pid"
  done
  rm -f /tmp/createRuntime.json /tmp/createContainer.json /tmp/poststart.json
  crt delete -f "$id"
}

test_failing_poststop_is_a_warning() {
  make_bundle "$T/b" true
  add_hook "$T/b" poststop "exit 9"
  add_hook "$T/b" poststop "echo second-ran > $T/second"
  local id; id=$(new_id)
  crt run --keep --bundle "$T/b" "$id"
  run_rc crt delete "$id"
  assert_eq 0 "$rc" "delete succeeds"
  assert_contains "$out" "poststop"
  assert_eq second-ran "$(cat "$T/second" 2>/dev/null)" "the remaining poststop hooks run"
  [ ! -d "$CRT_ROOT/$id" ] || fail "state dir left"
}

test_hook_timeout_kills() {
  make_bundle "$T/b" sleep 100
  # a duration no other process uses, so that pgrep finds only this hook
  local nap=30.$$$RANDOM
  add_hook "$T/b" createRuntime "sleep $nap" 1
  local id; id=$(new_id)
  local t0; t0=$(date +%s)
  run_rc crt create --bundle "$T/b" "$id"
  assert_eq 1 "$rc"; assert_contains "$out" "timeout"
  [ $(( $(date +%s) - t0 )) -lt 5 ] || fail "timeout not enforced"
  # SIGKILLed with its process group (sh forks the sleep): gone within
  # moments, long before the 30 s it would sleep
  wait_eval '! pgrep -f "sleep $nap"' || fail "hook not killed: $(pgrep -af "sleep $nap")"
}

test_hook_args_and_env() {
  make_bundle "$T/b" true
  bundle_edit "$T/b" "c['hooks']={'poststart':[{'path':'/bin/sh','args':['custom-argv0','-c','echo \$0 \$HOOKVAR > $T/args'],'env':['HOOKVAR=v1']}]}"
  crt run --bundle "$T/b" "$(new_id)"
  assert_eq "custom-argv0 v1" "$(cat "$T/args")"
}

# Guards status_error (src/container/hooks.c) with runc's seccomp.bats
# "runc run [seccomp] (startContainer hook)": the hook runs under the
# container's seccomp filter, is killed by it, and the error says so in
# runc 1.3.6's words.
test_start_container_hook_under_seccomp() {
  make_bundle "$T/b" /bin/true
  bundle_edit "$T/b" "c['linux']['seccomp']={'defaultAction':'SCMP_ACT_ALLOW','architectures':['SCMP_ARCH_X86','SCMP_ARCH_X32','SCMP_ARCH_X86_64'],'syscalls':[{'names':['mkdir','mkdirat'],'action':'SCMP_ACT_KILL'}]}; c['hooks']={'startContainer':[{'path':'/bin/sh','args':['sh','-c','mkdir /dev/shm/foo']}]}"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  [ "$rc" != 0 ] || fail "run with a startContainer hook killed by seccomp succeeded: $out"
  if runc_before_1_2; then assert_contains "$out" "error running hook"; else
    assert_contains "$out" "error running startContainer hook #0: signal: bad system call, stdout: , stderr: "
  fi
}
