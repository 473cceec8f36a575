# Differential tests of mounts (issue 20): runc 1.1.5's observable
# behaviour.  Every test passes with crt and with
# `CRT_BIN=/usr/sbin/runc ONLY=t_compat_mounts bash tests/integration/run.sh`;
# checks of crt's own message text sit behind `is_crt`, and where crt
# follows runc >= 1.2 the test checks 1.1.5's answer under `runc_before_1_2`.


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

# mount_order_bundle DIR VARIANT: runc's mount-order case (its mounts.bats):
# a tree of binds under /mnt, then binds whose sources are paths inside the
# rootfs under those earlier mounts, then the whole tree bound on /final.
# VARIANT: "", userns, idmap, "userns idmap".  The bind sources' parent
# is closed to others, so that in a user namespace the sources the init
# cannot reach come from the runtime.
mount_order_bundle() {
  local b=$1 v=$2
  if [[ $v == *userns* ]]; then userns_bundle "$b" cat /final/x/y/z/z/x/y/z/x/file; else make_bundle "$b" cat /final/x/y/z/z/x/y/z/x/file; fi
  mkdir -p "$b/rootfs/mnt" "$b/rootfs/final"
  local d
  for d in a/x b/y c/z; do
    mkdir -p "$b/src/$d"; echo "$d" >"$b/src/$d/file"
    ln -s "${d%/*}" "$b/src/sym-${d%/*}"
  done
  chmod o-rwx "$b/src"
  local r=$b/rootfs ctr="'rbind','rprivate'" maps=""
  [[ $v == *idmap* ]] && ctr="$ctr,'idmap'" && maps="'uidMappings':$MAP65536,'gidMappings':$MAP65536"
  bundle_edit "$b" "
def bind(s, d, o, extra={}):
    m = {'source': s, 'destination': d, 'type': 'bind', 'options': o}
    m.update(extra); c['mounts'].append(m)
host = ['rbind', 'rprivate']
bind('$b/src/a', '/mnt', host); bind('$b/src/sym-b', '/mnt/x', host)
bind('$b/src/c', '/mnt/x/y', host); bind('$b/src/sym-a', '/mnt/x/y/z', host)
ctr = [$ctr]; ext = {$maps}
bind('$r/mnt/x', '$r/mnt/x/y/z/x', ctr, ext); bind('$r/mnt/x/y', '$r/mnt/x/y/z', ctr, ext)
bind('$r/mnt', '$r/final', ctr, ext)"
}

# Guards the init's mounts in config order, each source resolved at its
# turn (crt_rootfs_prepare; bind_from and source_from_host in
# src/linux/mounts.c; the runtime's answer crt_mount_source_clone, made in
# the init's mount namespace): issue 43 bug 1, every source was cloned by
# the runtime before the first mount, so a source under an earlier mount
# of the config did not see it.  runc 1.1.5 passes the plain and the userns
# case (its userns case fails as crt's did: it opens every source before
# the first mount), and has no idmapped mounts: those run for crt only.
test_mount_order_container_source() {
  local v id
  for v in "" userns idmap "userns idmap"; do
    [ -n "$v" ] && ! is_crt && continue
    rm -rf "$T/b"; mount_order_bundle "$T/b" "$v"
    id=$(new_id)
    run_rc crt run -b "$T/b" "$id"
    assert_eq 0 "$rc" "run (${v:-plain}): $out"
    assert_eq a/x "$out" "the file at the end of the tree (${v:-plain})"
    crt delete -f "$id" 2>/dev/null
  done
}

