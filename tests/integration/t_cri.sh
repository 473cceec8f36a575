# Kubernetes (containerd's CRI plugin) and buildah drive crt: the work
# happens in tests/clients/{cri,buildah}.sh, which print one line per check;
# here each runs with its work dir under $T (so run.sh's leak check sees it)
# and a time limit.  A missing client is a failure, not a skip: the packages
# come from contrib/install-deps.sh.  Plus what the CRI scenario found in crt.

test_buildah() { clients_run buildah.sh; }
test_cri() { clients_run cri.sh; }
# with sid's buildah 1.43 and containerd 2.1's CRI plugin (tests/lib/sid.sh):
# about 20 s and 60-95 s here
test_sid_buildah() { sid_clients_run buildah.sh; }
test_sid_cri() { sid_clients_run cri.sh; }

# A container in another container's pid namespace (a pod's, joined by
# path) leaves its init's children behind when the init exits: they are
# reparented to the pod's init.  containerd's shim then runs `kill --all ID
# 9` on the stopped container and `delete ID`; both must reach what is left
# in the cgroup, as in runc (crt used to answer "container not running" and
# then fail delete with EBUSY on the cgroup).
# alive PID: exists and is not a zombie (the pod's init here, sleep, does
# not reap; a pause process would)
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

pod_pidns_setup() { # sets pod, c, left (pid of the orphan)
  pod=$(new_id); c=$(new_id)
  make_bundle "$T/pod" sleep 100
  crt run -d --pid-file "$T/pod.pid" -b "$T/pod" "$pod" >/dev/null 2>&1 </dev/null || fail "run pod"
  pod_pidns_child "$c"
}

pod_pidns_child() { # ID: runs ID in the pod's pid namespace, kills its init; sets left
  local c=$1 ppid; ppid=$(cat "$T/pod.pid")
  make_bundle "$T/c-$c" sh -c 'sleep 200 & exec sleep 300'
  bundle_edit "$T/c-$c" "
for n in c['linux']['namespaces']:
    if n['type'] == 'pid': n['path'] = '/proc/$ppid/ns/pid'"
  crt run -d --pid-file "$T/c.pid" -b "$T/c-$c" "$c" >/dev/null 2>&1 </dev/null || fail "run c"
  local cpid cg; cpid=$(cat "$T/c.pid")
  # the orphan-to-be, as the host sees it: the other process in c's cgroup
  cg=/sys/fs/cgroup/pids$(awk -F: '$2 ~ /(^|,)pids(,|$)/ {print $3}' /proc/"$cpid"/cgroup)
  wait_eval "test \$(wc -l <$cg/cgroup.procs) = 2" || fail "c's cgroup: expected 2 processes, got '$(cat $cg/cgroup.procs)'"
  left=$(grep -vx "$cpid" "$cg/cgroup.procs")
  kill -KILL "$cpid"
  wait_eval 'test "$(state_field "$c" status)" = stopped' || fail "c not stopped after its init was killed"
  alive "$left" || fail "the orphan $left died with c's init: the scenario needs it alive"
}

test_pod_pidns_kill_all_stopped() {
  pod_pidns_setup
  run_rc crt kill "$c" TERM; assert_eq 1 "$rc" "kill TERM (without --all) of a stopped container"
  assert_contains "$out" "not running"
  alive "$left" || fail "the orphan $left died of a refused kill"
  if runc_before_1_2; then
    run_rc crt kill "$c" KILL; assert_eq 1 "$rc" "kill KILL (without --all) of a stopped container, runc < 1.2"
  else
    # runc >= 1.2: KILL to a container without a pid namespace of its own
    # takes its whole cgroup, its init gone or not (the shim's next kill
    # --all then finds nothing)
    run_rc crt kill "$c" KILL; assert_eq 0 "$rc" "kill KILL of a stopped container sharing a pid ns ($out)"
    wait_eval "! alive $left" || fail "the orphan $left survived kill KILL"
    run_rc crt kill --all "$c" KILL; assert_eq 0 "$rc" "kill --all of a stopped container with nothing left ($out)"
    run_rc crt delete "$c"; assert_eq 0 "$rc" "delete ($out)"
    c=$(new_id); pod_pidns_child "$c"
  fi
  run_rc crt kill --all "$c" KILL; assert_eq 0 "$rc" "kill --all of a stopped container with processes left ($out)"
  wait_eval "! alive $left" || fail "the orphan $left survived kill --all"
  run_rc crt delete "$c"; assert_eq 0 "$rc" "delete ($out)"
  run_rc crt kill --all "$pod" KILL; assert_eq 0 "$rc" "kill --all pod"
  wait_eval 'test "$(state_field "$pod" status)" = stopped' || fail "pod not stopped"
  run_rc crt kill --all "$pod" KILL; assert_eq 0 "$rc" "kill --all of a stopped container with nothing left ($out)"
  crt delete "$pod" || fail "delete pod"
}

test_pod_pidns_delete_stopped() {
  pod_pidns_setup
  run_rc crt delete "$c"; assert_eq 0 "$rc" "delete of a stopped container with processes left ($out)"
  wait_eval "! alive $left" || fail "the orphan $left survived delete"
  assert_eq "" "$(find /sys/fs/cgroup -maxdepth 3 -type d -name "$c")" "c's cgroups after delete"
  crt delete -f "$pod" || fail "delete -f pod"
}
