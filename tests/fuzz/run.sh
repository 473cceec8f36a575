#!/usr/bin/env bash
# Builds the config parser fuzzer with clang (libFuzzer + ASan/UBSan) and
# runs it for FUZZ_SECONDS (default 60).  Crashes land in tests/fuzz/regress/
# so that test_spec replays them.
set -eu
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-60}
out=build/fuzz  # under build/ so git ignores it
mkdir -p "$out" tests/fuzz/regress
pkgs="libseccomp libcap yajl mount"
srcs=$(ls src/spec/*.c src/util/*.c)
clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Iinclude $(pkg-config --cflags $pkgs) -DCRT_VERSION='"fuzz"' -DCRT_COMMIT='"fuzz"' \
  -o "$out/fuzz_config" tests/fuzz/fuzz_config.c $srcs $(pkg-config --libs $pkgs)
work="$out/corpus"
mkdir -p "$work"
# Warnings (relative mount destinations) would flood the output.
exec 3>&2
"$out/fuzz_config" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix=tests/fuzz/regress/ -dict=tests/fuzz/config.dict \
  "$work" tests/fuzz/corpus/config 2> >(grep -v 'relative mount destination' >&3)
