# Security protections, checked from inside real containers: capabilities,
# no_new_privs, seccomp (filters, arg conditions, allow-lists, notify agent),
# masked and read-only paths, CVE-2019-5736 (cloned binary), CVE-2024-21626
# (leaked fds / cwd), CVE-2021-30465 (mount destinations through symlinks),
# CVE-2019-16884 (/proc over a symlink).  Each test names the code it guards.

# cap_mask NAME...: the /proc/PID/status hex mask of these capabilities
cap_mask() {
  python3 - "$@" <<'PY'
import sys
# linux/capability.h numbering
names = ["CHOWN","DAC_OVERRIDE","DAC_READ_SEARCH","FOWNER","FSETID","KILL","SETGID","SETUID",
 "SETPCAP","LINUX_IMMUTABLE","NET_BIND_SERVICE","NET_BROADCAST","NET_ADMIN","NET_RAW","IPC_LOCK",
 "IPC_OWNER","SYS_MODULE","SYS_RAWIO","SYS_CHROOT","SYS_PTRACE","SYS_PACCT","SYS_ADMIN","SYS_BOOT",
 "SYS_NICE","SYS_RESOURCE","SYS_TIME","SYS_TTY_CONFIG","MKNOD","LEASE","AUDIT_WRITE","AUDIT_CONTROL",
 "SETFCAP","MAC_OVERRIDE","MAC_ADMIN","SYSLOG","WAKE_ALARM","BLOCK_SUSPEND","AUDIT_READ","PERFMON",
 "BPF","CHECKPOINT_RESTORE"]
m = 0
for n in sys.argv[1:]:
    m |= 1 << names.index(n.removeprefix("CAP_"))
print("%016x" % m)
PY
}

# status_field TEXT FIELD: the value of "FIELD:" in a /proc/PID/status dump
status_field() { printf '%s\n' "$1" | awk -v f="$2:" '$1 == f {print $2}'; }

# A seccomp profile: mkdir/mkdirat fail with EPERM, everything else allowed.
SECCOMP_MKDIR_EPERM="{'defaultAction':'SCMP_ACT_ALLOW','architectures':['SCMP_ARCH_X86_64','SCMP_ARCH_X86','SCMP_ARCH_X32'],'syscalls':[{'names':['mkdir','mkdirat'],'action':'SCMP_ACT_ERRNO','errnoRet':1}]}"

# Guards src/linux/caps.c (crt_caps_apply: bounding, effective, permitted,
# inheritable, ambient) and the PR_SET_NO_NEW_PRIVS calls in
# src/container/create.c: the default spec's three capabilities, nothing more.
test_default_caps_and_nnp() {
  make_bundle "$T/b" cat /proc/self/status
  local want; want=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["process"]["capabilities"]["bounding"]))' "$T/b/config.json")
  want=$(cap_mask $want)
  assert_eq 0000000020000420 "$want" "mask of the default spec's capabilities"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null; assert_eq 0 "$rc" "run: $out"
  local f
  for f in CapBnd CapEff CapPrm; do assert_eq "$want" "$(status_field "$out" $f)" "$f"; done
  assert_eq 0000000000000000 "$(status_field "$out" CapInh)" "CapInh"
  assert_eq 1 "$(status_field "$out" NoNewPrivs)" "NoNewPrivs"
  assert_eq 0 "$(status_field "$out" Seccomp)" "Seccomp without a profile"
}

# Guards src/linux/seccomp.c (crt_seccomp_compile/load) and its call in
# src/container/create.c.
test_seccomp_errno_rule() {
  make_bundle "$T/b" sh -c 'grep -E "^(Seccomp|NoNewPrivs):" /proc/self/status; mkdir /tmp/x; echo "mkdir=$?"; ls -d /tmp/x'
  bundle_edit "$T/b" "c['linux']['seccomp']=$SECCOMP_MKDIR_EPERM"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_contains "$out" "Seccomp:	2"
  assert_contains "$out" "NoNewPrivs:	1"
  assert_contains "$out" "mkdir: can't create directory '/tmp/x': Operation not permitted"
  assert_contains "$out" "mkdir=1"
  assert_contains "$out" "ls: /tmp/x: No such file or directory"
  # an exec'd process gets the filter as well (src/container/exec.c)
  make_bundle "$T/c" sleep 100
  bundle_edit "$T/c" "c['linux']['seccomp']=$SECCOMP_MKDIR_EPERM"
  local id; id=$(new_id)
  crt run -d -b "$T/c" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  run_rc crt exec "$id" sh -c 'grep -E "^(Seccomp|NoNewPrivs):" /proc/self/status; mkdir /tmp/y; echo "mkdir=$?"'
  assert_contains "$out" "NoNewPrivs:	1"
  assert_contains "$out" "Seccomp:	2"
  assert_contains "$out" "Operation not permitted"
  assert_contains "$out" "mkdir=1"
  crt delete -f "$id"
}

# Guards the argument conditions in src/linux/seccomp.c (add_rule_args):
# personality(PER_LINUX32 = 8) is refused, personality(PER_LINUX = 0) is not.
# Without the condition the rule would refuse both; without the rule, neither.
test_seccomp_arg_filter() {
  make_bundle "$T/b" sh -c 'linux32 true; echo "linux32=$?"; linux64 true; echo "linux64=$?"'
  bundle_edit "$T/b" "c['linux']['seccomp']={'defaultAction':'SCMP_ACT_ALLOW','syscalls':[{'names':['personality'],'action':'SCMP_ACT_ERRNO','errnoRet':22,'args':[{'index':0,'value':8,'op':'SCMP_CMP_EQ'}]}]}"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_contains "$out" "linux32=1"
  assert_contains "$out" "Invalid argument"
  assert_contains "$out" "linux64=0"
  # The same with a masked comparison: (arg0 & 0xff) == 8
  bundle_edit "$T/b" "c['linux']['seccomp']['syscalls'][0]['args']=[{'index':0,'value':255,'valueTwo':8,'op':'SCMP_CMP_MASKED_EQ'}]"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_contains "$out" "linux32=1"
  assert_contains "$out" "linux64=0"
}

# What static busybox sh, echo, mkdir and cat need, plus what crt itself
# calls between loading the filter and execve.  mkdir/mkdirat are absent.
ALLOW_LIST="['read','write','writev','readv','open','openat','close','close_range','stat','fstat','lstat','newfstatat','statx','mmap','mprotect','munmap','brk','rt_sigaction','rt_sigprocmask','rt_sigreturn','ioctl','access','faccessat','faccessat2','execve','execveat','exit','exit_group','getpid','getppid','gettid','getuid','geteuid','getgid','getegid','getpgrp','setpgid','fcntl','dup','dup2','dup3','wait4','waitid','clone','clone3','fork','vfork','arch_prctl','set_tid_address','set_robust_list','rseq','uname','getcwd','chdir','prctl','getdents64','lseek','pipe','pipe2','readlink','readlinkat','prlimit64','getrlimit','sysinfo','futex','getrandom','poll','ppoll','pselect6','select','kill','tgkill','umask','sched_getaffinity','madvise','mremap']"

# Guards the default action of src/linux/seccomp.c (seccomp_init with the
# defaultAction and defaultErrnoRet): unlisted syscalls fail with that errno.
test_seccomp_default_errno_allow_list() {
  make_bundle "$T/b" sh -c 'echo allowed; mkdir /tmp/x; echo "mkdir=$?"; cat /proc/self/status | grep Seccomp:'
  bundle_edit "$T/b" "c['linux']['seccomp']={'defaultAction':'SCMP_ACT_ERRNO','defaultErrnoRet':13,'architectures':['SCMP_ARCH_X86_64'],'syscalls':[{'names':$ALLOW_LIST,'action':'SCMP_ACT_ALLOW'}]}"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run with an allow-list: $out"
  assert_contains "$out" "allowed"
  assert_contains "$out" "mkdir: can't create directory '/tmp/x': Permission denied"
  assert_contains "$out" "mkdir=1"
  assert_contains "$out" "Seccomp:	2"
}

# Guards resolve_action in src/linux/seccomp.c / the spec validation, and
# undo_create in src/container/create.c: a config error leaves nothing.
test_seccomp_unknown_action() {
  make_bundle "$T/b" true
  bundle_edit "$T/b" "c['linux']['seccomp']={'defaultAction':'SCMP_ACT_ALLOW','syscalls':[{'names':['mkdir'],'action':'SCMP_ACT_BOGUS'}]}"
  local id; id=$(new_id)
  run_rc crt run -b "$T/b" "$id" </dev/null
  assert_eq 1 "$rc" "run with an unknown action"
  assert_contains "$out" ".linux.seccomp.syscalls[0].action"
  assert_contains "$out" "SCMP_ACT_BOGUS"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir $CRT_ROOT/$id left behind"
  run_rc crt state "$id"; assert_eq 1 "$rc" "state of the failed container"
}