# Guards bind_from's flags in a user namespace (src/linux/mounts.c): a bind
# made by the init copies the source's locked flags, and a remount with
# the config's flags keeps them (crt_mount_kept_flags) unless the options
# clear one, which the kernel refuses then: a read-only or noatime source
# stays so; "rw" over a read-only source fails.  Issue 43 bug 1: the
# runtime's clones, made before the init's mount namespace, were not
# locked and lost them.  Also for a source only the host's root can reach:
# the runtime clones it in the init's mount namespace, where the kernel
# locked it.  runc 1.1.5 keeps the flags too, but gives a read-only mount
# where "rw" was asked.
test_userns_bind_keeps_locked_flags() {
  mkdir -p "$T/ro" "$T/na" "$T/closed/ro"
  echo data >"$T/ro/f"; echo data >"$T/closed/ro/f"
  mount --bind "$T/ro" "$T/ro" && mount -o remount,bind,ro "$T/ro" || fail "ro bind on the host"
  mount --bind "$T/na" "$T/na" && mount -o remount,bind,noatime "$T/na" || { umount "$T/ro"; fail "noatime bind"; }
  mount --bind "$T/closed/ro" "$T/closed/ro" && mount -o remount,bind,ro "$T/closed/ro" || { umount "$T/ro" "$T/na"; fail "closed ro bind"; }
  chmod 0700 "$T/closed"
  userns_bundle "$T/b" sh -c 'for d in /ro /na /cro; do grep " $d " /proc/self/mountinfo | cut -d" " -f6; done'
  bundle_edit "$T/b" "c['mounts'] += [{'destination':'/ro','source':'$T/ro','type':'bind','options':['bind','nosuid']},
    {'destination':'/na','source':'$T/na','type':'bind','options':['bind','nodev']},
    {'destination':'/cro','source':'$T/closed/ro','type':'bind','options':['bind','nosuid']}]"
  local id; id=$(new_id)
  run_rc crt run -b "$T/b" "$id"
  crt delete -f "$id" 2>/dev/null
  local got=$out
  bundle_edit "$T/b" "c['mounts'][-3]['options']=['bind','rw']"
  run_rc crt run -b "$T/b" "$id"
  local rw_rc=$rc rw_out=$out
  crt delete -f "$id" 2>/dev/null
  bundle_edit "$T/b" "c['mounts'][-3]['options']=['bind']; c['mounts'][-1]['options']=['bind','rw']"
  run_rc crt run -b "$T/b" "$id"
  local crw_rc=$rc crw_out=$out
  crt delete -f "$id" 2>/dev/null
  umount "$T/ro" "$T/na" "$T/closed/ro"
  local l; mapfile -t l <<<"$got"
  [[ ${l[0]} == ro,*nosuid* ]] || fail "/ro from a read-only source: '${l[0]}' (all: $got)"
  [[ ${l[1]} == *nodev*noatime* ]] || fail "/na from a noatime source: '${l[1]}' (all: $got)"
  [[ ${l[2]} == ro,*nosuid* ]] || fail "/cro from a read-only source only root reaches: '${l[2]}' (all: $got)"
  old_runc "runc 1.1.5 retries the refused remount with ro added: a read-only mount where rw was asked" && return
  assert_ne 0 "$rw_rc" "rw over a locked read-only source: $rw_out"
  assert_ne 0 "$crw_rc" "rw over a read-only source only root reaches: $crw_out"
}

# Guards tmpfs_mode (src/linux/mounts.c): a tmpfs without mode= over an
# existing directory takes its mode, setuid, setgid and sticky bits
# included (issue 43 bug 3: the kernel's 1777 was left); an explicit mode=
# wins.  runc 1.1.5 does the same.
test_tmpfs_takes_the_directory_mode() {
  make_bundle "$T/b" sh -c 'stat -c %A /tmp /m'
  chmod 7777 "$T/b/rootfs/tmp"
  mkdir -p "$T/b/rootfs/m"; chmod 0750 "$T/b/rootfs/m"
  bundle_edit "$T/b" "c['mounts'] += [{'destination':'/tmp','source':'tmpfs','type':'tmpfs','options':['nosuid']},
    {'destination':'/m','source':'tmpfs','type':'tmpfs','options':['nodev']}]"
  run_rc crt run -b "$T/b" "$(new_id)"
  assert_eq 0 "$rc" "run: $out"
  assert_eq "$(printf '%s\n' drwsrwsrwt drwxr-x---)" "$out" "modes of the tmpfs roots"
  bundle_edit "$T/b" "c['mounts'][-2]['options']=['nosuid','mode=700']"
  run_rc crt run -b "$T/b" "$(new_id)"
  # runc 1.1.5 shows the directory's mode here too, though the tmpfs was
  # given mode=700 (as runc main passes it: the kernel takes the last)
  if is_crt; then assert_eq "$(printf '%s\n' drwx------ drwxr-x---)" "$out" "an explicit mode wins"; fi
}

