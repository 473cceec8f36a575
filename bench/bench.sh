#!/usr/bin/env bash
# crt vs runc vs crun: lifecycle latency, exec, state/list at scale,
# throughput, peak RSS, and the bare-kernel floor.  `make bench` runs this.
#
# Three cgroup layouts are measured (bench/layout.sh):
#  v1ns       a private mount namespace with the host's unified (cgroup2)
#             mount hidden: pure v1, where crt, runc and crun (its default
#             cgroupfs manager) all join every v1 hierarchy.  Like-for-like.
#  cgroup2ns  a private mount namespace whose /sys/fs/cgroup is a fresh
#             cgroup2 mount; crt and runc join a v2 cgroup, crun runs with
#             --cgroup-manager=disabled (no cgroup work: not like-for-like).
#  host       the host's v1 hybrid layout: crt and runc only (crun 1.8.1
#             refuses hybrid: "cgroups in hybrid mode not supported").
# bench.py checks, per layout, that every runtime (but crun in cgroup2ns)
# joined a cgroup of its own in every hierarchy of the layout, and aborts
# the bench otherwise.
#
# Environment:
#  BENCH_QUICK=1        smoke run (< 1 min): few iterations, small N
#  BENCH_FULL=1         1000 containers present for state/list
#  BENCH_ITERS, BENCH_WARMUP, BENCH_RSS_ITERS   rounds per measurement
#  BENCH_N              containers present for state_N/list_N
#  BENCH_LIFECYCLE_N    containers in the serial/parallel throughput runs
#  BENCH_OUT            JSON output (default bench/results/latest.json)
#  BENCH_MODES          "v1ns cgroup2ns host" (default; "cgroup2ns" on a pure
#                       cgroup v2 host) or a subset
#  BENCH_SEED           seed of the per-round runtime order (default: the clock)
#  BENCH_RUNC, BENCH_CRUN   the peers (default: runc 1.3.6 and crun 1.28 from sid)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/.." && pwd)
CRT=$REPO/crt

