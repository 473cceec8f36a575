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
# libpcre2); `features` (its option map), --no-pivot (mountinfo) and a
# cgroup mount on a v1 host (the host's hierarchies, from mountinfo, whose
# one reader is libmount: src/linux/procinfo.c) load it when they need it,
# and work.  The v1 cgroup mount's mountinfo is read by the runtime before
# the clone (a thread of create: src/container/create.c v1_mounts_start),
# so the init, on the critical path, does not load libmount.  The v1
# cgroup mount is left out of the hot-path bundles: on cgroup v2 hosts it
# needs no mountinfo.
test_hot_paths_do_not_load_libmount() {
  is_crt || return 0
  make_bundle "$T/c" sleep 100
  local v1=0; [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] || v1=1
  ld_files crt run -d -b "$T/c" "$(new_id)"; assert_eq 0 "$rc" "run -d with a cgroup mount"
  if [ $v1 = 1 ]; then
    assert_contains "$out" "file=libmount.so.1" "the v1 cgroup mount (mountinfo)"
    # the runtime loads it, not the container's init (pid 1 of its namespace)
    assert_not_contains "$(cat "$T"/ld/ld.* | grep 'file=libmount' | grep '^ *1:')" "libmount" "in the init"
  fi
  make_bundle "$T/b" sleep 100
  bundle_edit "$T/b" "c['mounts']=[m for m in c['mounts'] if m['type']!='cgroup']"
  local id; id=$(new_id)
  ld_files crt create -b "$T/b" "$id"
  assert_eq 0 "$rc" "create"
  assert_not_contains "$out" "libmount" "create"
  ld_files crt start "$id"; assert_not_contains "$out" "libmount" "start"
  ld_files crt exec "$id" true; assert_eq 0 "$rc" "exec"; assert_not_contains "$out" "libmount" "exec"
  ld_files crt state "$id"; assert_not_contains "$out" "libmount" "state"
  ld_files crt delete -f "$id"; assert_not_contains "$out" "libmount" "delete"
  make_bundle "$T/t" true
  bundle_edit "$T/t" "c['mounts']=[m for m in c['mounts'] if m['type']!='cgroup']"
  ld_files crt run -b "$T/t" "$(new_id)"; assert_eq 0 "$rc" "run"; assert_not_contains "$out" "libmount" "run"
  ld_files crt features; assert_contains "$out" "file=libmount.so.1" "features"
  assert_contains "$(crt features)" '"remount"' "features: libmount's option map"
  ld_files crt run --no-pivot -b "$T/t" "$(new_id)"
  assert_eq 0 "$rc" "run --no-pivot"
  assert_contains "$out" "file=libmount.so.1" "run --no-pivot (mountinfo)"
}

# Guards the fallback of src/linux/mounts.c cgroup_v1: in a mount namespace
# joined by path the runtime takes no mountinfo snapshot (its own mount
# table is not the init's), so the init reads it (and loads libmount) and
# still binds every v1 hierarchy.
test_v1_cgroup_mount_in_joined_mount_ns() {
  [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ] || return 0
  local want; want=$(findmnt -rn -t cgroup -o TARGET | grep '^/sys/fs/cgroup/' | sort)
  [ -n "$want" ] || return 0
  mkdir -p "$T/ns" && mount --bind "$T/ns" "$T/ns" && mount --make-private "$T/ns" || fail "private $T/ns"
  trap 'umount -l "$T/ns/mnt" 2>/dev/null; umount -l "$T/ns"' EXIT
  touch "$T/ns/mnt"
  unshare --mount="$T/ns/mnt" --propagation private true || fail "unshare a mount namespace onto $T/ns/mnt"
  make_bundle "$T/b" awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i+1) == "cgroup") print $5; break } }' \
    /proc/self/mountinfo
  bundle_edit "$T/b" "[n.__setitem__('path', '$T/ns/mnt') for n in c['linux']['namespaces'] if n['type']=='mount']"
  rm -rf "$T/ld"; mkdir -p "$T/ld"
  LD_DEBUG=files LD_DEBUG_OUTPUT=$T/ld/ld crt run -b "$T/b" "$(new_id)" >"$T/seen" 2>"$T/err" </dev/null ||
    fail "run in a joined mount namespace: $(cat "$T/err")"
  assert_eq "$want" "$(sort "$T/seen")" "the v1 hierarchies the container sees"
  if is_crt; then
    assert_contains "$(cat "$T"/ld/ld.* | grep 'file=libmount' | grep '^ *1:')" "libmount" "the init's own read"
  fi
}
