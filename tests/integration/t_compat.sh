# Differential tests: runc 1.1.5's observable behaviour, where the spec is
# silent.  Every test passes with crt and with
# `CRT_BIN=/usr/sbin/runc ONLY=t_compat bash tests/integration/run.sh`;
# checks of crt's own message text sit behind `is_crt`.

# stopped ID: true once the container's status is "stopped"
stopped() { [ "$(state_field "$1" status)" = stopped ]; }

# Guards crt_parse_signal (src/cli/common.c): runc's forms only, signal 0
# included, which `kill` sends to check that the init exists.
test_kill_signal_forms() {
  make_bundle "$T/b"
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id" || fail "run -d"
  local s
  for s in 0 +0 00 SigUsr1 usr1 sigWINCH IO 64; do
    run_rc crt kill "$id" "$s"; assert_eq 0 "$rc" "kill $s: $out"
  done
  for s in RTMIN SIGRTMIN+1 IOT POLL CLD " 1" 9x; do
    run_rc crt kill "$id" "$s"; assert_eq 1 "$rc" "kill '$s'"; assert_contains "$out" "unknown signal"
  done
  for s in 65 -1; do run_rc crt kill "$id" "$s"; assert_eq 1 "$rc" "kill $s"; done
  assert_eq running "$(state_field "$id" status)" "signal 0 and ignored signals leave it running"
  crt kill "$id" 9 || fail "kill 9"
  wait_eval "stopped $id" || fail "did not stop"
  run_rc crt kill "$id" 0; assert_eq 1 "$rc" "kill 0 of a stopped container"; assert_contains "$out" "not running"
  crt delete "$id"
}

# Guards crt_cmd_ps (src/cli/ps.c): ps of a stopped container exits 0 with
# ps's header and no process (JSON: runc's empty list, null).
test_ps_stopped_container() {
  make_bundle "$T/b" true
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id" || fail "run -d"
  wait_eval "stopped $id" || fail "did not stop"
  run_rc crt ps "$id"; assert_eq 0 "$rc" "ps of a stopped container: $out"
  assert_contains "$out" "PID"; assert_eq 1 "$(echo "$out" | wc -l)" "header only"
  run_rc crt ps --format json "$id"; assert_eq 0 "$rc" "ps --format json"; assert_eq null "$out" "json"
  run_rc crt ps nosuch-$$; assert_eq 1 "$rc" "ps of an unknown container"
  crt delete "$id"
}

# Guards init_main's crt_mkdir_p of process.cwd (src/container/create.c): a
# missing cwd is created, root-owned 0755, even under a read-only root and
# for a non-root user.
test_missing_cwd_is_created() {
  make_bundle "$T/b" sh -c 'pwd; stat -c "%u %g %a" /a /a/b/c; id -u'
  bundle_edit "$T/b" "c['process']['cwd']='/a/b/c'; c['process']['user']={'uid':1000,'gid':1000}; c['root']['readonly']=True"
  run_rc crt run --bundle "$T/b" "$(new_id)"; assert_eq 0 "$rc" "run with a missing cwd: $out"
  assert_eq "/a/b/c
0 0 755
0 0 755
1000" "$out" "cwd, its owner and mode, the user"
  # a cwd that is a file stays an error
  bundle_edit "$T/b" "c['process']['cwd']='/etc/passwd'"
  run_rc crt run --bundle "$T/b" "$(new_id)"; assert_eq 1 "$rc" "cwd on a file"
  assert_contains "${out,,}" "not a directory"
  [ -z "$(crt list -q)" ] || fail "a failed create left a container"
}

# Guards crt_process_load (src/spec/parse.c): exec -p reads any file, a pipe
# included.
test_exec_process_from_pipe() {
  make_bundle "$T/b"
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id" || fail "run -d"
  run_rc sh -c "echo '{\"args\":[\"sh\",\"-c\",\"echo from-pipe; pwd\"],\"cwd\":\"/tmp\",\"env\":[\"PATH=/bin\"]}' |
    \"$CRT_BIN\" --root \"$CRT_ROOT\" exec -p /dev/stdin $id"
  assert_eq 0 "$rc" "exec -p /dev/stdin: $out"; assert_eq "from-pipe
/tmp" "$out"
  crt delete -f "$id"
}

# Guards check_flags (src/cli/exec.c) and crt_set_cwd's origin
# (src/linux/process.c): exec's --cwd and --env follow config.json's rules,
# and a bad cwd names where it was set.
test_exec_cwd_and_env_rules() {
  make_bundle "$T/b"
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id" || fail "run -d"
  run_rc crt exec --cwd relative "$id" pwd; assert_eq 255 "$rc" "relative --cwd"
  is_crt && assert_contains "$out" '--cwd "relative": not an absolute path'
  run_rc crt exec --cwd /nonexistent "$id" pwd; assert_eq 255 "$rc" "missing --cwd"
  assert_contains "${out,,}" "no such file or directory"
  is_crt && assert_contains "$out" 'chdir to cwd ("/nonexistent") set by --cwd'
  printf '{"args":["pwd"],"cwd":"/nonexistent","env":["PATH=/bin"]}' >"$T/p.json"
  run_rc crt exec -p "$T/p.json" "$id"; assert_eq 255 "$rc" "missing cwd in a process file"
  is_crt && assert_contains "$out" "set in $T/p.json"
  local e
  for e in NOEQ =x ""; do
    run_rc crt exec --env "$e" "$id" true; assert_eq 255 "$rc" "--env '$e'"
    assert_contains "$out" "environment variable"
  done
  run_rc crt exec --env A=1=2 "$id" sh -c 'echo $A'; assert_eq 0 "$rc" "--env A=1=2"; assert_eq "1=2" "$out"
  crt delete -f "$id"
}

# Guards clean_abs_path in parse_device (src/spec/parse.c): a linux.devices
# path with a trailing slash, "//", "." or ".." names the cleaned path.
test_device_path_trailing_slash() {
  make_bundle "$T/b" sh -c 'stat -c "%F %t,%T" /dev/mynull /dev/sub/n2; echo x >/dev/mynull && echo written'
  bundle_edit "$T/b" "c['linux']['devices']=[{'path':'/dev/mynull/','type':'c','major':1,'minor':3,'fileMode':0o666},
    {'path':'/dev//sub/./x/../n2','type':'c','major':1,'minor':3}]
c['linux']['resources']['devices'].append({'allow':True,'type':'c','major':1,'minor':3,'access':'rwm'})"
  run_rc crt run --bundle "$T/b" "$(new_id)"; assert_eq 0 "$rc" "run: $out"
  assert_eq "character special file 1,3
character special file 1,3
written" "$out"
}

# sid_check: prints "leader" when the shell's pid is its process group and
# session id (fields 1, 5 and 6 of /proc/self/stat; sh reads it itself).
SID_CHECK='read -r pid comm st ppid pgrp sid rest </proc/self/stat; [ "$pid" = "$pgrp" ] && [ "$pid" = "$sid" ] && echo leader || echo "pid $pid pgrp $pgrp sid $sid"'

