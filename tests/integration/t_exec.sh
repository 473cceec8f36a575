# exec: the four outcomes, reparenting to a subreaper, namespaces, flags.

start_sleeper() { # id
  make_bundle "$T/b" sleep 1000
  crt run -d --bundle "$T/b" "$1" || fail "run -d"
}

test_exec_four_outcomes() {
  local id; id=$(new_id); start_sleeper "$id"
  run_rc crt exec "$id" sh -c 'echo hi; exit 5'
  assert_eq 5 "$rc" "foreground valid"; assert_eq hi "$out"
  run_rc crt exec "$id" nonexistent
  assert_eq 255 "$rc" "foreground invalid"
  assert_contains "$out" 'exec failed: unable to start container process: exec: "nonexistent": executable file not found in $PATH'
  run_rc crt exec -d "$id" sleep 1
  assert_eq 0 "$rc" "detach valid"
  run_rc crt exec --detach "$id" nonexistent
  assert_eq 255 "$rc" "detach invalid"
  assert_contains "$out" 'executable file not found in $PATH'
  crt delete -f "$id"
}

test_exec_signal_status() {
  local id; id=$(new_id); start_sleeper "$id"
  run_rc crt exec "$id" sh -c 'kill -9 $$'
  assert_eq 137 "$rc" "killed by SIGKILL"
  crt delete -f "$id"
}

test_exec_reparented_to_subreaper() {
  local id; id=$(new_id); start_sleeper "$id"
  cc -O2 -o "$T/reaper" "$REPO/tests/lib/reaper_exec.c" || fail "cc"
  out=$("$T/reaper" "$T/pid" "$CRT_BIN" --root "$CRT_ROOT" exec --detach --pid-file "$T/pid" "$id" sh -c 'sleep 0.3; exit 4')
  assert_eq "ppid-ok exit=4" "$out" "reaper"
  crt delete -f "$id"
}

test_exec_process_json_and_detach_pidfile() {
  local id; id=$(new_id); start_sleeper "$id"
  cat > "$T/p.json" <<'J'
{"args":["sh","-c","echo $FOO; pwd; id -u"],"env":["PATH=/bin","FOO=bar"],"cwd":"/tmp","user":{"uid":1,"gid":1}}
J
  run_rc crt exec --process "$T/p.json" "$id"
  assert_eq 0 "$rc" "exec --process: $out"
  assert_eq "$(printf 'bar\n/tmp\n1')" "$out"
  echo '{"args":[1]}' > "$T/bad.json"
  run_rc crt exec --process "$T/bad.json" "$id"
  assert_eq 255 "$rc" "exec --process with a number in args: $out"
  # the field named: crt by its JSON path, runc by Go's struct field
  if is_crt; then assert_contains "$out" ".args[0]"; else assert_contains "$out" "Process.args"; fi
  crt delete -f "$id"
}

test_exec_same_namespaces_and_cgroup() {
  local id; id=$(new_id); start_sleeper "$id"
  local pid; pid=$(state_field "$id" pid)
  crt exec -d --pid-file "$T/epid" "$id" sleep 5
  local epid; epid=$(cat "$T/epid")
  for ns in mnt uts ipc net pid cgroup; do
    assert_eq "$(readlink /proc/$pid/ns/$ns)" "$(readlink /proc/$epid/ns/$ns)" "ns $ns"
  done
  assert_eq "$(cat /proc/$pid/cgroup)" "$(cat /proc/$epid/cgroup)" "cgroup"
  crt delete -f "$id"
}

test_exec_flags() {
  local id; id=$(new_id); start_sleeper "$id"
  # (runc's flag parser refuses --env and -e in one command line)
  out=$(crt exec --env A=1 --env B=2 --cwd /etc --user 2:3 "$id" sh -c 'echo $A$B; pwd; id -u; id -g')
  assert_eq "$(printf '12\n/etc\n2\n3')" "$out" "env/cwd/user"
  out=$(crt exec -e A=3 -u 4 "$id" sh -c 'echo $A; id -u')
  assert_eq "$(printf '3\n4')" "$out" "-e/-u"
  out=$(crt exec --cap CAP_SYS_ADMIN "$id" grep CapEff /proc/self/status)
  assert_eq "CapEff:	0000000020200420" "$out" "--cap adds CAP_SYS_ADMIN"
  out=$(crt exec "$id" ls /proc/self/fd 3</dev/null 4</dev/null | tr '\n' ' ')
  assert_eq "0 1 2 3 " "$out" "no leaked fds (3 is ls's own)"
  out=$(echo piped | crt exec "$id" cat)
  assert_eq piped "$out" "stdin pass-through"
  crt delete -f "$id"
}

test_exec_bad_targets() {
  run_rc crt exec nosuch-$$ true; assert_eq 255 "$rc" "unknown"; assert_contains "$out" "does not exist"
  make_bundle "$T/b" true
  local id; id=$(new_id)
  crt run --keep --bundle "$T/b" "$id"
  run_rc crt exec "$id" true; assert_eq 255 "$rc" "stopped"; assert_contains "$out" "stopped"
  crt delete "$id"
}

