# The parked init (issue 30 items 3 and 4): what a process with
# CAP_SYS_PTRACE in the container (exec'd into it, or a pod sibling sharing
# its pid namespace) can do to pid 1 while the container is `created`.

# mkdir/mkdirat fail with EPERM, everything else allowed.
SEC_INIT_MKDIR_EPERM="{'defaultAction':'SCMP_ACT_ALLOW','architectures':['SCMP_ARCH_X86_64','SCMP_ARCH_X86','SCMP_ARCH_X32'],'syscalls':[{'names':['mkdir','mkdirat'],'action':'SCMP_ACT_ERRNO','errnoRet':1}]}"

# Guards crt_seccomp_load_point (src/linux/seccomp.c) and crt-stub's load
# before it parks (src/stub/crt-stub.c), and create's wait for it
# (await_parked in src/container/create.c): with noNewPrivileges the
# user's filter is on the parked init while the container is created, so
# a ptrace injection of mkdir into it fails.  runc 1.1.5 does the same.
test_parked_init_has_the_filter() {
  [ "$(uname -m)" = x86_64 ] || { echo "skip: the injector is x86_64 only"; return 0; }
  cc -O2 -Wall -o "$T/inject" "$REPO/tests/lib/inject_mkdir.c" || fail "building the injector"
  make_bundle "$T/b" sleep 100
  # a writable root: only the filter may stop the mkdir
  bundle_edit "$T/b" "c['root']['readonly']=False; c['process']['noNewPrivileges']=True; c['linux']['seccomp']=$SEC_INIT_MKDIR_EPERM"
  local id; id=$(new_id)
  crt create -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create"
  local pid; pid=$(state_field "$id" pid)
  assert_eq created "$(state_field "$id" status)" "status after create"
  assert_eq 2 "$(awk '$1 == "Seccomp:" {print $2}' /proc/$pid/status)" "Seccomp of the parked init"
  # from inside, as the attacker sees it: a process exec'd with CAP_SYS_PTRACE
  run_rc crt exec --cap CAP_SYS_PTRACE "$id" sh -c 'grep "^Seccomp:" /proc/1/status'
  assert_eq 0 "$rc" "exec into the created container: $out"
  assert_contains "$out" "Seccomp:	2"
  run_rc "$T/inject" "$pid" /tmp/injected
  assert_eq 0 "$rc" "injection: $out"
  assert_contains "$out" "mkdir=-1" "mkdir injected into the parked init"
  [ ! -e "$T/b/rootfs/tmp/injected" ] || fail "the injected mkdir made /tmp/injected"
  # the parked init still works after the injection
  crt start "$id" || fail "start after the injection"
  assert_eq sleep "$(cat /proc/$pid/comm)" "init after start"
  crt delete -f "$id"
}