# ---- runc's mounts_sshfs.bats on a FUSE source (bindfs) ----
# runc >= 1.2's bind-mount flag rules, checked on a read-only (nodev,
# nosuid, noexec, atime, nosymfollow) FUSE mount bound into a container with
# and without a user namespace.  runc runs them on sshfs; bindfs is a
# FUSE filesystem needing no ssh server.  The flags are set on the host's
# mount (mount --bind -o remount), not on the superblock, so that a bind
# may clear them.  Each case prints the container's /mnt as
# /proc/self/mounts shows it.

# fuse_setup: $T/fuse, a bindfs mount of $T/fuse-data (dev,suid: FUSE's
# default for root is nodev,nosuid, which would sit on the superblock),
# and two bundles binding it on /mnt: $T/plain and $T/userns.
fuse_setup() {
  command -v bindfs >/dev/null || fail "no bindfs (bash contrib/install-deps.sh installs it)"
  mkdir -p "$T/fuse-data" "$T/fuse"
  bindfs -o dev,suid "$T/fuse-data" "$T/fuse" || fail "bindfs on $T/fuse"
  trap fuse_teardown EXIT
  assert_eq fuse "$(findmnt -no FSTYPE "$T/fuse")" "the source's filesystem"
  local prog='$2 == "/mnt" { print $3, $4 }'
  make_bundle "$T/plain" awk "$prog" /proc/self/mounts
  userns_bundle "$T/userns" awk "$prog" /proc/self/mounts
  local b
  for b in plain userns; do
    bundle_edit "$T/$b" "c['mounts'].append({'source':'$T/fuse','destination':'/mnt','type':'bind','options':[]})"
  done
}

# The bindfs daemon exits after the unmount, not at once: waited for, so
# that run.sh's leak check (processes naming $CRT_TEST_WORK) does not
# count it.
fuse_teardown() {
  fusermount -u "$T/fuse" 2>/dev/null || umount -l "$T/fuse"
  wait_eval '! pgrep -f "$T/fuse-data"'
}

# fuse_run NS HOST OPTS: the host's mount gets the per-mount flags HOST
# (its atime reset first: a remount without an atime flag keeps the old
# one), then bundle NS (plain, userns) runs with the bind's options OPTS.
# Sets rc, out and what.
fuse_run() {
  local ns=$1 host=$2 opts=$3
  what="$ns: bind with $opts of a FUSE mount with $host"
  mount --bind -o remount,diratime,strictatime "$T/fuse" && mount --bind -o "remount,$host" "$T/fuse" ||
    fail "host flags $host"
  python3 -c 'import json,sys; p=sys.argv[1]; c=json.load(open(p)); c["mounts"][-1]["options"]=sys.argv[2].split(","); json.dump(c,open(p,"w"))' \
    "$T/$ns/config.json" "$opts"
  local id; id=$(new_id)
  run_rc crt run -b "$T/$ns" "$id"
  crt delete -f "$id" >/dev/null 2>&1
}

