# Shared by the client scripts (docker.sh, podman.sh, ...): sourced after
# the script sets `fails=0`.  Messages are prefixed with the script's name.
_me=$(basename "$0")
say() { echo "$_me: $*"; }
bad() { say "FAIL: $*"; fails=$((fails + 1)); }
die() { bad "$*"; exit 1; }   # the EXIT trap still cleans up and checks
ok_eq() { [ "$1" = "$2" ] && say "ok: $3" || bad "$3: expected '$1', got '$2'"; }
ok_has() { case "$1" in *"$2"*) say "ok: $3" ;; *) bad "$3: expected to contain '$2', got '$1'" ;; esac; }
# The end of every script's cleanup: the work dir goes (unless KEEP_WORK=1),
# the summary, and exit 0 only if every check passed.
report_and_exit() {
  [ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$W"
  if [ "$fails" = 0 ]; then say "all passed"; else say "$fails check(s) failed"; fi
  [ "$fails" = 0 ]
  exit $?
}
