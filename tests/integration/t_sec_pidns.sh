# A pid namespace joined by path (issue 54 item 1): a pod sibling with
# CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH sees every process of that
# namespace, and through /proc/PID/root, /cwd and /fd whatever it can
# reach.  No process of crt's may be there while it can reach a host path.

# The attacker's loop: every pid it sees, its root, cwd and (up from) each
# directory fd, tried for the host-only path $1, and each fd compared with
# /shared/crt-log.json (the --log file the tests give crt: a host file);
# each hit is appended to /shared/found.  /shared/rounds counts its
# passes; /shared/stop ends it.
PIDNS_SCANNER='M=$1
UP=/../../../../../../../../../../../../../../../..
n=0
while [ ! -e /shared/stop ]; do
  for p in /proc/[0-9]*; do
    [ -e "$p/root$M" ] && echo "root ${p#/proc/} $(cat $p/comm)" >>/shared/found
    [ -e "$p/cwd$M" ] && echo "cwd ${p#/proc/} $(cat $p/comm)" >>/shared/found
    for f in $p/fd/*; do
      [ -d "$f" ] && [ -e "$f$UP$M" ] && echo "fd $f $(readlink $f) $(cat $p/comm)" >>/shared/found
      [ "$f" -ef /shared/crt-log.json ] && echo "log $f $(cat $p/comm)" >>/shared/found
    done
  done
  n=$((n + 1))
  echo $n >/shared/rounds
done
touch /shared/done'

# pidns_attacker DIR MARKER: runs the scanner as container A (bundle DIR,
# CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH added), looking for MARKER, a
# path only the host has; sets AID and APID.  A process of the host's (root
# and cwd the host's) put into A's pid namespace must be found first: the
# scanner works.
pidns_attacker() {
  local a=$1 marker=$2
  mkdir -p "$T/shared"
  : >"$T/shared/crt-log.json"
  make_bundle "$a" sh /scan.sh "$marker"
  printf '%s\n' "$PIDNS_SCANNER" >"$a/rootfs/scan.sh"
  bundle_edit "$a" "c['mounts'].append({'destination':'/shared','type':'bind','source':'$T/shared','options':['rbind']})
[v.extend(['CAP_SYS_PTRACE','CAP_DAC_READ_SEARCH']) for k, v in c['process']['capabilities'].items() if k != 'ambient']"
  AID=$(new_id)
  crt run -d -b "$a" "$AID" </dev/null >/dev/null 2>&1 || fail "run the attacker"
  APID=$(state_field "$AID" pid)
  wait_for test -s "$T/shared/rounds" || fail "the scanner does not run"
  nsenter -t "$APID" -p -- sh -c 'sleep 1' </dev/null || fail "a host process in the attacker's pid namespace"
  grep -q '^root .* sleep$' "$T/shared/found" 2>/dev/null || fail "the scanner missed a host process: $(cat "$T/shared/found" 2>&1)"
  # two more passes: none still reports the host process
  local r; r=$(cat "$T/shared/rounds")
  wait_eval "[ \$(cat $T/shared/rounds) -gt $((r + 1)) ]" || fail "the scanner stopped"
  : >"$T/shared/found"
}

# pidns_attacker_report: stops the scanner; fails when it found anything,
# or made no pass.
pidns_attacker_report() {
  touch "$T/shared/stop"
  wait_for test -e "$T/shared/done" || fail "the scanner did not stop"
  local found; found=$(cat "$T/shared/found")
  echo "scanner passes: $(cat "$T/shared/rounds")"
  [ -z "$found" ] || fail "the attacker reached the host's filesystem through $(echo "$found" | wc -l) processes: $(echo "$found" | sort | uniq -c | head -20)"
}

# Guards enter_pid_ns (src/container/init.c) and pidns_late
# (src/container/create.c): container B joins A's pid namespace by path
# (as a pod sibling does) 200 times, by `run` (the direct start) and by
# create and start (the parked process), while A scans /proc/*/root,
# /cwd and /fd for a host-only path; it must find nothing.  Before the fix
# B's init was in A's pid namespace from its clone on, with the host's
# root until pivot_root: found in most runs.  runc 1.3.6 has the same
# hole (skipped with runc as CRT_BIN).
test_joined_pidns_never_shows_the_host() {
  is_crt || { echo "skip: runc's init is in the pid namespace before pivot_root"; return 0; }
  local marker=$T/host-only-$RANDOM; touch "$marker"
  pidns_attacker "$T/a" "$marker"
  make_bundle "$T/b" true
  bundle_edit "$T/b" "[n.update(path='/proc/$APID/ns/pid') for n in c['linux']['namespaces'] if n['type']=='pid']"
  local i id
  for i in $(seq 200); do
    id=$(new_id)
    if [ $((i % 4)) = 0 ]; then
      crt --log "$T/shared/crt-log.json" create -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create $i"
      crt --log "$T/shared/crt-log.json" start "$id" || fail "start $i"
      wait_eval "[ \"\$(state_field $id status)\" = stopped ]" || fail "B $i did not stop"
      crt delete "$id" || fail "delete $i"
    else
      crt --log "$T/shared/crt-log.json" run -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run $i"
    fi
  done
  pidns_attacker_report
  crt delete -f "$AID"
}

