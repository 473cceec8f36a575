# The CLI paths under AddressSanitizer, UBSan and LeakSanitizer:
# build-asan/crt (make check builds it) runs a whole lifecycle and the usual
# error paths; any leak, memory error or undefined behaviour in a crt
# process that exits normally fails the test (exit code 23, or a report on
# stderr).  Processes that execve (the init, exec'd processes) or _exit are
# not leak-checked, as LSan runs at exit.

ASAN_BIN=$REPO/build-asan/crt

# acrt ARGS...: build-asan/crt; its output in $out, status in $rc; fails on
# any sanitizer report.
acrt() {
  # into a file, not a pipe: the container inherits crt's stdio and would
  # hold a pipe open
  ASAN_OPTIONS=detect_leaks=1:exitcode=23:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=23 \
    "$ASAN_BIN" --root "$CRT_ROOT" "$@" >"$T/acrt.out" 2>&1 </dev/null
  rc=$?
  out=$(cat "$T/acrt.out")
  case $out in *LeakSanitizer*|*AddressSanitizer*|*"runtime error:"*) fail "crt $*: sanitizer report: $out" ;; esac
  [ "$rc" != 23 ] || fail "crt $*: sanitizer exit code: $out"
  ASAN_RUNS=$((ASAN_RUNS + 1))
}

test_cli_paths_under_asan_and_lsan() {
  is_crt || return 0 # build-asan/crt is crt
  [ -x "$ASAN_BIN" ] || fail "no $ASAN_BIN: run make build-asan/crt (make check builds it)"
  ASAN_RUNS=0
  local id; id=$(new_id)
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['hooks']={'prestart':[{'path':'/bin/true'}],'poststart':[{'path':'/bin/true'}],'poststop':[{'path':'/bin/true'}]}; c['linux']['seccomp']={'defaultAction':'SCMP_ACT_ALLOW','syscalls':[{'names':['mknod','mknodat'],'action':'SCMP_ACT_ERRNO','errnoRet':1}]}; c['linux']['resources']={'memory':{'limit':67108864},'pids':{'limit':50}}"
  mkdir "$T/s"
  (cd "$T/s" && acrt spec --rootless && [ "$rc" = 0 ] && acrt spec && [ "$rc" = 1 ]) || fail "spec: $out"
  acrt features; assert_eq 0 "$rc" "features"
  acrt create -b "$T/b" "$id"; assert_eq 0 "$rc" "create: $out"
  acrt state "$id"; assert_eq 0 "$rc" "state"
  acrt list --format json; assert_eq 0 "$rc" "list"
  acrt start "$id"; assert_eq 0 "$rc" "start: $out"
  acrt exec "$id" true; assert_eq 0 "$rc" "exec: $out"
  acrt exec -d --pid-file "$T/e.pid" "$id" sleep 30; assert_eq 0 "$rc" "exec -d: $out"
  acrt exec "$id" nosuch; assert_eq 255 "$rc" "exec of a missing binary"
  printf '{"args":["/bin/true"],"cwd":"/","user":{"uid":0,"gid":0}}' >"$T/p.json"
  acrt exec --process "$T/p.json" "$id"; assert_eq 0 "$rc" "exec --process: $out"
  acrt ps --format json "$id"; assert_eq 0 "$rc" "ps"
  acrt pause "$id"; assert_eq 0 "$rc" "pause: $out"
  acrt resume "$id"; assert_eq 0 "$rc" "resume: $out"
  acrt events --stats "$id"; assert_eq 0 "$rc" "events --stats: $out"
  acrt update --memory 100M --pids-limit 60 "$id"; assert_eq 0 "$rc" "update: $out"
  acrt kill "$id" TERM; assert_eq 0 "$rc" "kill"
  acrt kill --all "$id" KILL; assert_eq 0 "$rc" "kill --all"
  wait_eval '[ "$(state_field "$id" status)" = stopped ]' || fail "not stopped"
  acrt delete "$id"; assert_eq 0 "$rc" "delete: $out"
  bundle_edit "$T/b" "c['process']['args']=['sh','-c','exit 3']"
  acrt run -b "$T/b" "$id-r"; assert_eq 3 "$rc" "run exit status: $out"
  # error paths
  acrt state nosuch; assert_eq 1 "$rc"
  acrt delete nosuch; assert_eq 1 "$rc"
  acrt create --bogus x; assert_eq 1 "$rc"
  acrt kill "$id" NOSIG; assert_eq 1 "$rc"
  mkdir -p "$T/bad" && cp -a "$T/b/rootfs" "$T/bad/" 2>/dev/null
  printf '{"ociVersion":"1.2.0","root":{"path":"rootfs"},"process":{"args":["true"],"cwd":"/"},"linux":{"namespaces":[{"type":"netw"}]}}' >"$T/bad/config.json"
  acrt create -b "$T/bad" "$id-bad"; assert_eq 1 "$rc"; assert_contains "$out" "netw"
  printf '{"ociVersion":' >"$T/bad/config.json"
  acrt run -b "$T/bad" "$id-bad"; assert_eq 1 "$rc"
  [ -z "$(ls -A "$CRT_ROOT")" ] || fail "state left: $(ls -A "$CRT_ROOT")"
  echo "sanitized crt runs: $ASAN_RUNS"
}