# fuse_pass NS HOST OPTS WANT...: the run succeeds and the container's /mnt
# is the FUSE mount with every flag of WANT, and none of WANT's "!flag"s.
fuse_pass() {
  fuse_run "$1" "$2" "$3"; shift 3
  assert_eq 0 "$rc" "$what: $out"
  local w fs=${out%% *} flags=",${out#* },"
  assert_eq fuse "$fs" "$what: the filesystem on /mnt"
  for w in "$@"; do
    case $w in
      !*) [[ $flags != *",${w#!},"* ]] || fail "$what: ${w#!} set: $out" ;;
      *) [[ $flags == *",$w,"* ]] || fail "$what: $w not set: $out" ;;
    esac
  done
}

# old_runc WHY: true, saying why, when the differential run drives a runc
# older than 1.2 (Debian's 1.1.5), whose answer to the case is its pre-1.2
# one: the caller skips the case.
old_runc() { runc_before_1_2 || return 1; echo "skipped for runc < 1.2: $*"; }
NO_CLEAR_REMOUNT="runc 1.1.5 does not remount for options that only clear flags: the source's flags stay"
RO_ONLY_RETRY="runc 1.1.5 retries a refused remount adding the source's ro only, not its nodev, nosuid, noexec: it fails"

# fuse_fail NS HOST OPTS: the kernel refuses the flags (locked in a user
# namespace) and the run fails saying so, as runc >= 1.2 says it.
fuse_fail() {
  fuse_run "$@"
  assert_ne 0 "$rc" "$what must fail: $out"
  assert_contains "$out" "error mounting \"$T/fuse\" to rootfs at \"/mnt\"" "$what"
  assert_contains "${out,,}" "operation not permitted" "$what"
}

# Guards bind_from (src/linux/mounts.c): "bind" alone keeps every flag of
# the source (mount(8)'s --bind), with or without a user namespace.
test_fuse_bind_no_options() {
  fuse_setup
  local ns
  for ns in plain userns; do
    fuse_pass $ns ro,noexec,nosymfollow,nodiratime bind ro !rw noexec nodiratime nosymfollow
  done
}

# Guards bind_from and remount_bind (src/linux/mounts.c): a clearing
# option alone ("dev") makes the mount what the options say: the source's
# other flags go, its atime stays (a remount keeps it unless one is
# given).  In a user namespace the locked flags stay; nosymfollow is not
# locked and goes.
test_fuse_bind_clearing_flag() {
  fuse_setup
  old_runc "$NO_CLEAR_REMOUNT" && return
  fuse_pass plain ro,noexec,nosymfollow,nodiratime bind,dev rw !ro !noexec !nosymfollow nodiratime
  fuse_pass userns ro,noexec,nosymfollow,nodiratime bind,dev ro !rw noexec nodiratime !nosymfollow
}

# Guards remount_bind: flags given without "rw" over a read-only source:
# rw without a user namespace, read-only (locked) in one.
test_fuse_bind_implied_rw() {
  fuse_setup
  fuse_pass plain ro bind,nosuid,nodev,rprivate rw !ro nosuid nodev
  fuse_pass userns ro bind,nosuid,nodev,rprivate ro nosuid nodev
}

# Guards remount_bind's refusal: an explicit "rw" over a read-only source
# is rw without a user namespace and fails in one (the kernel keeps the
# locked read-only flag and runc >= 1.2 does not give a read-only mount
# where rw was asked).
test_fuse_bind_explicit_rw() {
  fuse_setup
  fuse_pass plain ro bind,rw,nosuid,nodev,rprivate rw !ro nosuid nodev
  old_runc "runc 1.1.5 retries the refused remount with ro added and succeeds: a read-only mount" ||
    fuse_fail userns ro bind,rw,nosuid,nodev,rprivate
}

# Guards remount_bind: "dev,suid,exec,atime" clears the source's nodev,
# nosuid, noexec without a user namespace ("atime" alone does not change
# an atime: mount(8)'s rule too); in a user namespace clearing a locked
# flag fails.
test_fuse_bind_clearing_locked_flags() {
  fuse_setup
  old_runc "$NO_CLEAR_REMOUNT" && return
  fuse_pass plain nosuid,nodev,noexec,noatime bind,dev,suid,exec,atime rw !ro !nosuid !nodev !noexec noatime
  fuse_fail userns nosuid,nodev,noexec,noatime bind,dev,suid,exec,atime
}

