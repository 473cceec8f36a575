#!/usr/bin/env bash
# make check: unit tests (plain + ASan/UBSan), the integration suite and
# the cgroup v2 guest (tests/guest/v2) and the systemd guest
# (tests/guest/systemd), whose image is built while the unit tests run, as
# is the Debian sid userland of the client tests (tests/lib/sid.sh; cached,
# a no-op when its inputs did not change).
# The closing line sums every part: "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
log=$(mktemp -d /tmp/crt-check.XXXXXX)
total_p=0 total_f=0 rc=0
part() { # name, command...
  local name=$1; shift
  echo "=== $name"
  local t0=$SECONDS
  "$@" 2>&1 | tee "$log/$name.out"
  local r=${PIPESTATUS[0]}
  echo "=== $name took $((SECONDS - t0)) s"
  local line
  line=$(grep -E '^[a-z0-9-]*:? ?[0-9]+ passed, [0-9]+ failed' "$log/$name.out" | tail -1)
  local p f
  p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+'); f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
  [ -n "$line" ] || { p=0; f=1; }
  [ "$r" != 0 ] && [ "$f" = 0 ] && f=1
  total_p=$((total_p+p)); total_f=$((total_f+f))
  [ "$r" = 0 ] || rc=1
}
mkdir -p build/guest
nice -n 10 bash tests/guest/systemd/run.sh --image >build/guest/systemd-image.log 2>&1 &
image=$!
nice -n 10 bash tests/lib/sid.sh --build >build/sid-root.log 2>&1 &
sid=$!
part unit make --no-print-directory unit
part unit-asan make --no-print-directory unit-asan
wait $sid || echo "integration: the sid root build failed (its tests will say so): $(tail -5 build/sid-root.log)"
part integration bash tests/integration/run.sh
part guest-v2 bash tests/guest/v2/run.sh
wait $image || echo "guest-systemd: the image build failed: $(tail -5 build/guest/systemd-image.log)"
part guest-systemd bash tests/guest/systemd/run.sh
rm -rf "$log"
echo "$total_p passed, $total_f failed"
exit $rc