# Guards the seccomp load order in src/container/create.c: without
# noNewPrivileges the filter is loaded while CAP_SYS_ADMIN is still held.
test_seccomp_without_nnp() {
  make_bundle "$T/b" sh -c 'grep -E "^(Seccomp|NoNewPrivs):" /proc/self/status; mkdir /tmp/x; echo "mkdir=$?"'
  bundle_edit "$T/b" "c['process']['noNewPrivileges']=False; c['linux']['seccomp']=$SECCOMP_MKDIR_EPERM"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run: $out"
  assert_contains "$out" "NoNewPrivs:	0"
  assert_contains "$out" "Seccomp:	2"
  assert_contains "$out" "Operation not permitted"
  assert_contains "$out" "mkdir=1"
  # exec loads it too (src/container/exec.c)
  make_bundle "$T/c" sleep 100
  bundle_edit "$T/c" "c['process']['noNewPrivileges']=False; c['linux']['seccomp']=$SECCOMP_MKDIR_EPERM"
  local id; id=$(new_id)
  crt run -d -b "$T/c" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  run_rc crt exec "$id" sh -c 'grep -E "^(Seccomp|NoNewPrivs):" /proc/self/status; mkdir /tmp/y; echo "mkdir=$?"'
  assert_contains "$out" "NoNewPrivs:	0"
  assert_contains "$out" "Seccomp:	2"
  assert_contains "$out" "mkdir=1"
  crt delete -f "$id"
}

# Guards the seccomp rule of crt_stub_usable (src/linux/exec_stub.c): a
# filter that crt loads itself (no noNewPrivileges) also sees the stub's
# execveat.  An allow-list that permits it ends in the stub; one made for
# execve alone (defaultAction KILL) keeps crt's own single execve from a
# sealed copy, and both run.  The list also holds what crt calls between
# loading the filter and its execve (setresuid, capset, sendmsg ...).
test_seccomp_early_filter_and_the_stub() {
  local list without n=0
  without=$(echo "$ALLOW_LIST" | sed "s/'execveat',//")
  for list in "$ALLOW_LIST" "$without"; do
    n=$((n + 1))
    make_bundle "$T/b$n" sleep 100
    bundle_edit "$T/b$n" "c['process']['noNewPrivileges']=False; c['linux']['seccomp']={'defaultAction':'SCMP_ACT_KILL_PROCESS','architectures':['SCMP_ARCH_X86_64'],'syscalls':[{'names':$list,'action':'SCMP_ACT_ALLOW'},{'names':['nanosleep','clock_nanosleep','setgroups','setresgid','setresuid','capget','capset','sendmsg','recvmsg'],'action':'SCMP_ACT_ALLOW'}]}"
    local id; id=$(new_id)
    crt create -b "$T/b$n" "$id" </dev/null >/dev/null 2>&1 || fail "create"
    local pid; pid=$(state_field "$id" pid)
    local exe; exe=$(readlink /proc/$pid/exe)
    [ "$list" = "$ALLOW_LIST" ] || assert_sealed_crt "$pid" "parked init, execveat not allowed"
    crt start "$id" || fail "start"
    assert_eq running "$(state_field "$id" status)" "status with the filter"
    assert_eq sleep "$(cat /proc/$pid/comm)" "init after start"
    crt delete -f "$id"
    [ "$list" != "$ALLOW_LIST" ] || assert_eq "/memfd:crt-stub (deleted)" "$exe" "parked init, execveat allowed"
  done
}

# start_agent ERRNO [CONNECTIONS]: builds and starts tests/lib/seccomp_agent.c on
# $T/agent.sock; sets $agent_pid.
start_agent() {
  cc -O2 -Wall -o "$T/agent" "$REPO/tests/lib/seccomp_agent.c" -lseccomp || fail "building the seccomp agent"
  "$T/agent" "$T/agent.sock" "$T/agent.state" "$1" "${2:-1}" >"$T/agent.out" 2>"$T/agent.err" &
  agent_pid=$!
  wait_for grep -q ready "$T/agent.out" || fail "agent did not start: $(cat "$T/agent.err")"
}

# notify_profile: mkdir/mkdirat go to the agent on $T/agent.sock
notify_profile() {
  echo "{'defaultAction':'SCMP_ACT_ALLOW','listenerPath':'$T/agent.sock','listenerMetadata':'meta-$1','syscalls':[{'names':['mkdir','mkdirat'],'action':'SCMP_ACT_NOTIFY'}]}"
}

# Guards SCMP_ACT_NOTIFY in src/linux/seccomp.c (crt_seccomp_send_listener,
# listener_json) and the SECCOMP_FD hand-over in src/container/create.c:
# the agent's answer is what the container sees.
test_seccomp_notify_agent_fakes_success() {
  start_agent 0
  make_bundle "$T/b" sh -c 'mkdir /tmp/fake; echo "mkdir=$?"; ls -d /tmp/fake 2>&1; mkdir /tmp/fake; echo "again=$?"'
  bundle_edit "$T/b" "c['linux']['seccomp']=$(notify_profile x)"
  local id; id=$(new_id)
  run_rc crt run -b "$T/b" "$id" </dev/null
  wait "$agent_pid"; local arc=$?
  assert_eq 0 "$rc" "run: $out"
  # the agent said success without creating anything, twice
  assert_contains "$out" "mkdir=0"
  assert_contains "$out" "ls: /tmp/fake: No such file or directory"
  assert_contains "$out" "again=0"
  assert_eq 0 "$arc" "agent exit status: $(cat "$T/agent.err")"
  python3 - "$T/agent.state" "$id" "$T/b" <<'PY' || fail "ContainerProcessState: $(cat "$T/agent.state")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["ociVersion"].startswith("1."), s
assert s["fds"] == ["seccompFd"], s
assert s["metadata"] == "meta-x", s
assert s["pid"] > 0 and s["state"]["pid"] == s["pid"], s
st = s["state"]
assert st["id"] == sys.argv[2] and st["status"] == "creating", st
assert st["bundle"] == sys.argv[3], st
PY
}

# The agent answers with an errno of its choosing (EXDEV: nothing else in
# the path would produce it).
test_seccomp_notify_agent_errno() {
  start_agent 18
  make_bundle "$T/b" sh -c 'mkdir /tmp/x; echo "mkdir=$?"'
  bundle_edit "$T/b" "c['linux']['seccomp']=$(notify_profile y)"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  wait "$agent_pid"
  assert_contains "$out" "Invalid cross-device link"
  assert_contains "$out" "mkdir=1"
  assert_contains "$(cat "$T/agent.err")" "-> -18"
}

# Guards the same for `crt exec` (src/container/exec.c): the exec'd
# process's notify fd goes to the agent too (runc sends it as well), with
# the state of the running container.
test_seccomp_notify_agent_exec() {
  start_agent 0 2
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['linux']['seccomp']=$(notify_profile e)"
  local id; id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  run_rc crt exec "$id" sh -c 'mkdir /tmp/e; echo "mkdir=$?"; ls -d /tmp/e 2>&1'
  assert_contains "$out" "mkdir=0"
  assert_contains "$out" "ls: /tmp/e: No such file or directory"
  crt delete -f "$id"
  wait "$agent_pid"; local arc=$?
  assert_eq 0 "$arc" "agent exit status: $(cat "$T/agent.err")"
  python3 - "$T/agent.state.2" "$id" <<'PY' || fail "exec ContainerProcessState: $(cat "$T/agent.state.2")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["fds"] == ["seccompFd"] and s["state"]["id"] == sys.argv[2], s
assert s["state"]["status"] == "running" and s["pid"] != s["state"]["pid"], s
PY
}

# seccomp_held_mkdir FLAGS: the container's process signalled while the
# agent holds its mkdir (AGENT_HOLD_MS); prints its report line.
seccomp_held_mkdir() {
  export AGENT_HOLD_MS=1500
  start_agent 0
  unset AGENT_HOLD_MS
  rm -rf "$T/b" "$T/held.out"
  make_bundle "$T/b" /signal_in_notify
  cp "$T/signal_in_notify" "$T/b/rootfs/"
  bundle_edit "$T/b" "c['linux']['seccomp']=$(notify_profile k); c['linux']['seccomp']['flags']=$1; c['root']['readonly']=False"
  local id; id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null >"$T/held.out" 2>&1 || fail "run -d: $(cat "$T/held.out")"
  wait_for grep -q received "$T/agent.out" || fail "the agent never got the mkdir: $(cat "$T/agent.err")"
  crt kill "$id" USR1 || fail "kill USR1"
  wait "$agent_pid" || fail "agent: $(cat "$T/agent.err")"
  wait_eval '[ "$(state_field '"$id"' status)" = stopped ]' || fail "the container did not stop"
  crt delete "$id" >/dev/null 2>&1
  cat "$T/held.out"
}