# Guards remount_bind: "bind,ro" of a nodev,nosuid,noexec source (what
# containerd does with /etc/resolv.conf, containerd#8309): read-only and
# nothing else without a user namespace; the locked flags stay in one.
test_fuse_bind_ro_of_nodev_nosuid_noexec() {
  fuse_setup
  fuse_pass plain rw,nodev,nosuid,noexec,noatime bind,ro ro !nosuid !nodev !noexec
  old_runc "$RO_ONLY_RETRY" || fuse_pass userns rw,nodev,nosuid,noexec,noatime bind,ro ro nosuid nodev noexec
}

# Guards remount_bind: nosymfollow is not a locked flag: "symfollow", or
# any remount that does not name it, clears it in a user namespace too.
test_fuse_bind_ro_symfollow() {
  fuse_setup
  fuse_pass plain rw,nodev,nosymfollow bind,ro,symfollow ro !rw !nodev !nosymfollow
  old_runc "$RO_ONLY_RETRY" || fuse_pass userns rw,nodev,nosymfollow bind,ro,symfollow ro nodev !nosymfollow
  old_runc "$NO_CLEAR_REMOUNT" || fuse_pass userns rw,nodev,nosymfollow bind,rw rw nodev !nosymfollow
}

# Guards remount_bind: "ro,exec" over a nodev,nosuid,noatime source.
test_fuse_bind_ro_exec_of_nosuid_noatime() {
  fuse_setup
  fuse_pass plain nodev,nosuid,noatime bind,ro,exec ro !noexec !nosuid !nodev noatime
  old_runc "$RO_ONLY_RETRY" || fuse_pass userns nodev,nosuid,noatime bind,ro,exec ro !noexec nosuid nodev noatime
}

# Guards remount_bind's atime rules: without a user namespace an atime
# option sets that atime (clearing ones do nothing, as with mount(8)); in
# a user namespace the atime is locked: a request for another one fails,
# also where the kernel would silently give the old one (relatime over
# noatime is ignored; strictatime hides the others).
test_fuse_bind_atime_semantics() {
  fuse_setup
  local strict='!noatime !relatime !nodiratime'
  fuse_pass plain noatime bind noatime !relatime
  fuse_pass plain noatime bind,norelatime noatime !relatime
  fuse_pass plain noatime bind,atime noatime !relatime
  fuse_pass plain noatime bind,relatime !noatime relatime
  fuse_pass plain noatime bind,nodiratime !noatime nodiratime relatime
  fuse_pass plain nodiratime bind,strictatime $strict
  fuse_pass plain noatime bind,nodiratime,strictatime !noatime nodiratime !relatime
  fuse_pass plain noatime bind,nodiratime,norelatime !noatime nodiratime relatime

  fuse_pass userns strictatime bind $strict
  fuse_pass userns relatime bind relatime
  fuse_pass userns nodiratime bind nodiratime relatime
  fuse_pass userns noatime,nodiratime bind noatime nodiratime
  fuse_pass userns noatime,nodiratime bind,norelatime noatime nodiratime
  local host opt
  for host in nodiratime relatime noatime; do fuse_fail userns $host bind,strictatime; done
  for host in nodiratime relatime; do fuse_fail userns $host bind,noatime; done
  fuse_fail userns relatime bind,nodiratime
  for opt in relatime noatime nodiratime; do fuse_fail userns strictatime bind,$opt; done
  fuse_fail userns noatime bind,relatime
  # clearing an atime option the source has keeps it (runc: to be refused
  # some day)
  fuse_pass userns strictatime bind,nostrictatime $strict
  fuse_pass userns nodiratime bind,diratime nodiratime
  fuse_pass userns nodiratime bind,norelatime nodiratime
  fuse_pass userns relatime bind,norelatime relatime
  fuse_pass userns noatime bind,atime noatime
  fuse_pass userns noatime,nodiratime bind,atime noatime nodiratime
}

