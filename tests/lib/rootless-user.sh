# A throw-away unprivileged user for the rootless tests (t_userns.sh, the
# rootless client scripts in tests/clients/).  Sourced; needs root.
#
# ru_create HOME [SUBIDS]: useradd a user named crtrl<pid><random> with home
# HOME (made, owned by the user) and, unless SUBIDS=none, 300000-365535 as
# its /etc/subuid and /etc/subgid range; sets RU_USER, RU_UID, RU_GID.
# ru_remove: kills the user's processes (by uid: only this user's), removes
# the user and its subordinate id lines; safe to call twice.
# ru_as CMD...: CMD as the user, with a minimal environment (no USER, as
# rootless podman gives the runtime) plus whatever RU_ENV (an array of
# NAME=VALUE) holds.
RU_USER=
RU_ENV=()

ru_create() { # home [none]
  RU_USER=crtrl$$$RANDOM
  RU_USER=${RU_USER:0:30}
  useradd -M -d "$1" -s /bin/sh -K SUB_UID_COUNT=0 -K SUB_GID_COUNT=0 "$RU_USER" || return 1
  RU_UID=$(id -u "$RU_USER") RU_GID=$(id -g "$RU_USER")
  sed -i "/^$RU_USER:/d" /etc/subuid /etc/subgid
  if [ "${2:-}" != none ]; then
    echo "$RU_USER:300000:65536" >>/etc/subuid
    echo "$RU_USER:300000:65536" >>/etc/subgid
  fi
  mkdir -p "$1" && chown "$RU_USER:" "$1"
}

ru_remove() {
  [ -n "$RU_USER" ] || return 0
  local pids i
  for i in 1 2 3 4 5; do
    pids=$(pgrep -u "$RU_UID") || break
    kill -KILL $pids 2>/dev/null
    sleep 0.2
  done
  userdel "$RU_USER" 2>/dev/null
  sed -i "/^$RU_USER:/d" /etc/subuid /etc/subgid
  RU_USER=
}

ru_as() {
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "${RU_ENV[@]}" \
    setpriv --reuid="$RU_UID" --regid="$RU_GID" --init-groups "$@"
}

# ru_reach DIR: every directory from DIR up to / or /tmp searchable, so the
# user reaches DIR (a mktemp dir of the caller may be 0700).
ru_reach() {
  local d=$1
  while [ "$d" != / ] && [ "$d" != /tmp ]; do chmod o+x "$d" || return 1; d=$(dirname "$d"); done
}
