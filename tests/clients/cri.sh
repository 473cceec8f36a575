#!/usr/bin/env bash
# Kubernetes' view: containerd's CRI plugin drives ./crt as a RuntimeClass
# handler, through the runc v2 shim.
#
# cri.sh [WORKDIR]: starts a private containerd 1.6 (socket, root, state, CNI
# config and IPAM data under WORKDIR, default a fresh temp dir) whose config
# is contrib/containerd/config.toml with BinaryName replaced by a wrapper
# (records every argv it gets and saves each bundle's config.json, then execs
# ./crt) and Root by WORKDIR/crt.  It imports a busybox image and a pause image
# (busybox whose Cmd sleeps), then plays the kubelet with tests/clients/cri/
# cri.py (a small runtime.v1 gRPC client): a pod with the handler named in
# contrib/kubernetes/runtimeclass.yaml, containers sharing its namespaces,
# exec, status, stats, an OOM kill, stop and removal.  Then it stops
# containerd by its pid and checks that nothing remains.  Exit 0 only if
# every check passed.  Needs root, containerd, containernetworking-plugins,
# python3-grpcio and python3-grpc-tools (Debian's /usr/bin/python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../.." && pwd)
CRT=${CRT_BIN:-$REPO/crt}
CRT=$(readlink -f "$CRT" 2>/dev/null || echo "$CRT")   # the wrapper runs elsewhere
PY=${CRI_PYTHON:-/usr/bin/python3}
if [ $# -gt 0 ]; then W=$1; mkdir -p "$W"; else W=$(mktemp -d /tmp/crt-cri.XXXXXX); fi
W=$(cd "$W" && pwd)
SOCK=$W/containerd.sock
NS=k8s.io                 # the CRI plugin's containerd namespace
IMG=docker.io/library/crt-busybox:latest
PAUSE=docker.io/library/crt-pause:1
CGP=/crt-cri-$$           # the pod's cgroup parent (cgroupfs)
BR=crtcri$$               # the CNI bridge on the host
BR=${BR:0:15}
# no CAP_SYS_RESOURCE (bit 24) in our bounding set: see restrict_oom_score_adj
RESTRICT_OOM=$(( (0x$(awk '/^CapBnd/ {print $2}' /proc/self/status) >> 24) & 1 )) 
[ "$RESTRICT_OOM" = 1 ] && RESTRICT_OOM=false || RESTRICT_OOM=true
SUBNET=10.213.$(( $$ % 250 )).0/24
fails=0 cpid=

. "$here/lib.sh"   # say, bad, die, ok_eq, ok_has
ok_true() { [ "$1" = True ] && say "ok: $2" || bad "$2: expected True, got '$1' ($3)"; }
# Each RPC gets 30 s (the longest wanted, StopContainer c1, has a 20 s
# grace); once one has hit its deadline (a hanging runtime), the rest get
# 5 s, so that the script still ends, and cleans up, within t_cri's limit.
cri() {
  local t=30 o rc
  [ -e "$W/hung" ] && t=5
  o=$(timeout $((t + 10)) "$PY" "$here/cri/cri.py" --sock "$SOCK" --gen "$W/gen" --timeout $t "$@"); rc=$?
  case "$o" in *DEADLINE_EXCEEDED*) [ -e "$W/hung" ] || say "note: $1 hit its deadline; later RPCs get 5 s" >&2; : >"$W/hung" ;; esac
  printf '%s\n' "$o"
  return $rc
}
# jf JSON EXPR: evaluates a Python expression over the JSON document d
jf() { "$PY" -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }

# containerd 2 (Debian sid) asks what 1.6 did not: see the Status and argv checks
containerd2=false
[ "$(containerd --version 2>/dev/null | awk '{print $3}' | sed 's/^v//; s/\..*//')" -ge 2 ] 2>/dev/null && containerd2=true
[ "$(id -u)" = 0 ] || die "needs root"
for b in containerd ctr containerd-shim-runc-v2 "$PY" ip; do
  command -v "$b" >/dev/null || die "$b is not installed"
done
for p in bridge host-local loopback; do [ -x /usr/lib/cni/$p ] || die "no /usr/lib/cni/$p (Debian package containernetworking-plugins)"; done
"$PY" -c 'import grpc, grpc_tools' 2>/dev/null || die "$PY lacks grpc/grpc_tools (python3-grpcio, python3-grpc-tools)"
[ -x "$CRT" ] || die "no $CRT: run make"

