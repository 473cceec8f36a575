#!/usr/bin/env bash
# Runs a real container with ./crt from a default bundle made here: a
# busybox-static rootfs and `crt spec`'s config.json.  As root.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
crt=$repo/crt
b=${DEMO_BUNDLE:-/tmp/crt-demo-bundle}
rm -rf "$b" && mkdir -p "$b/rootfs"/{bin,dev,proc,sys,tmp,etc,root}
cp /bin/busybox "$b/rootfs/bin/busybox"
for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -sf busybox "$b/rootfs/bin/$a"; done
echo 'root:x:0:0:root:/root:/bin/sh' >"$b/rootfs/etc/passwd"
echo 'root:x:0:' >"$b/rootfs/etc/group"
(cd "$b" && "$crt" spec)
python3 - "$b/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["terminal"] = False
c["process"]["args"] = ["sh", "-c", "echo Hello from a crt container: $(hostname), pid $$; ls /; id"]
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
"$crt" --root /run/crt-demo run --bundle "$b" crt-demo
echo "demo: container exited with status $?"
rm -rf "$b"
