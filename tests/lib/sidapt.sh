# A private apt configuration for Debian sid (/etc/apt is not touched):
# source it, then `apt-get "${SID_APT[@]}" ...` / `apt-cache "${SID_APT[@]}" ...`
# download or look up sid's packages on this Debian 12 host.  The lists
# live under $PEERS_DIR/apt and are refreshed once a day at most.  Used by
# tests/lib/peers.sh (runc, crun) and tests/guest/lib.sh (sid's kernel).
PEERS_DIR=${PEERS_DIR:-/var/tmp/crt-peers}
sid_apt_init() {
  local d=$PEERS_DIR/apt mirror
  mkdir -p "$d"/{parts,lists/partial,cache/archives/partial}
  mirror=$(awk '/^URIs:/ && /debian\/?$/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  printf 'Types: deb\nURIs: %s\nSuites: sid\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "${mirror:-http://deb.debian.org/debian}" >"$d/parts/sid.sources"
  SID_APT=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$d/parts"
           -o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache"
           -o Dir::State::status=/dev/null -o APT::Sandbox::User=root
           -o Acquire::Check-Valid-Until=false)
  if [ -z "$(find "$d/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null)" ]; then
    apt-get "${SID_APT[@]}" -qq update >&2 || return 1
  fi
}
