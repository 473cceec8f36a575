#!/usr/bin/env bash
# buildah drives ./crt: `buildah run --isolation oci --runtime WRAPPER`.
#
# buildah.sh [WORKDIR]: private buildah storage (--root, --runroot, vfs, all
# under WORKDIR, default a fresh temp dir), a busybox image from
# tests/clients/mkimage.py pulled from an oci-archive: (no registry), then
# buildah from/run/config/commit with the runtime set to a wrapper that
# records every argv it gets, saves each bundle's config.json, and execs
# ./crt (buildah passes --root=WORKDIR/crt: --runtime-flag).  Checks what buildah sees and what crt was
# asked, removes the containers and images, and checks that nothing remains.
# Exit 0 only if every check passed.  Needs root and Debian's buildah (1.28).
set -u
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../.." && pwd)
CRT=${CRT_BIN:-$REPO/crt}
CRT=$(readlink -f "$CRT" 2>/dev/null || echo "$CRT")   # the wrapper runs elsewhere
if [ $# -gt 0 ]; then W=$1; mkdir -p "$W"; else W=$(mktemp -d /tmp/crt-buildah.XXXXXX); fi
W=$(cd "$W" && pwd)
IMG=docker.io/library/crt-busybox:latest
P=crt-bh$$               # prefix of the buildah container names
fails=0

. "$here/lib.sh"   # say, bad, die, ok_eq, ok_has
# buildah's temp files (bundles, archives) stay in the work dir
export TMPDIR=$W/tmp
bh() { timeout 60 buildah --root "$W/root" --runroot "$W/rr" --storage-driver vfs "$@"; }
# crt's state goes to W/crt through buildah's own --runtime-flag
RUN=(--isolation oci --runtime "$W/crt-wrapper" --runtime-flag "root=$W/crt" --network none)
# brun ARGS: a buildah run that must reach crt start (counted in W/runs)
brun() { echo "$*" >>"$W/runs"; bh run "${RUN[@]}" "$@"; }
# j FILE EXPR: a Python expression over the JSON document d in FILE
j() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }

[ "$(id -u)" = 0 ] || die "needs root"
for b in buildah python3; do command -v "$b" >/dev/null || die "$b is not installed (Debian package buildah)"; done
[ -x "$CRT" ] || die "no $CRT: run make"

# Host paths buildah uses whatever its flags say (the blob-info cache,
# /run/containers/networks): removed at the end if we made them.
made=""
for d in /var/lib/containers /run/containers; do [ -e "$d" ] || made="$made $d"; done
cg_before=$(find /sys/fs/cgroup -maxdepth 3 -type d -name 'buildah-buildah*' 2>/dev/null | sort)

cleanup() {
  set +e
  bh rm --all >/dev/null 2>&1
  bh rmi --all --force >/dev/null 2>&1
  for _ in $(seq 30); do pgrep -f "$W/" >/dev/null || break; sleep 0.1; done
  left=$(pgrep -af "$W/"); [ -z "$left" ] || { bad "processes left: $left"; kill -KILL $(pgrep -f "$W/"); }
  m=$(grep -c " $W" /proc/self/mountinfo)
  [ "$m" = 0 ] || { bad "$m mounts left under $W"; grep " $W" /proc/self/mountinfo | awk '{print $5}' | sort -r | xargs -r -n1 umount -l; }
  st=$("$CRT" --root "$W/crt" list -q 2>/dev/null)
  [ -z "$st" ] || { bad "crt state left in $W/crt: $st"; for id in $st; do "$CRT" --root "$W/crt" delete -f "$id"; done; }
  cg=$(comm -13 <(echo "$cg_before") <(find /sys/fs/cgroup -maxdepth 3 -type d -name 'buildah-buildah*' 2>/dev/null | sort))
  [ -z "$cg" ] || bad "cgroups left: $(echo $cg | head -c 300)"
  for d in $made; do rm -rf "$d"; done
  report_and_exit
}
trap cleanup EXIT
trap 'bad "killed by a signal"; exit 1' TERM INT HUP

mkdir -p "$W/tmp" "$W/bundles"
cat >"$W/crt-wrapper" <<SH
#!/bin/sh
printf '%s\n' "\$*" >>"$W/argv.log"
prev=
for a in "\$@"; do
  [ "\$prev" = --bundle ] && cp "\$a/config.json" "$W/bundles/\$(basename "\$a").json" 2>/dev/null
  prev=\$a