# runc >= 1.5 (runc#5172; with libseccomp >= 2.6): linux.seccomp.flags
# SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV reaches the kernel (5.19+): a
# signal that comes after the agent received the notification no longer
# ends the wait.  The same run without the flag is the control: there the
# signal interrupts the held mkdir (EINTR) and the agent's answer is late.
# crt passes the kernel flag itself (libseccomp 2.5 has no attribute for
# it); without any SCMP_ACT_NOTIFY rule the flag is refused (the kernel's
# EINVAL, said where).
test_seccomp_wait_killable_recv() {
  if runc_before_1_2; then echo "runc $("$CRT_BIN" --version | head -1): no SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"; return 0; fi
  cc -O2 -static -o "$T/signal_in_notify" "$REPO/tests/lib/signal_in_notify.c" || fail "build signal_in_notify"
  local out
  out=$(seccomp_held_mkdir "[]")
  assert_contains "$out" "mkdir=-1 errno=Interrupted system call handled=1"
  assert_contains "$(cat "$T/agent.err")" "answer too late"
  out=$(seccomp_held_mkdir "['SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV']")
  assert_contains "$out" "mkdir=0 errno=0 handled=1"
  assert_not_contains "$(cat "$T/agent.err")" "answer too late"
  make_bundle "$T/w" true
  bundle_edit "$T/w" "c['linux']['seccomp']={'defaultAction':'SCMP_ACT_ALLOW','flags':['SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV']}"
  run_rc crt run -b "$T/w" "$(new_id)" </dev/null
  assert_eq 1 "$rc" "the flag without a listener: $out"
  is_crt && assert_contains "$out" ".linux.seccomp.flags: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs a listener"
  return 0
}

# Without an agent listening, create fails naming the listener and leaves
# nothing behind.
test_seccomp_notify_no_agent() {
  make_bundle "$T/b" true
  bundle_edit "$T/b" "c['linux']['seccomp']=$(notify_profile z)"
  local id; id=$(new_id)
  run_rc crt run -b "$T/b" "$id" </dev/null
  assert_eq 1 "$rc" "run without an agent"
  assert_contains "$out" "$T/agent.sock"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left behind"
}

# Guards maskedPaths/readonlyPaths in src/linux/rootfs.c (the default spec's
# lists): the host has these files with content, the container does not.
test_masked_and_readonly_paths() {
  make_bundle "$T/b" sh -c '
    for f in /proc/keys /proc/timer_list /proc/kcore; do [ -e $f ] && echo "$f=$(wc -c <$f)"; done
    echo "firmware=$(ls -A /sys/firmware | wc -l)"
    echo x >/proc/sys/kernel/hostname; echo "sysctl=$?"
    echo 1 >/proc/sys/vm/drop_caches; echo "drop_caches=$?"
    if [ -e /proc/sysrq-trigger ]; then echo h >/proc/sysrq-trigger; echo "sysrq=$?"; fi
    grep -E " /proc/(sys|sysrq-trigger|bus|fs|irq) " /proc/self/mountinfo'
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  [ -n "$(cat /proc/keys)" ] || fail "host /proc/keys is empty: the test would prove nothing"
  assert_contains "$out" "/proc/keys=0"
  if [ -e /proc/timer_list ]; then assert_contains "$out" "/proc/timer_list=0"; fi
  if [ -e /proc/kcore ]; then assert_contains "$out" "/proc/kcore=0"; else echo "host has no /proc/kcore: not checked"; fi
  [ -n "$(ls -A /sys/firmware)" ] || fail "host /sys/firmware is empty"
  assert_contains "$out" "firmware=0"
  assert_contains "$out" "sysctl=1"
  assert_contains "$out" "/proc/sys/kernel/hostname: Read-only file system"
  assert_contains "$out" "drop_caches=1"
  if [ -e /proc/sysrq-trigger ]; then assert_contains "$out" "sysrq=1"; else echo "host has no /proc/sysrq-trigger: not checked"; fi
  # the read-only binds themselves
  local p
  for p in /proc/sys /proc/bus /proc/fs /proc/irq; do
    [ -e "$p" ] || continue
    printf '%s\n' "$out" | grep -E " $p " | grep -qE " ro(,|$| )" || fail "$p not mounted read-only: $out"
  done
  # the host's hostname is untouched
  assert_ne x "$(cat /proc/sys/kernel/hostname)" "host hostname"
}

# Guards crt-stub (src/stub/crt-stub.c, src/linux/exec_stub.c) against
# CVE-2019-5736.  The attack: a process in a container that shares the host
# pid namespace opens /proc/PID/exe of the parked container init (which
# would be crt), keeps the fd, and once start has exec'd the payload writes
# through it into the runtime binary.  The parked init is the sealed stub.
# Run against a copy of crt, so that a failure cannot damage ./crt.
test_cve_2019_5736_cloned_binary() {
  local victim=$T/crt-victim; cp "$CRT_BIN" "$victim"
  local sum; sum=$(sha256sum <"$victim")
  local vid; vid=$(new_id)
  make_bundle "$T/v" sleep 100
  "$victim" --root "$CRT_ROOT" create -b "$T/v" "$vid" </dev/null >/dev/null 2>&1 || fail "create victim"
  local pid; pid=$(state_field "$vid" pid)
  assert_eq "/memfd:crt-stub (deleted)" "$(readlink /proc/$pid/exe)" "exe of the parked init"
  # from the host: neither the running copy nor a reopen of it is writable
  python3 - "$pid" <<'PY' || fail "host could write to /proc/$pid/exe"
import errno, os, sys
p = "/proc/%s/exe" % sys.argv[1]
for path in (p, "/proc/self/fd/%d" % os.open(p, os.O_RDONLY)):
    try:
        os.open(path, os.O_WRONLY)
    except OSError as e:
        assert e.errno in (errno.ETXTBSY, errno.EPERM), e
    else:
        sys.exit("opened %s for writing" % path)
PY
  # a process with default capabilities in the host pid namespace may not
  # even open it: the parked init is not dumpable
  make_bundle "$T/p" sh -c 'exec 5</proc/'"$pid"'/exe && echo opened'
  bundle_edit "$T/p" "c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!='pid']"
  run_rc crt run -b "$T/p" "$(new_id)" </dev/null
  assert_contains "$out" "Permission denied"
  # the attacker: host pid namespace and CAP_SYS_PTRACE, so it can
  mkdir -p "$T/shared"
  make_bundle "$T/a" sh -c '
    exec 5</proc/'"$pid"'/exe || exit 3
    echo "held=$(readlink /proc/self/fd/5)" >/shared/held
    while [ ! -e /shared/go ]; do sleep 0.05; done
    echo evil >/proc/self/fd/5; echo "write=$?"; echo evil >>/proc/self/fd/5; echo "append=$?"'
  bundle_edit "$T/a" "c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!='pid']; c['mounts'].append({'destination':'/shared','type':'bind','source':'$T/shared','options':['rbind']}); [v.append('CAP_SYS_PTRACE') for v in c['process']['capabilities'].values()]"
  local aid; aid=$(new_id)
  crt run -b "$T/a" "$aid" </dev/null >"$T/attack.out" 2>&1 &
  local apid=$!
  wait_for test -s "$T/shared/held" || fail "attacker could not open /proc/$pid/exe: $(cat "$T/attack.out")"
  assert_eq "held=/memfd:crt-stub (deleted)" "$(cat "$T/shared/held")" "what the attacker holds"
  "$victim" --root "$CRT_ROOT" start "$vid" || fail "start victim"
  assert_eq sleep "$(cat /proc/$pid/comm)" "victim init after start"
  touch "$T/shared/go"
  wait "$apid"
  local a; a=$(cat "$T/attack.out")
  assert_contains "$a" "write=1"
  assert_contains "$a" "append=1"
  assert_eq "$sum" "$(sha256sum <"$victim")" "hash of the runtime binary after the attack"
  crt delete -f "$vid"
}

# Guards crt_cloexec_fds_from (src/util/fs.c) as called before execve in
# src/container/create.c and exec.c (CVE-2024-21626): fds the caller leaks
# into crt (7: a host directory, 8: a host file) and crt's own never reach
# the container.  runc shows the same list.
test_cve_2024_21626_no_leaked_fds() {
  make_bundle "$T/b" sh -c 'echo $(ls /proc/self/fd)'
  exec 7<"$T" 8>"$T/leak"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run: $out"
  assert_eq "0 1 2 3" "$out" "fds in the container (3 is ls's own)"
  if command -v runc >/dev/null; then
    local r; r=$(runc --root "$T/runc" run -b "$T/b" "$(new_id)" </dev/null 2>&1)
    assert_eq "$r" "$out" "fds: crt vs runc"
  fi
  make_bundle "$T/c" sleep 100
  local id; id=$(new_id)
  crt run -d -b "$T/c" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  run_rc crt exec "$id" sh -c 'echo $(ls /proc/self/fd)'
  assert_eq "0 1 2 3" "$out" "fds in an exec'd process"
  local pid; pid=$(state_field "$id" pid)
  assert_eq "0 1 2" "$(ls /proc/$pid/fd | sort -n | xargs)" "fds of the container init"
  exec 7<&- 8>&-
  crt delete -f "$id"
}

# set_cwd BUNDLE CWD: process.cwd without a python start-up per value
set_cwd() {
  sed -i 's|^\(  *"cwd": \)"[^"]*"|\1"'"$2"'"|' "$1/config.json"
  grep -q "\"cwd\": \"$2\"" "$1/config.json" || fail "set_cwd $2"
}

