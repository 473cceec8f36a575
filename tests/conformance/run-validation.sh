#!/usr/bin/env bash
# make conformance: the OCI runtime-tools validation suite (built from
# Debian's source package by ../shared/conformance/build.sh) against ./crt,
# runc and crun on this machine, one after the other, and a summary table.
#   RUNTIMES="./crt /usr/sbin/runc" make conformance   # a subset
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
conf=${CONF_HARNESS:-$repo/../shared/conformance}
[ -f "$conf/run.sh" ] || { echo "no conformance harness at $conf (set CONF_HARNESS)"; exit 2; }
CONF_DIR=${CONF_DIR:-/var/tmp/conformance}
export CONF_DIR
if [ ! -x "$CONF_DIR/bin/runtimetest" ]; then
  bash "$conf/build.sh" || exit 2
fi
out=$(mktemp -d /tmp/crt-conformance.XXXXXX)
printf '%-16s %-28s %s\n' runtime programs points
for rt in ${RUNTIMES:-$repo/crt /usr/sbin/runc /usr/bin/crun}; do
  name=$(basename "$rt")
  RESULTS=$out/$name bash "$conf/run.sh" "$rt" >"$out/$name.log" 2>&1
  progs=$(grep '^programs:' "$out/$name.log" | sed 's/^programs: //; s/; wall.*//')
  pts=$(grep '^validation:' "$out/$name.log" | sed 's/^validation: //')
  printf '%-16s %-28s %s\n' "$name" "$progs" "$pts"
done
echo "details: $out/<runtime>/table.txt and failures.txt"
