#!/usr/bin/env bash
# The distro packager's path: cpack -G DEB, then subsets of the packages
# unpacked with dpkg -x into temporary roots, each run as installed:
#   host alone                   -> the default profile names the missing
#                                   packages (vthost-plugin-exec, ...)
#   host + the four default ones -> the default profile works
#                                   --profile advanced names
#                                   vthost-plugin-code-search
#   ... + vthost-plugin-code-search -> the advanced profile works
# and dpkg-deb --info shows the dependencies that make these subsets
# installable only in working combinations.
set -u
BUILD=$1 CPACK=$2
umask 022
for tool in dpkg-deb "$CPACK"; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool not available"; exit 77; }
done
PLUGINS=(exec stdin patch search-tools code-search)
comps=$(sed -n 's/^set(CPACK_COMPONENTS_ALL "\(.*\)")$/\1/p' "$BUILD/CPackConfig.cmake")
missing=()
for p in "${PLUGINS[@]}"; do
    [[ ";$comps;" == *";plugin-$p;"* ]] || missing+=("vthost-plugin-$p")
done
if ((${#missing[@]})); then
    echo "SKIP: this build does not produce ${missing[*]} (plugin switched off" \
         "or not present); the package subsets cannot be checked"
    exit 77
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config"
unset VTHOST_PLUGIN_PATH
mkdir -p "$HOME" "$T/ws"
fails=0
check() { # check NAME EXPECTED ACTUAL
    if [[ "$3" == *"$2"* ]]; then echo "ok   $1"; else
        echo "FAIL $1: expected to contain [$2], got [$3]"; fails=$((fails + 1)); fi
}
check_not() {
    if [[ "$3" != *"$2"* ]]; then echo "ok   $1"; else
        echo "FAIL $1: expected NOT to contain [$2], got [$3]"; fails=$((fails + 1)); fi
}
check_eq() {
    if [[ "$3" == "$2" ]]; then echo "ok   $1"; else
        echo "FAIL $1: expected [$2], got [$3]"; fails=$((fails + 1)); fi
}

# ---- build the packages ---------------------------------------------------
# ctest runs after the build, so cpack's "preinstall" step (a full build
# check through make, slow on a busy machine) is skipped by naming a
# generator without one.  dpkg-shlibdeps takes seconds per package, so it
# runs for the host package only: that proves the configuration asks for
# it; the plugins get the same setting in a real cpack run.
fast=()
command -v ninja >/dev/null && fast+=(-D CPACK_CMAKE_GENERATOR=Ninja)
grep -q '^set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS "ON")' "$BUILD/CPackConfig.cmake" &&
    fast+=(-D CPACK_DEBIAN_PACKAGE_SHLIBDEPS=OFF -D CPACK_DEBIAN_HOST_PACKAGE_SHLIBDEPS=ON)
(cd "$BUILD" && "$CPACK" -G DEB "${fast[@]}" --config "$BUILD/CPackConfig.cmake" -B "$T/out") \
    >"$T/cpack.log" 2>&1 || { cat "$T/cpack.log"; echo "FAIL cpack"; exit 1; }
deb() { # deb PACKAGE -> its file, exactly one
    local f=("$T/out/$1"_*.deb)
    [[ ${#f[@]} -eq 1 && -f "${f[0]}" ]] || { echo "FAIL no package $1 in $T/out"; ls "$T/out"; exit 1; }
    echo "${f[0]}"
}
HOST=$(deb vthost)
DEV=$(deb vthost-dev)
declare -A PKG
for p in "${PLUGINS[@]}"; do PKG[$p]=$(deb "vthost-plugin-$p"); done
echo "ok   cpack built $(ls "$T/out"/*.deb | wc -l) packages"

# ---- metadata ---------------------------------------------------------------
VERSION=$(dpkg-deb -f "$HOST" Version)
info=$(dpkg-deb --info "$HOST")
check "host package name" "Package: vthost" "$info"
check_eq "host description in control form" \
    $'tool host for coding agents\n vthost gives a coding agent' \
    "$(dpkg-deb -f "$HOST" Description | head -2 | cut -c1-28)"
out=$(dpkg-deb -f "$HOST" Provides)
[[ "$out" =~ ^vthost-abi-([0-9]+)\ \(=\ ([0-9]+)\.([0-9]+)\)$ ]] &&
    echo "ok   host provides its ABI: $out" ||
    { echo "FAIL host Provides: [$out]"; fails=$((fails + 1)); }
ABI_MAJOR=${BASH_REMATCH[1]:-?} ABI_MINOR=${BASH_REMATCH[3]:-?}
check "host recommends the default plugins" \
    "vthost-plugin-exec, vthost-plugin-stdin, vthost-plugin-patch, vthost-plugin-search-tools" \
    "$(dpkg-deb -f "$HOST" Recommends)"
if command -v dpkg-shlibdeps >/dev/null; then
    check "host depends on its libraries" "libcjson1" "$(dpkg-deb -f "$HOST" Depends)"
fi
for p in "${PLUGINS[@]}"; do
    info=$(dpkg-deb --info "${PKG[$p]}")
    check "$p: package name" "Package: vthost-plugin-$p" "$info"
    check "$p: depends on the host version" "vthost (>= $VERSION)" "$info"
    check "$p: depends on the host ABI" "vthost-abi-$ABI_MAJOR (>= $ABI_MAJOR.$ABI_MINOR)" "$info"
done
check "stdin depends on exec" "vthost-plugin-exec (= $VERSION)" \
    "$(dpkg-deb -f "${PKG[stdin]}" Depends)"
check_not "exec does not depend on stdin" "vthost-plugin-stdin" \
    "$(dpkg-deb -f "${PKG[exec]}" Depends)"
check "dev depends on cJSON headers" "libcjson-dev" "$(dpkg-deb -f "$DEV" Depends)"

# ---- contents ---------------------------------------------------------------
files() { dpkg-deb -c "$1" | awk '{print $1, $6}'; }
c=$(files "$HOST")
check "host: binary" "-rwxr-xr-x ./usr/bin/vthost" "$c"
check "host: profiles" "./usr/share/vthost/profiles/default.ini" "$c"
check "host: man page" "./usr/share/man/man1/vthost.1" "$c"
check "host: docs" "./usr/share/doc/vthost/sdk.md" "$c"
check_not "host: no plugin modules" ".so" "$c"
check_not "host: no SDK header" "plugin.h" "$c"
writable=$(for d in "$HOST" "$DEV" "${PKG[@]}"; do files "$d"; done |
           awk 'substr($1, 6, 1) == "w" || substr($1, 9, 1) == "w"')
check_eq "no group- or world-writable files or directories" "" "$writable"
c=$(files "$DEV")
check "dev: header" "./usr/include/vthost/plugin.h" "$c"
check "dev: pkg-config" "./usr/lib/pkgconfig/vthost-plugin.pc" "$c"
check "dev: cmake package" "./usr/lib/cmake/vthost-plugin/vthost-pluginConfig.cmake" "$c"
check "dev: example" "./usr/share/doc/vthost-dev/examples/wordtools.c" "$c"
for p in "${PLUGINS[@]}"; do
    mods=$(dpkg-deb -c "${PKG[$p]}" | awk '$6 ~ /\.so$/ {print $6}')
    check_eq "$p: exactly its module" "./usr/lib/vthost/plugins/${p//-/_}.so" "$mods"
done

# ---- subsets, unpacked and run ------------------------------------------
unpack() { # unpack ROOT PACKAGE...
    local root=$1; shift
    mkdir -p "$root"
    for d in "$@"; do dpkg -x "$d" "$root" || { echo "FAIL dpkg -x $d"; exit 1; }; done
}
R=$T/root
unpack "$R" "$HOST"
V=$R/usr/bin/vthost
vt() { "$V" --workspace "$T/ws" "$@"; }

out=$(vt --version 2>&1)
check "unpacked host runs" "plugin ABI $ABI_MAJOR.$ABI_MINOR" "$out"
out=$(vt tools 2>&1); rc=$?
check_eq "host alone: default profile fails" 1 "$rc"
for p in exec stdin patch search-tools; do
    check "host alone: names vthost-plugin-$p" "vthost-plugin-$p" "$out"
done
check "host alone: names the modules" "exec.so" "$out"
[[ "$out" =~ Searched:\ $R/usr/(bin/\.\./)?lib/vthost/plugins ]] &&
    echo "ok   host alone: names the searched directory" ||
    { echo "FAIL host alone: searched directory not named: [$out]"; fails=$((fails + 1)); }
check_not "host alone: code_search not needed by default" "vthost-plugin-code-search" "$out"

unpack "$R" "${PKG[exec]}" "${PKG[stdin]}" "${PKG[patch]}" "${PKG[search-tools]}"
out=$(vt tools 2>&1); rc=$?
check_eq "default plugins: tools exit" 0 "$rc"
check_eq "default plugins: default profile's tools" \
    $'exec_command\nwrite_stdin\napply_patch\nsearch_tools' "$out"
out=$(vt --yes call exec_command '{"cmd":"echo from-the-package"}' 2>&1); rc=$?
check_eq "default plugins: exec_command runs" 0 "$rc"
check "default plugins: exec_command output" "from-the-package" "$out"
out=$(vt --profile advanced tools 2>&1); rc=$?
check_eq "default plugins: advanced profile fails" 1 "$rc"
check "default plugins: advanced names vthost-plugin-code-search" "vthost-plugin-code-search" "$out"
check "default plugins: advanced names code_search.so" "code_search.so" "$out"
check_not "default plugins: advanced names nothing else" "vthost-plugin-exec" "$out"

unpack "$R" "${PKG[code-search]}"
out=$(vt --profile advanced tools 2>&1); rc=$?
check_eq "with code-search: advanced tools exit" 0 "$rc"
check "with code-search: code_search listed" "code_search" "$out"
printf 'int packaged_marker(void) { return 1; }\n' >"$T/ws/m.c"
out=$(vt --yes --profile advanced call code_search '{"query":"packaged_marker"}' 2>&1); rc=$?
check_eq "with code-search: code_search runs" 0 "$rc"
check "with code-search: code_search finds the file" "m.c" "$out"
out=$(vt tools 2>&1); rc=$?
check_eq "with code-search: default profile still works" 0 "$rc"
check_not "with code-search: not listed by default" "code_search" "$out"

# The SDK package alone is usable with pkg-config where it was unpacked.
D=$T/devroot
unpack "$D" "$DEV"
out=$(PKG_CONFIG_PATH="$D/usr/lib/pkgconfig" pkg-config --cflags vthost-plugin 2>&1)
check "dev unpacked: pkg-config points into the root" "-I$D/usr/lib/pkgconfig/../../include" "$out"

if ((fails)); then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
