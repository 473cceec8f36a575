#!/usr/bin/env bash
# Where crt's time goes: the raw material of docs/performance.md.
#   bash bench/profile.sh [OUTDIR]      (default bench/results/profile)
# Writes strace -c tables, per-syscall-group sums over 10 runs (host and
# cgroup2-namespace layouts), perf stat/trace, ld.so statistics, the memfd
# re-exec and seccomp-compile costs, and a callgrind profile.  Runs ~1 min.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/.." && pwd)
CRT=$REPO/crt
OUT=${1:-$REPO/bench/results/profile}
[ "$(id -u)" = 0 ] || { echo "profile: needs root" >&2; exit 1; }
[ -x "$CRT" ] || { echo "profile: no $CRT: run make" >&2; exit 1; }
for t in strace python3 unshare; do command -v $t >/dev/null || { echo "profile: missing $t" >&2; exit 1; }; done
mkdir -p "$OUT"
W=$(mktemp -d /tmp/crt-profile.XXXXXX)
trap 'for id in $("$CRT" --root "$W/root" list -q 2>/dev/null); do "$CRT" --root "$W/root" delete -f "$id" >/dev/null 2>&1; done; rm -rf "$W"' EXIT

mk_bundle() { # DIR ARGS_JSON [SECCOMP=1]
  mkdir -p "$1/rootfs"/{bin,dev,proc,sys,tmp,etc,root,run}
  cp /bin/busybox "$1/rootfs/bin/busybox"
  for a in true sh sleep; do ln -s busybox "$1/rootfs/bin/$a"; done
  (cd "$1" && "$CRT" spec)
  python3 - "$1/config.json" "$2" "${3:-0}" <<'PY'
import json, re, sys
p, args, sc = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "1"
c = json.load(open(p))
c["process"]["args"], c["process"]["terminal"] = args, False
if sc:
    # An allow-list of every x86_64 syscall but ~30 dangerous ones, for the
    # three architectures Docker's default profile names: the usual shape.
    names = re.findall(r"#define __NR_(\w+) \d+",
                       open("/usr/include/x86_64-linux-gnu/asm/unistd_64.h").read())
    deny = {"kexec_load", "kexec_file_load", "reboot", "init_module", "finit_module",
            "delete_module", "bpf", "perf_event_open", "ptrace", "mount", "umount2",
            "pivot_root", "swapon", "swapoff", "acct", "open_by_handle_at", "iopl", "ioperm",
            "create_module", "get_kernel_syms", "query_module", "uselib", "nfsservctl",
            "lookup_dcookie", "afs_syscall", "tuxcall", "security", "putpmsg", "getpmsg",
            "vserver", "_sysctl"}
    c["linux"]["seccomp"] = {
        "defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 1,
        "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
        "syscalls": [{"names": [n for n in names if n not in deny], "action": "SCMP_ACT_ALLOW"}]}
json.dump(c, open(p, "w"), indent=1)
PY
}
mk_bundle "$W/b" '["/bin/true"]'
mk_bundle "$W/sc" '["/bin/true"]' 1
mk_bundle "$W/sleep" '["/bin/sleep","100000"]'
crt() { "$CRT" --root "$W/root" "$@"; }
cd "$W/b"

echo "== strace -f -c: crt run (host layout)" | tee "$OUT/strace-c-run.txt"
strace -f -c -o "$W/c.txt" "$CRT" --root "$W/root" run sc1 && cat "$W/c.txt" >>"$OUT/strace-c-run.txt"

echo "== syscall groups, 10 x crt run, host v1 hybrid" | tee "$OUT/syscalls-host.txt"
for i in $(seq 10); do strace -ff -y -T -o "$W/h$i" "$CRT" --root "$W/root" run sh$i; done
python3 "$here/syscall_sum.py" 10 "$W"/h[0-9]* | tee -a "$OUT/syscalls-host.txt"
echo "== syscall groups, 10 x crt run, private cgroup2 mount" | tee "$OUT/syscalls-cgroup2ns.txt"
for i in $(seq 10); do
  unshare -m --propagation private bash -c 'umount -l /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup && exec "$@"' \
    x strace -ff -y -T -o "$W/n$i" "$CRT" --root "$W/root2" run sn$i
done
python3 "$here/syscall_sum.py" 10 "$W"/n[0-9]* | tee -a "$OUT/syscalls-cgroup2ns.txt"

crt run -d --bundle "$W/sleep" sl </dev/null >/dev/null 2>&1
echo "== syscall groups, 10 x crt exec /bin/true, host" | tee "$OUT/syscalls-exec.txt"
for i in $(seq 10); do strace -ff -y -T -o "$W/e$i" "$CRT" --root "$W/root" exec sl /bin/true; done
python3 "$here/syscall_sum.py" 10 "$W"/e[0-9]* | tee -a "$OUT/syscalls-exec.txt"
crt delete -f sl

echo "== delete of a created (parked) container: sleeps" | tee "$OUT/delete-parked.txt"
crt create --bundle "$W/b" pk </dev/null >/dev/null 2>&1
strace -f -T -o "$W/d.txt" "$CRT" --root "$W/root" delete -f pk
grep -E "nanosleep|kill|pidfd|wait4|freezer.state|exit_group" "$W/d.txt" | tee -a "$OUT/delete-parked.txt"

