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
# runtime's unlocked clones lost them.  Also for a source only the host's
# root can reach (the runtime's clone keeps what the kernel would).
# runc 1.1.5 keeps the flags too, but ignores an explicit "rw" (no remount)
# where runc >= 1.2 fails: that check is crt's only.
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
  umount "$T/ro" "$T/na" "$T/closed/ro"
  local l; mapfile -t l <<<"$got"
  [[ ${l[0]} == ro,*nosuid* ]] || fail "/ro from a read-only source: '${l[0]}' (all: $got)"
  [[ ${l[1]} == *nodev*noatime* ]] || fail "/na from a noatime source: '${l[1]}' (all: $got)"
  [[ ${l[2]} == ro,*nosuid* ]] || fail "/cro from a read-only source only root reaches: '${l[2]}' (all: $got)"
  if is_crt; then assert_ne 0 "$rw_rc" "rw over a locked read-only source: $rw_out"; fi
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

# bind_flags_case NS HOST OPTS WANT: a bind with options OPTS of a tmpfs
# whose mount has the per-mount flags HOST (runc's sshfs tests fall back to
# such a tmpfs), in a container with (NS=userns) or without a user
# namespace.  WANT: "fail", or flags that must be there and "!flag"s that
# must not, as /proc/self/mounts shows them.
bind_flags_case() {
  local ns=$1 host=$2 opts=$3 want=$4 dir=$T/src
  mkdir -p "$dir"; mountpoint -q "$dir" && umount "$dir"
  # the flags on the mount, not the superblock: bind mounts may clear them
  mount -t tmpfs -o rw,suid,dev,exec,diratime,strictatime tmpfs "$dir" && mount --bind -o "remount,$host" "$dir" ||
    fail "host flags $host"
  if [ ! -d "$T/bf-$ns" ]; then
    if [ "$ns" = userns ]; then userns_bundle "$T/bf-$ns" awk '$2 == "/mnt" { print $4 }' /proc/self/mounts
    else make_bundle "$T/bf-$ns" awk '$2 == "/mnt" { print $4 }' /proc/self/mounts; fi
    bundle_edit "$T/bf-$ns" "c['mounts'].append({'source':'$dir','destination':'/mnt','type':'bind','options':[]})"
  fi
  local cfg=$T/bf-$ns/config.json
  python3 -c 'import json,sys; p=sys.argv[1]; c=json.load(open(p)); c["mounts"][-1]["options"]=sys.argv[2].split(","); json.dump(c,open(p,"w"))' "$cfg" "$opts"
  local id; id=$(new_id)
  run_rc crt run -b "$T/bf-$ns" "$id"
  crt delete -f "$id" >/dev/null 2>&1
  local what="$ns: bind of a $host mount with $opts"
  if [ "$want" = fail ]; then
    assert_ne 0 "$rc" "$what must fail: $out"
    if is_crt; then assert_contains "${out,,}" "operation not permitted" "$what"; fi
    return
  fi
  assert_eq 0 "$rc" "$what: $out"
  local w flags=",$out,"
  for w in $want; do
    case $w in
      !*) [[ $flags != *",${w#!},"* ]] || fail "$what: ${w#!} set: $out" ;;
      *) [[ $flags == *",$w,"* ]] || fail "$what: $w not set: $out" ;;
    esac
  done
}

# Guards bind_from and remount_bind (src/linux/mounts.c): runc >= 1.2's
# bind-mount flag rules (its mounts_sshfs.bats, on the tmpfs it falls back
# to): "bind" alone keeps every flag of the source; any other flag option
# makes the mount what the options say, except that an atime flag is only
# changed by setting another one, and in a user namespace the kernel's
# locked flags (ro, nodev, nosuid, noexec, atime; not nosymfollow) are kept
# unless the options clear one, which fails.  runc 1.1.5 keeps the source's
# flags after a clearing-only option list (no remount): crt only.
test_bind_mount_flag_rules() {
  is_crt || return 0
  trap 'umount "$T/src" 2>/dev/null' EXIT
  local ns
  for ns in plain userns; do
    bind_flags_case $ns ro,noexec,nosymfollow,nodiratime bind "ro noexec nosymfollow nodiratime !rw"
    bind_flags_case $ns rw,nodev,nosymfollow bind,rw "rw !nosymfollow"
  done
  bind_flags_case plain ro,noexec,nosymfollow,nodiratime bind,dev "rw nodiratime !ro !noexec !nosymfollow"
  bind_flags_case userns ro,noexec,nosymfollow,nodiratime bind,dev "ro noexec nodiratime !rw !nosymfollow"
  bind_flags_case plain ro bind,nosuid,nodev,rprivate "rw nosuid nodev !ro"
  bind_flags_case userns ro bind,nosuid,nodev,rprivate "ro nosuid nodev"
  bind_flags_case plain ro bind,rw,nosuid,nodev,rprivate "rw nosuid nodev !ro"
  bind_flags_case userns ro bind,rw,nosuid,nodev,rprivate fail
  bind_flags_case plain nosuid,nodev,noexec,noatime bind,dev,suid,exec,atime "rw noatime !nosuid !nodev !noexec"
  bind_flags_case userns nosuid,nodev,noexec,noatime bind,dev,suid,exec,atime fail
  bind_flags_case plain rw,nodev,nosuid,noexec,noatime bind,ro "ro !nosuid !nodev !noexec"
  bind_flags_case userns rw,nodev,nosuid,noexec,noatime bind,ro "ro nosuid nodev noexec"
  bind_flags_case plain rw,nodev,nosymfollow bind,ro,symfollow "ro !nodev !nosymfollow"
  bind_flags_case userns rw,nodev,nosymfollow bind,ro,symfollow "ro nodev !nosymfollow"
  bind_flags_case plain nodev,nosuid,noatime bind,ro,exec "ro noatime !noexec !nosuid !nodev"
  bind_flags_case userns nodev,nosuid,noatime bind,ro,exec "ro nosuid nodev noatime !noexec"
  bind_flags_case plain noatime bind,relatime "relatime !noatime"
  bind_flags_case userns noatime bind,strictatime fail
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
