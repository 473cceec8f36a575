# Shared by the client scripts (docker.sh, podman.sh, ...): sourced after
# the script sets `fails=0`.  Messages are prefixed with the script's name.
_me=$(basename "$0")
say() { echo "$_me: $*"; }
bad() { say "FAIL: $*"; fails=$((fails + 1)); }
die() { bad "$*"; exit 1; }   # the EXIT trap still cleans up and checks
ok_eq() { [ "$1" = "$2" ] && say "ok: $3" || bad "$3: expected '$1', got '$2'"; }
ok_has() { case "$1" in *"$2"*) say "ok: $3" ;; *) bad "$3: expected to contain '$2', got '$1'" ;; esac; }
# pick_criu: the CRIU for the checkpoint scenarios: $CRIU, else `criu` on
# PATH if `criu check` passes (sid's 4.2.1 in the sid root), else sid's
# CRIU 4.2.1 through tests/lib/peers.sh (Debian 12's 3.17 fails `criu
# check` on this kernel), else ../shared/criu/criu beside the checkout.
pick_criu() {
  local c
  if [ -n "${CRIU:-}" ]; then echo "$CRIU"; return; fi
  if command -v criu >/dev/null && criu check >/dev/null 2>&1; then command -v criu; return; fi
  if c=$(bash "$REPO/tests/lib/peers.sh" criu 2>/dev/null) && "$c" check >/dev/null 2>&1; then echo "$c"; return; fi
  echo "$REPO/../shared/criu/criu"
}
# The end of every script's cleanup: the work dir goes (unless KEEP_WORK=1),
# the summary, and exit 0 only if every check passed.
report_and_exit() {
  [ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$W"
  if [ "$fails" = 0 ]; then say "all passed"; else say "$fails check(s) failed"; fi
  [ "$fails" = 0 ]
  exit $?
}