if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
  { echo "== perf stat -r 20: crt run, runc run, crt run with a 331-syscall seccomp profile"
    perf stat -r 20 -e task-clock,context-switches,page-faults "$CRT" --root "$W/root" run p1 2>&1 >/dev/null
    perf stat -r 20 -e task-clock,context-switches,page-faults /usr/sbin/runc --root "$W/rootr" run p2 2>&1 >/dev/null
    (cd "$W/sc" && perf stat -r 20 -e task-clock,context-switches,page-faults "$CRT" --root "$W/root" run p3 2>&1 >/dev/null)
    echo "== perf trace -s: crt run"
    perf trace -s -o "$W/pt.txt" "$CRT" --root "$W/root" run p4 && grep -E "^ +[a-z_0-9]+ +[0-9]" "$W/pt.txt" | sort -k4 -rn | sed -n '1,20p'
  } | tee "$OUT/perf.txt"
fi

{ echo "== ld.so statistics (once per process start; create/run/exec start twice)"
  LD_DEBUG=statistics "$CRT" --version 2>&1 | grep -E "total startup|relocation"
  echo "== memfd copy of $(stat -c %s "$CRT") bytes, and of a stripped copy"
  cc -O2 -o "$W/memfd_exec" "$here/memfd_exec.c"
  strip -o "$W/crt-stripped" "$CRT"
  python3 "$here/abtime.py" -n 30 -w 3 "crt --version=$CRT --version" \
    "copy only=CRT_PROFILE_NOEXEC=1 $W/memfd_exec $CRT" "copy+re-exec=$W/memfd_exec $CRT --version" \
    "copy only (stripped)=CRT_PROFILE_NOEXEC=1 $W/memfd_exec $W/crt-stripped" \
    "copy+re-exec (stripped)=$W/memfd_exec $W/crt-stripped --version"
} | tee "$OUT/startup.txt"

{ echo "== libseccomp build+export of the 331-syscall allow-list (what crt does per create/exec)"
  cc -O2 -o "$W/seccomp_compile" "$here/seccomp_compile.c" -lseccomp
  names=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["linux"]["seccomp"]["syscalls"][0]["names"]))' "$W/sc/config.json")
  # shellcheck disable=SC2086
  "$W/seccomp_compile" 30 3 $names
  # shellcheck disable=SC2086
  "$W/seccomp_compile" 30 1 $names
} | tee "$OUT/seccomp.txt"

# Experimental builds in a scratch copy (src/ of the repo is not touched):
# the same tree with one change each, to put numbers on the suggestions.
variant() { # NAME FILE PYTHON-REPLACEMENT
  local d=$W/exp-$1
  mkdir -p "$d" && (cd "$REPO" && git ls-files -z | xargs -0 cp -a --parents -t "$d" && { [ ! -d build ] || cp -a build "$d/"; })
  python3 - "$d/$2" "$3" <<'PY'
import sys
p, (old, new) = sys.argv[1], sys.argv[2].split("=>")
s = open(p).read()
if old not in s:
    sys.exit("profile: %s: pattern not found: %s" % (p, old))
open(p, "w").write(s.replace(old, new, 1))
PY
  make -s -C "$d" crt >/dev/null
}
# (a "nofsync" variant measured the state file's fsync until src/util/fs.c
# dropped it: rename alone makes the update atomic, see crt_atomic_file_end)
variant noreexec src/linux/cloned_binary.c \
  'int crt_ensure_cloned_binary(char **argv, crt_err **err) {=>int crt_ensure_cloned_binary(char **argv, crt_err **err) { if (getpid() > 0) return 0;'
# bench.py checks that each runtime made its cgroup as the host's layout says
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then layout=v2
elif [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then layout=hybrid
else layout=v1; fi
{ echo "== variants, host layout $layout (medians are noisy on a shared VM: compare p10 too)"
  python3 "$here/bench.py" --mode host --cgroup-expect "$layout" --suite latency --out "$W/exp.json" --bundle "$W/b" \
    --sleep-bundle "$W/sleep" --work "$W" --iters 30 --warmup 3 --runtime crt="$CRT" \
    --runtime stripped="$W/crt-stripped" \
    --runtime noreexec="$W/exp-noreexec/crt" 2>/dev/null
  python3 - "$W/exp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for m, per in d["results"].items():
    print("%-8s " % m + "  ".join("%s %.1f (p10 %.1f)" % (k, v["median"], v["p10"]) for k, v in per.items()))
PY
  echo "== seccomp: run with the 331-syscall allow-list vs none (CPU: perf stat above)"
  python3 "$here/abtime.py" -n 30 -w 3 "crt run=$CRT --root $W/root run --bundle $W/b {id}" \
    "crt run +seccomp=$CRT --root $W/root run --bundle $W/sc {id}"
} | tee "$OUT/variants.txt"

if command -v valgrind >/dev/null; then
  # valgrind cannot follow the fexecve of the memfd, so this profiles the
  # no-re-exec variant; the container child fails under valgrind (its fd
  # limit), the runtime process (parse, cgroups, state) is what counts.
  (cd "$W/b" && valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$W/cg.%p" \
    "$W/exp-noreexec/crt" --root "$W/root" run cg1 >"$W/cg.log" 2>&1) || true
  for f in "$W"/cg.[0-9]*; do
    callgrind_annotate --inclusive=yes "$f" 2>/dev/null | sed -n '/file:function/,$p' | sed -n '1,40p'
  done >"$OUT/callgrind-run.txt"
  grep -E "refs|crt:" "$W/cg.log" >>"$OUT/callgrind-run.txt" || true
fi
echo "profile: results in $OUT"
