# Real containers on cgroup v2.  This VM is a v1 hybrid, so each test body
# runs in a private mount namespace whose /sys/fs/cgroup is a fresh cgroup2
# mount (the host's unified hierarchy; its only controller here is hugetlb,
# so limits are covered by the unit tests against a prepared tree).  What is
# real: clone3(CLONE_INTO_CGROUP) for create and exec, with the fallback to a
# cgroup.procs write, cgroup namespaces, cgroup.freeze, cgroup.kill, the
# eBPF device filter, and removal on delete.

cg2_line() { sed -n 's/^0:://p' "/proc/$1/cgroup"; }

# A clone3 with CLONE_INTO_CGROUP that succeeded (strace_result follows a
# call that strace -f split in two).
cloned_into_cgroup() {
  local r; r=$(strace_result "$1" 'clone3[(].*CLONE_INTO_CGROUP')
  [ -n "$r" ] && [ "$r" -gt 0 ]
}

_v2_create_exec() {
  [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || fail "not cgroup2"
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  # hugetlb is the one v2 controller here: its limit must be written into
  # the cgroup made before the clone, before the init runs anything
  bundle_edit "$T/b" "c['linux']['resources']={'hugepageLimits':[{'pageSize':'2MB','limit':4194304}]}"
  # strace shows how the init got there: born in the cgroup, no migration
  # (the parent clones the init: no -f, which would wait for the parked init)
  strace -qq -e trace=clone3,openat -o "$T/create.trace" "$CRT_BIN" --root "$CRT_ROOT" create -b "$T/b" "$id" \
    || fail "create"
  cloned_into_cgroup "$T/create.trace" || fail "create did not clone into the cgroup: $(grep clone3 "$T/create.trace")"
  ! grep -q "cgroup.procs\", O_WRONLY" "$T/create.trace" || fail "create also wrote cgroup.procs"
  local pid; pid=$(state_field "$id" pid)
  assert_eq "/$id" "$(cg2_line "$pid")" "init's cgroup"
  assert_eq 4194304 "$(cat "/sys/fs/cgroup/$id/hugetlb.2MB.max")" "hugetlb limit"
  assert_eq "/$id" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cgroup_path"])' "$CRT_ROOT/$id/state.json")"
  crt start "$id" || fail "start"
  strace -f -qq -e trace=clone3,openat -o "$T/exec.trace" "$CRT_BIN" --root "$CRT_ROOT" exec "$id" true || fail "exec"
  cloned_into_cgroup "$T/exec.trace" || fail "exec did not clone into the cgroup: $(grep clone3 "$T/exec.trace")"
  ! grep -q "cgroup.procs\", O_WRONLY" "$T/exec.trace" || fail "exec also wrote cgroup.procs"
  crt exec -d --pid-file "$T/e.pid" "$id" sleep 50 || fail "exec -d"
  assert_eq "/$id" "$(cg2_line "$(cat "$T/e.pid")")" "exec'd process's cgroup"
  run_rc crt exec "$id" sh -c 'exit 7'; assert_eq 7 "$rc" "exec exit status"
  run_rc crt exec "$id" nosuch; assert_eq 255 "$rc"; assert_contains "$out" 'executable file not found'
  # exec --cgroup: a sub-cgroup the caller made
  mkdir "/sys/fs/cgroup/$id/sub" || fail "mkdir sub"
  crt exec -d --pid-file "$T/s.pid" --cgroup sub "$id" sleep 50 || fail "exec --cgroup sub"
  assert_eq "/$id/sub" "$(cg2_line "$(cat "$T/s.pid")")" "exec --cgroup"
  crt delete -f "$id" || fail "delete -f"
  [ ! -d "/sys/fs/cgroup/$id" ] || fail "cgroup left after delete"
}
test_v2_create_and_exec_born_in_cgroup() { in_cg2 _v2_create_exec; }

_v2_cgroupns() {
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  # crt spec on v2 gives one already (as runc's)
  bundle_edit "$T/b" "c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!='cgroup']+[{'type':'cgroup'}]"
  crt run -d -b "$T/b" "$id" || fail "run"
  local pid; pid=$(state_field "$id" pid)
  assert_eq "/$id" "$(cg2_line "$pid")" "init's cgroup seen from the host"
  run_rc crt exec "$id" cat /proc/self/cgroup; assert_eq 0 "$rc" "$out"
  assert_eq "0::/" "$(echo "$out" | grep '^0::')" "inside the cgroup namespace"
  crt exec -d --pid-file "$T/e.pid" "$id" sleep 50 || fail "exec -d"
  local e; e=$(cat "$T/e.pid")
  assert_eq "$(readlink "/proc/$pid/ns/cgroup")" "$(readlink "/proc/$e/ns/cgroup")" "exec joined the cgroup namespace"
  assert_eq "/$id" "$(cg2_line "$e")"
  crt delete -f "$id" || fail "delete -f"
  [ ! -d "/sys/fs/cgroup/$id" ] || fail "cgroup left after delete"
}
test_v2_cgroup_namespace() { in_cg2 _v2_cgroupns; }

_v2_userns_exec() {
  # the exec'd process clones from inside the container's user namespace,
  # where the host's cgroup.procs is not writable: crt falls back to moving it
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  chown -R 100000:100000 "$T/b/rootfs"
  chmod 0755 "$CRT_TEST_WORK" "$T" # the container's root (uid 100000) walks to the bundle
  bundle_edit "$T/b" "c['linux']['namespaces'].append({'type':'user'}); c['linux']['uidMappings']=[{'containerID':0,'hostID':100000,'size':65536}]; c['linux']['gidMappings']=[{'containerID':0,'hostID':100000,'size':65536}]; c['mounts']=[m for m in c['mounts'] if m['destination'] not in ('/sys','/sys/fs/cgroup')]"
  crt run -d -b "$T/b" "$id" || fail "run"
  local pid; pid=$(state_field "$id" pid)
  assert_eq "/$id" "$(cg2_line "$pid")" "init's cgroup"
  crt exec -d --pid-file "$T/e.pid" "$id" sleep 50 || fail "exec -d"
  assert_eq "/$id" "$(cg2_line "$(cat "$T/e.pid")")" "exec'd process's cgroup"
  crt delete -f "$id" || fail "delete -f"
  [ ! -d "/sys/fs/cgroup/$id" ] || fail "cgroup left after delete"
}
test_v2_userns_exec_falls_back() { in_cg2 _v2_userns_exec; }

_v2_freeze_kill() {
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  crt run -d -b "$T/b" "$id" || fail "run"
  crt pause "$id" || fail "pause"
  assert_eq 1 "$(cat "/sys/fs/cgroup/$id/cgroup.freeze")" "cgroup.freeze"
  assert_eq paused "$(state_field "$id" status)"
  crt resume "$id" || fail "resume"
  assert_eq running "$(state_field "$id" status)"
  crt exec -d "$id" sleep 60 || fail "exec"
  assert_eq 2 "$(wc -l <"/sys/fs/cgroup/$id/cgroup.procs")" "two processes in the cgroup"
  crt kill --all "$id" KILL || fail "kill --all"
  wait_eval 'test "$(state_field "$id" status)" = stopped' || fail "not stopped after kill --all"
  wait_eval 'test ! -s "/sys/fs/cgroup/$id/cgroup.procs"' || fail "processes left"
  crt delete "$id" || fail "delete"
  [ ! -d "/sys/fs/cgroup/$id" ] || fail "cgroup left after delete"
}
test_v2_freeze_and_kill_all() { in_cg2 _v2_freeze_kill; }

_v2_devices() {
  local id; id=$(new_id)
  make_bundle "$T/b" sh -c 'mknod /tmp/sda b 8 0 && { head -c1 /tmp/sda; echo "rc=$?"; }; head -c1 /dev/zero | wc -c'
  bundle_edit "$T/b" "c['root']['readonly']=False; [c['process']['capabilities'][k].append('CAP_MKNOD') for k in ('bounding','effective','permitted')]"
  run_rc crt run -b "$T/b" "$id"
  assert_eq 0 "$rc" "$out"
  assert_contains "$out" "Operation not permitted" "eBPF filter denies an unlisted block device"
  assert_contains "$out" "rc=1"
  assert_contains "$out" "1" "/dev/zero allowed"
  [ ! -d "/sys/fs/cgroup/$id" ] || fail "cgroup left after run"
}
test_v2_device_filter() { in_cg2 _v2_devices; }

_v2_update_devices() {
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['root']['readonly']=False; [c['process']['capabilities'][k].append('CAP_MKNOD') for k in ('bounding','effective','permitted')]"
  crt run -d -b "$T/b" "$id" || fail "run"
  crt exec "$id" mknod /tmp/sda b 8 0 || fail "mknod"
  run_rc crt exec "$id" head -c1 /tmp/sda
  assert_contains "$out" "Operation not permitted" "denied before the update"
  echo '{"devices":[{"allow":true,"type":"b","major":8,"minor":0,"access":"r"}]}' | crt update -r - "$id" ||
    fail "update devices"
  run_rc crt exec "$id" head -c1 /tmp/sda
  assert_not_contains "$out" "Operation not permitted" "allowed after the update (the VM has no 8:0: ENXIO)"
  assert_eq 1 "$(crt exec "$id" sh -c 'head -c1 /dev/zero | wc -c')" "/dev/zero still allowed"
  crt delete -f "$id" || fail "delete"
}
test_v2_update_devices() { in_cg2 _v2_update_devices; }

# Guards (v2, eBPF): a linux.devices node (/dev/kmsg) gets no allow rule when
# linux.resources.devices denies all; writing it fails with EPERM.
_v2_linux_devices_no_rule() {
  local id; id=$(new_id)
  make_bundle "$T/b" sh -c 'echo crt-test-device-rule >/dev/kmsg; echo "kmsg=$?"; head -c1 /dev/zero | wc -c'
  bundle_edit "$T/b" "c['linux']['devices']=[{'path':'/dev/kmsg','type':'c','major':1,'minor':11,'fileMode':0o644,'uid':0,'gid':0}]; c['linux']['resources']={'devices':[{'allow':False,'access':'rwm'}]}"
  run_rc crt run -b "$T/b" "$id"
  assert_eq 0 "$rc" "run: $out"
  assert_contains "$out" "Operation not permitted" "/dev/kmsg denied by the eBPF filter"
  assert_contains "$out" "kmsg=1"
  assert_eq 1 "$(echo "$out" | tail -1)" "/dev/zero still allowed"
}
test_v2_linux_devices_get_no_cgroup_rule() { in_cg2 _v2_linux_devices_no_rule; }

# Guards (v2, eBPF): `update` with a deny-all rule denies the default devices too.
_v2_update_deny_all() {
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run"
  assert_eq 1 "$(crt exec "$id" sh -c 'head -c1 /dev/zero | wc -c')" "/dev/zero before the update"
  echo '{"devices":[{"allow":false,"access":"rwm"}]}' | crt update -r - "$id" || fail "update devices"
  run_rc crt exec "$id" sh -c 'head -c1 /dev/zero; echo "zero=$?"'
  assert_contains "$out" "Operation not permitted" "/dev/zero denied after the update"
  assert_contains "$out" "zero=1"
  crt delete -f "$id" || fail "delete"
}
test_v2_update_devices_deny_all() { in_cg2 _v2_update_deny_all; }

# cgroups.bats "runc exec (cgroup v2 + init process in non-root cgroup)
# succeeds": the init moves to a sub-cgroup and a domain controller
# (hugetlb, the one here) is enabled in the container's cgroup, which then
# refuses processes (EBUSY).  An exec joins the init's cgroup instead; an
# exec --cgroup / asks for the container's own and fails in runc's words.
# Passes with runc 1.3.6.
_v2_exec_init_in_sub_cgroup() {
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!='cgroup']+[{'type':'cgroup'}]"
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run"
  local pid; pid=$(state_field "$id" pid) cg=/sys/fs/cgroup/$id
  mkdir "$cg/foobar" && echo "$pid" >"$cg/foobar/cgroup.procs" || fail "move the init to foobar"
  run_rc crt exec "$id" grep ^0:: /proc/self/cgroup
  assert_eq 0 "$rc" "exec before a controller is enabled: $out"; assert_eq "0::/" "$out" "no controller yet: the container's cgroup"
  echo +hugetlb >"$cg/cgroup.subtree_control" || fail "enable hugetlb in $cg"
  run_rc crt exec "$id" grep ^0:: /proc/self/cgroup
  assert_eq 0 "$rc" "exec with hugetlb enabled: $out"; assert_eq "0::/foobar" "$out" "the init's cgroup"
  run_rc crt exec --cgroup / "$id" true
  assert_ne 0 "$rc" "exec --cgroup / into a cgroup that refuses processes"
  assert_contains "$out" " adding pid "; assert_contains "$out" " to cgroups"; assert_contains "$out" "evice or resource busy"
  run_rc crt exec --cgroup foobar "$id" grep ^0:: /proc/self/cgroup
  assert_eq 0 "$rc" "exec --cgroup foobar: $out"; assert_eq "0::/foobar" "$out"
  crt delete -f "$id" || fail "delete -f"
  [ ! -d "$cg" ] || fail "cgroup left after delete"
}
test_v2_exec_init_in_sub_cgroup() { in_cg2 _v2_exec_init_in_sub_cgroup; }

