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
