# Helpers for integration tests: sourced by run.sh.  Each test runs in its own
# subshell with a private --root ($CRT_ROOT) and work dir ($T).
REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
CRT_BIN=${CRT_BIN:-$REPO/crt}

crt() { "$CRT_BIN" --root "$CRT_ROOT" "$@"; }

fail() { echo "FAIL: $*" >&2; exit 1; }

assert_eq() { # expected actual [what]
  [ "$1" = "$2" ] || fail "${3:-value}: expected '$1', got '$2'"
}
assert_ne() { [ "$1" != "$2" ] || fail "${3:-value}: expected something other than '$1'"; }
# Error lines are logfmt (runc's logrus format: msg="... \"x\" ..."), so a
# needle also matches the haystack with its \" and \\ unescaped.
assert_contains() { # haystack needle [what]
  local plain=${1//\\\"/\"}; plain=${plain//\\\\/\\}
  case "$1" in *"$2"*) return 0 ;; esac
  case "$plain" in *"$2"*) ;; *) fail "${3:-output}: expected to contain '$2', got '$1'" ;; esac
}
assert_not_contains() {
  case "$1" in *"$2"*) fail "${3:-output}: expected not to contain '$2', got '$1'" ;; esac
}
# run_rc VAR cmd...: runs cmd, stores combined output in $out and status in $rc
run_rc() { out=$("$@" 2>&1); rc=$?; }

# The busybox rootfs, made once per run from Debian's busybox-static.
rootfs_template() {
  local t=$CRT_TEST_WORK/rootfs-template
  if [ ! -x "$t/bin/busybox" ]; then
    mkdir -p "$t"/{bin,dev,proc,sys,tmp,etc,root,run,mnt}
    chmod 1777 "$t/tmp"
    cp /bin/busybox "$t/bin/busybox"
    local a
    for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -sf busybox "$t/bin/$a"; done
    mkdir -p "$t/usr/bin" "$t/sbin" && ln -sf /bin/env "$t/usr/bin/env"
    printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'daemon:x:1:1:daemon:/:/bin/false' \
      'nobody:x:65534:65534:nobody:/:/bin/false' >"$t/etc/passwd"
    printf '%s\n' 'root:x:0:' 'daemon:x:1:' 'tty:x:5:' 'nogroup:x:65534:' >"$t/etc/group"
  fi
  echo "$t"
}