done
exec "$CRT" "\$@"
SH
chmod +x "$W/crt-wrapper"
python3 "$here/mkimage.py" "$W/image" "$IMG" >/dev/null || die "mkimage.py failed"
# the bundle config.json of the last `buildah run`
last_cfg() { ls -t "$W"/bundles/*.json 2>/dev/null | head -1; }

# 1. from an OCI archive (no registry).  buildah >= 1.3x asks, as root, for
# RLIMIT_NOFILE and RLIMIT_NPROC 1048576 unless told otherwise; a root
# without CAP_SYS_RESOURCE (this CI's) cannot raise its hard limits that
# far, and every runtime's create fails there: the containers get
# contrib/podman/containers.conf's default_ulimits instead.
UL=(--ulimit nofile=1024:1024 --ulimit nproc=4096:4096)
out=$(bh from "${UL[@]}" --name "$P-1" "oci-archive:$W/image/oci.tar" 2>&1); rc=$?
ok_eq "0 $P-1" "$rc $(echo "$out" | tail -1)" "buildah from oci-archive: ($out)"
ok_eq "$P-1" "$(bh containers --format '{{.ContainerName}}' 2>&1)" "buildah containers lists it"

# 2. run: output, exit codes, a missing binary.  The output is stdout alone:
# buildah asks for ambient caps without inheritable ones, and the runtime
# warns on its stderr, which buildah hands the same pipe as the
# container's, as runc >= 1.2 does (docs/clients.md); crt says it once.
out=$(brun "$P-1" -- sh -c 'echo hello from $(hostname); echo to-stderr >&2' 2>"$W/run.err"); rc=$?
ok_eq "0 hello from" "$rc $(echo "$out" | cut -d' ' -f1,2)" "run --isolation oci: output ($out)"
# buildah 1.28 asks for ambient caps the inheritable set lacks, 1.43 for
# none: one warning, or none
warn=$(j "$(last_cfg)" 'int(bool(set(d["process"]["capabilities"].get("ambient") or []) - set(d["process"]["capabilities"].get("inheritable") or [])))')
case "$CRT" in
  */crt) ok_eq "to-stderr $warn" "$(grep -v "can't raise ambient" "$W/run.err") $(grep -c "can't raise ambient capabilities CAP_" "$W/run.err")" \
           "run: the container's stderr, and crt's one warning naming every ambient cap it could not raise ($(head -c 400 "$W/run.err"))" ;;
  *) say "SKIP: run: crt's one ambient warning (the runtime is $CRT)" ;;
esac
ok_has "$(cat "$W/argv.log" 2>&1)" " create --bundle " "buildah ran the runtime (the wrapper) with create"
out=$(brun "$P-1" -- sh -c 'cat /proc/self/limits' 2>&1)
ok_eq "1024 1024 4096 4096" "$(echo "$out" | awk '/^Max open files/ {f = $4 " " $5} /^Max processes/ {p = $3 " " $4} END {print f, p}')" "from --ulimit nofile, nproc: the container's RLIMIT_NOFILE, RLIMIT_NPROC"
out=$(brun "$P-1" -- sh -c 'exit 3' 2>&1); rc=$?
ok_eq 3 "$rc" "run sh -c 'exit 3': exit code propagated ($out)"
out=$(bh run "${RUN[@]}" "$P-1" -- /nonexistent 2>&1); rc=$?
[ "$rc" != 0 ] && say "ok: run of a missing binary fails (rc $rc)" || bad "run of a missing binary: expected a non-zero exit code, got 0 ($out)"
ok_has "$out" "/nonexistent" "run of a missing binary: the message names it"
case "$CRT" in
  # crt's error line, as runc's, is logrus text on stderr: quotes come escaped
  */crt) ok_has "$out" 'level=error msg="create ' "run of a missing binary: crt's error line reaches buildah"
         ok_has "$out" 'exec: \"/nonexistent\": stat /nonexistent: no such file or directory' "run of a missing binary: crt's message reaches buildah" ;;
  *) say "SKIP: run of a missing binary: crt's own message (the runtime is $CRT)" ;;
