#!/usr/bin/env bash
# A/B of two crt builds (and crun) in a cgroup2 mount namespace:
#   bash bench/ab.sh OLD_CRT [NEW_CRT]     (NEW_CRT defaults to ./crt)
# `run` of /bin/true and `exec` of /bin/true into a running container,
# interleaved round by round (bench/abtime.py).  AB_N rounds (30);
# AB_MOUNT_OPTS=favordynmods mounts the cgroup2 hierarchy with that option.
# Build OLD_CRT from another commit with e.g.
#   git worktree add /tmp/old HEAD~1 && make -C /tmp/old crt
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OLD=${1:?usage: ab.sh OLD_CRT [NEW_CRT]}
NEW=${2:-$here/../crt}
[ "$(id -u)" = 0 ] || { echo "ab.sh: needs root" >&2; exit 1; }
W=$(mktemp -d /tmp/crt-ab.XXXXXX)
trap 'rm -rf "$W"' EXIT
export CRT_BIN=$NEW CRT_TEST_WORK=$W
# shellcheck source=../tests/integration/lib.sh
. "$here/../tests/integration/lib.sh"
make_bundle "$W/b" /bin/true >/dev/null
make_bundle "$W/s" sleep 1000 >/dev/null
sed -i 's/"ociVersion": *"[^"]*"/"ociVersion": "1.1.0"/' "$W/b/config.json" "$W/s/config.json" # crun 1.8.1
unshare -m --propagation private bash -s "$OLD" "$NEW" "$W" "${AB_N:-30}" "${AB_MOUNT_OPTS:-}" "$here" <<'IN'
set -euo pipefail
OLD=$1 NEW=$2 W=$3 N=$4 OPTS=$5 here=$6
umount -l /sys/fs/cgroup
mount -t cgroup2 ${OPTS:+-o "$OPTS"} none /sys/fs/cgroup
n="$NEW --root $W/r-new" o="$OLD --root $W/r-old" c="crun --cgroup-manager=disabled --root $W/r-crun"
python3 "$here/abtime.py" -n "$N" -w 3 "new-run=$n run -b $W/b {id}" "old-run=$o run -b $W/b {id}" \
  "crun-run=$c run -b $W/b {id}"
$n run -d -b "$W/s" e >/dev/null; $o run -d -b "$W/s" e >/dev/null; $c run -d -b "$W/s" e >/dev/null
python3 "$here/abtime.py" -n "$N" -w 3 "new-exec=$n exec e /bin/true" "old-exec=$o exec e /bin/true" \
  "crun-exec=$c exec e /bin/true"
$n delete -f e; $o delete -f e; $c delete -f e
IN