# Guards mask_dir and listed_before (src/linux/rootfs.c): current runc's
# mask.bats: every masked directory is the one read-only tmpfs (one device
# number), an entry named twice is masked once, and a read-only root does
# not stop it.  runc 1.1.5 gives each directory its own tmpfs.
test_masked_dirs_share_one_tmpfs() {
  make_bundle "$T/b" sh -c 'stat -c %d /d1 /d2 /d3 | sort -u | wc -l; touch /d2/x 2>&1; ls -A /d1 /d3;
    awk "\$2 ~ /^\/d[0-9]\$/ {print \$2, substr(\$4,1,2)}" /proc/self/mounts; cat /f; echo end'
  mkdir -p "$T/b/rootfs/d1/sub" "$T/b/rootfs/d2" "$T/b/rootfs/d3"
  echo secret >"$T/b/rootfs/d3/s"; echo secret >"$T/b/rootfs/f"
  bundle_edit "$T/b" "c['linux']['maskedPaths'] += ['/d1','/d2','/d3','/d1','/f','/f']; c['root']['readonly']=True"
  run_rc crt run -b "$T/b" "$(new_id)"; assert_eq 0 "$rc" "run: $out"
  assert_not_contains "$out" secret
  assert_contains "$out" "Read-only file system" "touch in a masked directory"
  local n; n=$(echo "$out" | head -n1)
  if runc_before_1_2; then assert_eq 3 "$n" "devices of the masked directories (runc 1.1.5)"; return 0; fi
  assert_eq 1 "$n" "devices of the masked directories"
  assert_eq "/d1 ro
/d2 ro
/d3 ro" "$(echo "$out" | grep '^/d[0-9] ')" "one read-only mount per masked directory, duplicates once"
}

# Guards mount_special (src/linux/mounts.c) with runc's mask.bats
# "[prohibit symlink /proc]" and "[... /sys]": a dangling symlink in the
# rootfs where proc or sysfs goes is refused, in runc's full sentence.
test_proc_sys_symlink_in_rootfs_refused() {
  local name fs
  for name in proc sys; do
    [ $name = proc ] && fs=proc || fs=sysfs
    make_bundle "$T/$name" true
    rmdir "$T/$name/rootfs/$name" && ln -s /symlink "$T/$name/rootfs/$name"
    run_rc crt run -d -b "$T/$name" "$(new_id)"
    assert_eq 1 "$rc" "run -d with /$name a symlink: $out"
    assert_contains "$out" "error mounting \"$fs\" to rootfs at \"/$name\": filesystem \"$fs\" must be mounted on ordinary directory"
    [ -z "$(crt list -q)" ] || fail "a container was left after the refusal"
  done
  return 0
}

# Guards tmpcopyup (copy_tree, src/linux/mounts.c): what was under the
# tmpfs is copied in with its owners and modes, the tmpfs root takes the
# directory's mode, and a symlink stays a symlink.
test_tmpcopyup_keeps_modes() {
  make_bundle "$T/b" sh -c 'cd /data && stat -c "%n %u:%g %a %F" . f sub sub/g l su; cat sub/g; readlink l;
    awk "\$2 == \"/data\" {print \$3}" /proc/self/mounts'
  local d=$T/b/rootfs/data
  mkdir -p "$d/sub"; echo inner >"$d/sub/g"; echo x >"$d/f"; ln -s sub/g "$d/l"; touch "$d/su"
  chown 1000:1000 "$d/su"; chmod 6755 "$d/su"
  chown 1000:1001 "$d/f"; chown -h 7:8 "$d/l"; chmod 0640 "$d/f"; chmod 0700 "$d/sub"; chmod 2751 "$d"; chown 5:6 "$d"
  # the root keeps its mode, not its owner (runc: the tmpfs is root's); sub
  # stays 0700 though made in a setgid directory
  bundle_edit "$T/b" "c['mounts'].append({'destination':'/data','source':'tmpfs','type':'tmpfs','options':['tmpcopyup','nosuid']})"
  run_rc crt run -b "$T/b" "$(new_id)"; assert_eq 0 "$rc" "run: $out"
  assert_eq ". 0:0 2751 directory
f 1000:1001 640 regular file
sub 0:0 700 directory
sub/g 0:0 644 regular file
l 7:8 777 symbolic link
su 1000:1000 6755 regular empty file
inner
sub/g
tmpfs" "$out" "the copied tree"
}