# The handler Kubernetes asks for is the RuntimeClass's; containerd must know it.
HANDLER=$(awk '$1 == "handler:" {print $2}' "$REPO/contrib/kubernetes/runtimeclass.yaml")
[ -n "$HANDLER" ] || die "no handler in contrib/kubernetes/runtimeclass.yaml"
grep -q "^\[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.$HANDLER.options\]" "$REPO/contrib/containerd/config.toml" \
  || die "contrib/containerd/config.toml has no runtime named '$HANDLER' (the RuntimeClass's handler)"

# What exists before we start, to tell our leftovers from others'.
made=""
for d in /run/containerd/s /run/containerd /var/lib/cni/results /var/lib/cni; do [ -e "$d" ] || made="$made $d"; done
cg_before=$(ls -d /sys/fs/cgroup/*$CGP 2>/dev/null)
ip link show "$BR" >/dev/null 2>&1 && die "bridge $BR exists already"

# The shim's socket for container (or pod) ID, as containerd 1.6 names it:
# /run/containerd/s/sha256(ADDRESS/NAMESPACE/ID).
shim_sock() { printf '%s' "$SOCK/$NS/$1" | sha256sum | cut -d' ' -f1; }

cleanup() {
  set +e
  if [ -n "$cpid" ] && kill -0 "$cpid" 2>/dev/null; then
    # whatever a failed check left: pods (with their containers) go
    for p in $(cri ListPodSandbox 2>/dev/null | "$PY" -c 'import json,sys; [print(i["id"]) for i in json.load(sys.stdin).get("items", [])]' 2>/dev/null); do
      bad "pod $p still there at the end; removing it"
      cri StopPodSandbox "{\"pod_sandbox_id\": \"$p\"}" >/dev/null 2>&1
      cri RemovePodSandbox "{\"pod_sandbox_id\": \"$p\"}" >/dev/null 2>&1
    done
    kill -TERM "$cpid"
    for _ in $(seq 100); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$cpid" 2>/dev/null && { bad "containerd ($cpid) ignored SIGTERM"; kill -KILL "$cpid"; }
    wait "$cpid" 2>/dev/null
  fi
  # Shims exit once their task is deleted; give them a moment.
  for _ in $(seq 30); do pgrep -f "$W/" >/dev/null || break; sleep 0.1; done
  left=$(pgrep -af "$W/"); [ -z "$left" ] || { bad "processes left: $left"; kill -KILL $(pgrep -f "$W/"); }
  m=$(grep -c " $W" /proc/self/mountinfo)
  [ "$m" = 0 ] || { bad "$m mounts left under $W (netns, rootfs, shm): $(grep " $W" /proc/self/mountinfo | awk '{print $5}' | head -5 | tr '\n' ' ')"
                    grep " $W" /proc/self/mountinfo | awk '{print $5}' | sort -r | xargs -r -n1 umount -l; }
  # Each leftover is a failure; it is removed all the same (they are ours:
  # under W, under our cgroup parent, or new since the start).
  st=$("$CRT" --root "$W/crt/$NS" list -q 2>/dev/null)
  [ -z "$st" ] || { bad "crt state left in $W/crt/$NS: $st"; for id in $st; do "$CRT" --root "$W/crt/$NS" delete -f "$id"; done; }
  cg=$(find /sys/fs/cgroup/*$CGP -mindepth 1 -type d 2>/dev/null)
  if [ -n "$cg" ]; then
    bad "container cgroups left under $CGP: $(echo $cg | head -c 300)"
    for f in /sys/fs/cgroup/*$CGP/*/cgroup.procs; do cat "$f"; done 2>/dev/null | sort -u | xargs -r kill -KILL
    sleep 0.5
  fi
  for d in $(find /sys/fs/cgroup/*$CGP -depth -type d 2>/dev/null); do grep -qx "${d%$CGP}$CGP" <(echo "$cg_before") || rmdir "$d" 2>/dev/null; done
  # /run/containerd/s and /var/lib/cni are shared with every containerd on
  # the host (other tests may run at the same time): only our own entries
  # count, and only they are removed.
  ours=$(awk '{for (i = 1; i < NF; i++) if ($i == "create") print $NF}' "$W/argv.log" 2>/dev/null | sort -u)
  left_s=$(for id in $ours; do f=/run/containerd/s/$(shim_sock "$id"); [ -e "$f" ] && echo "$f"; done)
  [ -z "$left_s" ] || { bad "shim sockets left: $left_s"; rm -f $left_s; }
  left_cni=$(for id in $ours; do find /var/lib/cni -type f -name "*-$id-*" 2>/dev/null; done)
  [ -z "$left_cni" ] || { bad "CNI cache files left: $left_cni"; rm -f $left_cni; }
  if ip link show "$BR" >/dev/null 2>&1; then
    ports=$(ip -o link show master "$BR" 2>/dev/null | awk -F': ' '{print $2}')
    [ -z "$ports" ] || bad "veths left on bridge $BR: $ports"
    ip link del "$BR"   # the bridge plugin leaves its bridge by design
  fi
  for d in $made; do find "$d" -depth -type d -empty -delete 2>/dev/null; done   # ours, if empty
  report_and_exit
}
trap cleanup EXIT
trap 'bad "killed by a signal"; exit 1' TERM INT HUP

mkdir -p "$W/cni" "$W/bundles" "$W/logs"
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

# containerd's config: what a private instance needs, then the shipped
# snippet with BinaryName and Root pointed at this run's wrapper and root.
cat >"$W/config.toml" <<TOML
version = 2
root = "$W/root"
state = "$W/state"
# not needed here; "opt" would make /opt/containerd
disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.snapshotter.v1.aufs", "io.containerd.tracing.processor.v1.otlp",
  "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[debug]
  address = "$SOCK.debug"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  disable_apparmor = true
  netns_mounts_under_state_dir = true
  # The pause container asks for oomScoreAdj -998; lowering it needs
  # CAP_SYS_RESOURCE, which some hosts (this VM) lack in the bounding set:
  # runc and crt both fail with EACCES.  This keeps it >= containerd's own.
  restrict_oom_score_adj = $RESTRICT_OOM
[plugins."io.containerd.grpc.v1.cri".cni]
  bin_dir = "/usr/lib/cni"
  conf_dir = "$W/cni"
  max_conf_num = 1
# ---- contrib/containerd/config.toml ----
TOML
sed -e '/^version *=/d' -e "s#^\( *BinaryName *=\).*#\1 \"$W/crt-wrapper\"#" \
    -e "s#^\( *Root *=\).*#\1 \"$W/crt\"#" "$REPO/contrib/containerd/config.toml" >>"$W/config.toml"
ok_eq 2 "$(grep -cE "^ *(BinaryName = \"$W/crt-wrapper\"|Root = \"$W/crt\")\$" "$W/config.toml")" \
  "contrib config.toml: BinaryName and Root replaced"
cat >"$W/cni/10-crt.conflist" <<JSON
{"cniVersion": "0.4.0", "name": "crt-cri-$$",
 "plugins": [{"type": "bridge", "bridge": "$BR", "isGateway": false, "ipMasq": false,
              "ipam": {"type": "host-local", "ranges": [[{"subnet": "$SUBNET"}]],
                       "dataDir": "$W/cni-ipam"}}]}
JSON
python3 "$here/mkimage.py" "$W/image" "$IMG" >/dev/null || die "mkimage.py failed"
python3 "$here/mkimage.py" --cmd '["sleep", "2147483647"]' "$W/pause" "$PAUSE" >/dev/null || die "mkimage.py (pause) failed"

containerd --config "$W/config.toml" >"$W/containerd.log" 2>&1 &
cpid=$!
for _ in $(seq 100); do ctr -a "$SOCK" version >/dev/null 2>&1 && break; kill -0 $cpid 2>/dev/null || break; sleep 0.1; done

# 1. Version, Status, images
out=$(cri Version '{"version": "v1"}'); rc=$?
[ $rc = 0 ] || { tail -20 "$W/containerd.log"; die "containerd's CRI did not answer Version: $out"; }
ok_eq "containerd v1" "$(jf "$out" 'd["runtime_name"] + " " + d["runtime_api_version"]')" "Version: runtime name and CRI API version"
for i in "$W/pause/oci.tar" "$W/image/oci.tar"; do
  o=$(timeout 60 ctr -a "$SOCK" -n "$NS" images import "$i" 2>&1) || die "ctr images import $i: $o"
done
out=$(cri ImageStatus "{\"image\": {\"image\": \"$PAUSE\"}}")
ok_has "$(jf "$out" 'd["image"]["repo_tags"]')" "$PAUSE" "ImageStatus: the CRI plugin sees the imported pause image"
out=$(cri Status)
# containerd 2 adds a condition of its own: no deprecated configuration in use
want="RuntimeReady=True NetworkReady=True"
$containerd2 && want="$want ContainerdHasNoDeprecationWarnings=True"
ok_eq "$want" "$(jf "$out" '" ".join("%s=%s" % (c["type"], c["status"]) for c in d["status"]["conditions"])')" "Status: runtime and network (CNI conflist) ready"

# 2. The pod.  pid: CONTAINER is what the kubelet sends unless
# shareProcessNamespace (the CRI default, 0, is POD).
POD=$(cat <<JSON
{"metadata": {"name": "crtpod", "uid": "uid-$$", "namespace": "crt-test", "attempt": 0},
 "hostname": "crtpod-host", "log_directory": "$W/logs",
 "linux": {"cgroup_parent": "$CGP",
           "security_context": {"namespace_options": {"network": "POD", "pid": "CONTAINER", "ipc": "POD"}}}}
JSON
)
out=$(cri RunPodSandbox "{\"config\": $POD, \"runtime_handler\": \"$HANDLER\"}") || die "RunPodSandbox: $out ($(grep -i error "$W/containerd.log" | tail -3))"
SB=$(jf "$out" 'd["pod_sandbox_id"]')
say "ok: RunPodSandbox with runtime_handler '$HANDLER' ($SB)"
out=$(cri PodSandboxStatus "{\"pod_sandbox_id\": \"$SB\", \"verbose\": true}")
ok_eq "SANDBOX_READY $HANDLER" "$(jf "$out" 'd["status"]["state"] + " " + d["status"]["runtime_handler"]')" "PodSandboxStatus: ready, with the handler"
ip=$(jf "$out" 'd["status"]["network"]["ip"]')
ok_true "$("$PY" -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]) in ipaddress.ip_network(sys.argv[2]))' "$ip" "$SUBNET" 2>&1)" \
  "PodSandboxStatus: the pod has an address from the CNI bridge's subnet $SUBNET" "ip '$ip'"
PPID_=$(jf "$(jf "$out" 'd["info"]["info"]')" 'd["pid"]')
ok_has "$(tr '\0' ' ' </proc/"$PPID_"/cmdline 2>&1)" "sleep 2147483647" "the sandbox's process is the pause image's Cmd (pid $PPID_)"
ok_eq "$W/crt-wrapper" "$(jf "$(jf "$out" 'd["info"]["info"]')" 'd["runtimeOptions"]["binary_name"]')" \
  "the sandbox runs with the handler's BinaryName"
[ -S "/run/containerd/s/$(shim_sock "$SB")" ] && say "ok: the pod's shim socket is where the leftover check looks (/run/containerd/s/sha256(address/namespace/id))" \
  || bad "no shim socket /run/containerd/s/$(shim_sock "$SB") for the pod: the leftover check would look in the wrong place ($(ls /run/containerd/s 2>&1 | tr '\n' ' '))"
ok_eq 1 "$(ls "$W"/cni-ipam/*/ 2>/dev/null | grep -c '^10\.213\.')" "host-local IPAM keeps the pod's address under the work dir"
hostns() { readlink "/proc/$1/ns/$2" 2>&1; }

ctr_cfg() { # NAME COMMAND_JSON [LINUX_JSON]
  cat <<JSON
{"pod_sandbox_id": "$SB", "sandbox_config": $POD,
 "config": {"metadata": {"name": "$1"}, "image": {"image": "$IMG"}, "command": $2,
            "envs": [{"key": "CRT_TEST", "value": "v-$1"}], "working_dir": "/tmp",
            "log_path": "$1.log", "linux": ${3:-{\}}}}
JSON
}
create_start() { # VAR NAME COMMAND_JSON [LINUX_JSON]
  local o id
  o=$(cri CreateContainer "$(ctr_cfg "$2" "$3" "${4:-}")") || { bad "CreateContainer $2: $o"; return 1; }
  id=$(jf "$o" 'd["container_id"]')
  o=$(cri StartContainer "{\"container_id\": \"$id\"}") || { bad "StartContainer $2: $o"; eval "$1=\$id"; return 1; }
  say "ok: CreateContainer + StartContainer $2 ($id)"
  eval "$1=\$id"
}
status() { cri ContainerStatus "{\"container_id\": \"$1\", \"verbose\": true}"; }
wait_exited() { # ID: polls ContainerStatus up to 150 times
  for _ in $(seq 150); do [ "$(jf "$(status "$1")" 'd["status"]["state"]')" = CONTAINER_EXITED ] && return 0; sleep 0.2; done
  return 1
}
xs() { # ID CMD...: ExecSync, prints "exit_code|stdout|stderr"
  local id=$1; shift
  local o; o=$(cri ExecSync "{\"container_id\": \"$id\", \"timeout\": 20, \"cmd\": $("$PY" -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@")}")
  jf "$o" '"%s|%s|%s" % (d["exit_code"], d["stdout"].strip(), d["stderr"].strip()) if "exit_code" in d else "ERROR " + str(d)'
}