# fifo_fd PID: the number of the fd of PID that is a FIFO (the exec FIFO)
fifo_fd() {
  local f
  for f in /proc/$1/fd/*; do
    [ -p "$f" ] && { basename "$f"; return 0; }
  done
  return 1
}

# Guards crt_exec_fifo_waiting (src/container/execfifo.c) and its use in
# crt_state_status and crt_container_start: a process with CAP_SYS_PTRACE
# in the container opens the parked init's exec FIFO through /proc/1/fd
# and so starts the user program without `start`.  state then says
# running, and start refuses as for any running container (runc's
# message), never calling it stopped.  runc 1.1.5 has the same fault (its
# state says created): crt's own rule, skipped with runc as CRT_BIN.
test_fifo_opened_from_inside() {
  is_crt || return 0
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt create -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create"
  local pid; pid=$(state_field "$id" pid)
  run_rc crt exec --cap CAP_SYS_PTRACE "$id" sh -c 'for f in /proc/1/fd/*; do [ -p "$f" ] && cat "$f" && echo " opened $f"; done; true'
  assert_eq 0 "$rc" "exec: $out"
  if [[ $out == *opened* ]]; then
    wait_eval '[ "$(cat /proc/$pid/comm)" = sleep ]' || fail "user program not started by the open: $(cat /proc/$pid/comm)"
    assert_eq running "$(state_field "$id" status)" "status with the user program running"
    run_rc crt start "$id"
    assert_eq 1 "$rc" "start of a container started from inside: $out"
    assert_contains "$out" "cannot start an already running container"
    assert_not_contains "$out" "stopped"
    assert_eq running "$(state_field "$id" status)" "status after the refused start"
    assert_eq sleep "$(cat /proc/$pid/comm)" "the user program still runs"
  else
    # the other acceptable answer: the FIFO could not be reached
    assert_eq created "$(state_field "$id" status)" "status"
    crt start "$id" || fail "start"
  fi
  crt delete -f "$id"
}

# Guards read_fifo in src/container/execfifo.c (issue 57 bug 5): start
# took the init's byte and the init exec'd its program, but the FIFO's
# write end stays open a while after the exe changed.  A throttled init
# sits there (the kernel closes the fd late in execve, and a 1% CPU quota
# can stop the init anywhere for 100 ms); here a process in the container
# holds a write end through /proc/1/fd for two seconds, which makes the
# same window last long enough to see every time.  start released the
# init itself: it must succeed, not say the container was started from
# elsewhere (it did on f85ef92).  runc passes too (it waits for the EOF).
test_start_with_fifo_write_end_held() {
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['root']['readonly']=False"
  local id; id=$(new_id)
  crt create -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create"
  local pid; pid=$(state_field "$id" pid)
  # a write end opened from inside (its open returns at once, the init's
  # O_RDWR end being a reader; runc's init holds an O_PATH fd: that open
  # returns once start opens the FIFO)
  crt exec -d --cap CAP_SYS_PTRACE "$id" sh -c 'for f in /proc/1/fd/*; do [ -p "$f" ] && { touch /tmp/opening; exec 5>"$f"; break; }; done; touch /tmp/opened; sleep 2' </dev/null >/dev/null 2>&1 ||
    fail "exec the holder"
  wait_for test -e "$T/b/rootfs/tmp/opening" || fail "no FIFO in /proc/1/fd of the created container"
  is_crt && { wait_for test -e "$T/b/rootfs/tmp/opened" || fail "the holder did not open the FIFO"; }
  run_rc crt start "$id"
  assert_eq 0 "$rc" "start while another write end is open: $out"
  assert_eq running "$(state_field "$id" status)" "status after start"
  assert_eq sleep "$(cat /proc/$pid/comm)" "the user program"
  crt delete -f "$id"
}

# Guards crt_seccomp_load_point's BEFORE_PARK (src/container/init.c,
# init_park_and_exec): when crt itself runs up to the user's execve (here
# for a startContainer hook), it loads the filter after READY and before
# the FIFO; the hook and the program then run under it, as in runc.
test_parked_crt_init_has_the_filter() {
  make_bundle "$T/b" sh -c 'grep "^Seccomp:" /proc/self/status; mkdir /tmp/x; echo "mkdir=$?"'
  bundle_edit "$T/b" "c['root']['readonly']=False; c['linux']['seccomp']=$SEC_INIT_MKDIR_EPERM; c['hooks']={'startContainer':[{'path':'/bin/true'}]}"
  local id; id=$(new_id)
  crt create -b "$T/b" "$id" </dev/null >"$T/out" 2>&1 || fail "create: $(cat "$T/out")"
  local pid; pid=$(state_field "$id" pid)
  if is_crt; then assert_sealed_crt "$pid" "the parked init"; fi
  assert_eq 2 "$(awk '$1 == "Seccomp:" {print $2}' /proc/$pid/status)" "Seccomp of the parked init"
  crt start "$id" || fail "start"
  wait_eval '[ "$(state_field "$id" status)" = stopped ]' || fail "the program did not finish"
  assert_contains "$(cat "$T/out")" "Seccomp:	2"
  assert_contains "$(cat "$T/out")" "mkdir=1"
  crt delete "$id"
}

# Guards the refusal in crt_seccomp_load_point (parked_point) and
# refuse_unparkable_filter (src/container/create.c): with noNewPrivileges
# a profile that forbids a call the parked init makes after loading it
# (openat of the FIFO here) is refused at create, with the call named,
# and nothing is left behind.  (runc 1.1.5 creates it and its init dies
# on the FIFO: crt's own rule.)
test_unparkable_profile_refused() {
  is_crt || return 0
  make_bundle "$T/b" true
  bundle_edit "$T/b" "c['linux']['seccomp']={'defaultAction':'SCMP_ACT_ALLOW','syscalls':[{'names':['openat'],'action':'SCMP_ACT_ERRNO','errnoRet':1}]}"
  local id; id=$(new_id)
  # to a file: a created init would hold a pipe open
  crt create -b "$T/b" "$id" </dev/null >"$T/out" 2>&1; rc=$?
  out=$(cat "$T/out")
  assert_eq 1 "$rc" "create with a profile that forbids openat: $out"
  assert_contains "$out" "linux.seccomp"
  assert_contains "$out" "forbids openat"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir $CRT_ROOT/$id left behind"
  # without noNewPrivileges crt loads it before setuid: not refused, and
  # an init that dies at once leaves create successful (as runc's)
  bundle_edit "$T/b" "c['process']['noNewPrivileges']=False"
  crt create -b "$T/b" "$id" </dev/null >"$T/out" 2>&1 || fail "create without noNewPrivileges: $(cat "$T/out")"
  crt delete -f "$id"
}

# parked_fds ID: every fd of the parked init beyond 0-2 is the exec FIFO it
# parks on (a pipe, no directory to walk from), and there is one.
parked_fds() {
  local pid; pid=$(state_field "$1" pid)
  local f n=0
  for f in /proc/$pid/fd/*; do
    case ${f##*/} in 0 | 1 | 2) continue ;; esac
    if [ -p "$f" ] && [[ $(readlink "$f") == */exec.fifo ]]; then n=$((n + 1)); continue; fi
    fail "$2: the parked init holds fd ${f##*/} -> $(readlink "$f")"
  done
  assert_eq 1 "$n" "$2: exec FIFO fds of the parked init"
}

