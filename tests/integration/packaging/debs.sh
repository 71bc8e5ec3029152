#!/usr/bin/env bash
# The distro packager's path: cpack -G DEB, then subsets of the packages
# unpacked with dpkg -x into temporary roots, each run as installed:
#   host alone                   -> the default profile names the missing
#                                   packages (vthost-plugin-exec, ...)
#   host + the five default ones -> the default profile works
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
PLUGINS=(exec stdin patch search-tools code-search mcp-providers)
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
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh" # check, check_not, check_eq

# ---- build the packages ---------------------------------------------------
# ctest runs after the build, so cpack's "preinstall" step (a full build
# check through make, slow on a busy machine) is skipped by naming a
# generator without one.  The packages are built exactly as a release
# would be (dpkg-shlibdeps for every package), since lintian judges them.
fast=()
command -v ninja >/dev/null && fast+=(-D CPACK_CMAKE_GENERATOR=Ninja)
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
    "vthost-plugin-exec, vthost-plugin-stdin, vthost-plugin-patch, vthost-plugin-search-tools, vthost-plugin-mcp-providers" \
    "$(dpkg-deb -f "$HOST" Recommends)"
if command -v dpkg-shlibdeps >/dev/null; then
    check "host depends on its libraries" "libcjson1" "$(dpkg-deb -f "$HOST" Depends)"
    check "host depends on libffi (opened, not linked)" "libffi8" "$(dpkg-deb -f "$HOST" Depends)"
    check "host depends on libyaml (opened, not linked)" "libyaml-0-2" "$(dpkg-deb -f "$HOST" Depends)"
    check "exec depends on libseccomp (opened, not linked)" "libseccomp2" \
        "$(dpkg-deb -f "${PKG[exec]}" Depends)"
    check "search-tools depends on libstemmer (opened, not linked)" "libstemmer0d" \
        "$(dpkg-deb -f "${PKG[search-tools]}" Depends)"
    check "mcp-providers depends on libcurl (HTTP providers)" "libcurl4" \
        "$(dpkg-deb -f "${PKG[mcp-providers]}" Depends)"
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
check "host: man page, compressed" "./usr/share/man/man1/vthost.1.gz" "$c"
check "host: docs" "./usr/share/doc/vthost/sdk.md" "$c"
check "host: systemd unit" "./usr/lib/systemd/system/vthost-http@.service" "$c"
check_not "host: no plugin modules" ".so" "$c"
check_not "host: no SDK header" "plugin.h" "$c"
writable=$(for d in "$HOST" "$DEV" "${PKG[@]}"; do files "$d"; done |
           awk 'substr($1, 6, 1) == "w" || substr($1, 9, 1) == "w"')
check_eq "no group- or world-writable files or directories" "" "$writable"
c=$(files "$DEV")
check "dev: header" "./usr/include/vthost/plugin.h" "$c"
check "dev: service contracts (plugin.h includes them)" "./usr/include/vthost/services.h" "$c"
check "dev: pkg-config" "./usr/share/pkgconfig/vthost-plugin.pc" "$c"
check "dev: cmake package" "./usr/lib/cmake/vthost-plugin/vthost-pluginConfig.cmake" "$c"
check "dev: example" "./usr/share/doc/vthost-dev/examples/wordtools.c" "$c"
for p in "${PLUGINS[@]}"; do
    mods=$(dpkg-deb -c "${PKG[$p]}" | awk '$6 ~ /\.so$/ {print $6}')
    check_eq "$p: exactly its module" "./usr/lib/vthost/plugins/${p//-/_}.so" "$mods"
done

# ---- Debian policy: copyright, changelog, maintainer, stripped, hardened --
X=$T/policy
for d in "$HOST" "$DEV" "${PKG[@]}"; do
    name=$(dpkg-deb -f "$d" Package)
    c=$(dpkg-deb -c "$d" | awk '{print $6}')
    check "$name: copyright file" "./usr/share/doc/$name/copyright" "$c"
    check "$name: changelog" "./usr/share/doc/$name/changelog.gz" "$c"
    mkdir -p "$X/$name" && dpkg -x "$d" "$X/$name"
    check "$name: machine-readable copyright" \
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" \
        "$(head -1 "$X/$name/usr/share/doc/$name/copyright")"
    check "$name: changelog entry" "vthost ($VERSION) unstable" \
        "$(gzip -dc "$X/$name/usr/share/doc/$name/changelog.gz" | head -1)"
    m=$(dpkg-deb -f "$d" Maintainer)
    [[ "$m" =~ ^[^\<]+\ \<[^@\ ]+@[^@\ ]+\.[a-z]+\>$ && "$m" != *localhost* ]] &&
        echo "ok   $name: maintainer [$m]" ||
        { echo "FAIL $name: maintainer [$m]"; fails=$((fails + 1)); }