# 3. c1: the pod's network, IPC and UTS namespaces, its own pid namespace
C1=; create_start C1 c1 '["sh", "-c", "trap \"exit 0\" TERM; sleep 1000 & wait"]' \
  '{"security_context": {"namespace_options": {"network": "POD", "pid": "CONTAINER", "ipc": "POD"}}}'
if [ -n "$C1" ]; then
  out=$(status "$C1")
  ok_eq CONTAINER_RUNNING "$(jf "$out" 'd["status"]["state"]')" "ContainerStatus c1: running"
  C1PID=$(jf "$(jf "$out" 'd["info"]["info"]')" 'd["pid"]')
  ok_eq "0|crtpod-host|" "$(xs "$C1" hostname)" "c1: the pod's hostname (ExecSync)"
  for n in net ipc uts; do
    ok_eq "0|$(hostns "$PPID_" $n)|" "$(xs "$C1" readlink /proc/self/ns/$n)" "c1: the sandbox's $n namespace (inside vs the pause process)"
  done
  mnt=$(xs "$C1" readlink /proc/self/ns/mnt | cut -d'|' -f2)
  case "$mnt" in mnt:*) [ "$mnt" != "$(hostns "$PPID_" mnt)" ] && say "ok: c1 has its own mount namespace (the namespace checks can tell)" \
                      || bad "c1 shares the pause process's mount namespace ($mnt)" ;;
                 *) bad "c1: readlink /proc/self/ns/mnt: expected mnt:[N], got '$mnt'" ;; esac
  ok_eq "$(hostns "$C1PID" pid)" "$(xs "$C1" readlink /proc/self/ns/pid | cut -d'|' -f2)" "c1: exec'd processes join c1's pid namespace"
  pids=$(xs "$C1" ps -o pid,args)
  case "$pids" in
    *"sleep 2147483647"*) bad "c1 (pid: CONTAINER) sees the pause process: $pids" ;;
    "0|PID"*"sleep 1000"*) say "ok: c1 (pid: CONTAINER) sees its own processes, not the pause process" ;;
    *) bad "c1: ps -o pid,args: expected exit code 0 and c1's own sleep 1000, got '$pids'" ;;
  esac
  ok_eq "0|v-c1 /tmp|" "$(xs "$C1" sh -c 'echo $CRT_TEST $(pwd)')" "c1: env and working_dir from the ContainerConfig"
  ok_eq "7|hi|oops" "$(xs "$C1" sh -c 'echo hi; echo oops >&2; exit 7')" "ExecSync: stdout, stderr and exit code 7"
  out=$(xs "$C1" /nonexistent)
  ok_has "$out" "/nonexistent" "ExecSync of a missing binary fails with a message naming it"
  case "$out" in 0\|*) bad "ExecSync of a missing binary: exit code 0 ($out)" ;; esac
  # ContainerStats: the shim reads the cgroup crt made
  out=$(cri ContainerStats "{\"container_id\": \"$C1\"}")
  ok_eq "$C1" "$(jf "$out" 'd["stats"]["attributes"]["id"]')" "ContainerStats: the container's id"
  ok_true "$(jf "$out" 'int(d["stats"]["memory"]["working_set_bytes"]["value"]) > 0 and int(d["stats"]["cpu"]["usage_core_nano_seconds"]["value"]) > 0')" \
    "ContainerStats: memory working set and CPU usage are non-zero" "$out"
  cgl=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/"$C1PID"/cgroup 2>&1)
  ok_has "$cgl" "$CGP/" "c1's memory cgroup is under the pod's cgroup_parent"