# Guards crt_set_cwd (src/linux/process.c, CVE-2024-21626): a cwd reached
# through an fd crt holds (or one leaked into it) is refused, never entered.
test_cve_2024_21626_cwd_through_fd() {
  make_bundle "$T/b" sh -c 'readlink /proc/self/cwd'
  exec 7<"$T"
  local n
  for n in 3 4 5 6 8 9 10; do
    set_cwd "$T/b" "/proc/self/fd/$n"
    run_rc crt run -b "$T/b" "$(new_id)" </dev/null
    if [ "$rc" = 0 ]; then
      # it may only land inside the container: a path from its root
      case "$out" in /*) ;; *) fail "cwd /proc/self/fd/$n: $out" ;; esac
      assert_not_contains "$out" "$T" "cwd /proc/self/fd/$n"
    else
      assert_contains "$out" "/proc/self/fd/$n" "error for cwd /proc/self/fd/$n"
    fi
  done
  # fd 7 is a host directory: chdir works, so only the check stops it
  set_cwd "$T/b" /proc/self/fd/7
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 1 "$rc" "cwd through the leaked fd 7: $out"
  assert_contains "$out" 'cwd "/proc/self/fd/7" is outside the container root'
  # the same for exec --cwd
  make_bundle "$T/c" sleep 100
  local id; id=$(new_id)
  crt run -d -b "$T/c" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  for n in 3 4 5 6 8 9; do
    run_rc crt exec --cwd "/proc/self/fd/$n" "$id" readlink /proc/self/cwd
    if [ "$rc" = 0 ]; then
      case "$out" in /*) ;; *) fail "exec --cwd /proc/self/fd/$n: $out" ;; esac
      assert_not_contains "$out" "$T" "exec --cwd /proc/self/fd/$n"
    fi
  done
  run_rc crt exec --cwd /proc/self/fd/7 "$id" readlink /proc/self/cwd
  assert_eq 255 "$rc" "exec --cwd through the leaked fd 7 (runc: 255): $out"
  # crt's stub entry sets the process up outside the container's pid
  # namespace, where the container's /proc/self does not resolve at all;
  # the sealed re-exec path refuses the cwd by its check
  if is_crt; then
    case $out in
      *'/proc/self/fd/7'*'is outside the container root'* | *'chdir to cwd'*'/proc/self/fd/7'*'no such file'*) ;;
      *) fail "exec --cwd /proc/self/fd/7: $out" ;;
    esac
  fi
  exec 7<&-
  crt delete -f "$id"
}

# host_untouched DIR: nothing was created in DIR on the host
host_untouched() { [ -z "$(ls -A "$1")" ] || fail "host directory $1 was written: $(ls -A "$1")"; }

# Guards the in-root resolution of mount destinations in src/linux/resolve.c
# and mounts.c (CVE-2021-30465 family): symlinks and ".." in a destination
# are resolved as if the rootfs were "/", so every mount lands inside it.
test_mount_destination_symlinks_stay_inside() {
  mkdir -p "$T/host" "$T/src" "$T/vol"; echo from-src >"$T/src/file"
  # a symlink that only appears once a volume is mounted (the CVE's setup,
  # without the race: the attacker controls the shared volume)
  ln -s "$T/host" "$T/vol/x"
  make_bundle "$T/b" sh -c 'grep -E " /(escape|tmp/|abs|rel)" /proc/self/mountinfo | cut -d" " -f5,9; cat '"$T/host/bind5/file"' /abs/escape2/file'
  ln -s / "$T/b/rootfs/evil"                  # to the root
  ln -s "$T/host" "$T/b/rootfs/abs"           # to the host path, absolutely
  ln -s "../../../../../../../..$T/host" "$T/b/rootfs/rel"  # and relatively
  bundle_edit "$T/b" "c['mounts'] += [
    {'destination':'/evil/escape1','type':'tmpfs','source':'tmpfs'},
    {'destination':'/abs/escape2','type':'bind','source':'$T/src','options':['rbind','ro']},
    {'destination':'/rel/escape3','type':'tmpfs','source':'tmpfs'},
    {'destination':'/../../../..$T/host/escape4','type':'tmpfs','source':'tmpfs'},
    {'destination':'/tmp/../../../..$T/host/bind5','type':'bind','source':'$T/src','options':['rbind']},
    {'destination':'/vol','type':'bind','source':'$T/vol','options':['rbind']},
    {'destination':'/vol/x/escape6','type':'tmpfs','source':'tmpfs'}]"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run: $out"
  host_untouched "$T/host"
  assert_contains "$out" "/escape1 tmpfs"
  assert_contains "$out" "$T/host/escape2 "
  assert_contains "$out" "$T/host/escape3 tmpfs"
  assert_contains "$out" "$T/host/escape4 tmpfs"
  assert_contains "$out" "$T/host/bind5 "
  assert_contains "$out" "$T/host/escape6 tmpfs"
  [ "$(ls -A "$T/vol")" = x ] || fail "the volume was written: $(ls -A "$T/vol")"
  assert_contains "$out" "from-src
from-src"
  # the directories were made inside the rootfs
  local d
  for d in escape1 "$T/host/escape2" "$T/host/escape3" "$T/host/escape4" "$T/host/bind5" "$T/host/escape6"; do
    [ -d "$T/b/rootfs/$d" ] || fail "mount point $d not inside the rootfs"
  done
  [ ! -e /escape1 ] || fail "/escape1 made on the host"
  grep -q "$T/host" /proc/self/mountinfo && fail "a mount reached the host's $T/host"
  return 0
}

# Guards the symlink check for proc/sysfs destinations in src/linux/mounts.c
# (CVE-2019-16884): mounting proc through a symlink would put it wherever
# the symlink points.  create fails, names the mount, leaves nothing.
test_proc_sys_over_symlink_refused() {
  local name fs
  for name in proc sys; do
    mkdir -p "$T/host-$name"
    make_bundle "$T/$name" true
    rmdir "$T/$name/rootfs/$name"
    ln -s "$T/host-$name" "$T/$name/rootfs/$name"
    local id; id=$(new_id)
    run_rc crt create -b "$T/$name" "$id" </dev/null
    assert_eq 1 "$rc" "create with /$name a symlink"
    [ $name = proc ] && fs=proc || fs=sysfs
    assert_contains "$out" "error mounting \"$fs\" to rootfs at \"/$name\": filesystem \"$fs\" must be mounted on ordinary directory"
    [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left behind"
    host_untouched "$T/host-$name"
    grep -q "$T" /proc/self/mountinfo && fail "mount left behind"
    # a relative symlink inside the rootfs is refused too
    rm "$T/$name/rootfs/$name"; mkdir "$T/$name/rootfs/real"; ln -s real "$T/$name/rootfs/$name"
    run_rc crt create -b "$T/$name" "$id" </dev/null
    assert_eq 1 "$rc" "create with /$name -> real"
    assert_contains "$out" "must be mounted on ordinary directory"
    [ -z "$(ls -A "$T/$name/rootfs/real")" ] || fail "$fs mounted through the symlink"
  done
  return 0
}

# Guards `exec --cap` (src/cli/exec.c adds to bounding/effective/permitted)
# and crt_caps_apply for exec'd processes (src/container/exec.c): the cap
# shows up and works; without --cap the exec'd process has only the
# defaults.  runc 1.1.5 gives the same masks.
test_exec_cap_adds_capability() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  local base want; base=$(cap_mask CAP_AUDIT_WRITE CAP_KILL CAP_NET_BIND_SERVICE)
  want=$(cap_mask CAP_AUDIT_WRITE CAP_KILL CAP_NET_BIND_SERVICE CAP_SYS_ADMIN CAP_NET_RAW)
  run_rc crt exec --cap CAP_SYS_ADMIN --cap CAP_NET_RAW "$id" cat /proc/self/status
  assert_eq 0 "$rc" "exec --cap: $out"
  local f
  for f in CapEff CapPrm CapBnd; do assert_eq "$want" "$(status_field "$out" $f)" "$f with --cap"; done
  assert_eq 0000000000000000 "$(status_field "$out" CapInh)" "CapInh with --cap"
  run_rc crt exec "$id" cat /proc/self/status
  for f in CapEff CapPrm CapBnd; do assert_eq "$base" "$(status_field "$out" $f)" "$f without --cap"; done
  # the capability is real: mounting needs CAP_SYS_ADMIN
  run_rc crt exec "$id" mount -t tmpfs none /mnt
  assert_ne 0 "$rc" "mount without CAP_SYS_ADMIN"
  run_rc crt exec --cap CAP_SYS_ADMIN "$id" sh -c 'mount -t tmpfs none /mnt && umount /mnt && echo mounted'
  assert_eq mounted "$out" "mount with --cap CAP_SYS_ADMIN"
  # an unknown name is skipped with runc's warning, the process runs
  run_rc crt exec --cap CAP_BOGUS "$id" true
  assert_eq 0 "$rc" "exec --cap CAP_BOGUS"
  assert_contains "$out" 'ignoring unknown or unavailable capabilities: [CAP_BOGUS]'
  # one crt itself does not hold (the VM's bounding set lacks
  # CAP_SYS_RESOURCE) fails to start, like runc (255)
  if [ $(( 0x$(awk '/^CapBnd/ {print $2}' /proc/self/status) >> 24 & 1 )) = 0 ]; then
    run_rc crt exec --cap CAP_SYS_RESOURCE "$id" true
    assert_eq 255 "$rc" "exec --cap with a capability the runtime lacks"
    if is_crt; then assert_contains "$out" "setting capabilities"; else assert_contains "$out" "unable to apply caps"; fi
  fi
  crt delete -f "$id"
}

# Guards warn_skipped (src/linux/caps.c): an unknown capability name in any
# set is skipped with runc's one warning, each name once, sorted, and the
# container runs (runc; v1.3 config.md: "SHOULD NOT fail"; crun refuses).
test_unknown_capability_in_config() {
  make_bundle "$T/b" true
  local set id
  for set in bounding effective permitted ambient; do
    bundle_edit "$T/b" "c['process']['capabilities'].setdefault('ambient', list(c['process']['capabilities']['permitted'])); c['process']['capabilities']={k: [x for x in v if 'BOGUS' not in x] + (['CAP_BOGUS_$set', 'CAP_A_BOGUS'] if k == '$set' else []) for k, v in c['process']['capabilities'].items()}"
    run_rc crt run -b "$T/b" "$(new_id)" </dev/null
    assert_eq 0 "$rc" "run with an unknown capability in $set: $out"
    assert_contains "$out" "ignoring unknown or unavailable capabilities: [CAP_A_BOGUS CAP_BOGUS_$set]"
  done
  # named in several sets: one warning, each name once
  bundle_edit "$T/b" "k=c['process']['capabilities']; [k[s].append('CAP_BOGUS') for s in ('bounding','effective','permitted')]; k['ambient']=['CAP_ALSO_BOGUS']"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run with unknown capabilities in several sets: $out"
  assert_contains "$out" "ignoring unknown or unavailable capabilities: [CAP_ALSO_BOGUS CAP_BOGUS]"
  assert_eq 1 "$(echo "$out" | grep -c 'ignoring unknown')" "warnings"
}

# Guards crt_caps_apply (src/linux/caps.c): an ambient capability that is
# not also inheritable cannot be raised; runc >= 1.2 warns ("can't raise
# ambient capability CAP_CHOWN: operation not permitted") and runs the
# container without it, the others raised (runc's capabilities.bats);
# runc 1.1.5 skips it silently.  The default spec lists no ambient caps
# (as runc >= 1.2's), so a default container warns about nothing.
test_ambient_not_inheritable_warns() {
  make_bundle "$T/b" grep CapAmb /proc/self/status
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "default spec run: $out"
  assert_not_contains "$out" "ambient"
  bundle_edit "$T/b" "k=c['process']['capabilities']; k['inheritable']=['CAP_KILL']; k['ambient']=['CAP_KILL', 'CAP_CHOWN']; k['permitted'].append('CAP_CHOWN'); k['bounding'].append('CAP_CHOWN')"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run: $out"
  # CAP_KILL is 5: 0x20; CAP_CHOWN (0) not raised
  assert_contains "$out" "CapAmb:	0000000000000020"
  if runc_before_1_2; then assert_not_contains "$out" "CAP_CHOWN"; return 0; fi
  assert_contains "$out" "can't raise ambient capability CAP_CHOWN: operation not permitted"
  assert_not_contains "$out" "CAP_KILL:"
}

# Issue 53 item 0: that warning is the runtime's, never the container's.
# The init and exec's process hand their log lines to the runtime
# (crt_sync_log_to, src/container/sync.c), which writes them to its --log
# file or its own stderr, as runc's init sends them to its parent: on a
# terminal the container's pty gets none (crt wrote them onto it), with
# --log its stderr gets none.  crt says it once for all the capabilities
# it could not raise (runc 1.3.6 once per capability: the count is crt's).
test_ambient_warning_in_the_runtime_log_only() {
  runc_before_1_2 && { echo "skip: runc < 1.2 does not warn"; return 0; }
  . "$REPO/tests/integration/t_terminal.sh"
  make_bundle "$T/b" sh -c 'echo out; echo err >&2'
  bundle_edit "$T/b" "k=c['process']['capabilities']; k['inheritable']=[]; k['ambient']=['CAP_KILL', 'CAP_CHOWN']; k['permitted'].append('CAP_CHOWN'); k['bounding'].append('CAP_CHOWN')"
  crt --log "$T/log" run -b "$T/b" "$(new_id)" </dev/null >"$T/out" 2>"$T/err" || fail "run: $(cat "$T/err")"
  assert_eq out "$(cat "$T/out")" "the container's stdout"
  assert_eq err "$(cat "$T/err")" "the container's stderr with --log"
  assert_contains "$(cat "$T/log")" "level=warning msg=\"can't raise ambient capabilit"
  if is_crt; then
    assert_eq 1 "$(grep -c "can't raise" "$T/log")" "warnings in the log: $(cat "$T/log")"
    assert_contains "$(cat "$T/log")" "can't raise ambient capabilities CAP_CHOWN, CAP_KILL: operation not permitted"
  fi
  # a terminal, no --log: the warning on the runtime's stderr, not the pty
  bundle_edit "$T/b" "c['process']['terminal']=True; c['process']['args']=['sh','-c','echo in-tty']"
  recvtty_start tty; local rp=$RECVTTY_PID id; id=$(new_id)
  crt run -d --console-socket "$T/tty.sock" -b "$T/b" "$id" </dev/null >"$T/out" 2>"$T/err" || fail "run -d: $(cat "$T/err")"
  recvtty_wait "$rp" tty
  assert_eq in-tty "$(tty_text tty)" "the container's terminal"
  assert_contains "$(cat "$T/err")" "can't raise ambient capabilit" "run -d's stderr"
  wait_for sh -c "'$CRT_BIN' --root '$CRT_ROOT' state '$id' | grep -q '\"stopped\"'" || fail "not stopped"
  crt delete "$id"
  # exec -t of a process asking the same
  bundle_edit "$T/b" "c['process']['args']=['sleep','100']"
  recvtty_start init null; local ri=$RECVTTY_PID
  id=$(new_id)
  crt run -d --console-socket "$T/init.sock" -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  python3 - "$T/b/config.json" "$T/p.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["process"]
p["args"] = ["sh", "-c", "echo in-exec-tty"]
json.dump(p, open(sys.argv[2], "w"))
PY
  recvtty_start ex; local rx=$RECVTTY_PID
  crt exec -d --console-socket "$T/ex.sock" -p "$T/p.json" "$id" </dev/null >"$T/out" 2>"$T/err" || fail "exec: $(cat "$T/err")"
  recvtty_wait "$rx" ex
  assert_eq in-exec-tty "$(tty_text ex)" "the exec'd process's terminal"
  assert_contains "$(cat "$T/err")" "can't raise ambient capabilit" "exec's stderr"
  crt delete -f "$id"
  kill "$ri" 2>/dev/null; wait "$ri" 2>/dev/null
  true
}

# Guards crt-stub for `crt exec` (CVE-2019-5736): the process entering the
# container is not dumpable while it runs crt, so a process of the
# container cannot open its /proc/PID/exe; it is caught in the act by
# exec'ing into a paused container (the freezer stops it in the cgroup,
# before its execve) and looked at from a second container in the same pid
# namespace.  Then the classic payload: a "#!/proc/self/exe" program exec'd
# into the container runs the sealed stub, which refuses, never crt.
test_cve_2019_5736_exec_entering_process() {
  local sum; sum=$(sha256sum <"$CRT_BIN")
  make_bundle "$T/b" sleep 100
  printf '#!/proc/self/exe\n' >"$T/b/rootfs/evil"; chmod +x "$T/b/rootfs/evil"
  local id; id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  local init; init=$(state_field "$id" pid)
  local cg; cg=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cgroup_path"])' "$CRT_ROOT/$id/state.json")
  local procs=/sys/fs/cgroup/freezer$cg/cgroup.procs
  [ -f "$procs" ] || procs=/sys/fs/cgroup$cg/cgroup.procs
  crt pause "$id" || fail "pause"
  crt exec --ignore-paused "$id" echo entered >"$T/exec.out" 2>&1 &
  local epid=$!
  wait_for sh -c 'test "$(wc -l <"$1")" -ge 2' - "$procs" || { crt resume "$id"; fail "exec'd process never reached the cgroup"; }
  local p; p=$(grep -vx "$init" "$procs" | head -1)
  local nspid; nspid=$(awk '/^NSpid:/ {print $NF}' "/proc/$p/status")
  make_bundle "$T/peek" sh -c "readlink /proc/$nspid/exe; exec 5</proc/$nspid/exe && echo opened"
  bundle_edit "$T/peek" "[n.update(path='/proc/$init/ns/pid') for n in c['linux']['namespaces'] if n['type']=='pid']"
  run_rc crt run -b "$T/peek" "$(new_id)" </dev/null
  local peek=$out
  crt resume "$id" || fail "resume"
  wait "$epid"; local erc=$?
  assert_contains "$peek" "Permission denied"
  case $peek in *opened*|*/crt*) fail "a container process reached the exe of the entering crt: $peek" ;; esac
  assert_eq 0 "$erc" "exec: $(cat "$T/exec.out")"
  assert_eq entered "$(cat "$T/exec.out")" "exec output"
  run_rc crt exec "$id" /evil </dev/null
  assert_eq 127 "$rc" "exit of the #!/proc/self/exe payload"
  assert_contains "$out" "crt-stub: part of crt, not a program to run"
  assert_eq "$sum" "$(sha256sum <"$CRT_BIN")" "hash of ./crt"
  crt delete -f "$id"
}

