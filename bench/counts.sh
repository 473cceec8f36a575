#!/usr/bin/env bash
# Load-independent cost of each crt command, for A/B between builds on a
# busy machine: what the command does, not how long it waits.
#   bash bench/counts.sh CRT_A [CRT_B ...]      (root; ~1 min per binary)
# Per command (create, start, exec, run, delete, state) and binary, the
# median of COUNTS_N (3) runs of:
#   instr    callgrind instructions (Ir) of the crt process itself, up to its
#            re-exec if it re-executes (valgrind cannot follow execveat of an
#            fd: the sealed re-exec of `exec` is in ldso/* below, not here);
#            not for create and run (-1): valgrind would run their init too
#   (create's counts stop at the init's execve of crt-stub)
#   ldso     ld.so relocation work of every crt image the command starts
#            (LD_DEBUG=statistics, summed: "relocations", and the images)
#   sys      system calls of the whole process tree (strace -f -c), and of
#            those: execve(at), clone(3)/fork, mmap, fsync(+fdatasync)
#   minflt   minor page faults of the tree (/usr/bin/time -v)
#   rss_kb   peak RSS, kB (/usr/bin/time -v: the largest of the processes)
# The containers: busybox, `crt spec` config, /bin/true (create/start/
# delete/run) or sleep (exec/state target); host cgroup layout.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "counts: needs root" >&2; exit 1; }
[ $# -ge 1 ] || { echo "usage: $0 CRT [CRT...]" >&2; exit 1; }
N=${COUNTS_N:-3}
W=$(mktemp -d /tmp/crt-counts.XXXXXX)
BINS=("$@")
cleanup() {
  for b in "${BINS[@]}"; do
    for id in $("$b" --root "$W/root" list -q 2>/dev/null); do "$b" --root "$W/root" delete -f "$id" >/dev/null 2>&1; done
  done
  rm -rf "$W"
}
trap cleanup EXIT

mk_bundle() { # DIR ARGS_JSON
  mkdir -p "$1/rootfs"/{bin,dev,proc,sys,tmp,etc,root,run}
  cp /bin/busybox "$1/rootfs/bin/busybox"
  for a in true sh sleep; do ln -s busybox "$1/rootfs/bin/$a"; done
  (cd "$1" && "${BINS[0]}" spec)
  python3 - "$1/config.json" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["args"], c["process"]["terminal"] = json.loads(sys.argv[2]), False
json.dump(c, open(sys.argv[1], "w"))
PY
}
mk_bundle "$W/t" '["/bin/true"]'
mk_bundle "$W/s" '["/bin/sleep","100000"]'

# measure NAME OUTFILE CMD...: one run of CMD under each tool
measure() {
  local name=$1 out=$2; shift 2
  local d; d=$(mktemp -d "$W/m.XXXX")
  "$@" >/dev/null 2>&1 </dev/null || true # warm the page cache
  echo "$name" >"$d/name"
  # The init of create and run is a clone of crt, which valgrind would
  # run too (and fail: its fd limit, the stub's execveat): not measured.
  : >"$d/vg"
  case $name in create|run) ;; *)
    prep "$name"
    valgrind --tool=callgrind --callgrind-out-file="$d/cg" "$@" </dev/null >/dev/null 2>"$d/vg" || true ;;
  esac
  prep "$name"
  LD_DEBUG=statistics LD_DEBUG_OUTPUT="$d/ld" "$@" </dev/null >/dev/null 2>&1 || true
  prep "$name"
  # create: the parked init is followed until its execve (of the stub),
  # not while it waits for start
  local detach=(); [ "$name" = create ] && detach=(-b execve)
  strace -f "${detach[@]}" -c -o "$d/st" "$@" </dev/null >/dev/null 2>&1 || true
  prep "$name"
  /usr/bin/time -v -o "$d/tv" "$@" </dev/null >/dev/null 2>&1 || true
  python3 - "$d" >>"$out" <<'PY'
