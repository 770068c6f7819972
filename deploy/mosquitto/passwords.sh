#!/usr/bin/env bash
# Credentials of the locker link for Mosquitto. A secrets file (kept offline, mode 600) holds one
# "username:password" line per locker (username = locker id) and per cloud process user. From
# it this script makes Mosquitto's password file and the SHA-256 hashes the cloud keeps.
#
#   passwords.sh add <secrets> <username>...   append a line with a new random password per user
#   passwords.sh passwd <secrets> <out>        write Mosquitto's password file (mosquitto_passwd -U)
#   passwords.sh hashes <secrets>              print "<username> <sha256 hex>" lines: the value of
#                                              mqttPasswordSha256 for each locker in the fleet file
set -euo pipefail

die() { echo "passwords.sh: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: passwords.sh add|passwd|hashes <secrets> [...]"
cmd=$1 secrets=$2; shift 2

random_password() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

case "$cmd" in
  add)
    [ $# -ge 1 ] || die "add: name at least one username"
    umask 077
    touch "$secrets"
    for user in "$@"; do
      [[ "$user" =~ ^[A-Za-z0-9_-]+$ ]] || die "add: bad username '$user'"
      if grep -q "^${user}:" "$secrets"; then die "add: $user is already in $secrets"; fi
      echo "${user}:$(random_password)" >> "$secrets"
    done
    ;;
  passwd)
    [ $# -eq 1 ] || die "passwd: name the output file"
    command -v mosquitto_passwd >/dev/null || die "mosquitto_passwd not found"
    umask 077
    tmp=$(mktemp "$1.XXXXXX")
    cp "$secrets" "$tmp"
    mosquitto_passwd -U "$tmp"
    mv "$tmp" "$1"
    ;;
  hashes)
    while IFS=: read -r user password; do
      [ -n "$user" ] || continue
      printf '%s %s\n' "$user" "$(printf '%s' "$password" | sha256sum | cut -d' ' -f1)"
    done < "$secrets"
    ;;
  *) die "unknown command $cmd" ;;
esac