# Guards crt_new_session (src/linux/process.c) in init_main
# (src/container/create.c) and exec_process (src/container/exec.c): a
# process without a terminal leads its own session and process group.
test_process_is_session_leader() {
  make_bundle "$T/b" sh -c "$SID_CHECK"
  run_rc crt run --bundle "$T/b" "$(new_id)"; assert_eq 0 "$rc" "run"; assert_eq leader "$out" "container init"
  make_bundle "$T/b2"
  local id; id=$(new_id)
  crt run -d --bundle "$T/b2" "$id" || fail "run -d"
  run_rc crt exec "$id" sh -c "$SID_CHECK"; assert_eq 0 "$rc" "exec"; assert_eq leader "$out" "exec'd process"
  crt delete -f "$id"
}

# recv_tty NAME: a console-socket receiver (tests/lib/recvtty.c) on
# $T/NAME.sock, output in $T/NAME.out; sets RECV_PID.
recv_tty() {
  [ -x "$T/recvtty" ] || cc -O2 -Wall -o "$T/recvtty" "$REPO/tests/lib/recvtty.c" || fail "cannot build recvtty"
  timeout 20 "$T/recvtty" --pid-file "$T/$1.pid" "$T/$1.sock" >"$T/$1.out" 2>"$T/$1.err" </dev/null &
  RECV_PID=$!
  wait_for test -s "$T/$1.pid" || fail "recvtty $1 did not start: $(cat "$T/$1.err")"
}

# Guards crt_fix_stdio_owner (src/linux/process.c): the pty slave belongs to
# the process's uid and keeps devpts's tty gid (5), for the init and for
# exec -t; stdio pipes go to the uid too.
test_pty_owned_by_process_user() {
  make_bundle "$T/b" sh -c 'stat -c "%u %g" $(tty)'
  bundle_edit "$T/b" "c['process']['terminal']=True; c['process']['user']={'uid':1000,'gid':1000}"
  recv_tty init
  local id; id=$(new_id)
  crt create --console-socket "$T/init.sock" --bundle "$T/b" "$id" || fail "create"
  crt start "$id" || fail "start"
  wait "$RECV_PID" || fail "recvtty: $(cat "$T/init.err")"
  assert_eq "1000 5" "$(tr -d '\r' <"$T/init.out")" "init's tty owner"
  crt delete -f "$id"
  make_bundle "$T/b2"
  crt run -d --bundle "$T/b2" "$id" || fail "run -d"
  recv_tty ex
  crt exec -t -d --console-socket "$T/ex.sock" -u 1000:1000 "$id" sh -c 'stat -c "%u %g" $(tty)' || fail "exec -t"
  wait "$RECV_PID" || fail "recvtty: $(cat "$T/ex.err")"
  assert_eq "1000 5" "$(tr -d '\r' <"$T/ex.out")" "exec'd process's tty owner"
  run_rc crt exec -u 1000:1000 "$id" sh -c 'stat -L -c "%u" /proc/self/fd/1'; assert_eq 0 "$rc" "exec without tty"
  assert_eq 1000 "$out" "stdout pipe owner"
  crt delete -f "$id"
}

# Guards crt_loopback_up (src/linux/process.c): in a network namespace of
# its own the container's lo is up (127.0.0.1 answers a ping); a joined one is
# left alone.
test_loopback_up_in_new_netns() {
  make_bundle "$T/b" sh -c 'cat /sys/class/net/lo/flags; ping -c 1 -W 2 127.0.0.1 >/dev/null && echo reachable'
  bundle_edit "$T/b" "[c['process']['capabilities'][k].append('CAP_NET_RAW') for k in ('bounding','effective','permitted')]"
  run_rc crt run --bundle "$T/b" "$(new_id)"; assert_eq 0 "$rc" "run: $out"
  assert_eq "0x9
reachable" "$out" "lo's flags (UP|LOOPBACK), 127.0.0.1 answers"
  # a namespace joined by path is not touched
  ip netns add "crtc$$" || fail "ip netns add"
  make_bundle "$T/b2" cat /sys/class/net/lo/flags
  bundle_edit "$T/b2" "[n.update(path='/run/netns/crtc$$') for n in c['linux']['namespaces'] if n['type']=='network']"
  run_rc crt run --bundle "$T/b2" "$(new_id)"
  ip netns del "crtc$$"
  assert_eq 0 "$rc" "run in a joined netns: $out"; assert_eq 0x8 "$out" "lo of a joined netns stays down"
}

# Guards check_fd_for_fifo (src/container/create.c): an init that could
# not reach its parked state (here: RLIMIT_NOFILE leaves it no fd for the
# exec FIFO) fails create with the cause, and leaves nothing behind.
test_create_fails_when_init_cannot_park() {
  make_bundle "$T/b" true
  local n id
  for n in 0 3; do
    bundle_edit "$T/b" "c['process']['rlimits']=[{'type':'RLIMIT_NOFILE','soft':$n,'hard':$n}]"
    id=$(new_id)
    run_rc crt create --bundle "$T/b" "$id"; assert_eq 1 "$rc" "create with RLIMIT_NOFILE $n"
    assert_contains "${out,,}" "too many open files"
    run_rc crt state "$id"; assert_eq 1 "$rc" "state after the failed create"
  done
  bundle_edit "$T/b" "c['process']['rlimits']=[{'type':'RLIMIT_NOFILE','soft':64,'hard':64}]"
  run_rc crt run --bundle "$T/b" "$(new_id)"; assert_eq 0 "$rc" "run with RLIMIT_NOFILE 64: $out"
}

# Guards prepend_enosys_stub (src/linux/seccomp.c): with a default errno
# action, a syscall newer than every syscall the profile names gets ENOSYS
# (so that programs fall back, glibc's clone3 -> clone); a known one that
# no rule allows still gets the default errno (EPERM).
test_seccomp_enosys_for_unknown_syscalls() {
  cc -static -O2 -o "$T/syscall_errno" "$REPO/tests/lib/syscall_errno.c" || fail "cannot build syscall_errno"
  make_bundle "$T/b" /syscall_errno 110 439 1000
  cp "$T/syscall_errno" "$T/b/rootfs/"
  # allow every syscall numbered up to 434 (pidfd_open) except getppid (110)
  bundle_edit "$T/b" "
import re
names=[m.group(1) for m in re.finditer(r'#define __NR_(\w+) (\d+)', open('/usr/include/x86_64-linux-gnu/asm/unistd_64.h').read())
       if int(m.group(2)) <= 434 and m.group(1) != 'getppid']
c['linux']['seccomp']={'defaultAction':'SCMP_ACT_ERRNO','defaultErrnoRet':1,'architectures':['SCMP_ARCH_X86_64'],
  'syscalls':[{'names':names,'action':'SCMP_ACT_ALLOW'}]}"
  run_rc crt run --bundle "$T/b" "$(new_id)"; assert_eq 0 "$rc" "run: $out"
  assert_eq "110 EPERM
439 ENOSYS
1000 ENOSYS" "$out" "known but not allowed: EPERM; newer than the profile (faccessat2, 1000): ENOSYS"
}