fi

# 4. c2: the pod's pid namespace (namespace_options.pid = POD), as nobody
# (its init's child, sleep 1001, outlives it in the pod's pid namespace:
# the shim's kill --all after c2's exit must reach it)
C2=; create_start C2 c2 '["sh", "-c", "sleep 1001 & exec sleep 1000"]' \
  '{"security_context": {"namespace_options": {"network": "POD", "pid": "POD", "ipc": "POD"}, "run_as_user": {"value": 65534}}}'
if [ -n "$C2" ]; then
  ok_eq "0|$(hostns "$PPID_" pid)|" "$(xs "$C2" readlink /proc/self/ns/pid)" "c2 (pid: POD): the sandbox's pid namespace"
  out=$(xs "$C2" ps -o pid,args)
  ok_has "$out" "1 sleep 2147483647" "c2 (pid: POD) sees the pause process as pid 1"
  ok_eq "0|65534|" "$(xs "$C2" id -u)" "c2: run_as_user 65534"
fi
# live (not zombie: busybox sleep as pause does not reap) processes in the
# pod's pid namespace running ARGS
in_pod() { local p n=0
  for p in $(pgrep -x sleep); do
    [ "$(hostns "$p" pid)" = "$(hostns "$PPID_" pid)" ] && grep -q '^State:[[:space:]]*[^Z]' /proc/$p/status 2>/dev/null \
      && [ "$(tr '\0' ' ' </proc/$p/cmdline)" = "$* " ] && n=$((n + 1))
  done; echo $n; }
