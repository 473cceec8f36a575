#!/usr/bin/env bash
# Rootless buildah drives ./crt, as an unprivileged user.
#
# buildah-rootless.sh [WORKDIR]: makes a throw-away user (tests/lib/
# rootless-user.sh: /etc/subuid and /etc/subgid ranges) and, as that user,
# runs buildah from (a busybox image from tests/clients/mkimage.py, as an
# oci-archive: no registry), run (--isolation oci, --runtime = a wrapper
# that records argv, the runtime's uid_map and each bundle's config.json,
# then execs $CRT_BIN: default ./crt, CRT_BIN=/usr/sbin/runc for runc) and
# commit.  buildah passes the runtime no --root: the runtime, euid 0 in
# buildah's user namespace with XDG_RUNTIME_DIR set and USER unset, picks
# its state root itself.  vfs storage under WORKDIR, --network none.
# Removes everything, the user and its processes; exit 0 only if every
# check passed.  Needs root (to make the user), buildah 1.28, uidmap.
set -u
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../.." && pwd)
CRT=${CRT_BIN:-$REPO/crt}
CRT=$(readlink -f "$CRT" 2>/dev/null || echo "$CRT")
name=${CRT##*/}
if [ $# -gt 0 ]; then W=$1; mkdir -p "$W"; else W=$(mktemp -d /tmp/crt-buildah-rl.XXXXXX); fi
W=$(cd "$W" && pwd)
IMG=docker.io/library/crt-busybox:latest
P=crt-brl$$   # prefix of the buildah container names
fails=0

. "$here/lib.sh"                       # say, bad, die, ok_eq, ok_has, report_and_exit
. "$REPO/tests/lib/rootless-user.sh"   # ru_create, ru_remove, ru_as, ru_reach
bh() { ru_as timeout 60 buildah --root "$W/home/storage" --runroot "$W/rr" --storage-driver vfs "$@"; }
RUN=(--isolation oci --runtime "$W/bin/crt" --network none)
# brun ARGS: a buildah run that must reach the runtime's start (counted)
brun() { echo "$*" >>"$W/runs"; bh run "${RUN[@]}" "$@"; }
# j FILE EXPR: a Python expression over the JSON document d in FILE
j() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
last_cfg() { ls -t "$W"/log/bundles/*.json 2>/dev/null | head -1; }

[ "$(id -u)" = 0 ] || die "needs root (to make the test user)"
for b in buildah newuidmap python3 setpriv; do
  command -v "$b" >/dev/null || die "$b is not installed (contrib/install-deps.sh)"
done
[ -x "$CRT" ] || die "no $CRT: run make"

cleanup() {
  set +e
  bh rm --all >/dev/null 2>&1
  bh rmi --all --force >/dev/null 2>&1
  for _ in $(seq 30); do pgrep -f "$W/" >/dev/null || break; sleep 0.1; done
  left=$(pgrep -af "$W/")
  [ -z "$left" ] || bad "processes left: $left"
  ru_remove
  st=$(ls "$W/run/$name" 2>/dev/null)
  [ -z "$st" ] || bad "runtime state left in \$XDG_RUNTIME_DIR/$name: $st"
  m=$(grep -c " $W" /proc/self/mountinfo)
  [ "$m" = 0 ] || bad "$m mounts left under $W on the host"
  report_and_exit
}
trap cleanup EXIT
trap 'bad "killed by a signal"; exit 1' TERM INT HUP

ru_reach "$W" || die "make $W reachable for the test user"
ru_create "$W/home" || die "useradd"
mkdir -p "$W/bin" "$W/log/bundles" "$W/run" "$W/rr" "$W/tmp"
chown "$RU_USER:" "$W/log" "$W/log/bundles" "$W/run" "$W/rr" "$W/tmp"
chmod 0700 "$W/run"
# buildah's temp files (bundles, archives) stay in the work dir
RU_ENV=(HOME="$W/home" XDG_RUNTIME_DIR="$W/run" TMPDIR="$W/tmp")
install -m 0755 "$CRT" "$W/bin/$name.real" || die "copy $CRT for the user"
cat >"$W/bin/crt" <<SH
#!/bin/sh
printf '%s\n' "\$*" >>"$W/log/argv.log"
[ -e "$W/log/whoami" ] || { id -u; head -1 /proc/self/uid_map; echo "USER=\${USER-unset} XDG=\$XDG_RUNTIME_DIR"; } >"$W/log/whoami"
prev=
for a in "\$@"; do
  [ "\$prev" = --bundle ] && cp "\$a/config.json" "$W/log/bundles/\$(basename "\$a").json" 2>/dev/null
  prev=\$a
done
exec "$W/bin/$name.real" "\$@"
SH
chmod 0755 "$W/bin/crt"
python3 "$here/mkimage.py" "$W/image" "$IMG" >/dev/null || die "mkimage.py failed"
chmod -R a+rX "$W/image"

# 1. from an OCI archive (no registry)
out=$(bh from --name "$P-1" "oci-archive:$W/image/oci.tar" 2>&1); rc=$?
ok_eq "0 $P-1" "$rc $(echo "$out" | tail -1)" "buildah from oci-archive"

# 2. run: output, exit codes, a missing binary; how the runtime was called
# stdout only: rootless buildah asks for ambient caps without inheritable
# ones, and the runtime warns about each on stderr, as runc >= 1.2 does
out=$(brun "$P-1" -- sh -c 'echo hello; id -u' 2>"$W/hello.err"); rc=$?
ok_eq "0 hello 0" "$rc $(echo $out)" "run --isolation oci: output ($(head -c 300 "$W/hello.err"))"
amb=$(j "$(last_cfg)" 'sorted(set(d["process"]["capabilities"].get("ambient") or []) - set(d["process"]["capabilities"].get("inheritable") or []))')
say "note: ambient caps asked without inheritable: $amb"
ok_eq "0" "$(sed -n 1p "$W/log/whoami")" "the runtime runs as euid 0 ..."
ok_eq "0 $RU_UID 1" "$(sed -n 2p "$W/log/whoami" | awk '{print $1, $2, $3}')" "... in buildah's user namespace (uid_map)"
ok_eq "USER=unset XDG=$W/run" "$(sed -n 3p "$W/log/whoami")" "... with USER unset and XDG_RUNTIME_DIR set"
[ -d "$W/run/$name" ] && say "ok: the runtime's state root is \$XDG_RUNTIME_DIR/$name" \
  || bad "no $W/run/$name (have: $(ls "$W/run" 2>&1 | tr '\n' ' '))"
out=$(brun "$P-1" -- sh -c 'exit 3' 2>&1); rc=$?
ok_eq 3 "$rc" "run sh -c 'exit 3': exit code propagated ($out)"
out=$(bh run "${RUN[@]}" "$P-1" -- /nonexistent 2>&1); rc=$?
[ "$rc" != 0 ] && say "ok: run of a missing binary fails (rc $rc)" || bad "run of a missing binary: expected a non-zero exit code, got 0 ($out)"
ok_has "$out" "/nonexistent" "run of a missing binary: the message names it"

# 3. --user; /dev nodes
out=$(brun --user 65534 "$P-1" -- sh -c 'id -u; stat -c "%F %t:%T" /dev/null' 2>"$W/user.err"); rc=$?
ok_eq "0 65534 character special file 1:3" "$rc $(echo $out)" "run --user 65534; /dev/null is the null device"
ok_eq "65534" "$(j "$(last_cfg)" 'd["process"]["user"]["uid"]')" "run --user: the bundle's process.user"

# 4. a run writes a file; commit; a container from the new image sees it
out=$(brun "$P-1" -- sh -c 'echo made-by-a-run >/tmp/made' 2>&1) || bad "run (write a file): $out"
out=$(bh commit "$P-1" localhost/crt-committed:1 2>&1) || bad "buildah commit: $out"
ok_has "$(bh images --format '{{.Name}}:{{.Tag}}' 2>&1)" "localhost/crt-committed:1" "buildah images lists the committed image"
out=$(bh from --name "$P-2" localhost/crt-committed:1 2>&1) || bad "buildah from the committed image: $out"
out=$(brun "$P-2" -- cat /tmp/made 2>"$W/made.err")
ok_eq "made-by-a-run" "$out" "the committed image holds the file the run wrote ($(cat "$W/made.err"))"

# 5. what buildah asked of the runtime: create, start, state, delete, no --root
got=$(awk '{print $1}' "$W/log/argv.log" | sort -u | tr '\n' ' ')
ok_eq "create delete start state " "$got" "buildah used create/start/state/delete"
ok_eq "0" "$(grep -c -- '--root' "$W/log/argv.log")" "buildah passed no --root (the runtime chose its state root)"
ids() { awk -v c="$1" '$1 == c {print $NF}' "$W/log/argv.log" | sort | tr '\n' ' '; }
ok_eq "$(ids start)" "$(ids delete)" "every container the runtime started was deleted"
ok_eq "$(wc -l <"$W/runs")" "$(ids start | wc -w)" "one start per buildah run (but the missing binary's)"

bh rm "$P-1" "$P-2" >/dev/null 2>&1 || bad "buildah rm"
ok_eq "" "$(bh containers -q 2>&1)" "no buildah containers left"
