#!/usr/bin/env bash
# The systemd unit for `serve --http` as `cmake --install` puts it: in
# lib/systemd/system, hardened (its own user, ProtectSystem=strict, the
# state directory holding the workspace its one writable tree,
# NoNewPrivileges), and accepted by `systemd-analyze verify` with the
# installed vthost and man page.  Exits 77 without systemd-analyze.
set -u
BUILD=$1 CMAKE=$2
command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze not available (Debian package systemd)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh" # check, check_not, check_eq

DESTDIR="$T/root" "$CMAKE" --install "$BUILD" --component host --prefix /usr >"$T/install.log" 2>&1 ||
    { cat "$T/install.log"; echo "FAIL cmake --install"; exit 1; }
unit="$T/root/usr/lib/systemd/system/vthost-http@.service"
[[ -f "$unit" ]] || { echo "FAIL no unit at usr/lib/systemd/system/vthost-http@.service"; exit 1; }
echo "ok   installed to usr/lib/systemd/system"
u=$(cat "$unit")
for line in "DynamicUser=yes" "ProtectSystem=strict" "ProtectHome=yes" "NoNewPrivileges=yes" \
    "CapabilityBoundingSet=" "PrivateTmp=yes" "StateDirectory=vthost/%i" \
    "--workspace /var/lib/vthost/%i/workspace serve --http" "LoadCredential=http-token:"; do
    check "unit has $line" "$line" "$u"
done
# Nothing but the state directory is made writable.
check_not "no ReadWritePaths" "ReadWritePaths=" "$u"
check_not "no ProtectSystem=full or =yes" "ProtectSystem=full" "$u"

# verify: the instance, with ExecStart and the man page pointing into the
# install tree (systemd-analyze checks that both exist).
mkdir -p "$T/units"
sed "s|/usr/bin/vthost|$T/root/usr/bin/vthost|" "$unit" >"$T/units/vthost-http@ws.service"
out=$(cd "$T/units" && MANPATH="$T/root/usr/share/man" SYSTEMD_LOG_LEVEL=notice \
    systemd-analyze verify --man=yes "$T/units/vthost-http@ws.service" 2>&1)
rc=$?
check_eq "systemd-analyze verify exits 0" "0" "$rc"
check_eq "systemd-analyze verify says nothing" "" "$out"
exit $((fails > 0))
