# Performance properties that do not depend on the machine's load: what a
# command loads and runs, not how long it takes (that is bench/).

# ld_files CMD...: runs CMD with LD_DEBUG=files; the loader's lines (of
# every process it started) in $out.  Into files: a container process
# keeps the command's stdout and stderr open.
ld_files() {
  rm -rf "$T/ld"; mkdir -p "$T/ld"
  LD_DEBUG=files LD_DEBUG_OUTPUT=$T/ld/ld "$@" </dev/null >/dev/null 2>&1; rc=$?
  out=$(cat "$T"/ld/ld.* 2>/dev/null)
}

# Guards src/util/libmount_lazy.c and the common options of
# src/spec/mount_opts.c: run, create, start, exec, state and delete of a
# default config never load libmount (and its libblkid, libselinux,
# libpcre2); `features` (its option map) and --no-pivot (mountinfo) load it
# when they need it, and work.
test_hot_paths_do_not_load_libmount() {
  is_crt || return 0
  make_bundle "$T/b" sleep 100
  local id; id=$(new_id)
  ld_files crt create -b "$T/b" "$id"
  assert_eq 0 "$rc" "create"
  assert_not_contains "$out" "libmount" "create"
  ld_files crt start "$id"; assert_not_contains "$out" "libmount" "start"
  ld_files crt exec "$id" true; assert_eq 0 "$rc" "exec"; assert_not_contains "$out" "libmount" "exec"
  ld_files crt state "$id"; assert_not_contains "$out" "libmount" "state"
  ld_files crt delete -f "$id"; assert_not_contains "$out" "libmount" "delete"
  make_bundle "$T/t" true
  ld_files crt run -b "$T/t" "$(new_id)"; assert_eq 0 "$rc" "run"; assert_not_contains "$out" "libmount" "run"
  ld_files crt features; assert_contains "$out" "file=libmount.so.1" "features"
  assert_contains "$(crt features)" '"remount"' "features: libmount's option map"
  ld_files crt run --no-pivot -b "$T/t" "$(new_id)"
  assert_eq 0 "$rc" "run --no-pivot"
  assert_contains "$out" "file=libmount.so.1" "run --no-pivot (mountinfo)"
}
