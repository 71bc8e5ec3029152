#!/bin/bash
# Runs one identity test as an unprivileged user (nobody) when ctest runs
# as root: the watcher then cannot read the session leader's memory (it
# is not dumpable), which is the path an ordinary user's host takes.
# Usage: unprivileged.sh SCRIPT VTHOST
set -u
script=${1:?usage: unprivileged.sh SCRIPT VTHOST} vthost=${2:?}
if [ "$(id -u)" -ne 0 ]; then
    exec bash "$script" "$vthost"
fi
command -v setpriv >/dev/null || { echo "SKIP: setpriv is needed to drop root"; exit 77; }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if ! as_nobody test -x "$vthost" || ! as_nobody test -r "$script"; then
    echo "SKIP: nobody cannot reach $vthost or $script (a private checkout)"
    exit 77
fi
home=$(mktemp -d /tmp/vthost-unpriv-XXXXXX)
trap 'rm -rf "$home"' EXIT
chown 65534:65534 "$home"
as_nobody env -u XDG_CONFIG_HOME -u XDG_STATE_HOME -u XDG_CACHE_HOME HOME="$home" \
    bash "$script" "$vthost"