# Guards the overlay seal of crt_ensure_cloned_binary (overlay_exe,
# src/linux/cloned_binary.c; CVE-2019-5736 with CAP_SYS_PTRACE): the process
# entering the container with `crt exec` runs crt from an internal,
# unattached, lower-only overlayfs mount, not from the binary on disk.  It is
# caught while it still runs crt (the freezer stops it in the cgroup, before
# its execve) and looked at from a second container with CAP_SYS_PTRACE in
# the same pid namespace: its exe is on overlayfs, can be opened for reading
# but not for writing (directly or by reopening the fd held), and the
# runtime binary keeps its hash.  Root only (rootless falls back to the memfd).
test_cve_2019_5736_exec_overlay_seal() {
  local victim=$T/crt-victim; cp "$CRT_BIN" "$victim"
  local sum; sum=$(sha256sum <"$victim")
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  "$victim" --root "$CRT_ROOT" run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  local init; init=$(state_field "$id" pid)
  local cg; cg=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cgroup_path"])' "$CRT_ROOT/$id/state.json")
  local procs=/sys/fs/cgroup/freezer$cg/cgroup.procs
  [ -f "$procs" ] || procs=/sys/fs/cgroup$cg/cgroup.procs
  "$victim" --root "$CRT_ROOT" pause "$id" || fail "pause"
  "$victim" --root "$CRT_ROOT" exec --ignore-paused "$id" echo entered >"$T/exec.out" 2>&1 &
  local epid=$!
  wait_for sh -c 'test "$(wc -l <"$1")" -ge 2' - "$procs" || { crt resume "$id"; fail "exec'd process never reached the cgroup"; }
  local p; p=$(grep -vx "$init" "$procs" | head -1)
  local host_exe; host_exe=$(readlink "/proc/$p/exe")
  local nspid; nspid=$(awk '/^NSpid:/ {print $NF}' "/proc/$p/status")
  make_bundle "$T/peek" sh -c "e=/proc/$nspid/exe; readlink \$e; stat -L -f -c 'fs=%t' \$e; exec 7<\$e && echo opened-ro; exec 5>>\$e && echo opened-wr; exec 6<>\$e && echo opened-rw; exec 8>>/proc/self/fd/7 && echo reopened-wr; true"
  bundle_edit "$T/peek" "[n.update(path='/proc/$init/ns/pid') for n in c['linux']['namespaces'] if n['type']=='pid']; [v.append('CAP_SYS_PTRACE') for v in c['process']['capabilities'].values()]"
  run_rc crt run -b "$T/peek" "$(new_id)" </dev/null
  local peek=$out
  "$victim" --root "$CRT_ROOT" resume "$id" || fail "resume"
  wait "$epid"; local erc=$?
  echo "host sees: $host_exe; the container sees: $peek"
  assert_eq "/crt-victim" "$host_exe" "exe of the entering process, from the host (the overlay's root is the binary's directory)"
  assert_contains "$peek" "fs=794c7630" "filesystem of the exe (OVERLAYFS_SUPER_MAGIC)"
  assert_contains "$peek" "opened-ro"
  assert_contains "$peek" "Read-only file system"
  case $peek in *opened-wr*|*opened-rw*|*reopened*) fail "a container process opened crt's exe for writing: $peek" ;; esac
  assert_eq 0 "$erc" "exec: $(cat "$T/exec.out")"
  assert_eq entered "$(cat "$T/exec.out")" "exec output"
  assert_eq "$sum" "$(sha256sum <"$victim")" "hash of the runtime binary"
  crt delete -f "$id"
}