test_exec_large_args() {
  local id; id=$(new_id); start_sleeper "$id"
  # one string may be 128 KiB (MAX_ARG_STRLEN): 8 x 120 KB ~ 1 MB of argv
  local big; big=$(head -c 120000 /dev/zero | tr '\0' a)
  out=$(crt exec "$id" sh -c 'n=0; for a; do n=$((n+${#a})); done; echo $n' sh "$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big")
  assert_eq 960000 "$out" "~1 MB of arguments"
  crt delete -f "$id"
}

test_exec_many_no_leaks() {
  local id; id=$(new_id); start_sleeper "$id"
  local pid; pid=$(state_field "$id" pid)
  local i
  for i in $(seq 100); do crt exec "$id" true || fail "exec $i"; done
  local procs; procs=$(crt ps --format json "$id" 2>/dev/null || echo "?")
  local n; n=$(ls /proc/$pid/task | wc -l)
  assert_eq 1 "$n" "threads"
  # only the init remains in the container's pid namespace
  out=$(crt exec "$id" ps -o pid | tr -d ' ' | grep -v PID | tr '\n' ' ')
  assert_eq "1 " "$(echo "$out" | awk '{print $1" "}')" "processes: $out"
  # no zombie left under the container's init or under us
  local zomb; zomb=$(ps -eo stat=,ppid= | awk -v a="$pid" -v b="$$" '$1 ~ /Z/ && ($2 == a || $2 == b)' | wc -l)
  assert_eq 0 "$zomb" "zombies"
  crt delete -f "$id"
}

# containerd's shim relies on it: the init is PID 1 of its pid namespace and
# no crt process stays inside, so an exec'd process's exit reaches the
# subreaper before the init's.
test_exec_exits_before_init() {
  make_bundle "$T/b" sleep 1000
  cc -O2 -o "$T/order" "$REPO/tests/lib/exit_order.c" || fail "cc"
  local id; id=$(new_id)
  out=$("$T/order" "$CRT_BIN" "$CRT_ROOT" "$T/b" "$id" "$T")
  assert_eq "exec init" "$out" "order of exits"
  crt delete "$id" || fail "delete"
}

# Guards crt_container_exec's pid-file step: when --pid-file cannot be
# written, exec fails (255) and the process it started is killed, not left
# running unseen (runc does the same).  Passes with CRT_BIN=/usr/sbin/runc.
test_exec_pid_file_failure_kills_process() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  # output to a file: a process left running would hold a pipe open
  crt exec -d --pid-file "$T/no/such/dir/pid" "$id" sleep 4242 </dev/null >"$T/out" 2>&1
  assert_eq 255 "$?" "exec with an unwritable pid file: $(cat "$T/out")"
  wait_eval '! pgrep -f "sleep 4242" >/dev/null' || fail "the exec'd process is still running: $(pgrep -af 'sleep 4242')"
  crt delete -f "$id"
}

# runc's exec.bats "runc exec [init changes cgroup]" on this host's layout:
# the init moves itself to another cgroup on every hierarchy and the
# container's own cgroup is removed.  An exec must never run in the
# caller's cgroup: on pure cgroup2 it joins the init's current cgroup (as
# runc); on v1 and hybrid it fails, in runc's words (runc 1.3.6 falls back
# on cgroup2 alone).  Passes with runc 1.3.6 as CRT_BIN.
test_exec_init_moved_cgroup_never_callers() {
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  # no cgroup namespace (crt spec gives one on v2): its root would be gone
  bundle_edit "$T/b" "c['linux']['cgroupsPath']='/$id-orig'; c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!='cgroup']"
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  local pid; pid=$(state_field "$id" pid)
  local h hs=() v2=false
  [ -f /sys/fs/cgroup/cgroup.controllers ] && v2=true
  for h in $(awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts); do
    [ -d "$h/$id-orig" ] || continue
    hs+=("$h"); mkdir "$h/$id-moved"
    if [ -f "$h/cpuset.cpus" ] && ! $v2; then
      cat "$h/cpuset.cpus" >"$h/$id-moved/cpuset.cpus"; cat "$h/cpuset.mems" >"$h/$id-moved/cpuset.mems"
    fi
    echo "$pid" >"$h/$id-moved/cgroup.procs" || fail "move the init on $h"
    rmdir "$h/$id-orig" || fail "remove the container's cgroup on $h"
  done
  [ ${#hs[@]} -gt 0 ] || fail "the container's cgroup /$id-orig is on no hierarchy"
  run_rc crt exec "$id" grep ^0:: /proc/self/cgroup
  crt delete -f "$id" >/dev/null 2>&1
  for h in "${hs[@]}"; do rmdir "$h/$id-moved"; done
  if $v2; then
    assert_eq 0 "$rc" "exec: $out"; assert_eq "0::/$id-moved" "$out" "the exec'd process's cgroup"
  else
    assert_ne 0 "$rc" "exec into a container whose cgroup is gone: $out"
    assert_contains "$out" " adding pid "; assert_contains "$out" " to cgroups"
  fi
}
# the same on pure cgroup2 (this host's unified hierarchy mounted alone):
# the exec'd process joins the init's new cgroup
test_exec_init_moved_cgroup_v2() { in_cg2 test_exec_init_moved_cgroup_never_callers; }
