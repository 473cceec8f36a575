# `crt features` as current runc's (issues 53 item 4, 54): every key
# runc 1.3.6 prints is there, every name in its lists (mount options,
# namespaces, capabilities, seccomp names, hooks, potentially unsafe
# annotations) is in crt's, except what docs/spec-conformance.md names:
# runc's own version annotations, and the "bundle" annotation crt does not
# read.  Values may differ (crt says intelRdt and systemdUser are not
# supported: they are not).

# The reference: runc 1.3.6 from sid (tests/lib/peers.sh), or the runtime
# under test when that is a runc.
features_peer() {
  if ! is_crt; then echo "$CRT_BIN"; return; fi
  bash "$REPO/tests/lib/peers.sh" runc 2>/dev/null
}

test_features_keys_as_runc_1_3() {
  crt features >"$T/crt.json" || fail "crt features"
  # what crt claims, it has: the unsafe annotations it reads, rdma limits
  python3 - "$T/crt.json" <<'PY' || fail "crt features"
import json, sys
f = json.load(open(sys.argv[1]))
assert "org.systemd.property." in f["potentiallyUnsafeConfigAnnotations"], f
assert "org.criu.config" in f["potentiallyUnsafeConfigAnnotations"], f
assert f["linux"]["cgroup"]["rdma"] is True, f
assert f["annotations"]["org.opencontainers.runc.checkpoint.enabled"] == "true", f
PY
  local peer; peer=$(features_peer) || true
  if [ -z "$peer" ] || [ ! -x "$peer" ]; then
    echo "skip: runc 1.3.6 (tests/lib/peers.sh runc) not available"
    return 0
  fi
  "$peer" features >"$T/runc.json" || fail "$peer features"
  python3 - "$T/runc.json" "$T/crt.json" <<'PY' || fail "crt features lacks what runc 1.3.6 lists (above)"
import json, sys
runc, crt = (json.load(open(p)) for p in sys.argv[1:])
# runc's own: its version, and the "bundle" annotation (runc keeps the
# bundle path under that name; crt reads no such annotation)
allowed = {".annotations.org.opencontainers.runc.version",
           ".annotations.org.opencontainers.runc.commit",
           ".potentiallyUnsafeConfigAnnotations[bundle]"}
missing = []
def walk(r, c, path):
    if isinstance(r, dict):
        for k, v in r.items():
            p = path + "." + k
            if not isinstance(c, dict) or k not in c:
                missing.append(p)
            else:
                walk(v, c[k], p)
    elif isinstance(r, list) and all(isinstance(x, str) for x in r):
        for x in r:
            if not isinstance(c, list) or x not in c:
                missing.append("%s[%s]" % (path, x))
walk(runc, crt, "")
missing = [m for m in missing if m not in allowed]
for m in missing: print("missing:", m)
sys.exit(1 if missing else 0)
PY
}