# Guards the stub entry of `crt exec` (stub_entry, src/container/exec.c;
# CVE-2019-5736 with CAP_SYS_PTRACE): crt no longer re-executes itself from
# a sealed copy for exec; the process that runs crt's binary on disk while
# it sets the exec up inside the container (K) stays out of the container's
# pid namespace, and only crt-stub's fork enters it.  K is caught in the act
# (the test build's pause point env:home, where it would read the
# container's /etc/passwd after it joined the mount namespace; a FIFO there
# held it until issue 54 made that read non-blocking) and a second container with CAP_SYS_PTRACE in
# the same pid namespace looks for any process whose exe is the runtime
# binary: it must find none.  A K that entered the pid namespace, or a
# process that ran the on-disk binary there, would be listed.
test_cve_2019_5736_exec_stub_entry() {
  is_crt || return 0
  local tp=$REPO/build/crt-testpoints
  [ -x "$tp" ] || fail "no $tp: run make build/crt-testpoints"
  local victim=$T/crt-victim; cp "$tp" "$victim"
  local sum; sum=$(sha256sum <"$victim")
  local exe_id; exe_id=$(stat -L -c %d:%i "$victim")
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['process']['env'].append('HOME=/root')"
  local id; id=$(new_id)
  "$victim" --root "$CRT_ROOT" run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  local init; init=$(state_field "$id" pid)
  # no HOME: K stops where it would look it up (the test build's pause
  # point env:home), inside the container's mount namespace
  printf '{"args":["echo","entered"],"cwd":"/","env":["PATH=/bin"],"user":{"uid":0,"gid":0}}' >"$T/p.json"
  # (no CRT_TEST_PAUSE_FILE: K could not reach it from the container's mount
  # namespace; it is found as exec's child pausing there)
  CRT_TEST_PAUSE=env:home "$victim" --root "$CRT_ROOT" exec -p "$T/p.json" "$id" >"$T/exec.out" 2>&1 &
  local epid=$!
  local k=""
  wait_eval 'k=$(pgrep -P '"$epid"'); [ -n "$k" ] && [ "$(readlink /proc/$k/ns/mnt)" = "$(readlink /proc/'"$init"'/ns/mnt)" ] && grep -q pause /proc/$k/wchan' ||
    { kill -9 $epid; fail "K never paused at env:home in the container's mount namespace (k=$k): $(cat "$T/exec.out")"; }
  local k_exe k_pidns; k_exe=$(stat -L -c %d:%i "/proc/$k/exe"); k_pidns=$(readlink "/proc/$k/ns/pid")
  make_bundle "$T/peek" sh -c 'for e in /proc/[0-9]*/exe; do echo "${e%/exe} $(stat -L -c %d:%i $e 2>&1)"; done'
  bundle_edit "$T/peek" "[n.update(path='/proc/$init/ns/pid') for n in c['linux']['namespaces'] if n['type']=='pid']; [v.append('CAP_SYS_PTRACE') for v in c['process']['capabilities'].values()]"
  run_rc crt run -b "$T/peek" "$(new_id)" </dev/null
  local peek=$out
  kill -9 "$k"; wait "$epid"
  echo "K: exe $k_exe (the binary: $exe_id), pid ns $k_pidns; the container sees: $peek"
  assert_eq "$exe_id" "$k_exe" "K runs the runtime binary from disk (the test caught the moment)"
  assert_eq "$(readlink /proc/self/ns/pid)" "$k_pidns" "K's pid namespace"
  assert_contains "$peek" "/proc/1 "
  assert_not_contains "$peek" "$exe_id" "a container process with the runtime binary as its exe"
  assert_eq "$sum" "$(sha256sum <"$victim")" "hash of the runtime binary"
  # unpaused, the same exec enters
  run_rc "$victim" --root "$CRT_ROOT" exec -p "$T/p.json" "$id"
  assert_eq 0 "$rc" "exec: $out"
  assert_eq entered "$out" "exec output"
  crt delete -f "$id"
}

# Guards crt_stub_usable (src/linux/exec_stub.c): with startContainer hooks
# (which run after the FIFO, in the container) crt runs from a sealed copy
# of itself up to the user's execve instead of ending in the stub.
test_start_container_hook_runs_from_sealed_copy() {
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['hooks']={'startContainer':[{'path':'/bin/true','args':['true']}]}"
  local id; id=$(new_id)
  crt create -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create"
  local pid; pid=$(state_field "$id" pid)
  assert_sealed_crt "$pid" "exe of the parked init"
  crt start "$id" || fail "start"
  assert_eq sleep "$(cat /proc/$pid/comm)" "init after start"
  crt delete -f "$id"
}

# Guards the failure record of crt-stub (crt_stub_message): an execve that
# fails at start (a file marked executable that is no program) is reported
# by start (exit 1) and by exec (exit 255) with the errno, and the
# container's init is gone.
test_stub_exec_failure_reported() {
  make_bundle "$T/b" /garbage
  printf 'not a program\n' >"$T/b/rootfs/garbage"; chmod +x "$T/b/rootfs/garbage"
  local id; id=$(new_id)
  crt create -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create"
  run_rc crt start "$id"
  assert_eq 1 "$rc" "start of a non-program"
  assert_contains "$out" "unable to start container process: exec /garbage: exec format error"
  wait_eval '[ "$(state_field "$id" status)" = stopped ]' || fail "init still there: $(state_field "$id" status)"
  crt delete -f "$id"
  make_bundle "$T/s" sleep 100
  cp "$T/b/rootfs/garbage" "$T/s/rootfs/garbage"
  id=$(new_id)
  crt run -d -b "$T/s" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  run_rc crt exec "$id" /garbage
  assert_eq 255 "$rc" "exec of a non-program"
  assert_contains "$out" "exec failed: unable to start container process: exec /garbage: exec format error"
  crt delete -f "$id"
}