done
check_eq "dev package is architecture-independent" "all" "$(dpkg-deb -f "$DEV" Architecture)"
for f in "$X/vthost/usr/bin/vthost" "$X"/vthost-plugin-*/usr/lib/vthost/plugins/*.so; do
    rel=${f#"$X"/}
    sec=$(readelf -S -W "$f")
    check_not "$rel: stripped" ".debug_info" "$sec"
    check_not "$rel: no symbol table" " .symtab " "$sec"
    dyn=$(readelf -d -W "$f")
    check "$rel: BIND_NOW" "NOW" "$(grep -E 'BIND_NOW|FLAGS' <<<"$dyn")"
    check "$rel: RELRO" "GNU_RELRO" "$(readelf -l -W "$f")"
done
# Fortified calls where there are fortifiable ones (the small plugins have
# none).  A sanitizer build goes without fortify (ASan checks those calls).
fortify=("$X/vthost/usr/bin/vthost" "$X/vthost-plugin-exec/usr/lib/vthost/plugins/exec.so")
unfortified=() # lintian's view of the same: only its fortify tag set aside
if grep -qE '^VTHOST_SANITIZE:BOOL=(ON|1|TRUE|YES)$' "$BUILD/CMakeCache.txt"; then
    echo "not checked: fortify (a sanitizer build)"
    fortify=()
    unfortified=(--suppress-tags hardening-no-fortify-functions)
fi
for f in "${fortify[@]}"; do
    check "${f#"$X"/}: fortified" "_chk@" "$(readelf --dyn-syms -W "$f" | grep -o '__[a-z_]*_chk@' | head -1)"
done
check "host binary is PIE" "DYN" "$(readelf -h "$X/vthost/usr/bin/vthost" | grep Type:)"
# -dbgsym packages only with VTHOST_DBGSYM (debug files are large);
# then one per binary package, with the debug symbols.
dbg=()
if grep -qE '^VTHOST_DBGSYM:BOOL=(ON|1|TRUE|YES)$' "$BUILD/CMakeCache.txt"; then
    for p in vthost "${PLUGINS[@]/#/vthost-plugin-}"; do
        dbg=("$T/out/$p-dbgsym"_*.ddeb)
        [[ -f "${dbg[0]}" ]] && echo "ok   $p: debug symbols in ${dbg[0]##*/}" ||
            { echo "FAIL $p: no -dbgsym package"; fails=$((fails + 1)); }
    done
else
    extra=$(cd "$T/out" && ls ./*dbgsym* ./*.ddeb 2>/dev/null | tr '\n' ' ')
    check_eq "no -dbgsym package without VTHOST_DBGSYM" "" "$extra"
    check_eq "the host binary is stripped" "" \
        "$(readelf -S -W "$X/vthost/usr/bin/vthost" | grep -E '\.(debug_info|symtab) ')"
fi
if [[ -f "${dbg[0]:-}" ]]; then
    mkdir -p "$X/dbg" && dpkg -x "${dbg[0]}" "$X/dbg"
    check "a dbgsym package has DWARF" ".debug_info" \
        "$(find "$X/dbg" -name '*.debug' -exec readelf -S -W {} + | grep debug_info)"
fi

# lintian reports nothing on any package built: no error, no warning, and
# no informational, pedantic or experimental tag either (-I -E --pedantic).
if ! command -v lintian >/dev/null; then
    echo "FAIL lintian is not installed (./setup.sh test installs it)"
    fails=$((fails + 1))
else
    all_debs=("$HOST" "$DEV" "${PKG[@]}")
    for d in "$T/out/"*.ddeb; do [ -f "$d" ] && all_debs+=("$d"); done
    lint=$(lintian --allow-root --tag-display-limit 0 -I -E --pedantic "${unfortified[@]}" "${all_debs[@]}" 2>&1)
    [ -n "$lint" ] && sed 's/^/     /' <<<"$lint"
    check_eq "lintian -I -E --pedantic: nothing on ${#all_debs[@]} packages" "" \
        "$(grep -E '^[EWIPX]: ' <<<"$lint")"
    # The -dbgsym packages as VTHOST_DBGSYM builds them, whatever this
    # build's setting: CPack's own, mended by sdk/debian/dbgsym_fixup.cmake.
    SRC=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt")
    (cd "$BUILD" && "$CPACK" -G DEB "${fast[@]}" --config "$BUILD/CPackConfig.cmake" \
        -B "$T/outd" -D CPACK_STRIP_FILES=OFF -D CPACK_DEBIAN_DEBUGINFO_PACKAGE=ON \
        -D CPACK_POST_BUILD_SCRIPTS="$SRC/sdk/debian/dbgsym_fixup.cmake") \
        >"$T/cpackd.log" 2>&1 || { cat "$T/cpackd.log"; echo "FAIL cpack (dbgsym)"; exit 1; }
    ddebs=("$T/outd/"*.ddeb)
    check_eq "a -dbgsym package per binary package" "$((${#PKG[@]} + 1))" "${#ddebs[@]}"
    # beside the packages they belong to (one source: the links into them
    # are checked)
    lint=$(lintian --allow-root --tag-display-limit 0 -I -E --pedantic "${unfortified[@]}" "$HOST" "${PKG[@]}" \
        "${ddebs[@]}" 2>&1)
    [ -n "$lint" ] && sed 's/^/     /' <<<"$lint"
    check_eq "lintian -I -E --pedantic: nothing on the ${#ddebs[@]} -dbgsym packages" "" \
        "$(grep -E '^[EWIPX]: ' <<<"$lint")"
fi

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
for p in exec stdin patch search-tools mcp-providers; do
    check "host alone: names vthost-plugin-$p" "vthost-plugin-$p" "$out"
done
check "host alone: names the modules" "exec.so" "$out"
[[ "$out" =~ Searched:\ $R/usr/(bin/\.\./)?lib/vthost/plugins ]] &&
    echo "ok   host alone: names the searched directory" ||
    { echo "FAIL host alone: searched directory not named: [$out]"; fails=$((fails + 1)); }
check_not "host alone: code_search not needed by default" "vthost-plugin-code-search" "$out"

unpack "$R" "${PKG[exec]}" "${PKG[stdin]}" "${PKG[patch]}" "${PKG[search-tools]}" \
    "${PKG[mcp-providers]}"
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
out=$(PKG_CONFIG_PATH="$D/usr/share/pkgconfig" pkg-config --cflags vthost-plugin 2>&1)
check "dev unpacked: pkg-config points into the root" "-I$D/usr/share/pkgconfig/../../include" "$out"

if ((fails)); then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
