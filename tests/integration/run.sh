#!/usr/bin/env bash
# Integration suite: real containers, as root.  Every test function
# `test_*` in tests/integration/t_*.sh runs in its own subshell with a
# private state root.  ONLY=regex selects tests.  Runs under a child
# subreaper so that orphaned container processes are reaped promptly.
set -u
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../.." && pwd)
export REPO
if [ -z "${CRT_UNDER_REAPER:-}" ]; then
  mkdir -p "$REPO/build/tests"
  cc -O2 -Wall -Werror -o "$REPO/build/tests/subreaper" "$REPO/tests/lib/subreaper.c" || exit 1
  CRT_UNDER_REAPER=1 exec "$REPO/build/tests/subreaper" bash "$0" "$@"
fi
# the subreaper every process this suite leaves behind is reparented to
# (tests count what they leak among its descendants, not machine-wide)
CRT_SUITE_REAPER=$PPID
export CRT_SUITE_REAPER
[ "$(id -u)" = 0 ] || { echo "integration tests need root"; echo "integration: 0 passed, 1 failed"; exit 1; }
[ -x "$REPO/crt" ] || { echo "no ./crt: run make"; echo "integration: 0 passed, 1 failed"; exit 1; }
CRT_TEST_WORK=$(mktemp -d /tmp/crt-it.XXXXXX)
export CRT_TEST_WORK
source "$here/lib.sh"
rootfs_template >/dev/null

pass=0 failn=0 failed=()
# tests/conformance/t_*.sh: the project's own tests of spec MUSTs the
# runtime-tools suite does not check, named after the spec sections.
for f in "$here"/t_*.sh "$REPO"/tests/conformance/t_*.sh; do
  fns=$(bash -c "source '$here/lib.sh'; source '$f'; declare -F" | awk '{print $3}' | grep '^test_' )
  for fn in $fns; do
    name="$(basename "$f" .sh):$fn"
    [ -n "${ONLY:-}" ] && ! [[ $name =~ $ONLY ]] && continue
    T=$CRT_TEST_WORK/$fn.$RANDOM; mkdir -p "$T"
    s0=$(date +%s.%N)
    # Output goes to a file, not a pipe: a leaked container process holding
    # the pipe open must not hang the runner.
    (export T CRT_ROOT=$T/root; cd "$T"; source "$here/lib.sh"; source "$f"; "$fn") >"$T/.output" 2>&1 </dev/null
    rc=$?
    output=$(cat "$T/.output")
    # Clean up whatever the test left (its own root only).
    for id in $("$CRT_BIN" --root "$T/root" list -q 2>/dev/null); do "$CRT_BIN" --root "$T/root" delete -f "$id" >/dev/null 2>&1; done
    secs=$(awk -v a="$s0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}')
    if [ $rc = 0 ]; then
      pass=$((pass+1)); echo "ok   $name (${secs}s)"
    else
      failn=$((failn+1)); failed+=("$name"); echo "FAIL $name (${secs}s)"; echo "$output" | tail -30 | sed 's/^/     /'
    fi
  done
done

# Nothing may leak: mounts, cgroups, processes of the tests.
leaks=$(grep -c "$CRT_TEST_WORK" /proc/self/mountinfo)
# only this run's containers (ids from new_id start with crt-t<our pid>-):
# other runs on the machine are not ours to judge
cg=$(find /sys/fs/cgroup -maxdepth 3 -type d -name "crt-t$$-*" 2>/dev/null | wc -l)
procs=$(pgrep -f "$CRT_TEST_WORK" | wc -l)
if [ -z "${ONLY:-}" ] || [ "${CHECK_LEAKS:-0}" = 1 ]; then
  if [ "$leaks" != 0 ] || [ "$cg" != 0 ] || [ "$procs" != 0 ]; then
    failn=$((failn+1)); echo "FAIL leak-check: mounts=$leaks cgroups=$cg processes=$procs"
    grep "$CRT_TEST_WORK" /proc/self/mountinfo | head -5
    find /sys/fs/cgroup -maxdepth 3 -type d -name "crt-t$$-*" | head -5
  else
    pass=$((pass+1)); echo "ok   leak-check"
  fi
fi
[ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$CRT_TEST_WORK"
[ ${#failed[@]} = 0 ] || printf 'failed: %s\n' "${failed[@]}"
echo "integration: $pass passed, $failn failed"
[ "$failn" = 0 ]