# No cgroupsPath, run from a cgroup that holds processes (a service's, a
# login session's): the container's cgroup is made beside it, under its
# parent (runc's fs2 driver), not inside it, where v2's "no internal
# processes" rule refuses it once a controller is enabled there
# (ps.bats with the cgroupfs driver on systemd).  Passes with runc 1.3.6.
_v2_default_path_parent() {
  local id; id=$(new_id) svc=/sys/fs/cgroup/$(new_id)-svc
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['linux'].pop('cgroupsPath', None); c['linux']['resources']={'hugepageLimits':[{'pageSize':'2MB','limit':4194304}]}"
  mkdir -p "$svc/inner" || fail "mkdir $svc"
  # also when an assertion fails (the old code made the container inside)
  trap 'crt delete -f "$id" >/dev/null 2>&1; find "$svc" -depth -type d -exec rmdir {} + 2>/dev/null' EXIT
  # the caller's cgroup: a shell (the caller) and a sleeper in it
  sleep 100 & local sp=$!
  echo "$sp" >"$svc/cgroup.procs"
  bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" --root "$3" run -d -b "$4" "$5"' run "$svc" "$CRT_BIN" "$CRT_ROOT" "$T/b" "$id" \
    </dev/null >"$T/run.out" 2>&1
  local rc=$?
  kill "$sp"; wait "$sp" 2>/dev/null
  assert_eq 0 "$rc" "run from $svc: $(cat "$T/run.out")"
  local pid; pid=$(state_field "$id" pid)
  assert_eq "/$id" "$(cg2_line "$pid")" "the init's cgroup (beside the caller's ${svc#/sys/fs/cgroup})"
  assert_eq 4194304 "$(cat "/sys/fs/cgroup/$id/hugetlb.2MB.max")" "hugetlb limit"
  crt delete -f "$id" || fail "delete -f"
  [ ! -d "/sys/fs/cgroup/$id" ] || fail "cgroup left after delete"
}
test_v2_default_path_parent() { in_cg2 _v2_default_path_parent; }