# parked_fds_inside ID WHAT: the same, as an attacker in the container sees
# it: a process exec'd with CAP_SYS_PTRACE lists /proc/1/fd and tries to
# walk out of each fd.
parked_fds_inside() {
  run_rc crt exec --cap CAP_SYS_PTRACE "$1" sh -c 'cd /proc/1/fd || exit 9
    for f in *; do case $f in 0|1|2) ;; *) echo "fd $f $(readlink $f)"; ls $f/.. >/dev/null 2>&1 && echo "walked $f";; esac; done; true'
  assert_eq 0 "$rc" "$2: exec with CAP_SYS_PTRACE: $out"
  assert_not_contains "$out" "walked" "$2: a walk out of a parked init's fd"
  [[ $out =~ ^fd\ [0-9]+\ .*/exec\.fifo$ ]] || fail "$2: fds of pid 1 beyond stdio, seen from inside: '$out'"
}

# Guards the exec FIFO's park (crt_exec_fifo_create/park in
# src/container/execfifo.c, crt-stub's park): the parked init holds stdio
# and the FIFO it parks on, nothing else (issue 43: it also held an O_PATH
# fd of its /proc/self/fd, and through it the container's unmasked procfs
# tree).  For crt-stub's park, crt's own (a startContainer hook), a
# terminal, a user namespace and a container without /proc; from the host
# and from inside.  runc 1.1.5 holds the same (the exec FIFO only).
test_parked_init_holds_only_the_fifo() {
  local id what
  make_bundle "$T/b" sleep 100
  cp -a "$T/b" "$T/hook"; bundle_edit "$T/hook" "c['hooks']={'startContainer':[{'path':'/bin/true'}]}"
  cp -a "$T/b" "$T/noproc"
  bundle_edit "$T/noproc" "c['mounts']=[m for m in c['mounts'] if m['destination']!='/proc']; c['linux']['maskedPaths']=[]; c['linux']['readonlyPaths']=[]"
  userns_bundle "$T/u" sleep 100
  for what in b hook noproc u; do
    id=$(new_id)
    crt create -b "$T/$what" "$id" </dev/null >/dev/null 2>"$T/err" || fail "create ($what): $(cat "$T/err")"
    parked_fds "$id" "$what"
    [ "$what" = noproc ] || parked_fds_inside "$id" "$what"
    crt delete -f "$id"
  done
  # with a terminal: the pty's fds go to the console socket, not to the init
  cc -O2 -Wall -o "$T/recvtty" "$REPO/tests/lib/recvtty.c" || fail "build recvtty"
  timeout 20 "$T/recvtty" --mode null --pid-file "$T/tty.pid" "$T/tty.sock" >/dev/null 2>&1 </dev/null &
  local rp=$!
  wait_for test -s "$T/tty.pid" || fail "recvtty did not start"
  bundle_edit "$T/b" "c['process']['terminal']=True"
  id=$(new_id)
  crt create --console-socket "$T/tty.sock" -b "$T/b" "$id" </dev/null >/dev/null 2>"$T/err" || fail "create (terminal): $(cat "$T/err")"
  parked_fds "$id" terminal
  parked_fds_inside "$id" terminal
  crt delete -f "$id"
  kill "$rp" 2>/dev/null; wait "$rp" 2>/dev/null
  true
}