# Guards emit / format_line / crt_log_error_msg (src/util/log.c): runc's
# (logrus's) lines in every mode: on stderr without --log, in the --log
# file with it (plus the bare error on stderr); text or JSON; debug lines
# with --debug.
test_log_formats() {
  local id=nosuch-$$ line re='^time="[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z" level=error msg="container does not exist"'
  line=$(crt state "$id" 2>&1 >/dev/null); [[ $line =~ $re ]] || fail "text error on stderr: $line"
  assert_eq 1 "$(echo "$line" | wc -l)" "one line"
  line=$(crt --log-format json state "$id" 2>&1 >/dev/null)
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["level"]=="error" and d["msg"]=="container does not exist" and d["time"].endswith("Z"), d' "$line" ||
    fail "json error on stderr: $line"
  line=$(crt --log "$T/log.txt" state "$id" 2>&1 >/dev/null)
  assert_eq "container does not exist" "$line" "bare error on stderr with --log"
  [[ $(cat "$T/log.txt") =~ $re ]] || fail "text error in the log file: $(cat "$T/log.txt")"
  crt --log "$T/log.json" --log-format json state "$id" 2>/dev/null
  python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read()); assert d["level"]=="error", d' "$T/log.json" ||
    fail "json error in the log file: $(cat "$T/log.json")"
  make_bundle "$T/b" true
  crt --debug --log "$T/debug.txt" run --bundle "$T/b" "$(new_id)" 2>"$T/debug.err" || fail "run --debug"
  grep -qE '^time="[^"]+" level=debug msg=' "$T/debug.txt" || fail "no debug line in the log: $(head -3 "$T/debug.txt")"
  assert_eq "" "$(cat "$T/debug.err")" "stderr with --log and no error"
  crt --debug run --bundle "$T/b" "$(new_id)" 2>"$T/debug2.err" || fail "run --debug without --log"
  grep -qE '^time="[^"]+" level=debug msg=' "$T/debug2.err" || fail "no debug line on stderr: $(head -3 "$T/debug2.err")"
  grep -v '^time="[^"]*" level=' "$T/debug2.err" && fail "a stderr line not in logrus format"
  return 0
}

# hook_dump FILE: a hook script writing its cwd and environment (less the
# variables sh sets itself) to FILE.
hook_dump() { echo "{ pwd; env | grep -v -e '^PWD=' -e '^SHLVL=' -e '^_=' -e '^OLDPWD=' | sort; } > $1"; }

# Guards crt_hooks_run_at (src/container/hooks.c) and its callers: a hook
# without env inherits the environment of the runtime process that runs it
# (runc: Go's exec.Cmd with a nil Env).  In the runtime's namespaces that is
# the caller's; createContainer and startContainer run in runc's init, which
# has taken process.env as its own.  The cwd is the bundle in create (runc
# chdirs there) and for poststart (runc 1.1 runs it in create), the rootfs
# for createContainer (before pivot_root), process.cwd for startContainer,
# and the caller's for poststop in delete.
test_hooks_inherit_env_and_cwd() {
  make_bundle "$T/b" sleep 100
  mkdir -p "$T/c1" "$T/c2" "$T/c3"
  bundle_edit "$T/b" "c['root']['readonly']=False; c['process']['env']=['PATH=/bin','PROCENV=1']; c['process']['cwd']='/tmp'
c['hooks']={k:[{'path':'/bin/sh','args':['sh','-c','''$(hook_dump "$T/out.@HOOK@")'''.replace('@HOOK@',k)]}] for k in ('prestart','createRuntime','createContainer','poststart','poststop')}
c['hooks']['startContainer']=[{'path':'/bin/sh','args':['sh','-c','''$(hook_dump /tmp/out.startContainer)''']}]"
  local id; id=$(new_id)
  (cd "$T/c1" && CRT_COMPAT_VAR=create crt create --bundle "$T/b" "$id" </dev/null) || fail "create"
  (cd "$T/c2" && CRT_COMPAT_VAR=start crt start "$id") || fail "start"
  (cd "$T/c3" && CRT_COMPAT_VAR=delete crt delete -f "$id") || fail "delete"
  local k
  for k in prestart createRuntime; do
    assert_eq "$T/b" "$(head -1 "$T/out.$k")" "$k cwd"
    assert_contains "$(cat "$T/out.$k")" "CRT_COMPAT_VAR=create" "$k env"
    assert_contains "$(cat "$T/out.$k")" "PATH=$PATH" "$k env"
  done
  assert_eq "$T/b/rootfs
PATH=/bin
PROCENV=1" "$(cat "$T/out.createContainer")" "createContainer cwd and env"
  assert_eq "/tmp
HOME=/root
PATH=/bin
PROCENV=1" "$(cat "$T/b/rootfs/tmp/out.startContainer")" "startContainer cwd and env"
  assert_eq "$T/b" "$(head -1 "$T/out.poststart")" "poststart cwd"
  # runc 1.1 runs poststart in create, crt in start: each caller's environment
  grep -qE '^CRT_COMPAT_VAR=(create|start)$' "$T/out.poststart" || fail "poststart env: $(cat "$T/out.poststart")"
  assert_eq "$T/c3" "$(head -1 "$T/out.poststop")" "poststop cwd"
  assert_contains "$(cat "$T/out.poststop")" "CRT_COMPAT_VAR=delete" "poststop env"
  # a hook's own env replaces the runtime's
  bundle_edit "$T/b" "c['process']['args']=['true']; c['hooks']={'prestart':[{'path':'/bin/sh','args':['sh','-c','''$(hook_dump "$T/own")'''],'env':['ONLY=1']}]}"
  CRT_COMPAT_VAR=x crt run --bundle "$T/b" "$(new_id)" </dev/null || fail "run"
  assert_eq "$T/b
ONLY=1" "$(cat "$T/own")" "a hook with env"
}

# pids_max ID: the container's pids.max, by its init's cgroup.
pids_max() {
  local pid; pid=$(state_field "$1" pid)
  cat "/sys/fs/cgroup/pids$(awk -F: '$2=="pids" {print $3}' "/proc/$pid/cgroup")/pids.max"
}