# Guards the action table of src/linux/seccomp.c: SCMP_ACT_KILL_PROCESS
# kills the process with SIGSYS: a forked one, then the init itself
# (run exits 128+31, like runc).
test_seccomp_kill_process() {
  make_bundle "$T/b" sh -c 'mkdir /tmp/x; echo "child=$?"; exec mkdir /tmp/x'
  bundle_edit "$T/b" "c['linux']['seccomp']={'defaultAction':'SCMP_ACT_ALLOW','syscalls':[{'names':['mkdir','mkdirat'],'action':'SCMP_ACT_KILL_PROCESS'}]}"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 159 "$rc" "exit status after SIGSYS: $out"
  assert_contains "$out" "child=159" "a forked mkdir dies of SIGSYS"
}

# Guards crt_proc_self_fd (src/linux/process.c) and the cgroup fd closed at
# the top of init_main (src/container/create.c): the parked init held an
# O_PATH fd of the host's /proc/self/fd, and a process exec'd into the
# created container reached the host's /proc/sys through
# /proc/1/fd/3/../../sys (writable kernel.core_pattern: a host escape); on
# cgroup v2 it also held the host cgroupfs directory it was cloned into.
# Now every directory fd of the parked init is a procfs of the container's
# own (not the host /proc's device), and the init is not dumpable.
parked_init_dirs() { # ID: fails on any host directory the init holds
  local pid; pid=$(state_field "$1" pid)
  local hostproc; hostproc=$(stat -c %d /proc)
  local f
  for f in /proc/$pid/fd/*; do
    [ -d "$f" ] || continue
    [ "$(stat -f -L -c %T "$f")" = proc ] || fail "parked init holds a host directory: $(readlink "$f")"
    [ "$(stat -L -c %d "$f")" != "$hostproc" ] || fail "parked init holds the host's procfs: $(readlink "$f")"
  done
}
test_parked_init_holds_no_host_directory() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt create -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create"
  parked_init_dirs "$id"
  local out; out=$(crt exec "$id" sh -c 'ls -l /proc/1/fd/ 2>&1; ls /proc/1/fd/*/../../sys/kernel 2>&1; cat /proc/1/fd/*/../../1/cmdline 2>&1' </dev/null)
  case $out in *" -> "*) fail "a process in the container can read the parked init's fds: $out" ;; esac
  case $out in *core_pattern*) fail "host /proc/sys reachable from the container: $out" ;; esac
  crt start "$id" || fail "start"
  crt delete -f "$id"
}
cg2_parked_init() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt create -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create"
  grep -q "^0::/" "/proc/$(state_field "$id" pid)/cgroup" || fail "no cgroup2"
  parked_init_dirs "$id"
  crt delete -f "$id"
}
test_parked_init_holds_no_host_directory_cgroup2() { in_cg2 cg2_parked_init; }

# Guards the fallback of crt_proc_self_fd: without a /proc in the container
# the FIFO is reopened through a detached read-only procfs.
test_no_proc_mount_lifecycle() {
  make_bundle "$T/b" sh -c 'test -e /proc/self && echo has-proc; echo ran'
  bundle_edit "$T/b" "c['mounts']=[m for m in c['mounts'] if m['destination']!='/proc']; c['linux']['maskedPaths']=[]; c['linux']['readonlyPaths']=[]"
  local id; id=$(new_id)
  crt create -b "$T/b" "$id" </dev/null >"$T/out" 2>&1 || fail "create without /proc: $(cat "$T/out")"
  parked_init_dirs "$id"
  crt start "$id" || fail "start"
  wait_for sh -c 'grep -q ran "$1"' - "$T/out" || fail "no output: $(cat "$T/out")"
  assert_eq ran "$(cat "$T/out")" "container output"
  crt delete -f "$id"
}

# Guards the sealed re-exec of `crt exec` and of a `create` that joins an
# existing pid namespace (crt_enter_sealed, src/linux/cloned_binary.c;
# CVE-2019-5736 with CAP_SYS_PTRACE).  An attacker container holding
# CAP_SYS_PTRACE scans /proc/*/exe, keeps a read-only fd of every
# executable it sees and keeps trying to reopen it for writing
# (tests/lib/exe_grabber.c).  The host runs `crt exec` into it 20 times and
# `crt run` of a container joining its pid namespace 6 times, with pauses
# so that the binary is not busy.  The runtime binary (a copy) must keep its
# hash, and no reopen for writing may succeed; the attacker must have seen
# the entering processes (it holds their sealed executables: the overlay's
# file, or the memfd copy).
test_cve_2019_5736_ptrace_attacker() {
  local victim=$T/crt-victim; cp "$CRT_BIN" "$victim"
  local sum; sum=$(sha256sum <"$victim")
  mkdir -p "$T/shared"
  make_bundle "$T/a" sh -c '/grab 120 /shared/stop >/shared/report.tmp; echo "rc=$?" >>/shared/report.tmp; mv /shared/report.tmp /shared/report'
  cc -O2 -static -o "$T/a/rootfs/grab" "$REPO/tests/lib/exe_grabber.c" || fail "build exe_grabber"
  bundle_edit "$T/a" "c['mounts'].append({'destination':'/shared','type':'bind','source':'$T/shared','options':['rbind']}); [v.append('CAP_SYS_PTRACE') for v in c['process']['capabilities'].values()]"
  local aid; aid=$(new_id)
  "$victim" --root "$CRT_ROOT" run -d -b "$T/a" "$aid" </dev/null >/dev/null 2>&1 || fail "run the attacker"
  local apid; apid=$(state_field "$aid" pid)
  local i
  for i in $(seq 20); do
    "$victim" --root "$CRT_ROOT" exec "$aid" true </dev/null || fail "exec $i"
    sleep 0.05
  done
  make_bundle "$T/j" true
  bundle_edit "$T/j" "[n.update(path='/proc/$apid/ns/pid') for n in c['linux']['namespaces'] if n['type']=='pid']"
  for i in $(seq 6); do
    "$victim" --root "$CRT_ROOT" run -b "$T/j" "$(new_id)" </dev/null || fail "run joining the pid namespace $i"
    sleep 0.05
  done
  touch "$T/shared/stop"
  wait_for test -e "$T/shared/report" || fail "no report from the attacker"
  local r; r=$(cat "$T/shared/report")
  echo "$r"
  assert_not_contains "$r" "WROTE" "attacker's report"
  assert_contains "$r" "rc=0" "attacker's report"
  # the entering crt: through the overlay seal (/crt-victim), or the memfd
  # copy where overlayfs is not available (not the stub's memfd)
  case $r in *": /crt-victim"*|*"/memfd:crt (deleted)"*) ;; *) fail "the attacker never saw an entering crt: $r" ;; esac
  assert_eq "$sum" "$(sha256sum <"$victim")" "hash of the runtime binary after the attack"
  crt delete -f "$aid"
}

# Guards validate_sysctls (src/spec/validate.c): only sysctls of namespaces
# the container owns are written, as runc; anything else is refused before
# anything is created, naming the key, and the host's value is unchanged.
# Passes with CRT_BIN=/usr/sbin/runc (crt's own message checked only for crt).
test_sysctl_outside_namespaces_refused() {
  local before_vm before_core before_msg
  before_vm=$(cat /proc/sys/vm/overcommit_ratio); before_core=$(cat /proc/sys/kernel/core_pattern)
  before_msg=$(cat /proc/sys/kernel/msgmax)
  # a runtime that fails this test has written the host's values: put them back
  trap 'echo "$before_vm" >/proc/sys/vm/overcommit_ratio; echo "$before_core" >/proc/sys/kernel/core_pattern
        echo "$before_msg" >/proc/sys/kernel/msgmax' EXIT
  local case key val drop
  make_bundle "$T/b" true
  cp "$T/b/config.json" "$T/config.orig"
  for case in "vm.overcommit_ratio=$((before_vm + 1))=" "kernel.core_pattern=|/tmp/evil=" \
              "net.ipv4.ip_forward=1=network" "kernel.msgmax=8193=ipc" "kernel.domainname=x.y=uts" \
              "net.ipv4.ip_forward=1=hostnet"; do
    IFS== read -r key val drop <<<"$case"
    cp "$T/config.orig" "$T/b/config.json"
    bundle_edit "$T/b" "c['linux']['sysctl']={'$key':'$val'}; d='$drop'; c.pop('hostname') if d == 'uts' else None
if d == 'hostnet': [n.update(path='/proc/self/ns/net') for n in c['linux']['namespaces'] if n['type']=='network']
elif d: c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!=d]"
    local id; id=$(new_id)
    run_rc crt run -b "$T/b" "$id" </dev/null
    assert_eq 1 "$rc" "run with sysctl $key ($drop): $out"
    case $CRT_BIN in *runc) ;; *) assert_contains "$out" ".linux.sysctl[\"$key\"]: not" ;; esac
    [ ! -e "$CRT_ROOT/$id" ] || fail "state dir of $id left behind"
  done
  assert_eq "$before_vm" "$(cat /proc/sys/vm/overcommit_ratio)" "host vm.overcommit_ratio"
  assert_eq "$before_core" "$(cat /proc/sys/kernel/core_pattern)" "host kernel.core_pattern"
  assert_eq "$before_msg" "$(cat /proc/sys/kernel/msgmax)" "host kernel.msgmax"
  # in the container's own namespaces they are applied, and the host keeps its values
  cp "$T/config.orig" "$T/b/config.json"
  bundle_edit "$T/b" "c['process']['args']=['sh','-c','cat /proc/sys/kernel/msgmax /proc/sys/fs/mqueue/msg_max /proc/sys/net/ipv4/ip_forward']