# Guards the recursive read-only attribute (mount_setattr AT_RECURSIVE,
# src/linux/mounts.c): runc's mounts_recursive.bats: "rbind,ro" makes the
# top mount read-only only, "rro" every mount below it too.
test_rbind_ro_and_rro() {
  local v=$T/vol
  mkdir -p "$v" && mount -t tmpfs none "$v" && mkdir "$v/subvol" && mount -t tmpfs none "$v/subvol" || fail "volume"
  make_bundle "$T/b" sh -c 'touch /mnt/foo 2>&1 && echo top-rw; touch /mnt/subvol/bar 2>&1 && echo sub-rw; true'
  local opts want
  for opts in "rbind,ro" "rbind,rro" "rbind,ro,rro"; do
    bundle_edit "$T/b" "c['mounts']=[m for m in c['mounts'] if m['destination']!='/mnt']+[{'source':'$v','destination':'/mnt','options':'$opts'.split(',')}]"
    run_rc crt run -b "$T/b" "$(new_id)"; assert_eq 0 "$rc" "run with $opts: $out"
    assert_not_contains "$out" top-rw "$opts: the top mount"
    [ "$opts" = rbind,ro ] && want=sub-rw || want="Read-only file system"
    assert_contains "$out" "$want" "$opts: the submount"
  done
  umount -R "$v"
}

# root_propagation: the optional fields of the container's / in its mountinfo
ROOT_PROP='awk "\$5 == \"/\" { s=\"\"; for (i = 7; \$i != \"-\"; i++) s = s \" \" \$i; print s == \"\" ? \"private\" : substr(s, 2) }" /proc/self/mountinfo'

# Guards apply_root_propagation (src/linux/rootfs.c): runc's
# mounts_propagation.bats and mounts_propagation_unsafe.bats:
# rootfsPropagation "shared" makes the container's / shared, "slave" (in a
# mount namespace whose / is shared) a slave of it.
test_rootfs_propagation_shared_and_slave() {
  make_bundle "$T/b" sh -c "$ROOT_PROP"
  bundle_edit "$T/b" "c['linux']['rootfsPropagation']='shared'"
  run_rc crt run -b "$T/b" "$(new_id)"; assert_eq 0 "$rc" "run shared: $out"
  if runc_before_1_2; then assert_eq private "$out" "runc 1.1.5 leaves / private"; return 0; fi
  [[ $out == shared:* ]] || fail "rootfsPropagation shared: / is '$out'"
  bundle_edit "$T/b" "c['linux']['rootfsPropagation']='slave'"
  run_rc unshare -m --propagation unchanged sh -c 'mount --make-rshared / && exec "$0" --root "$1" run -b "$2" "$3"' \
    "$CRT_BIN" "$CRT_ROOT" "$T/b" "$(new_id)"
  assert_eq 0 "$rc" "run slave: $out"
  [[ $out == master:* ]] || fail "rootfsPropagation slave in a shared namespace: / is '$out'"
}