# Guards crt_operands (src/cli/common.c) in create, run, kill, delete and
# events: flags may follow the container id, as runc's urfave/cli moves
# them to the front; "--" ends the flags.
test_flags_after_id() {
  make_bundle "$T/b"
  local id; id=$(new_id)
  # not run_rc: the container's stdio would hold the output pipe open
  crt create "$id" --bundle "$T/b" </dev/null >"$T/create.out" 2>&1 \
    || fail "create ID --bundle: $(cat "$T/create.out")"
  assert_eq created "$(state_field "$id" status)"
  crt start "$id" || fail "start"
  run_rc crt events "$id" --stats; assert_eq 0 "$rc" "events ID --stats: $out"
  assert_contains "$out" '"type":"stats"' "events ID --stats prints the stats once"
  run_rc env POSIXLY_CORRECT=1 "$CRT_BIN" --root "$CRT_ROOT" kill "$id" 0 --all
  assert_eq 0 "$rc" "kill ID 0 --all under POSIXLY_CORRECT: $out"
  run_rc crt kill "$id" KILL extra; assert_eq 1 "$rc" "kill with three operands: $out"
  run_rc crt delete "$id" -- --force; assert_eq 1 "$rc" "a flag after --: $out"
  assert_eq running "$(state_field "$id" status)" "the refused commands left it running"
  run_rc crt kill "$id" KILL --all; assert_eq 0 "$rc" "kill ID KILL --all: $out"
  wait_eval "stopped $id" || fail "kill ID KILL --all did not stop it"
  crt create "$id" --bundle "$T/b" </dev/null >/dev/null 2>&1 && fail "create of an existing id"
  run_rc crt delete "$id" --force; assert_eq 0 "$rc" "delete ID --force: $out"
  # not run_rc: the detached process would hold its output pipe open
  crt run "$id" --bundle "$T/b" -d </dev/null >"$T/run.out" 2>&1 \
    || fail "run ID --bundle B -d: $(cat "$T/run.out")"
  assert_eq running "$(state_field "$id" status)"
  run_rc crt delete "$id" -f; assert_eq 0 "$rc" "delete ID -f: $out"
  run_rc crt state "$id"; assert_eq 1 "$rc" "gone after delete ID -f"
}

# Guards crt_cmd_update's option loop (src/cli/update.c): flags may follow
# the container id, as runc's update takes them (even under POSIXLY_CORRECT);
# after "--" everything is an operand.
test_update_flags_after_id() {
  make_bundle "$T/b"
  local id; id=$(new_id)
  crt run -d --bundle "$T/b" "$id" </dev/null || fail "run -d"
  run_rc crt update "$id" --pids-limit 42; assert_eq 0 "$rc" "update ID --pids-limit: $out"
  assert_eq 42 "$(pids_max "$id")" "pids.max after a flag after the id"
  run_rc env POSIXLY_CORRECT=1 "$CRT_BIN" --root "$CRT_ROOT" update "$id" --pids-limit 43
  assert_eq 0 "$rc" "update under POSIXLY_CORRECT: $out"; assert_eq 43 "$(pids_max "$id")"
  run_rc crt update --pids-limit 44 "$id"; assert_eq 0 "$rc" "flags first: $out"
  assert_eq 44 "$(pids_max "$id")"
  echo '{"pids":{"limit":45}}' >"$T/r.json"
  run_rc crt update "$id" -r "$T/r.json"; assert_eq 0 "$rc" "update ID -r FILE: $out"
  assert_eq 45 "$(pids_max "$id")"
  run_rc crt update "$id" extra --pids-limit 46; assert_eq 1 "$rc" "two operands"
  run_rc crt update "$id" -- --pids-limit 47; assert_eq 1 "$rc" "a flag after --: $out"
  assert_eq 45 "$(pids_max "$id")" "pids.max after the refused updates"
  crt delete -f "$id"
}

# Guards the key phrases runc's errors carry and tools grep for (issue 33
# item 3), each followed by crt's own detail: crt_cgroup_join
# (src/cgroup/cgroup.c), check_names (src/cgroup/cgroup_update.c) and
# crt_seccomp_send_listener (src/linux/seccomp.c).
test_error_key_phrases() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null || fail "run -d"
  local cg
  for cg in ../foo foo/../../x; do
    run_rc crt exec --cgroup "$cg" "$id" true
    assert_ne 0 "$rc" "exec --cgroup $cg"
    assert_contains "$out" "$cg is not a sub cgroup path"
  done
  crt delete -f "$id"
  if [ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ]; then
    make_bundle "$T/u" true
    bundle_edit "$T/u" "c['linux']['resources']['unified']={'memory.high':'1000000'}"
    run_rc crt run -b "$T/u" "$(new_id)" </dev/null
    assert_ne 0 "$rc" "unified on a cgroup v1 host"
    assert_contains "$out" "invalid configuration"
    is_crt && assert_contains "$out" "linux.resources.unified requires cgroup v2"
  fi
  make_bundle "$T/s" true
  bundle_edit "$T/s" "c['linux']['seccomp']={'defaultAction':'SCMP_ACT_ALLOW','listenerPath':'$T/nosuch.sock','syscalls':[{'names':['mkdir'],'action':'SCMP_ACT_NOTIFY'}]}"
  run_rc crt run -b "$T/s" "$(new_id)" </dev/null
  assert_ne 0 "$rc" "unreachable seccomp agent"
  assert_contains "$out" "failed to connect with seccomp agent"
  is_crt && assert_contains "$out" "$T/nosuch.sock"
  return 0
}