c['linux']['sysctl']={'kernel.msgmax':'8193','fs.mqueue.msg_max':'21','net.ipv4.ip_forward':'1'}"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run with namespaced sysctls: $out"
  assert_eq "8193 21 1" "$(echo $out)" "sysctls in the container"
  assert_eq "$before_msg" "$(cat /proc/sys/kernel/msgmax)" "host kernel.msgmax after the container"
}

# Guards listen_fds (src/container/create.c): socket-activation fds are
# passed on only when LISTEN_PID names the runtime process itself, as
# sd_listen_fds(3) and runc do; variables inherited from a socket-activated
# ancestor must not carry the caller's fds into the container, and a huge
# LISTEN_FDS is ignored.  Passes with CRT_BIN=/usr/sbin/runc.
test_listen_fds_need_listen_pid() {
  make_bundle "$T/b" sh -c 'echo $(ls /proc/self/fd) "[$LISTEN_FDS $LISTEN_PID]"'
  local want_ls
  run_rc bash -c 'exec 3<"$1"; LISTEN_FDS=1 LISTEN_PID=1 exec "$2" --root "$3" run -b "$4" "$5"' - /etc/hostname "$CRT_BIN" "$CRT_ROOT" "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run: $out"
  assert_eq "0 1 2 3 [ ]" "$out" "fds and env with another process's LISTEN_PID (3 is ls's own)"
  run_rc bash -c 'exec 3<"$1"; export LISTEN_FDS=1 LISTEN_PID=$$; exec "$2" --root "$3" run -b "$4" "$5"' - /etc/hostname "$CRT_BIN" "$CRT_ROOT" "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run: $out"
  assert_eq "0 1 2 3 4 [1 1]" "$out" "fds and env with our own LISTEN_PID (4 is ls's own)"
  run_rc bash -c 'export LISTEN_FDS=99999999999999999999 LISTEN_PID=$$; exec "$1" --root "$2" run -b "$3" "$4"' - "$CRT_BIN" "$CRT_ROOT" "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run with a huge LISTEN_FDS: $out"
  assert_eq "0 1 2 3 [ ]" "$out" "fds with a huge LISTEN_FDS"
}

# Guards hide_host_proc_sys (src/linux/rootfs.c): with --no-pivot the
# host's mounts stay in the container's mount namespace below the moved
# root, and while the host's full /proc is among them a user namespace in
# the container may mount a fresh, unmasked procfs (the kernel allows that
# when any fully visible procfs exists in the mount namespace, reachable or
# not).  The container runs as uid 1000 (mapping uid 0 needs CAP_SETFCAP).
# The same as with pivot_root, and with CRT_BIN=/usr/sbin/runc.
test_no_pivot_hides_host_proc() {
  make_bundle "$T/b" sh -c 'mkdir -p /tmp/p && unshare -U -r -m -p -f mount -t proc proc /tmp/p 2>/dev/null && echo MOUNTED || echo REFUSED'
  bundle_edit "$T/b" "c['root']['readonly']=False; c['process']['user']={'uid':1000,'gid':1000}"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run (pivot_root): $out"
  assert_eq REFUSED "$out" "a fresh procfs from a user namespace (pivot_root)"
  run_rc crt run --no-pivot -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run --no-pivot: $out"
  assert_eq REFUSED "$out" "a fresh procfs from a user namespace (--no-pivot)"
}

# Guards check_proc_dest (src/linux/mounts.c; CVE-2019-19921 class): a
# bind mount may not cover /proc or a path inside it (a fake procfs would
# take the LSM label written to /proc/self/attr), except the files lxcfs
# emulates; and no mount goes through a /proc or /sys that the rootfs made
# a symlink.  create fails naming the mount and leaves nothing behind.
# runc 1.1.5 refuses the first, accepts the lxcfs file, and (unlike crt)
# accepts a bind through a symlinked /sys.
test_mount_over_proc_refused() {
  make_bundle "$T/b" cat /proc/uptime
  cp "$T/b/config.json" "$T/config.orig"
  local id
  bundle_edit "$T/b" "c['mounts'].append({'destination':'/proc/sys','type':'bind','source':'$T','options':['rbind']})"
  id=$(new_id)
  run_rc crt run -b "$T/b" "$id" </dev/null
  assert_eq 1 "$rc" "run with a bind over /proc/sys"
  case $CRT_BIN in *runc) ;; *) assert_contains "$out" "destination \"/proc/sys\" is inside /proc" ;; esac
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left behind"
  cp "$T/config.orig" "$T/b/config.json"
  echo "4242.00 1.00" >"$T/uptime"
  bundle_edit "$T/b" "c['mounts'].append({'destination':'/proc/uptime','type':'bind','source':'$T/uptime','options':['bind']})"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq 0 "$rc" "run with lxcfs's /proc/uptime: $out"
  assert_eq "4242.00 1.00" "$out" "/proc/uptime in the container"
  case $CRT_BIN in *runc) return 0 ;; esac
  mkdir "$T/b/rootfs/evil"; rmdir "$T/b/rootfs/sys"; ln -s /evil "$T/b/rootfs/sys"
  cp "$T/config.orig" "$T/b/config.json"
  bundle_edit "$T/b" "c['mounts']=[m if m['destination']!='/sys' else {'destination':'/sys','type':'none','source':'/sys','options':['rbind','nosuid','noexec','nodev','ro']} for m in c['mounts']]"
  id=$(new_id)
  run_rc crt run -b "$T/b" "$id" </dev/null
  assert_eq 1 "$rc" "run with a bind through a symlinked /sys"
  assert_contains "$out" "/sys in the rootfs is a symlink, not a directory"
  [ -z "$(ls -A "$T/b/rootfs/evil")" ] || fail "/sys was mounted through the symlink"
  [ ! -e "$CRT_ROOT/$id" ] || fail "state dir left behind"
}

# Guards crt_msg_cut (src/util/error.c, src/util/log.c): a 1 MiB value in
# config.json (capability, namespace type, rlimit type, env entry,
# ociVersion) is echoed cut, on stderr and in the --log-format json log,
# which stays one valid JSON line that still names the JSON path.
test_huge_values_cut_in_errors() {
  # crt's own cut (crt_msg_cut); runc 1.1.5 and 1.3.6 both hang on some of
  # these runs (their init never finishes; 1.3.6 was seen for 43 minutes)
  is_crt || { echo "runc hangs on 1 MiB config values: crt's own test"; return 0; }
  make_bundle "$T/b" true
  cp "$T/b/config.json" "$T/config.orig"
  local what edit
  # an unknown capability is a warning (runc >= 1.2: "ignoring unknown or
  # unavailable capabilities"), the others are errors: each message is cut
  for what in "capabilities:0:c['process']['capabilities']['bounding'].append(big)" \
              "namespaces:1:c['linux']['namespaces'].append({'type':big})" \
              "rlimits:1:c['process']['rlimits'].append({'type':big,'soft':1,'hard':1})" \
              "env:1:c['process']['env'].append(big)" "ociVersion:1:c['ociVersion']=big"; do
    local want
    edit=${what#*:}; what=${what%%:*}; want=${edit%%:*}; edit=${edit#*:}

    cp "$T/config.orig" "$T/b/config.json"
    bundle_edit "$T/b" "big='A'*(1<<20); $edit"
    rm -f "$T/log.json"
    "$CRT_BIN" --root "$CRT_ROOT" --log "$T/log.json" --log-format json run -b "$T/b" "$(new_id)" </dev/null 2>"$T/err"
    assert_eq "$want" "$?" "run with a 1 MiB $what"
    local n; n=$(wc -c <"$T/err")
    [ "$n" -lt 2048 ] || fail "stderr for a 1 MiB $what: $n bytes"
    # with --log, a warning goes to the log alone, as runc's
    [ "$want" = 0 ] || assert_contains "$(cat "$T/err")" "$what" "stderr names the field"
    python3 - "$T/log.json" "$what" <<'PY' || fail "log.json for a 1 MiB $what: $(head -c 300 "$T/log.json")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert all(len(l) < 2048 for l in lines), [len(l) for l in lines]
msgs = [json.loads(l)["msg"] for l in lines]
assert any(sys.argv[2] in m and "bytes cut" in m for m in msgs), msgs
PY
  done
}