# Guards the hooks of a container without a mount namespace
# (src/container/create.c): runc's host-mntns.bats: each createRuntime
# hook runs once.
test_host_mount_ns_with_hooks() {
  make_bundle "$T/b" echo Hello World
  bundle_edit "$T/b" "c['hooks']={'createRuntime':[{'path':'/bin/sh','args':['/bin/sh','-c','touch createRuntimeHook.\$\$']}]}
c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!='mount']
c['linux']['maskedPaths']=[]; c['linux']['readonlyPaths']=[]; c['root']['readonly']=False"
  local id; id=$(new_id)
  out=$(crt run -b "$T/b" "$id" 2>"$T/err"); rc=$?
  assert_eq 0 "$rc" "run: $out $(cat "$T/err")"
  assert_eq "Hello World" "$out"
  crt delete -f "$id" >/dev/null 2>&1
  umount -R --lazy "$T/b/rootfs" 2>/dev/null
  local n=1; runc_before_1_2 && n=2 # runc 1.1.5 runs it twice
  assert_eq $n "$(ls "$T/b" | grep -c '^createRuntimeHook\.')" "createRuntime hook runs"
}

# Guards init_enter_root (src/container/init.c): host-mntns.bats as runc's
# suite runs it, with `runc spec`'s terminal and read-only root: the pty
# comes from the host's /dev/ptmx (the container's /dev is not mounted),
# taken before the chroot; crt failed `open /dev/ptmx`.
test_host_mount_ns_terminal() {
  make_bundle "$T/b" /bin/echo Hello World
  rm -rf "$T/b/rootfs/dev"/*
  bundle_edit "$T/b" "c['process']['terminal']=True; c['root']['readonly']=True
c['linux']['namespaces']=[n for n in c['linux']['namespaces'] if n['type']!='mount']
c['linux']['maskedPaths']=[]; c['linux']['readonlyPaths']=[]"
  local id; id=$(new_id)
  (cd "$T/b" && script -qec "$(printf '%q ' "$CRT_BIN" --root "$CRT_ROOT" run "$id"); echo rc=\$?" /dev/null) >"$T/out" 2>&1 </dev/null
  crt delete -f "$id" >/dev/null 2>&1
  umount -R --lazy "$T/b/rootfs" 2>/dev/null
  out=$(tr -d '\r' <"$T/out")
  assert_contains "$out" "rc=0" "run with a terminal and no mount namespace"
  assert_contains "$out" "Hello World"
}

# Guards rec_opts (src/spec/mount_opts.c): runc's mounts_recursive.bats
# "runc run [ check rbind,r*atime mounts]" (its issue 5095): every
# recursive atime option reaches the submounts, and the clearing ones
# (ratime, rnostrictatime, rnorelatime) give the kernel's default,
# relatime; crt made rnorelatime strictatime.
test_rbind_recursive_atime() {
  mkdir -p "$T/vol" && mount -t tmpfs none "$T/vol" || fail "mount the volume"
  trap 'umount -R "$T/vol"' EXIT
  mkdir "$T/vol/subvol" && mount -t tmpfs none "$T/vol/subvol" || fail "mount the subvolume"
  make_bundle "$T/b" sleep 300
  bundle_edit "$T/b" "c['mounts'] += [{'source':'$T/vol','destination':'/mnt%d' % (i + 1),'options':['rbind',o]}
  for i, o in enumerate(['ratime','rnoatime','rstrictatime','rnostrictatime','rrelatime','rnorelatime'])]"
  local id pid; id=$(new_id)
  crt run -d --pid-file "$T/pid" -b "$T/b" "$id" </dev/null >/dev/null 2>"$T/err" || fail "run -d: $(cat "$T/err")"
  pid=$(cat "$T/pid")
  local want=(rw,relatime rw,noatime rw rw,relatime rw,relatime rw,relatime) i d
  for i in 1 2 3 4 5 6; do
    for d in /mnt$i /mnt$i/subvol; do
      assert_eq "${want[i - 1]}" "$(awk -v d=$d '$5 == d {print $6}' /proc/$pid/mountinfo)" "options of $d"
    done
  done
  crt delete -f "$id"
}
