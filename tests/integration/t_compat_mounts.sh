# Differential tests of mounts (issue 20): runc 1.1.5's observable
# behaviour.  Every test passes with crt and with
# `CRT_BIN=/usr/sbin/runc ONLY=t_compat_mounts bash tests/integration/run.sh`;
# checks of crt's own message text sit behind `is_crt`.


# Guards crt_bind_sources_prepare (src/linux/mounts.c): bind-mount sources
# are cloned (open_tree) with the runtime's credentials, before the init is
# in its user namespace, so a source only the host's root may reach still mounts
# (runc opens mount sources before entering the user namespace).
test_userns_bind_source_only_root_reaches() {
  mkdir -p "$T/secret/inner"
  echo hidden >"$T/secret/inner/file"
  chmod 0700 "$T/secret"
  chown 0:0 "$T/secret"
  userns_bundle "$T/b" sh -c 'cat /data/file; ls /proc/self/fd'
  bundle_edit "$T/b" "c['mounts'].append({'destination':'/data','source':'$T/secret/inner','type':'bind','options':['rbind','ro']})"
  local id; id=$(new_id)
  run_rc crt run -b "$T/b" "$id"
  assert_eq 0 "$rc" "run: $out"
  assert_contains "$out" "hidden" "the source's content"
  # no fd of the runtime's leaks into the container: 0, 1, 2 and ls's own
  assert_eq "0 1 2 3" "$(echo "$out" | tail -n +2 | tr '\n' ' ' | sed 's/ $//')" "open fds in the container"
  crt delete "$id" 2>/dev/null
  # a file source works the same way
  echo filedata >"$T/secret/f"
  bundle_edit "$T/b" "c['process']['args']=['cat','/f']; c['mounts'][-1]={'destination':'/f','source':'$T/secret/f','type':'bind','options':['bind']}"
  run_rc crt run -b "$T/b" "$id"
  assert_eq 0 "$rc" "run with a file source: $out"
  assert_contains "$out" "filedata"
  crt delete "$id" 2>/dev/null
  # a missing source still fails create, naming it
  bundle_edit "$T/b" "c['mounts'][-1]={'destination':'/f','source':'$T/secret/nosuch','type':'bind','options':['bind']}"
  run_rc crt run -b "$T/b" "$id"
  assert_ne 0 "$rc" "a missing source"
  if is_crt; then assert_contains "$out" "nosuch"; fi
  [ ! -d "$CRT_ROOT/$id" ] || fail "state dir left after a failed create"
}

# Guards crt_mount_ro_later (src/linux/mounts.c) and crt_rootfs_finalize
# (src/linux/rootfs.c): a read-only /dev or tmpfs in mounts is mounted
# read-write, filled (devices, /dev/pts, mount points of later mounts) and
# made read-only at the end, per mount, as runc's finalizeRootfs.
test_readonly_dev_and_tmpfs() {
  mkdir -p "$T/hs"
  make_bundle "$T/b" sh -c 'for d in /dev /t; do grep " $d " /proc/self/mountinfo | cut -d" " -f6 | cut -d, -f1; done
    grep -c " /dev/pts " /proc/self/mountinfo; echo x >/dev/null && echo null-ok; ls /t
    touch /dev/x || echo dev-ro; touch /t/x || echo t-ro'
  bundle_edit "$T/b" "[m for m in c['mounts'] if m['destination']=='/dev'][0]['options'].append('ro'); c['mounts'].append({'destination':'/t','type':'tmpfs','source':'tmpfs','options':['ro','nosuid']}); c['mounts'].append({'destination':'/t/sub','type':'bind','source':'$T/hs','options':['bind']})"
  local id; id=$(new_id)
  run_rc crt run -b "$T/b" "$id"
  assert_eq 0 "$rc" "run: $out"
  local want
  want=$(printf '%s\n' ro ro 1 null-ok sub dev-ro t-ro)
  assert_eq "$want" "$(echo "$out" | grep -v 'Read-only file system')" "what the container sees"
  crt delete "$id" 2>/dev/null
  # in a user namespace too
  userns_bundle "$T/u" sh -c 'grep " /dev " /proc/self/mountinfo | cut -d" " -f6 | cut -d, -f1; ls -d /dev/pts /dev/null'
  bundle_edit "$T/u" "[m for m in c['mounts'] if m['destination']=='/dev'][0]['options'].append('ro')"
  run_rc crt run -b "$T/u" "$id"
  assert_eq 0 "$rc" "run in a user namespace: $out"
  assert_eq "$(printf '%s\n' ro /dev/null /dev/pts)" "$out" "user namespace"
}
