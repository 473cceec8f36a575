#!/usr/bin/env bash
# A/B of two crt builds (and crun) in a private cgroup mount namespace:
#   bash bench/ab.sh OLD_CRT [NEW_CRT]     (NEW_CRT defaults to ./crt)
# `run` of /bin/true and `exec` of /bin/true into a running container,
# interleaved round by round (bench/abtime.py).  AB_N rounds (30).
# AB_LAYOUT (bench/layout.sh):
#   cgroup2  (default) /sys/fs/cgroup a fresh cgroup2 mount; crt joins a v2
#            cgroup, crun runs with --cgroup-manager=disabled (no cgroup
#            work: not like-for-like).  AB_MOUNT_OPTS=favordynmods mounts
#            the hierarchy with that option.
#   v1ns     the host's v1 hierarchies with the unified mount hidden: all
#            three join every v1 hierarchy (checked on the exec targets).
# Build OLD_CRT from another commit with e.g.
#   git worktree add /tmp/old HEAD~1 && make -C /tmp/old crt
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OLD=${1:?usage: ab.sh OLD_CRT [NEW_CRT]}
NEW=${2:-$here/../crt}
[ "$(id -u)" = 0 ] || { echo "ab.sh: needs root" >&2; exit 1; }
# shellcheck source=layout.sh
. "$here/layout.sh"
case ${AB_LAYOUT:=cgroup2} in
  cgroup2) enter=in_cgroup2ns crun_opts=--cgroup-manager=disabled ;;
  v1ns) enter=in_v1ns crun_opts= ;;
  *) echo "ab.sh: AB_LAYOUT=$AB_LAYOUT: expected cgroup2 or v1ns" >&2; exit 1 ;;
esac
[ "$AB_LAYOUT" = cgroup2 ] || [ -z "${AB_MOUNT_OPTS:-}" ] ||
  { echo "ab.sh: AB_MOUNT_OPTS applies to AB_LAYOUT=cgroup2 only" >&2; exit 1; }
W=$(mktemp -d /tmp/crt-ab.XXXXXX)
trap 'rm -rf "$W"' EXIT
export CRT_BIN=$NEW CRT_TEST_WORK=$W
# shellcheck source=../tests/integration/lib.sh
. "$here/../tests/integration/lib.sh"
make_bundle "$W/b" /bin/true >/dev/null
make_bundle "$W/s" sleep 1000 >/dev/null
sed -i 's/"ociVersion": *"[^"]*"/"ociVersion": "1.1.0"/' "$W/b/config.json" "$W/s/config.json" # crun 1.8.1
echo "ab.sh: layout $AB_LAYOUT" >&2
CG2_OPTS=${AB_MOUNT_OPTS:-} "$enter" bash -s "$OLD" "$NEW" "$W" "${AB_N:-30}" "$AB_LAYOUT" "$here" \
  "$crun_opts" <<'IN'
set -euo pipefail
OLD=$1 NEW=$2 W=$3 N=$4 LAYOUT=$5 here=$6 CRUN_OPTS=$7
n="$NEW --root $W/r-new" o="$OLD --root $W/r-old" c="crun $CRUN_OPTS --root $W/r-crun"
# Exec targets, one per runtime: distinct ids, since the runtimes derive the
# cgroup from the id and share the hierarchies.
e=ab$$-e
trap '$n delete -f $e-new >/dev/null 2>&1 || :; $o delete -f $e-old >/dev/null 2>&1 || :
      $c delete -f $e-crun >/dev/null 2>&1 || :' EXIT
python3 "$here/abtime.py" -n "$N" -w 3 "new-run=$n run -b $W/b {id}" "old-run=$o run -b $W/b {id}" \
  "crun-run=$c run -b $W/b {id}"
$n run -d -b "$W/s" $e-new >/dev/null; $o run -d -b "$W/s" $e-old >/dev/null
$c run -d -b "$W/s" $e-crun >/dev/null
if [ "$LAYOUT" = v1ns ]; then
  # Like-for-like only if each exec target sits in a cgroup of its own in
  # every v1 hierarchy: abort otherwise.
  want=$(grep -vc '^0::' /proc/self/cgroup)
  for rt in new:"$n" old:"$o" crun:"$c"; do
    pid=$(${rt#*:} state "$e-${rt%%:*}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
    got=$(grep -v '^0::' "/proc/$pid/cgroup" | grep -c "/$e-${rt%%:*}\$" || :)
    echo "ab.sh: ${rt%%:*} joined $got/$want v1 hierarchies" >&2
    [ "$got" = "$want" ] || { echo "ab.sh: ${rt%%:*} did not do full v1 cgroup work" >&2; exit 1; }
  done
fi
python3 "$here/abtime.py" -n "$N" -w 3 "new-exec=$n exec $e-new /bin/true" \
  "old-exec=$o exec $e-old /bin/true" "crun-exec=$c exec $e-crun /bin/true"
IN