[ -n "$C2" ] && ok_eq 1 "$(in_pod sleep 1001)" "c2's background sleep runs in the pod's pid namespace"

# 5. c3 exits 3
C3=; create_start C3 c3 '["sh", "-c", "exit 3"]'
if [ -n "$C3" ]; then
  wait_exited "$C3" || bad "c3 did not exit within 30 s"
  out=$(status "$C3")
  ok_eq "CONTAINER_EXITED 3 Error" "$(jf "$out" 'd["status"]["state"] + " " + str(d["status"]["exit_code"]) + " " + d["status"]["reason"]')" "ContainerStatus c3: exited, exit code 3"
  # (containerd records started_at after start returns: it may follow finished_at)
  ok_true "$(jf "$out" 'int(d["status"]["started_at"]) > 0 and int(d["status"]["finished_at"]) >= int(d["status"]["created_at"]) > 0')" "ContainerStatus c3: created_at, started_at and finished_at set" "$out"
fi

# 6. c4: a 32 MiB limit and dd with a 64 MiB buffer (without the limit dd
# just succeeds, so a limit that is not applied fails the check, not the host)
LIM=33554432
C4=; create_start C4 c4 '["dd", "if=/dev/zero", "of=/dev/null", "bs=64M", "count=1"]' "{\"resources\": {\"memory_limit_in_bytes\": $LIM}}"
if [ -n "$C4" ]; then
  wait_exited "$C4" || bad "c4 did not exit within 30 s"
  out=$(status "$C4")
  ok_eq "CONTAINER_EXITED 137 OOMKilled" "$(jf "$out" 'd["status"]["state"] + " " + str(d["status"]["exit_code"]) + " " + d["status"]["reason"]')" \
    "ContainerStatus c4: OOMKilled after the memory limit ($(jf "$out" 'd["status"]["message"]'))"
  ok_eq $LIM "$(jf "$(cat "$W/bundles/$C4.json" 2>&1)" 'd["linux"]["resources"]["memory"]["limit"]')" "c4's config.json (from the shim) has the memory limit"