# Guards the same rule for `crt exec` (src/container/exec.c): the stub
# entry's K stays outside the pid namespace and crt-stub forks the process
# in, already in the container's root; where the stub entry cannot be used
# (here execCPUAffinity), the joiner's process is born in the pid namespace
# from the joiner, which is in the container's root and holds no host
# directory.  100 execs of each kind, with --log (a host file crt holds),
# while the container's own CAP_SYS_PTRACE scanner watches.
test_exec_never_shows_the_host() {
  local marker=$T/host-only-$RANDOM; touch "$marker"
  pidns_attacker "$T/a" "$marker"
  local i
  for i in $(seq 100); do
    crt --log "$T/shared/crt-log.json" exec "$AID" true </dev/null || fail "exec $i"
  done
  printf '%s' '{"args":["true"],"cwd":"/","env":["PATH=/bin"],"execCPUAffinity":{"initial":"0"}}' >"$T/proc.json"
  for i in $(seq 100); do
    crt --log "$T/shared/crt-log.json" exec -p "$T/proc.json" "$AID" </dev/null || fail "exec with execCPUAffinity $i"
  done
  pidns_attacker_report
  crt delete -f "$AID"
}

# Guards take_container_pid (src/container/create.c) and finish_entry
# (src/container/init.c): the process forked into a pid namespace joined
# by path is the container's pid for everything, as the init was: state
# and --pid-file name it (A's namespace, its pid there the one it sees),
# its /proc is A's namespace's, ps, kill and delete reach it, `run` is its
# parent and returns its exit status.  Passes with runc 1.3.6 as CRT_BIN.
test_joined_pidns_process() {
  make_bundle "$T/a" sleep 100
  local aid; aid=$(new_id)
  crt run -d -b "$T/a" "$aid" </dev/null >/dev/null 2>&1 || fail "run A"
  local apid; apid=$(state_field "$aid" pid)
  local join="[n.update(path='/proc/$apid/ns/pid') for n in c['linux']['namespaces'] if n['type']=='pid']"
  make_bundle "$T/b" sh -c 'echo "$$ $(tr "\0" " " </proc/1/cmdline)"; exec sleep 100'
  bundle_edit "$T/b" "$join"
  local bid; bid=$(new_id)
  crt create --pid-file "$T/b.pid" -b "$T/b" "$bid" </dev/null >"$T/b.out" 2>&1 || fail "create B: $(cat "$T/b.out")"
  local bpid; bpid=$(state_field "$bid" pid)
  assert_eq "$bpid" "$(cat "$T/b.pid")" "--pid-file"
  assert_eq created "$(state_field "$bid" status)" "status after create"
  assert_eq "$(readlink /proc/$apid/ns/pid)" "$(readlink /proc/$bpid/ns/pid)" "B's pid namespace"
  local nspid; nspid=$(awk '/^NSpid:/ {print $3}' /proc/$bpid/status)
  [ -n "$nspid" ] || fail "B's process is not in A's pid namespace: $(grep NSpid /proc/$bpid/status)"
  crt start "$bid" || fail "start B"
  wait_for grep -q sleep "$T/b.out" || fail "B's output: $(cat "$T/b.out")"
  assert_eq "$nspid sleep 100 " "$(cat "$T/b.out")" "B's pid and its /proc/1"
  assert_contains "$(crt ps "$bid")" " $bpid " "ps"
  crt kill "$bid" KILL || fail "kill B"
  wait_eval "[ \"\$(state_field $bid status)\" = stopped ]" || fail "B did not stop"
  crt delete "$bid" || fail "delete B"
  [ ! -e "/proc/$bpid" ] || [ "$(awk '{print $3}' /proc/$bpid/stat)" = Z ] || fail "B's process survived"
  make_bundle "$T/c" sh -c 'until [ -e /go ]; do sleep 0.1; done; exit 7'
  bundle_edit "$T/c" "$join"
  local cid; cid=$(new_id)
  "$CRT_BIN" --root "$CRT_ROOT" run -b "$T/c" "$cid" </dev/null & local run=$!
  wait_eval "[ \"\$(state_field $cid status)\" = running ]" || fail "C did not start"
  local cpid; cpid=$(state_field "$cid" pid)
  assert_eq "$run" "$(awk '/^PPid:/ {print $2}' /proc/$cpid/status)" "the parent of C's process"
  touch "$T/c/rootfs/go"
  wait "$run"; assert_eq 7 "$?" "run's exit status"
  crt delete -f "$aid"
}