import glob, re, sys
d = sys.argv[1]
r = {"cmd": open(d + "/name").read().strip()}
m = re.search(r"Collected : (\d+)", open(d + "/vg").read())
r["instr"] = int(m.group(1)) if m else -1
rel = imgs = 0
for f in glob.glob(d + "/ld.*"):
    t = open(f).read()
    m = re.search(r"number of relocations: (\d+)", t)
    if m:
        rel += int(m.group(1)); imgs += 1
r["ldso_relocs"], r["ldso_images"] = rel, imgs
calls = {}
for line in open(d + "/st"):
    p = line.split()
    if len(p) >= 5 and p[0][0].isdigit() and p[-1] != "total":
        calls[p[-1]] = int(p[3])
r["sys"] = sum(calls.values())
r["exec"] = calls.get("execve", 0) + calls.get("execveat", 0)
r["clone"] = calls.get("clone", 0) + calls.get("clone3", 0) + calls.get("fork", 0) + calls.get("vfork", 0)
r["mmap"] = calls.get("mmap", 0)
r["fsync"] = calls.get("fsync", 0) + calls.get("fdatasync", 0)
tv = open(d + "/tv").read()
r["minflt"] = int(re.search(r"Minor \(reclaiming a frame\) page faults: (\d+)", tv).group(1))
r["rss_kb"] = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", tv).group(1))
print(repr(r))
PY
}

# prep NAME: the state the next run of NAME needs
prep() {
  case $1 in
    create) "$B" --root "$W/root" delete -f c1 >/dev/null 2>&1 || true ;;
    start) "$B" --root "$W/root" delete -f c1 >/dev/null 2>&1 || true
           (cd "$W/t" && "$B" --root "$W/root" create c1 </dev/null >/dev/null 2>&1) ;;
    delete) "$B" --root "$W/root" delete -f c1 >/dev/null 2>&1 || true
            (cd "$W/t" && "$B" --root "$W/root" run -d c1 </dev/null >/dev/null 2>&1)
            sleep 0.2 ;;
    run) "$B" --root "$W/root" delete -f r1 >/dev/null 2>&1 || true ;;
  esac
}

for B in "${BINS[@]}"; do
  out=$W/$(echo "$B" | tr / _).txt
  (cd "$W/s" && "$B" --root "$W/root" run -d sl </dev/null >/dev/null 2>&1)
  for i in $(seq "$N"); do
    (cd "$W/t" && measure create "$out" "$B" --root "$W/root" create c1)
    measure start "$out" "$B" --root "$W/root" start c1
    measure delete "$out" "$B" --root "$W/root" delete c1
    (cd "$W/t" && measure run "$out" "$B" --root "$W/root" run r1)
    measure exec "$out" "$B" --root "$W/root" exec sl /bin/true
    measure state "$out" "$B" --root "$W/root" state sl
  done
  "$B" --root "$W/root" delete -f sl >/dev/null 2>&1 || true
done

python3 - "$W" "${BINS[@]}" <<'PY'
import ast, statistics, sys
W, bins = sys.argv[1], sys.argv[2:]
res = {}
for b in bins:
    for line in open(W + "/" + b.replace("/", "_") + ".txt"):
        r = ast.literal_eval(line)
        res.setdefault((b, r["cmd"]), []).append(r)
keys = ["instr", "ldso_relocs", "ldso_images", "sys", "exec", "clone", "mmap", "fsync", "minflt", "rss_kb"]
print("| command | metric | " + " | ".join(bins) + " |")
print("|---|---|" + "---|" * len(bins))
for cmd in ["create", "start", "exec", "run", "delete", "state"]:
    for k in keys:
        vals = [statistics.median(x[k] for x in res[(b, cmd)]) for b in bins]
        print("| %s | %s | %s |" % (cmd, k, " | ".join("%g" % v for v in vals)))
PY