die() { echo "bench: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (containers, namespaces, cgroups)"
[ -x "$CRT" ] || die "no $CRT: run make"

# The peers: current runc and crun (1.3.6 and 1.28 from Debian sid, made
# runnable here by tests/lib/peers.sh), or BENCH_RUNC / BENCH_CRUN (Debian
# 12's /usr/sbin/runc 1.1.5 and /usr/bin/crun 1.8.1, say).  (hyperfine is
# not used: it cannot interleave runtimes round by round, which this
# driver does.)
RUNC=${BENCH_RUNC:-$(bash "$REPO/tests/lib/peers.sh" runc)} || die "no runc 1.3.6 (tests/lib/peers.sh); BENCH_RUNC=/usr/sbin/runc uses Debian 12's"
CRUN=${BENCH_CRUN:-$(bash "$REPO/tests/lib/peers.sh" crun)} || die "no crun 1.28 (tests/lib/peers.sh); BENCH_CRUN=/usr/bin/crun uses Debian 12's"
[ -x "$RUNC" ] || die "no runc at $RUNC"
[ -x "$CRUN" ] || die "no crun at $CRUN"
for t in /bin/busybox /usr/bin/time unshare python3; do
  command -v "$t" >/dev/null || die "missing $t (packages: busybox-static, time, util-linux, python3)"
done

# The first layout of BENCH_MODES (v1ns, the like-for-like one, by default)
# gets d_n containers present and d_life in the throughput loops; the
# others d_n2 and d_life2, which keeps `make bench` near 1.5 minutes (runc's
# delete -f of a created container alone takes ~108 ms).  BENCH_N and
# BENCH_LIFECYCLE_N, when set, apply to every layout.
if [ "${BENCH_QUICK:-0}" = 1 ]; then
  d_iters=5 d_warm=1 d_rss=2 d_n=20 d_life=10 d_n2=10 d_life2=10
else
  d_iters=12 d_warm=2 d_rss=5 d_n=200 d_life=100 d_n2=50 d_life2=30
fi
[ "${BENCH_FULL:-0}" = 1 ] && d_n=1000
ITERS=${BENCH_ITERS:-$d_iters}
WARMUP=${BENCH_WARMUP:-$d_warm}
RSS_ITERS=${BENCH_RSS_ITERS:-$d_rss}
N=${BENCH_N:-$d_n}
LIFE_N=${BENCH_LIFECYCLE_N:-$d_life}
N2=${BENCH_N:-$d_n2}
LIFE_N2=${BENCH_LIFECYCLE_N:-$d_life2}
OUT=${BENCH_OUT:-$REPO/bench/results/latest.json}
# A pure cgroup v2 host has no v1 hierarchy to hide the unified one from,
# and no hybrid layout: only cgroup2ns applies there.
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then d_modes="cgroup2ns"; else d_modes="v1ns cgroup2ns host"; fi
MODES=${BENCH_MODES:-$d_modes}

W=$(mktemp -d /tmp/crt-bench.XXXXXX)
echo "bench: work dir $W" >&2
# BENCH_STATE_TMPFS=1: every runtime's --root on a tmpfs of its own, as /run
# is on a standard host (here /tmp is the VM's ext4 without a journal, where
# each new file costs in proportion to the files deleted near it lately;
# docs/performance.md, "The state root on this VM").
ROOTS=$W
if [ "${BENCH_STATE_TMPFS:-0}" = 1 ]; then
  ROOTS=$W/state
  mkdir "$ROOTS" && mount -t tmpfs -o mode=0700,size=256m crt-bench-state "$ROOTS" || die "tmpfs on $ROOTS"
  echo "bench: state roots on a tmpfs ($ROOTS)" >&2
fi
# shellcheck source=layout.sh
. "$here/layout.sh"
# Deletes whatever a crashed driver left, in the layout it was created in.
cleanup() {
  local r rt ids
  for r in "$ROOTS"/root-*; do
    [ -d "$r" ] || continue
    case $(basename "$r") in
      *-crt) rt=$CRT ;; *-runc) rt=$RUNC ;; root-cgroup2ns-crun) rt="$CRUN --cgroup-manager=disabled" ;;
      *-crun) rt=$CRUN ;; *) continue ;;
    esac
    local wrap=()
    case $(basename "$r") in root-cgroup2ns-*) wrap=(in_cgroup2ns) ;; root-v1ns-*) wrap=(in_v1ns) ;; esac
    ids=$($rt --root "$r" list -q 2>/dev/null) || continue
    for id in $ids; do "${wrap[@]}" $rt --root "$r" delete -f "$id" >/dev/null 2>&1 || true; done
  done
  [ "$ROOTS" = "$W" ] || umount "$ROOTS"
  rm -rf "$W"
}
trap cleanup EXIT

# One busybox bundle (crt spec, /bin/true, no terminal) and a config-only
# twin on the same rootfs running sleep, the target for exec/state.  ociVersion 1.1.0: crun 1.8.1 rejects
# "1.2.0" ("unknown version specified"); nothing else in the config changes.
mk_rootfs() {
  mkdir -p "$1"/{bin,dev,proc,sys,tmp,etc,root,run}
  cp /bin/busybox "$1/bin/busybox"
  local a
  for a in true sh sleep; do ln -s busybox "$1/bin/$a"; done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$1/etc/passwd"
  echo 'root:x:0:' >"$1/etc/group"
}
mk_config() { # DIR ARGS_JSON [ROOTFS]
  mkdir -p "$1"
  (cd "$1" && "$CRT" spec)
  python3 - "$1/config.json" "$2" "${3:-}" <<'PY'
import json, sys
p, args, rootfs = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
c = json.load(open(p))
c["ociVersion"] = "1.1.0"
c["process"]["args"] = args
c["process"]["terminal"] = False
if rootfs:
    c["root"]["path"] = rootfs  # read-only, so the twin can share it
json.dump(c, open(p, "w"), indent=1)
PY
}
# The same-work floor of `run` (bench/floor.c), timed in the same rounds.
cc -O2 -Wall -Wextra -Werror -o "$W/floor" "$here/floor.c" || die "cannot build bench/floor.c"
mk_rootfs "$W/bundle/rootfs"
mk_config "$W/bundle" '["/bin/true"]'
mk_config "$W/sleeper" '["/bin/sleep","1000000"]' "$W/bundle/rootfs"

