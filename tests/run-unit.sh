#!/usr/bin/env bash
# Runs cmocka test binaries, sums their counts, prints "unit: N passed, N failed".
set -u
pass=0 fail=0
for t in "$@"; do
  out=$("$t" 2>&1); rc=$?
  p=$(grep -oE '^\[  PASSED  \] [0-9]+' <<<"$out" | awk '{s+=$NF} END{print s+0}')
  f=$(grep -oE '^\[  FAILED  \] [0-9]+' <<<"$out" | awk '{s+=$NF} END{print s+0}')
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi  # crashed or sanitizer abort
  pass=$((pass+p)); fail=$((fail+f))
  if [ "$rc" != 0 ]; then echo "$out" | tail -40; echo "FAIL $t (rc $rc)"; else echo "ok   $t ($p tests)"; fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" = 0 ]
