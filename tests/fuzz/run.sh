#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (libFuzzer + ASan/UBSan) into
# build/fuzz/ and runs each for FUZZ_SECONDS (default 60):
#   config     config.json / process.json parsers     (fuzz_config.c)
#   mountopts  mounts[].options parser                (fuzz_mountopts.c)
#   state      state.json reader                      (fuzz_state.c)
#   signal     `crt kill` signal argument parser       (fuzz_signal.c)
#   mountinfo  /proc/self/mountinfo reader             (fuzz_mountinfo.c)
#   gvariant   org.systemd.property.* values           (fuzz_gvariant.c)
# FUZZ_ONLY=name (or a space-separated list) runs only those.
# Seeds: tests/fuzz/corpus/<name>/ (read only); the corpus libFuzzer grows
# lives in build/fuzz/corpus/<name>/ (git-ignored).  Crashes land in
# tests/fuzz/regress/<name>/, which the unit tests replay (test_spec for
# config, test_fuzz_regress for the others).
# Exit status: 0 when every harness ran clean, 1 otherwise.
set -eu
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-60}
all="config mountopts state signal mountinfo gvariant"
only=${FUZZ_ONLY:-$all}
for n in $only; do
  case " $all " in *" $n "*) ;; *) echo "fuzz: unknown harness '$n' (have: $all)" >&2; exit 2 ;; esac
done
out=build/fuzz  # under build/ so git ignores it
mkdir -p "$out/obj"
pkgs="libseccomp libcap yajl mount"
cflags="-g -O1 -std=gnu11 -fno-omit-frame-pointer -fno-sanitize-recover=undefined -Iinclude
  $(pkg-config --cflags $pkgs) -DCRT_VERSION=\"fuzz\" -DCRT_COMMIT=\"fuzz\""
libs=$(pkg-config --libs $pkgs)

# The runtime as an instrumented archive (each harness links what it needs
# from it); objects are rebuilt when their source or any header is newer.
# Left out: main.c, and exec.c, which clang rejects ("jump bypasses
# initialization of variable with __attribute__((cleanup))") and which no
# harness needs.
newest_hdr=$(ls -t include/crt/*.h src/*/*.h tests/fuzz/run.sh | head -1)
objs=()
for c in $(ls src/*/*.c | grep -Ev '^src/(cli/main|container/exec)\.c$|^src/stub/'); do
  o="$out/obj/$(echo "${c%.c}" | tr / _).o"
  if [ ! -e "$o" ] || [ "$c" -nt "$o" ] || [ "$newest_hdr" -nt "$o" ]; then
    clang $cflags -fsanitize=fuzzer-no-link,address,undefined -c -o "$o" "$c"
  fi
  objs+=("$o")
done
rm -f "$out/libcrt-fuzz.a"
ar rcs "$out/libcrt-fuzz.a" "${objs[@]}"

declare -A max_len=([config]=65536 [mountopts]=4096 [state]=65536 [signal]=64 [mountinfo]=16384 [gvariant]=4096)
failed=""
for n in $only; do
  clang $cflags -fsanitize=fuzzer,address,undefined -o "$out/fuzz_$n" "tests/fuzz/fuzz_$n.c" \
    "$out/libcrt-fuzz.a" $libs
  work="$out/corpus/$n"
  mkdir -p "$work" "tests/fuzz/regress/$n"
  dict=()
  [ -f "tests/fuzz/$n.dict" ] && dict=(-dict="tests/fuzz/$n.dict")
  echo "== fuzz_$n: ${secs}s, corpus $work + tests/fuzz/corpus/$n, crashes to tests/fuzz/regress/$n/"
  # Warnings (relative mount destinations) would flood the output.
  rc=0
  nice -n 10 "$out/fuzz_$n" -max_total_time="$secs" -max_len="${max_len[$n]}" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="tests/fuzz/regress/$n/" "${dict[@]}" \
    "$work" "tests/fuzz/corpus/$n" 2> >(grep --line-buffered -v 'relative mount destination' >&2) || rc=$?
  if [ "$rc" != 0 ]; then
    echo "== fuzz_$n: FAILED (rc $rc); the input is in tests/fuzz/regress/$n/" >&2
    failed="$failed $n"
  fi
done
wait
if [ -n "$failed" ]; then
  echo "fuzz: failed:$failed" >&2
  exit 1
fi
echo "fuzz: clean ($only, ${secs}s each)"