esac
ok_eq "" "$("$CRT" --root "$W/crt" list -q 2>&1)" "no crt state left after the failed run"

# 3. --user
out=$(brun --user 65534 "$P-1" -- id 2>"$W/run.err"); rc=$?
ok_eq "0 uid=65534(nobody) gid=65534(nogroup)" "$rc $(echo "$out" | cut -d' ' -f1,2)" "run --user 65534"
ok_eq "65534 65534" "$(j "$(last_cfg)" 'str(d["process"]["user"]["uid"]) + " " + str(d["process"]["user"]["gid"])')" "run --user: the bundle's process.user"
out=$(brun --user nobody:nogroup "$P-1" -- sh -c 'echo $(id -u):$(id -g)' 2>"$W/run.err")
ok_eq "65534:65534" "$out" "run --user nobody:nogroup (names from the image's /etc/passwd, /etc/group)"

# 4. config --env --workingdir, then run
out=$(bh config --env CRT_FOO=bar --workingdir /tmp "$P-1" 2>&1) || bad "buildah config: $out"
out=$(brun "$P-1" -- sh -c 'echo $CRT_FOO $(pwd)' 2>"$W/run.err")
ok_eq "bar /tmp" "$out" "run after config --env --workingdir"
cfg=$(last_cfg)
ok_eq "True /tmp" "$(j "$cfg" '"CRT_FOO=bar" in d["process"]["env"], d["process"]["cwd"]' | tr -d "(),'")" "the bundle's process.env and cwd"
ok_eq "False" "$(j "$cfg" 'any(n["type"] == "network" and "path" in n for n in d["linux"]["namespaces"])')" "--network none: a new network namespace (none joined)"

# 5. a run writes a file; commit; a container from the new image sees it
out=$(brun "$P-1" -- sh -c 'echo made-by-a-run >/tmp/made' 2>&1) || bad "run (write a file): $out"
out=$(bh commit "$P-1" localhost/crt-committed:1 2>&1) || bad "buildah commit: $out"
ok_eq "localhost/crt-committed:1" "$(bh images --format '{{.Name}}:{{.Tag}}' 2>&1 | grep crt-committed)" "buildah images lists the committed image"
ok_eq "[CRT_FOO=bar] /tmp" "$(bh inspect --type image --format '{{.OCIv1.Config.Env}} {{.OCIv1.Config.WorkingDir}}' localhost/crt-committed:1 2>&1 | sed 's/\[PATH=[^ ]* /[/')" \
  "the committed image keeps config --env --workingdir"
out=$(bh from "${UL[@]}" --name "$P-2" localhost/crt-committed:1 2>&1) || bad "buildah from the committed image: $out"
out=$(brun "$P-2" -- cat /tmp/made 2>"$W/run.err")
ok_eq "made-by-a-run" "$out" "the committed image holds the file the run wrote"

# 6. what buildah asked of crt: create, start, state, delete per run
B="--root=W/crt"
expected=$(sort -u <<EXP
$B create --bundle W/tmp/BUNDLE --pid-file W/tmp/BUNDLE/pid ID
$B start ID
$B state ID
$B delete ID
EXP
)
got=$(sed -E "s#$W#W#g; s#buildah[0-9]+#BUNDLE#g; s#buildah-BUNDLE#ID#g" "$W/argv.log" | sort -u)
if [ "$got" = "$expected" ]; then say "ok: crt argv from buildah"; else
  bad "crt argv from buildah differs (< expected, > got):"; diff <(echo "$expected") <(echo "$got")
fi
# (the create of the missing binary fails: nothing to start or delete)
ids() { awk -v c="$1" '$2 == c {print $NF}' "$W/argv.log" | sort | tr '\n' ' '; }
ok_eq "$(ids start)" "$(ids delete)" "every container crt started was deleted"
ok_eq "$(wc -l <"$W/runs")" "$(ids start | wc -w)" "crt start once per buildah run (but the missing binary's)"

bh rm "$P-1" "$P-2" >/dev/null 2>&1 || bad "buildah rm"
ok_eq "" "$(bh containers -q 2>&1)" "no buildah containers left"
ok_eq "" "$("$CRT" --root "$W/crt" list -q 2>&1)" "no crt state left"