fi

# 7. stop and remove: c1 handles SIGTERM (exit 0 well before the timeout);
# c2's sleep is not pid 1, SIGTERM kills it
if [ -n "$C1" ]; then
  t0=$(date +%s)
  out=$(cri StopContainer "{\"container_id\": \"$C1\", \"timeout\": 20}") || bad "StopContainer c1: $out"
  t=$(( $(date +%s) - t0 ))
  out=$(status "$C1")
  ok_eq "CONTAINER_EXITED 0" "$(jf "$out" 'd["status"]["state"] + " " + str(d["status"]["exit_code"])')" "StopContainer c1: SIGTERM handled, exit code 0"
  [ "$t" -lt 15 ] && say "ok: StopContainer c1 took ${t}s (< 15: no SIGKILL after the 20 s grace)" || bad "StopContainer c1 took ${t}s: expected < 15 s"
fi
if [ -n "$C2" ]; then
  out=$(cri StopContainer "{\"container_id\": \"$C2\", \"timeout\": 10}") || bad "StopContainer c2: $out"
  out=$(status "$C2")
  ok_eq "CONTAINER_EXITED 143" "$(jf "$out" 'd["status"]["state"] + " " + str(d["status"]["exit_code"])')" "StopContainer c2: killed by SIGTERM (143)"
  ok_eq 0 "$(in_pod sleep 1001)" "StopContainer c2: its background sleep (left in the pod's pid namespace) is killed too"