# make_bundle DIR [ARGS...]: busybox rootfs + `crt spec` config running ARGS
# (default: sleep 100), terminal off.
make_bundle() {
  local b=$1; shift
  mkdir -p "$b"
  cp -a "$(rootfs_template)" "$b/rootfs"
  (cd "$b" && "$CRT_BIN" spec) || fail "crt spec failed"
  local args='["sleep","100"]'
  if [ $# -gt 0 ]; then args=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "$@"); fi
  bundle_edit "$b" "c['process']['terminal']=False; c['process']['args']=$args"
}

# bundle_edit DIR PYTHON: edits config.json as the dict `c`.
# is_crt: false when the differential tests run with runc as CRT_BIN, so
# checks of crt's own message text can be skipped.
is_crt() { case $CRT_BIN in *runc) return 1 ;; esac; return 0; }
# runc_before_1_2: true when the differential run drives a runc older than
# 1.2 (Debian's 1.1.5); crt follows runc >= 1.2 (docs/spec-conformance.md),
# so a test of newer behaviour checks the old one there instead.
runc_before_1_2() {
  is_crt && return 1
  local v; v=$("$CRT_BIN" --version | sed -n 's/^runc version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  set -- $v
  [ "${1:-0}" -lt 1 ] || { [ "$1" -eq 1 ] && [ "${2:-0}" -lt 2 ]; }
}

MAP65536="[{'containerID':0,'hostID':100000,'size':65536}]"

bundle_edit() {
  python3 - "$1/config.json" "$2" <<'PY' || fail "bundle_edit: $2"
import json, sys
p, code = sys.argv[1], sys.argv[2]
c = json.load(open(p))
exec(code)
json.dump(c, open(p, "w"), indent=1)
PY
}

# userns_bundle DIR ARGS...: a busybox bundle in a user namespace mapping
# 0-65535 to 100000-165535, owned by the mapped root, root writable.
userns_bundle() {
  local b=$1; shift
  make_bundle "$b" "$@"
  chown -R 100000:100000 "$b/rootfs"
  chmod 0755 "$CRT_TEST_WORK" "$T" # the container's root walks to the bundle
  bundle_edit "$b" "c['linux']['namespaces'].append({'type':'user'}); c['linux']['uidMappings']=$MAP65536; c['linux']['gidMappings']=$MAP65536; c['root']['readonly']=False"
}

# state_field ID FIELD
state_field() {
  crt state "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1], ""))' "$2"
}

# wait_for CMD...: retries up to 5 s
wait_for() {
  local i
  for i in $(seq 50); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

# wait_eval 'SHELL CONDITION': re-evaluates the condition (with the test's
# functions) up to 5 s; unlike wait_for, $(...) inside is run every time.
wait_eval() {
  local i
  for i in $(seq 50); do eval "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

# A fresh unique container id.
new_id() { echo "crt-t$$-${RANDOM}${RANDOM}"; }

# suite_procs COMM: how many processes named COMM descend from this suite's
# subreaper (run.sh), where whatever a test leaks ends up.  Other suites on
# the machine (another checkout's run) are not counted.
suite_procs() {
  ps -e -o pid=,ppid=,comm= | awk -v root="${CRT_SUITE_REAPER:-1}" -v name="$1" '
    { parent[$1] = $2; comm[$1] = $3 }
    END {
      n = 0
      for (p in comm) {
        if (comm[p] != name) continue
        for (q = parent[p]; q > 1 && q != root; q = parent[q]) {}
        if (q == root) n++
      }
      print n
    }'
}

# strace_result TRACE ERE: the return value of the first call in an
# `strace -f -o TRACE` whose line matches ERE.  Under -f a call that another
# traced process interrupts is split ("PID call(... <unfinished ...>", later
# "PID <... call resumed> ...) = RET"): the result is then on the resumed
# line of the same pid.  Prints nothing when no call matches.
strace_result() {
  awk -v re="$2" '
    !pid && $0 ~ re {
      if ($0 !~ /<unfinished \.\.\.>$/) { sub(/.* = /, ""); print $1; exit }
      pid = $1; next
    }
    pid && $1 == pid && /resumed>/ { sub(/.* = /, ""); print $1; exit }' "$1"
}

# in_cg2 FN: runs FN (a function of the calling test file) in a private
# mount namespace whose /sys/fs/cgroup is a fresh cgroup2 mount (this VM is
# a v1 hybrid; the unified hierarchy holds only hugetlb).
# in_v1 FN: FN (of the calling test file) in a private mount namespace
# whose cgroup2 mounts under /sys/fs/cgroup (the hybrid layout's unified
# one) are unmounted: pure cgroup v1, as bench's v1ns.  Only on a host
# with v1 hierarchies (the caller checks).
in_v1() {
  unshare -m --propagation private bash -c '
    for m in $(findmnt -rn -t cgroup2 -o TARGET); do case $m in /sys/fs/cgroup/*) umount -l "$m" ;; esac; done
    source "$1"; source "$2"; "$3"' in_v1 "$REPO/tests/integration/lib.sh" "${BASH_SOURCE[1]}" "$1"
}

in_cg2() {
  unshare -m --propagation private bash -c '
    umount -l /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup || { echo "FAIL: no cgroup2 mount" >&2; exit 1; }
    source "$1"; source "$2"; "$3"' in_cg2 "$REPO/tests/integration/lib.sh" "${BASH_SOURCE[1]}" "$1"
}

# clients_run SCRIPT: runs tests/clients/SCRIPT (a real client driving
# $CRT_BIN) with its work dir under $T, so that run.sh's leak check sees
# it, and a time limit.
clients_run() { # script
  local s=$REPO/tests/clients/$1
  CRT_BIN=$CRT_BIN timeout -k 5 170 bash "$s" "$T/${1%%.sh}"
  local rc=$?
  [ $rc = 124 ] && fail "$1 timed out after 170 s"
  [ $rc = 0 ] || fail "$1 failed (rc $rc)"
}

# sid_clients_run SCRIPT: the same with Debian sid's clients (containerd 2,
# Docker 28, podman 5, buildah 1.4x: tests/lib/sid.sh), entered in a private
# mount namespace with the host's paths; the sid root is built first if
# missing (outside the time limit).  CRT_BIN=/usr/sbin/runc there is sid's
# runc 1.3, the runc that matches those clients.
sid_clients_run() { # script
  local s=$REPO/tests/clients/$1
  ( . "$REPO/tests/lib/sid.sh"; sid_root >/dev/null ) || { fail "no sid root (tests/lib/sid.sh)"; return; }
  ( . "$REPO/tests/lib/sid.sh"
    sid_enter env CRT_BIN="$CRT_BIN" timeout -k 5 170 bash "$s" "$T/${1%%.sh}" )
  local rc=$?
  [ $rc = 124 ] && fail "sid: $1 timed out after 170 s"
  [ $rc = 0 ] || fail "sid: $1 failed (rc $rc)"
}

# assert_sealed_crt PID WHAT: PID runs crt sealed (src/linux/cloned_binary.c):
# through the internal overlay (its exe is /NAME on overlayfs) or from the
# memfd copy where overlayfs cannot be used.
assert_sealed_crt() {
  local exe; exe=$(readlink "/proc/$1/exe")
  case $exe in
    "/memfd:crt (deleted)") ;;
    "/$(basename "$CRT_BIN")")
      assert_eq 794c7630 "$(stat -L -f -c %t "/proc/$1/exe")" "$2: filesystem of $exe (overlayfs)" ;;
    *) fail "$2: $exe is not a sealed crt" ;;
  esac
}