# Guards normalize_access (src/spec/parse_resources.c): runc keeps the r, w
# and m of a device rule's access and drops other letters ("rwa" is "rw");
# nothing left is refused.  On a v1 host the devices cgroup shows the rule
# as written.
test_device_access_letters() {
  make_bundle "$T/b" sleep 100
  local acc want id pid cgp
  for acc in rwa:rw mxr:rm; do
    want=${acc#*:}; acc=${acc%%:*}
    bundle_edit "$T/b" "c['linux']['resources']['devices']=[{'allow':False,'access':'rwm'},{'allow':True,'type':'c','major':250,'minor':5,'access':'$acc'}]"
    id=$(new_id)
    # to a file: the parked init holds its stdout open
    crt create -b "$T/b" "$id" </dev/null >"$T/create.out" 2>&1; rc=$?; out=$(cat "$T/create.out")
    assert_eq 0 "$rc" "create with access \"$acc\": $out"
    is_crt && assert_contains "$out" "letters other than r, w and m mean nothing"
    pid=$(state_field "$id" pid)
    cgp=$(awk -F: '$2 ~ /(^|,)devices(,|$)/ {print $3}' "/proc/$pid/cgroup")
    if [ -n "$cgp" ]; then
      assert_eq "c 250:5 $want" "$(grep '^c 250:5 ' "/sys/fs/cgroup/devices$cgp/devices.list")" "devices.list for \"$acc\""
    fi
    crt delete -f "$id"
  done
  # update --resources reads rules with the same parser
  id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  echo '{"devices":[{"allow":true,"type":"c","major":250,"minor":5,"access":"rwa"}],"pids":{"limit":100}}' >"$T/r.json"
  run_rc crt update --resources "$T/r.json" "$id"
  assert_eq 0 "$rc" "update --resources with access \"rwa\": $out"
  crt delete -f "$id"
  bundle_edit "$T/b" "c['linux']['resources']['devices']=[{'allow':True,'type':'c','major':250,'minor':5,'access':'xa'}]"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_ne 0 "$rc" "access with no r, w or m"
  is_crt && assert_contains "$out" 'invalid access "xa"'
  return 0
}

# sections_in_order TEXT SECTION...: each "SECTION:" line present, in order.
sections_in_order() {
  local text=$1 last=0 n s; shift
  for s in "$@"; do
    n=$(echo "$text" | grep -n -x "$s:" | head -1 | cut -d: -f1)
    [ -n "$n" ] || fail "no $s: section in: $(echo "$text" | head -5)"
    [ "$n" -gt "$last" ] || fail "$s: out of order"
    last=$n
  done
}

# Guards src/cli/help.c and the -h/--help check in main (src/cli/main.c):
# urfave/cli's layout, as runc's tests/integration/help.bats walks it, for
# the global help and every command, checkpoint and restore included.
test_help_layout() {
  local me c out2 h
  me=$(basename "$CRT_BIN")
  for h in --help -h help; do
    run_rc crt $h
    assert_eq 0 "$rc" "crt $h"
    assert_eq "NAME:" "$(echo "$out" | sed -n 1p)" "crt $h line 1"
    [[ $(echo "$out" | sed -n 2p) =~ ^"   $me - " ]] || fail "crt $h line 2: $(echo "$out" | sed -n 2p)"
    sections_in_order "$out" NAME USAGE VERSION COMMANDS "GLOBAL OPTIONS"
  done
  for c in checkpoint create delete events exec kill list pause ps restore resume run spec start state update features; do
    for h in -h --help; do
      run_rc crt "$c" $h
      assert_eq 0 "$rc" "crt $c $h: $out"
      assert_eq "NAME:" "$(echo "$out" | sed -n 1p)" "crt $c $h line 1"
      [[ $(echo "$out" | sed -n 2p) =~ ^"   $me $c - " ]] || fail "crt $c $h line 2: $(echo "$out" | sed -n 2p)"
      if is_crt; then sections_in_order "$out" NAME USAGE DESCRIPTION OPTIONS; else sections_in_order "$out" NAME USAGE; fi
    done
    out2=$(crt help "$c" 2>&1) || fail "crt help $c"
    assert_eq "$out" "$out2" "crt help $c and crt $c --help"
  done
  # the checkpoint and restore flags are runc 1.1's
  out=$(crt checkpoint --help)
  for f in --image-path --work-path --parent-path --leave-running --tcp-established --ext-unix-sk --shell-job \
    --lazy-pages --status-fd --page-server --file-locks --pre-dump --manage-cgroups-mode --empty-ns --auto-dedup; do
    assert_contains "$out" "   $f" "checkpoint --help"
  done
  out=$(crt restore --help)
  for f in --console-socket --image-path --bundle --detach --pid-file --no-subreaper --no-pivot --lsm-profile \
    --lsm-mount-context; do
    assert_contains "$out" "   $f" "restore --help"
  done
  # -h after the id, and what follows exec's id belongs to the command
  run_rc crt kill someid -h
  assert_eq 0 "$rc" "crt kill ID -h"
  run_rc crt exec nosuch-$$ sh -h
  assert_ne 0 "$rc" "crt exec ID sh -h is an exec"
  assert_not_contains "$out" "NAME:"
  run_rc crt foo -h
  assert_ne 0 "$rc" "crt foo -h"
  assert_contains "$out" "No help topic for 'foo'"
  # installed as runc (a drop-in), the help names runc, as help.bats wants
  ln -s "$CRT_BIN" "$T/runc"
  assert_eq "   runc - Open Container Initiative runtime" "$("$T/runc" -h | sed -n 2p)" "help as runc"
  assert_eq "   runc checkpoint - checkpoint a running container" "$("$T/runc" checkpoint -h | sed -n 2p)"
  return 0
}

# Guards crt_container_delete (src/container/lifecycle.c): a plain delete
# of a created container kills its parked init and deletes it, as runc and
# crun do (containerd's shim deletes a created task that way); one of a
# running container still fails, with runc's message and status.
test_delete_created_without_force() {
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  crt create --bundle "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "create"
  local pid; pid=$(state_field "$id" pid)
  assert_eq created "$(state_field "$id" status)"
  run_rc crt delete "$id"; assert_eq 0 "$rc" "delete of a created container: $out"
  wait_eval "! kill -0 $pid || grep -q '^State:.*Z' /proc/$pid/status" || fail "parked init $pid survived"
  run_rc crt state "$id"; assert_eq 1 "$rc" "state after delete: $out"
  crt run -d --bundle "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  run_rc crt delete "$id"; assert_eq 1 "$rc" "delete of a running container"
  assert_contains "$out" "cannot delete container $id that is not stopped: running"
  assert_eq running "$(state_field "$id" status)" "a refused delete has no effect"
  crt delete -f "$id" || fail "delete -f"
}

# hook_fails KIND SCRIPT: runs a container whose second KIND hook runs
# `sh -c SCRIPT`; sets $out and $rc.
hook_fails() {
  bundle_edit "$T/b" "c['hooks']={'$1':[{'path':'/bin/true'},{'path':'/bin/sh','args':['sh','-c','$2']}]}"
  run_rc crt run --bundle "$T/b" "$(new_id)" </dev/null
}

# Guards crt_hooks_run_at (src/container/hooks.c): a failing hook's error
# holds runc's phrases, "error running ... hook #N", the exit status, and
# for a hook killed by SIGSYS (a seccomp kill) "bad system call".  crt, as
# current runc, also names the kind and words the rest as runc 1.3.6 does:
# "error running prestart hook #1: exit status 3, stdout: ..., stderr: ...".
test_failing_hook_error_phrases() {
  make_bundle "$T/b" true
  local kind
  for kind in prestart createRuntime; do
    hook_fails "$kind" 'echo to-stdout; echo to-stderr >&2; exit 3'
    assert_eq 1 "$rc" "$kind hook exiting 3: $out"
    [[ $out =~ error\ running( $kind)?\ hook\ \#1: ]] || fail "$kind: no 'error running hook #1:' in: $out"
    assert_contains "$out" "exit status 3"; assert_contains "$out" "to-stderr"
    runc_before_1_2 || assert_contains "$out" 'error running '$kind' hook #1: exit status 3, stdout: to-stdout\n, stderr: to-stderr\n"'
    hook_fails "$kind" 'kill -SYS $$'
    assert_eq 1 "$rc" "$kind hook killed by SIGSYS: $out"
    assert_contains "$out" "bad system call"
    runc_before_1_2 || assert_contains "$out" "error running $kind hook #1: signal: bad system call, stdout: , stderr: "
    bundle_edit "$T/b" "c['hooks']={'$kind':[{'path':'/nonexistent-hook'}]}"
    run_rc crt run --bundle "$T/b" "$(new_id)" </dev/null
    assert_eq 1 "$rc" "$kind hook that does not exist: $out"
    runc_before_1_2 || assert_contains "$out" "error running $kind hook #0: fork/exec /nonexistent-hook: no such file or directory"
  done
  [ -z "$(crt list -q)" ] || fail "a failed hook left a container"
}

# Guards run_one (src/container/hooks.c): a prestart hook may write 8 MiB
# (its stdout is a blocking pipe: no EAGAIN), and a hook that closed its
# output and still runs is waited for without spinning: the CPU time of
# the whole `run` (runtime and hooks) stays far below the hook's second.
test_hook_large_output_and_idle_wait() {
  make_bundle "$T/b" true
  bundle_edit "$T/b" "c['hooks']={'prestart':[{'path':'/bin/sh','args':['sh','-c','exec >&- 2>&-; sleep 1']},{'path':'/bin/sh','args':['sh','-c','head -c 8388608 /dev/zero']}]}"
  local t
  t=$( { TIMEFORMAT='%R %U %S'; time crt run --bundle "$T/b" "$(new_id)" </dev/null >"$T/run.out" 2>&1; } 2>&1 )
  local wall user sys; read -r wall user sys <<<"$t"
  awk -v w="$wall" 'BEGIN{exit !(w >= 0.9)}' || fail "the idle hook was not waited for (wall $wall s)"
  awk -v u="$user" -v s="$sys" 'BEGIN{exit !(u + s < 0.6)}' || fail "run used $user s user + $sys s system CPU time for a hook sleeping 1 s"
  [ -z "$(cat "$T/run.out")" ] || fail "run with the hooks: $(head -c 500 "$T/run.out")"
}

# Guards crt_build_env (src/linux/process.c): as runc (1.1.5 too), the last
# value of a key named twice is kept, once, and fills an empty HOME from
# /etc/passwd as a missing one; PATH lookup uses the last PATH too.
test_env_home_and_duplicates() {
  make_bundle "$T/b" sh -c 'env | sort | grep -E "^(A|B|HOME|PATH)="; echo "A count $(env | grep -c ^A=)"'
  bundle_edit "$T/b" "c['process']['env']=['PATH=/nonexistent','A=1','HOME=','B=2','A=3','PATH=/bin:/sbin']"
  run_rc crt run --bundle "$T/b" "$(new_id)"; assert_eq 0 "$rc" "run: $out"
  assert_eq "A=3
B=2
HOME=/root
PATH=/bin:/sbin
A count 1" "$out" "the environment"
  local id; id=$(new_id)
  bundle_edit "$T/b" "c['process']['args']=['sleep','60']"
  crt run -d --bundle "$T/b" "$id" || fail "run -d"
  run_rc crt exec --env HOME= --env A=x --env A=y "$id" sh -c 'echo "$HOME $A $(env | grep -c ^A=)"'
  assert_eq 0 "$rc" "exec: $out"; assert_eq "/root y 1" "$out" "exec's environment"
  crt delete -f "$id"
}

# Guards kill_takes_cgroup (src/container/lifecycle.c): runc >= 1.2 turns
# KILL to a container in the host's pid namespace into a kill of its whole
# cgroup, with its init alive and with it gone (nothing else would reach
# the init's children, which the host's init inherits).
test_kill_host_pidns_kills_the_cgroup() {
  make_bundle "$T/b" sh -c 'sleep 200 & echo $! >/tmp/child; exec sleep 300'
  bundle_edit "$T/b" "c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!='pid']; c['root']['readonly']=False"
  local id pid child; id=$(new_id)
  crt run -d --pid-file "$T/pid" --bundle "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  pid=$(cat "$T/pid")
  wait_eval "[ -s '$T/b/rootfs/tmp/child' ]" || fail "no child pid"
  child=$(cat "$T/b/rootfs/tmp/child")
  if runc_before_1_2; then
    crt delete -f "$id"
    return 0
  fi
  run_rc crt kill "$id" KILL; assert_eq 0 "$rc" "kill KILL: $out"
  wait_eval "! kill -0 $child 2>/dev/null || grep -q '^State:.*Z' /proc/$child/status" || fail "the init's child survived"
  wait_eval "stopped $id" || fail "did not stop"
  crt delete "$id" || fail "delete"
  # the init gone first: KILL still reaches what is left
  id=$(new_id); rm -f "$T/b/rootfs/tmp/child"
  crt run -d --pid-file "$T/pid" --bundle "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d (2)"
  wait_eval "[ -s '$T/b/rootfs/tmp/child' ]" || fail "no child pid (2)"
  child=$(cat "$T/b/rootfs/tmp/child")
  kill -KILL "$(cat "$T/pid")"
  wait_eval "stopped $id" || fail "did not stop when its init was killed"
  kill -0 "$child" || fail "the scenario needs the child alive"
  run_rc crt kill "$id" TERM; assert_eq 1 "$rc" "kill TERM of the stopped container"
  run_rc crt kill "$id" KILL; assert_eq 0 "$rc" "kill KILL with the init gone: $out"
  wait_eval "! kill -0 $child 2>/dev/null || grep -q '^State:.*Z' /proc/$child/status" || fail "the child survived (init gone)"
  crt delete "$id" || fail "delete (2)"
}

# Guards delete (src/container/lifecycle.c) as runc's delete.bats "runc
# delete [host pidns + init gone]" (and its --force twin): the init killed
# from outside, delete still kills what is left in the container's cgroup
# and removes the container.
test_delete_host_pidns_init_gone() {
  local force cg=/crt-t-delpidns-$$
  for force in "" --force; do
    make_bundle "$T/b" sleep 300
    bundle_edit "$T/b" "c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!='pid']
c['root']['readonly']=False; c['linux']['cgroupsPath']='$cg'"
    local id pids p init procs=/sys/fs/cgroup/pids$cg/cgroup.procs; id=$(new_id)
    crt run -d --pid-file "$T/pid" --bundle "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
    for p in 1 2 3; do crt exec -d "$id" sleep 3600 || fail "exec -d"; done
    init=$(cat "$T/pid"); kill -9 "$init"
    wait_eval "! grep -qx $init $procs" || fail "the init is still in $procs"
    pids=$(cat $procs)
    assert_eq 3 "$(echo $pids | wc -w)" "the exec'd processes left"
    run_rc crt delete $force "$id"; assert_eq 0 "$rc" "delete $force: $out"
    run_rc crt state "$id"; assert_eq 1 "$rc" "state after delete $force: $out"
    for p in $pids; do wait_eval "! kill -0 $p 2>/dev/null" || fail "process $p survived delete $force"; done
    [ ! -e "$procs" ] || assert_eq "" "$(cat $procs)" "cgroup.procs after delete $force"
    rm -rf "$T/b"
  done
}

# pidfd_server NAME SIGNAL: tests/lib/pidfd_recv.py listening on
# $T/NAME.sock (its output in $T/NAME.out), ready on return; pidfd_go
# NAME lets it send SIGNAL once the pidfd came
pidfd_server() {
  rm -f "$T/$1.sock.ready"
  /usr/bin/python3 "$REPO/tests/lib/pidfd_recv.py" "$T/$1.sock" "$2" >"$T/$1.out" 2>&1 &
  echo $! >"$T/$1.srv"
  wait_eval "[ -e '$T/$1.sock.ready' ]" || fail "pidfd server $1 did not start"
}
pidfd_go() {
  wait_eval "[ -s '$T/$1.out' ]" || fail "no pidfd received ($1)"
  kill -USR1 "$(cat "$T/$1.srv")"
  wait_eval "grep -q signalled '$T/$1.out'" || fail "pidfd server $1: $(cat "$T/$1.out")"
}

# Guards crt_pidfd_send (src/linux/terminal.c) in create and exec: runc
# >= 1.2's --pidfd-socket (its pidfd-socket.bats; containerd 2.x): the
# socket gets a pidfd of the init (create, run) or of the exec'd process,
# which the receiver can signal; an unreachable socket fails before
# anything is made.
test_pidfd_socket() {
  make_bundle "$T/b" sleep 1000
  local id pid; id=$(new_id)
  if runc_before_1_2; then
    run_rc crt create --pidfd-socket "$T/x.sock" -b "$T/b" "$id"; assert_ne 0 "$rc" "runc 1.1.5 has no --pidfd-socket"
    return 0
  fi
  pidfd_server c 9
  crt create --pidfd-socket "$T/c.sock" --pid-file "$T/pid" -b "$T/b" "$id" </dev/null >/dev/null 2>"$T/err" ||
    fail "create: $(cat "$T/err")"
  pidfd_go c
  assert_eq "standard $(cat "$T/pid")" "$(head -n1 "$T/c.out")" "the message and the pidfd's process"
  wait_eval "stopped $id" || fail "created container not stopped by the pidfd's SIGKILL"
  crt delete "$id" || fail "delete"
  # run -d, then exec -d: the exec'd process is the pidfd's, the init lives on
  id=$(new_id)
  pidfd_server r 9
  crt run -d --pidfd-socket "$T/r.sock" --pid-file "$T/pid" -b "$T/b" "$id" </dev/null >/dev/null 2>"$T/err" ||
    fail "run -d: $(cat "$T/err")"
  pidfd_go r
  assert_eq "standard $(cat "$T/pid")" "$(head -n1 "$T/r.out")" "run: the init's pidfd"
  wait_eval "stopped $id" || fail "running container not stopped by the pidfd's SIGKILL"
  crt delete "$id" || fail "delete (run)"
  id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d (exec)"
  pidfd_server e 9
  crt exec -d --pidfd-socket "$T/e.sock" --pid-file "$T/epid" "$id" sleep 500 || fail "exec -d"
  pidfd_go e
  pid=$(cat "$T/epid")
  assert_eq "setns $pid" "$(head -n1 "$T/e.out")" "exec: the process's pidfd"
  wait_eval "! kill -0 $pid 2>/dev/null || grep -q '^State:.*Z' /proc/$pid/status" || fail "exec'd process not killed"
  assert_eq running "$(state_field "$id" status)" "the init lives on"
  crt delete -f "$id"
  # nobody listening: create fails, nothing is left
  id=$(new_id)
  run_rc crt create --pidfd-socket "$T/none.sock" -b "$T/b" "$id"; assert_eq 1 "$rc" "create with no listener"
  is_crt && assert_contains "$out" "connect --pidfd-socket $T/none.sock: "
  assert_contains "${out,,}" "no such file or directory"
  # runc 1.3.6 leaves an empty state dir behind here (its state dir is made
  # before it dials the socket); crt connects before it makes anything
  if is_crt; then [ ! -e "$CRT_ROOT/$id" ] || fail "a failed create left its state dir"; fi
  run_rc crt exec --pidfd-socket "$T/none.sock" nosuch-$$ true; assert_ne 0 "$rc" "exec with no listener"
}

# Guards parse_ioprio (src/spec/parse_process.c) with runc's ioprio.bats:
# the init and an exec take config.json's ioPriority, and a process.json
# whose ioPriority has a class and no priority (crun's io-priority-idle
# writes it so) is accepted, priority 0, as runc decodes it.
test_ioprio_applied_priority_optional() {
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['process']['ioPriority']={'class':'IOPRIO_CLASS_BE','priority':4}"
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null || fail "run with an ioPriority"
  assert_eq "best-effort: prio 4" "$(crt exec "$id" ionice -p 1)" "the init's I/O priority"
  assert_eq "best-effort: prio 4" "$(crt exec "$id" ionice)" "an exec's I/O priority"
  echo '{"terminal": false, "ioPriority": {"class": "IOPRIO_CLASS_IDLE"}, "args": ["/bin/ionice"], "cwd": "/"}' >"$T/p.json"
  run_rc crt exec --process "$T/p.json" "$id"
  assert_eq 0 "$rc" "exec of a process with no ioPriority.priority: $out"
  assert_eq idle "$out" "the exec's I/O priority"
  # the same in config.json: the container's init
  bundle_edit "$T/b" "c['process']['ioPriority']={'class':'IOPRIO_CLASS_IDLE'}; c['process']['args']=['ionice']"
  run_rc crt run -b "$T/b" "$(new_id)"
  assert_eq 0 "$rc" "run with no ioPriority.priority: $out"
  assert_eq idle "$out" "the init's I/O priority"
  crt delete -f "$id"
}

# Guards parse_mempolicy (src/spec/parse_linux.c) and crt_mempolicy_validate
# (src/linux/numa.c) with runc main's memorypolicy.bats 4-10: its refusals
# in its words.  runc 1.3.6 has no memoryPolicy (`runc features` lists
# none; it ignores the key and runs each of these), so the refusals are
# checked only where the runtime under test lists memoryPolicy.
test_memory_policy_refusals() {
  make_bundle "$T/b" sh -c 'head -n 1 /proc/self/numa_maps | cut -d " " -f 2'
  local has=1
  "$CRT_BIN" features | python3 -c 'import json,sys; sys.exit(0 if "memoryPolicy" in json.load(sys.stdin).get("linux", {}) else 1)' || has=0
  bundle_edit "$T/b" "c['linux']['memoryPolicy']={'mode':'MPOL_DEFAULT'}"
  run_rc crt run -b "$T/b" "$(new_id)" </dev/null
  assert_eq "0 default" "$rc $out" "MPOL_DEFAULT without nodes"
  local case
  for case in "{}|invalid memory policy" \
              "{'mode':'INTERLEAVE','nodes':'0'}|invalid memory policy" \
              "{'mode':'MPOL_PREFERRED','nodes':'0','flags':['MPOL_F_RELATIVE_NODES','badflag']}|invalid memory policy flag" \
              "{'nodes':'0-7'}|invalid memory policy mode" \
              "{'mode':'MPOL_DEFAULT','nodes':'0-7'}|mode requires 0 nodes but got 8" \
              "{'mode':'MPOL_BIND','nodes':'0-9876543210','flags':[]}|invalid memory policy node"; do
    bundle_edit "$T/b" "c['linux']['memoryPolicy']=${case%%|*}"
    run_rc crt run -b "$T/b" "$(new_id)" </dev/null
    if [ $has = 0 ]; then
      assert_eq 0 "$rc" "a runtime without memoryPolicy ignores ${case%%|*}: $out"; continue
    fi
    assert_eq 1 "$rc" "run with memoryPolicy ${case%%|*}: $out"
    assert_contains "$out" "${case#*|}"
  done
}

# Guards the parked init's signal handlers (src/stub/crt-stub.c and
# init_park_and_exec in src/container/init.c): runc's pidfd-socket.bats
# "runc create [ --pidfd-socket ]" stops a created container with SIGTERM
# through the pidfd.  The parked init is its pid namespace's init, which
# the kernel spares every signal it has no handler for but KILL and STOP;
# runc's (Go) init has handlers and dies of TERM, INT, HUP and QUIT, and
# so does crt's, parked by crt-stub or by crt itself (startContainer
# hooks).
test_pidfd_socket_sigterm_created() {
  runc_before_1_2 && return 0
  make_bundle "$T/b" sleep 1000
  local id sig
  for sig in 15 2; do
    id=$(new_id)
    pidfd_server c$sig $sig
    crt create --pidfd-socket "$T/c$sig.sock" -b "$T/b" "$id" </dev/null >/dev/null 2>"$T/err" ||
      fail "create: $(cat "$T/err")"
    assert_eq created "$(state_field "$id" status)" "before the signal"
    pidfd_go c$sig
    wait_eval "stopped $id" || fail "created container not stopped by signal $sig through the pidfd"
    crt delete "$id" || fail "delete"
  done
  # parked by crt itself: a startContainer hook keeps crt-stub out
  bundle_edit "$T/b" "c['hooks']={'startContainer':[{'path':'/bin/true'}]}"
  id=$(new_id)
  pidfd_server h 1
  crt create --pidfd-socket "$T/h.sock" -b "$T/b" "$id" </dev/null >/dev/null 2>"$T/err" || fail "create: $(cat "$T/err")"
  pidfd_go h
  wait_eval "stopped $id" || fail "created container not stopped by SIGHUP through the pidfd"
  crt delete "$id" || fail "delete (HUP)"
}

# Guards w_limit (src/cgroup/cgroup_v1.c) and cg_check_before_update
# (src/cgroup/cgroup_values.c): an update below the usage the kernel
# cannot reclaim (8 MB in /dev/shm, no swap) fails in runc's words: on v1
# the kernel's EBUSY as runc 1.3.6 reports it; with checkBeforeUpdate,
# runc's check ("rejecting memory limit %d <= usage %d", its cgroup v2
# code; runc 1.3.6 on v1 writes and gets the EBUSY).
test_update_memory_below_usage() {
  make_bundle "$T/b" sh -c 'head -c 8000000 /dev/zero > /dev/shm/big && echo filled > /dev/shm/done; sleep 100'
  bundle_edit "$T/b" "c['linux']['resources']['memory']={'limit':268435456}; c['root']['readonly']=False"
  local id pid; id=$(new_id)
  crt run -d -b "$T/b" "$id" </dev/null >/dev/null 2>&1 || fail "run -d"
  pid=$(state_field "$id" pid)
  wait_for test -e "/proc/$pid/root/dev/shm/done" ||
    fail "the container did not fill /dev/shm"
  run_rc crt update --memory 4194304 "$id"
  assert_eq 1 "$rc" "update --memory below usage: $out"
  if runc_before_1_2; then crt delete -f "$id"; return 0; fi
  assert_contains "$out" "unable to set memory limit to 4194304 (current usage: "
  assert_contains "$out" ", peak usage: "
  echo '{"memory":{"limit":4194304,"checkBeforeUpdate":true}}' >"$T/r.json"
  run_rc crt update -r "$T/r.json" "$id"
  assert_eq 1 "$rc" "checkBeforeUpdate below usage: $out"
  if is_crt; then assert_contains "$out" "rejecting memory limit 4194304 <= usage "
  else assert_contains "$out" "unable to set memory limit to 4194304"; fi
  kill -0 "$pid" || fail "the container died"
  crt delete -f "$id"
}


# Guards stub_entry_usable (src/container/exec.c) and set_scheduler
# (src/linux/process.c): runc's scheduler.bats.  "scheduler is applied":
# the init's and an exec'd process's policy from config.json, and an exec
# --process with SCHED_DEADLINE|SCHED_RESET_ON_FORK, set in the process
# itself (crt-stub's fork used to reset it to SCHED_OTHER).  "scheduler vs
# cpus": SCHED_DEADLINE with a cpuset is refused in runc's words.
test_process_scheduler() {
  runc_before_1_2 && return 0
  make_bundle "$T/b" sleep 300
  bundle_edit "$T/b" "c['process']['scheduler']={'policy':'SCHED_BATCH','priority':0,'nice':19}"
  local id pid; id=$(new_id)
  crt run -d --pid-file "$T/pid" -b "$T/b" "$id" </dev/null >/dev/null 2>"$T/err" || fail "run -d: $(cat "$T/err")"
  out=$(chrt -p "$(cat "$T/pid")")
  assert_contains "$out" "scheduling policy: SCHED_BATCH" "the init's policy"
  crt exec -d --pid-file "$T/epid" "$id" sleep 300 </dev/null >/dev/null 2>&1 || fail "exec -d"
  assert_contains "$(chrt -p "$(cat "$T/epid")")" "scheduling policy: SCHED_BATCH" "an exec'd process's policy"
  cat >"$T/proc.json" <<'JSON'
{"terminal": false, "args": ["/bin/sleep", "600"], "cwd": "/",
 "scheduler": {"policy": "SCHED_DEADLINE", "flags": ["SCHED_FLAG_RESET_ON_FORK"], "nice": 19, "priority": 0,
               "runtime": 42000, "deadline": 100000, "period": 1000000}}
JSON
  crt exec -d --pid-file "$T/dpid" --process "$T/proc.json" "$id" </dev/null >/dev/null 2>"$T/err" ||
    fail "exec -d --process: $(cat "$T/err")"
  pid=$(cat "$T/dpid")
  out=$(chrt -p "$pid" 2>&1)
  assert_contains "$out" "scheduling policy: SCHED_DEADLINE|SCHED_RESET_ON_FORK" "exec --process's policy"
  assert_contains "$out" "runtime/deadline/period parameters: 42000/100000/1000000"
  crt delete -f "$id"
  [ "$(nproc)" -ge 2 ] || return 0
  bundle_edit "$T/b" "c['linux'].setdefault('resources',{}).setdefault('cpu',{})['cpus']='0'
c['process']['scheduler']={'policy':'SCHED_DEADLINE','nice':19,'runtime':42000,'deadline':1000000,'period':1000000}"
  id=$(new_id)
  run_rc crt run -d -b "$T/b" "$id"; assert_eq 1 "$rc" "SCHED_DEADLINE with a cpuset: $out"
  assert_contains "$out" "process scheduler can't be used together with AllowedCPUs"
  crt delete -f "$id" >/dev/null 2>&1
}