fi
for c in $C1 $C2 $C3 $C4; do
  out=$(cri RemoveContainer "{\"container_id\": \"$c\"}") || bad "RemoveContainer $c: $out"
  out=$(status "$c"); ok_eq NOT_FOUND "$(jf "$out" 'd.get("error")')" "ContainerStatus after RemoveContainer: not found"
done
ok_eq "$SB" "$("$CRT" --root "$W/crt/$NS" list -q 2>&1)" "crt state: only the sandbox is left after RemoveContainer"

# 8. the pod
out=$(cri StopPodSandbox "{\"pod_sandbox_id\": \"$SB\"}") || bad "StopPodSandbox: $out"
out=$(cri PodSandboxStatus "{\"pod_sandbox_id\": \"$SB\"}")
ok_eq SANDBOX_NOTREADY "$(jf "$out" 'd["status"]["state"]')" "PodSandboxStatus after StopPodSandbox: not ready"
[ -e /proc/"$PPID_" ] && [ "$(tr '\0' ' ' </proc/"$PPID_"/cmdline 2>/dev/null)" = "sleep 2147483647 " ] && bad "the pause process $PPID_ still runs after StopPodSandbox" \
  || say "ok: the pause process is gone after StopPodSandbox"
out=$(cri RemovePodSandbox "{\"pod_sandbox_id\": \"$SB\"}") || bad "RemovePodSandbox: $out"
ok_eq "[]" "$(jf "$(cri ListPodSandbox)" 'd["items"]')" "ListPodSandbox after RemovePodSandbox: empty"
ok_eq "" "$("$CRT" --root "$W/crt/$NS" list -q 2>&1)" "crt state: empty after RemovePodSandbox"
ok_eq "" "$(find /sys/fs/cgroup/*$CGP -mindepth 1 -type d 2>/dev/null)" "no container cgroups left under $CGP"
ok_eq "" "$(ls "$W/state/io.containerd.grpc.v1.cri/netns" 2>/dev/null; grep " $W/state" /proc/self/mountinfo | awk '{print $5}')" "no netns or other mounts left under containerd's state"