common=(--bundle "$W/bundle" --sleep-bundle "$W/sleeper" --work "$W" --roots "$ROOTS" --iters "$ITERS"
        --warmup "$WARMUP" --rss-iters "$RSS_ITERS" --floor-bin "$W/floor" ${BENCH_SEED:+--seed "$BENCH_SEED"})
t0=$(date +%s)
load_start=$(cut -d" " -f1-3 /proc/loadavg)
parts=()
first=1
for mode in $MODES; do
  # The floor (no runtime, no cgroup) is measured once, with the first layout.
  if [ $first = 1 ]; then sized=("${common[@]}" --floor --n "$N" --lifecycle-n "$LIFE_N")
  else sized=("${common[@]}" --n "$N2" --lifecycle-n "$LIFE_N2"); fi
  first=0
  case $mode in
    v1ns)
      in_v1ns python3 "$here/bench.py" --mode v1ns --out "$W/part-v1ns.json" "${sized[@]}" \
        --cgroup-expect v1 --runtime crt="$CRT" --runtime runc="$RUNC" --runtime crun="$CRUN" ;;
    cgroup2ns)
      in_cgroup2ns python3 "$here/bench.py" --mode cgroup2ns --out "$W/part-cgroup2ns.json" "${sized[@]}" \
        --cgroup-expect v2 --cgroup-exempt crun \
        --runtime crt="$CRT" --runtime runc="$RUNC" --runtime crun="$CRUN,--cgroup-manager=disabled" ;;
    host)
      python3 "$here/bench.py" --mode host --out "$W/part-host.json" "${sized[@]}" \
        --cgroup-expect hybrid --runtime crt="$CRT" --runtime runc="$RUNC" ;;
    *) die "unknown mode $mode" ;;
  esac
  parts+=("$W/part-$mode.json")
done

python3 - "$W/meta.json" <<PY
import json, os, platform, subprocess, sys, time
def ver(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True).stdout.splitlines()[0]
    except Exception as e:
        return "unknown (%s)" % e
doc = {
  "meta": {
    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "kernel": platform.release(), "cpus": os.cpu_count(),
    "loadavg_start": "$load_start".split(),
    "loadavg_end": open("/proc/loadavg").read().split()[:3],
    "command": "make bench  (bash bench/bench.sh)",
    "env": {k: v for k, v in os.environ.items() if k.startswith("BENCH_")},
    "iters": $ITERS, "warmup": $WARMUP, "rss_iters": $RSS_ITERS, "n": $N,
    "lifecycle_n": $LIFE_N, "n_other_layouts": $N2, "lifecycle_n_other_layouts": $LIFE_N2,
    "seconds": $(( $(date +%s) - t0 )),
    "versions": {"crt": ver(["$CRT", "--version"]), "runc": ver(["$RUNC", "--version"]),
                 "crun": ver(["$CRUN", "--version"])},
    "timing": "wall time of each runtime command as spawned by bench/bench.py (Python subprocess); runtimes interleaved round by round, warm-up rounds dropped",
  },
  "mode_descriptions": {
    "v1ns": "private mount ns, host v1 hierarchies with the unified (cgroup2) mount unmounted: pure v1; crt, runc and crun (cgroupfs manager) all join every v1 hierarchy",
    "cgroup2ns": "private mount ns, /sys/fs/cgroup = fresh cgroup2 mount; crun --cgroup-manager=disabled",
    "host": "host cgroup v1 hybrid layout (crun 1.8.1 refuses it: not measured)",
  },
}
json.dump(doc, open(sys.argv[1], "w"))
PY
mkdir -p "$(dirname "$OUT")"
python3 "$here/report.py" "$OUT" "$W/meta.json" "${parts[@]}"
echo "results: $OUT ($(( $(date +%s) - t0 ))s)"