# 8b. A pod with its own user namespace (Kubernetes hostUsers: false:
# userns_options mode POD with the kubelet's mapping), containerd >= 2 only.
# Its container runs as host uid 200000, sees containerd's mapping in
# /proc/self/uid_map, and a hostPath volume with the mappings the kubelet
# gives it is id-mapped: what the container's root writes there is the
# host's root's.
UIDS=200000
userns_pod() {
  local pod sb o u upid ns
  mkdir -p "$W/uvol" && echo from-host >"$W/uvol/in"
  pod=$(cat <<JSON
{"metadata": {"name": "crtpod-userns", "uid": "uid-u$$", "namespace": "crt-test", "attempt": 0},
 "hostname": "crtpod-userns", "log_directory": "$W/logs",
 "linux": {"cgroup_parent": "$CGP",
           "security_context": {"namespace_options": {"network": "POD", "pid": "CONTAINER", "ipc": "POD",
             "userns_options": {"mode": "POD", "uids": [{"host_id": $UIDS, "container_id": 0, "length": 65536}],
                                               "gids": [{"host_id": $UIDS, "container_id": 0, "length": 65536}]}}}}}
JSON
)
  o=$(cri RunPodSandbox "{\"config\": $pod, \"runtime_handler\": \"$HANDLER\"}") || { bad "RunPodSandbox (userns): $o"; return; }
  sb=$(jf "$o" 'd["pod_sandbox_id"]')
  USB=$sb
  say "ok: RunPodSandbox with a user namespace ($sb)"
  o=$(cri CreateContainer "{\"pod_sandbox_id\": \"$sb\", \"sandbox_config\": $pod,
    \"config\": {\"metadata\": {\"name\": \"u1\"}, \"image\": {\"image\": \"$IMG\"}, \"command\": [\"sleep\", \"1000\"],
                \"log_path\": \"u1.log\", \"mounts\": [{\"container_path\": \"/vol\", \"host_path\": \"$W/uvol\",
                  \"uidMappings\": [{\"host_id\": $UIDS, \"container_id\": 0, \"length\": 65536}],
                  \"gidMappings\": [{\"host_id\": $UIDS, \"container_id\": 0, \"length\": 65536}]}],
                \"linux\": {\"security_context\": {\"namespace_options\": {\"network\": \"POD\", \"pid\": \"CONTAINER\", \"ipc\": \"POD\",
                  \"userns_options\": {\"mode\": \"POD\", \"uids\": [{\"host_id\": $UIDS, \"container_id\": 0, \"length\": 65536}],
                                                    \"gids\": [{\"host_id\": $UIDS, \"container_id\": 0, \"length\": 65536}]}}}}}}") ||
    { bad "CreateContainer u1 (userns): $o"; return; }
  u=$(jf "$o" 'd["container_id"]')
  UC=$u
  o=$(cri StartContainer "{\"container_id\": \"$u\"}") || { bad "StartContainer u1 (userns): $o"; return; }
  say "ok: CreateContainer + StartContainer in the user-namespaced pod ($u)"
  ok_eq "0|0 $UIDS 65536|" "$(xs "$u" sh -c 'echo $(cat /proc/self/uid_map)')" "userns pod: the container's uid_map is containerd's mapping"
  upid=$(jf "$(jf "$(status "$u")" 'd["info"]["info"]')" 'd["pid"]')
  ok_eq "$UIDS" "$(awk '/^Uid:/ {print $2}' /proc/"$upid"/status 2>&1)" "userns pod: the container's root is host uid $UIDS"
  ns=$(readlink /proc/"$upid"/ns/user 2>&1)
  [ -n "$ns" ] && [ "$ns" != "$(readlink /proc/self/ns/user)" ] && say "ok: userns pod: the container has its own user namespace" ||
    bad "userns pod: the container's user namespace is the host's ($ns)"
  ok_eq "0|from-host 0|" "$(xs "$u" sh -c 'touch /vol/out; echo $(cat /vol/in) $(stat -c %u /vol/in)')" "userns pod: the volume, read inside, the host's root file owned by root"
  ok_eq 0 "$(stat -c %u "$W/uvol/out" 2>&1)" "userns pod: the container's root writes the volume as the host's root (id-mapped mount)"
  o=$(cri StopContainer "{\"container_id\": \"$u\", \"timeout\": 2}") || bad "StopContainer u1: $o"
  o=$(cri RemoveContainer "{\"container_id\": \"$u\"}") || bad "RemoveContainer u1: $o"
  o=$(cri StopPodSandbox "{\"pod_sandbox_id\": \"$sb\"}") || bad "StopPodSandbox (userns): $o"
  o=$(cri RemovePodSandbox "{\"pod_sandbox_id\": \"$sb\"}") || bad "RemovePodSandbox (userns): $o"
  ok_eq "" "$("$CRT" --root "$W/crt/$NS" list -q 2>&1)" "crt state: empty after the userns pod's removal"
}
USB= UC=
$containerd2 && userns_pod

# 9. The shim called crt (through the handler's BinaryName), for every
# container: create, start, delete; and exec for ExecSync.
[ -s "$W/argv.log" ] || bad "the wrapper was never called"
ids="$SB $C1 $C2 $C3 $C4"
for id in $ids; do
  ok_eq "create start delete" "$(grep -E " (create|start|delete) .*$id\$" "$W/argv.log" | awk '{for (i = 1; i <= NF; i++) if ($i ~ /^(create|start|delete)$/) {print $i; break}}' | uniq | tr '\n' ' ' | sed 's/ $//')" "crt create, start, delete in order for ${id:0:12}"
done
others=$(grep -v -- "^--root $W/crt/$NS " "$W/argv.log")
if $containerd2; then
  # containerd 2 asks the handler's runtime for its features (no --root)
  ok_has "$others" features "containerd 2 ran crt features"
  others=$(grep -vx features <<<"$others")
fi
ok_eq 0 "$(grep -c . <<<"$others")" "every crt call has --root $W/crt/$NS (the handler's Root + namespace)"
n=$(grep -c " exec --process .* $C1\$" "$W/argv.log")
[ "$n" -ge 9 ] && say "ok: ExecSync ran crt exec ($n times for c1)" || bad "crt exec for c1: expected at least 9 calls, got $n"
