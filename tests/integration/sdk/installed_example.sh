#!/usr/bin/env bash
# The third-party path, end to end, from an installed tree only:
#   cmake --install BUILD --prefix STAGE, then the tree is moved (the
#   installed host, pkg-config and CMake files must all be relocatable);
#   sdk/examples (wordtools and the worked file tool linecount), as
#   installed under share/doc/vthost-dev/examples, is
#   built with its Makefile (pkg-config) and its CMakeLists.txt
#   (find_package(vthost-plugin)); each module is dropped into a plugin
#   directory and the installed vthost must load it, keep its tools
#   deferred, find them with search_tools, call them, and apply
#   permission rules to the paths their subjects hook reports.
set -u
BUILD=$1 CMAKE=$2
umask 022   # the host refuses group- or world-writable modules
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config"
unset VTHOST_PLUGIN_PATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH
mkdir -p "$HOME"
fails=0
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh" # check, check_not, check_eq
die() { echo "FAIL $*"; exit 1; }

# The checks run the default profile and search_tools: a build with one
# of its plugins switched off cannot run them.
off=$(grep -E '^VTHOST_PLUGIN_(EXEC|STDIN|PATCH|SEARCH_TOOLS):BOOL=(OFF|0|FALSE|NO)$' \
      "$BUILD/CMakeCache.txt" | cut -d: -f1)
if [[ -n "$off" ]]; then
    echo "SKIP: the default profile's plugins are not all built (" $off ")"
    exit 77
fi

# ---- install, then move the tree ---------------------------------------
"$CMAKE" --install "$BUILD" --prefix "$T/stage" >"$T/install.log" 2>&1 ||
    { cat "$T/install.log"; die "cmake --install"; }
mv "$T/stage" "$T/prefix"
P=$T/prefix
V=$P/bin/vthost
for f in bin/vthost include/vthost/plugin.h include/vthost/services.h \
         share/pkgconfig/vthost-plugin.pc \
         lib/cmake/vthost-plugin/vthost-pluginConfig.cmake \
         lib/cmake/vthost-plugin/vthost-pluginConfigVersion.cmake \
         share/vthost/profiles/default.ini share/vthost/profiles/advanced.ini \
         share/man/man1/vthost.1.gz share/doc/vthost/sdk.md \
         share/doc/vthost-dev/examples/wordtools.c \
         share/doc/vthost-dev/examples/linecount.c \
         share/doc/vthost-dev/examples/CMakeLists.txt \
         share/doc/vthost-dev/examples/Makefile; do
    if [[ -f "$P/$f" ]]; then echo "ok   installed $f"; else
        echo "FAIL installed $f: missing"; fails=$((fails + 1)); fi
done
out=$(MANWIDTH=80 man -l "$P/share/man/man1/vthost.1.gz" 2>&1)
check "man page renders (needs man-db)" "EXIT STATUS" "$out"

# ---- pkg-config, relocated ---------------------------------------------
export PKG_CONFIG_PATH="$P/share/pkgconfig"
out=$(pkg-config --cflags --libs vthost-plugin 2>&1)
check "pkg-config cflags: the SDK's include directory" "-I$P/share/pkgconfig/../../include" "$out"
check_not "pkg-config cflags: no compiler policy in Cflags" "-fvisibility" "$out"
check "pkg-config pulls in cJSON" "-lcjson" "$out"
inc=$(pkg-config --variable=includedir vthost-plugin)
check_eq "pkg-config includedir follows the moved tree" "$P/include" "$(realpath -m "$inc")"
pdir=$(pkg-config --variable=plugindir vthost-plugin)
check_eq "pkg-config plugindir" "$P/lib/vthost/plugins" "$(realpath -m "$pdir")"
check_eq "pkg-config ABI is the host's" \
    "$("$V" --version | sed -E 's/.*plugin ABI ([0-9]+\.[0-9]+).*/\1/')" \
    "$(pkg-config --variable=abi_major vthost-plugin).$(pkg-config --variable=abi_minor vthost-plugin)"
check_eq "pkg-config version" "$("$V" --version | sed -E 's/^vthost ([^ ]+).*/\1/')" \
    "$(pkg-config --modversion vthost-plugin)"

# ---- build the installed example both ways -----------------------------
EX=$P/share/doc/vthost-dev/examples
cp -r "$EX" "$T/mk"
cp -r "$EX" "$T/cm"
make -C "$T/mk" >"$T/make.log" 2>&1 || { cat "$T/make.log"; die "make (pkg-config)"; }
unset PKG_CONFIG_PATH
"$CMAKE" -S "$T/cm" -B "$T/cm/build" -DCMAKE_PREFIX_PATH="$P" >"$T/cmake.log" 2>&1 &&
    "$CMAKE" --build "$T/cm/build" >>"$T/cmake.log" 2>&1 ||
    { cat "$T/cmake.log"; die "cmake build (find_package)"; }
check "find_package used the installed SDK" "$P/include" \
    "$(cat "$T"/cm/build/CMakeFiles/wordtools.dir/flags.make 2>&1)"
mkdir -p "$T/plugins-make" "$T/plugins-cmake"
cp "$T/mk/wordtools.so" "$T/mk/linecount.so" "$T/plugins-make/"
cp "$T/cm/build/wordtools.so" "$T/cm/build/linecount.so" "$T/plugins-cmake/"
for d in make cmake; do
    for m in wordtools linecount; do
        exports=$(nm -D --defined-only "$T/plugins-$d/$m.so" | awk '$2 == "T" {print $3}')
        check_eq "$d: $m: only vt_plugin_v1 is exported" "vt_plugin_v1" "$exports"
    done
done

# ---- the workspace ------------------------------------------------------
WS=$T/ws
mkdir -p "$WS/secret" "$WS/docs" "$WS/dir.txt"
printf 'the cat the dog\nthe end\n' >"$WS/notes.txt"
printf 'alpha beta\ngamma\n' >"$WS/secret/keys.txt"
printf 'one two three\n' >"$WS/docs/readme.md"
printf 'a\nb\nlast line without a newline' >"$WS/three.txt"
printf 'outside\n' >"$T/outside.txt"
ln -s "$T/outside.txt" "$WS/escape.txt"
cat >"$WS/vtcode.toml" <<'TOML'
[permissions]
allow = ["word_count(/**/*.txt)", "file_head(/**/*.txt)", "line_count(/**/*.txt)"]
deny = ["word_count(/secret/**)", "file_head(/secret/**)", "line_count(/secret/**)"]
TOML

run_checks() { # run_checks LABEL PLUGIN_DIR
    local L=$1 D=$2 out rc
    vt() { "$V" --workspace "$WS" --config "$WS/vtcode.toml" --plugin-dir "$D" "$@"; }

    out=$(vt plugins 2>&1)
    check "$L: host searches its own relocated plugin dir" \
        "plugin directory: $P/lib/vthost/plugins" "$out"
    check_not "$L: nothing from the build tree" "$BUILD" "$out"
    check "$L: example loads" "loaded   wordtools      wordtools 1.0.0 (MIT)" "$out"
    check "$L: typed tool deferred" "tool word_count               deferred" "$out"
    check "$L: JSON tool deferred" "tool file_head                deferred" "$out"

    out=$(vt tools 2>&1)
    check "$L: default tools listed" "exec_command" "$out"
    check_not "$L: word_count not listed" "word_count" "$out"
    check_not "$L: file_head not listed" "file_head" "$out"

    out=$(vt call search_tools '{"query":"count words in a text file"}' 2>&1)
    check "$L: search_tools finds the typed tool" '"name":"word_count"' "$out"
    out=$(vt call search_tools '{"query":"first lines of a file","detail_level":"full"}' 2>&1)
    check "$L: search_tools finds the JSON tool" '"name":"file_head"' "$out"
    out=$(vt call search_tools '{"query":"count words","detail_level":"full"}' 2>&1)
    check "$L: typed schema has path" '"path":{"type":"string"' "$out"
    check "$L: typed schema has unique" '"unique":{"type":"boolean"' "$out"

    # The typed tool: arguments converted to C, the int64 back as "result".
    out=$(vt call word_count '{"path":"notes.txt","unique":false}' 2>&1); rc=$?
    check_eq "$L: word_count exit" 0 "$rc"
    check "$L: word_count result" '"result":6' "$out"
    out=$(vt call word_count '{"path":"notes.txt","unique":true}' 2>&1); rc=$?
    check_eq "$L: word_count unique exit" 0 "$rc"
    check "$L: word_count unique result" '"result":4' "$out"
    out=$(vt call word_count '{"path":"notes.txt"}' 2>&1); rc=$?
    check_eq "$L: derived schema requires unique" 2 "$rc"
    check "$L: missing argument named" "unique" "$out"
    check_not "$L: missing argument is not an unknown tool" "Unknown tool" "$out"
    out=$(vt call word_count '{"path":"notes.txt","unique":"yes"}' 2>&1); rc=$?
    check_eq "$L: derived schema types unique" 2 "$rc"
    check "$L: mistyped argument named" "unique" "$out"

    # The JSON tool: run, spool -> output, and its preflight hook.
    out=$(vt call file_head '{"path":"notes.txt","lines":1}' 2>&1); rc=$?
    check_eq "$L: file_head exit" 0 "$rc"
    check "$L: file_head output" '"output":"the cat the dog\n"' "$out"
    check_not "$L: file_head stops after 1 line" "the end" "$out"
    out=$(vt call file_head '{"path":"docs/"}' 2>&1); rc=$?
    check_eq "$L: preflight refusal exit" 2 "$rc"
    check "$L: preflight message" "names a directory" "$out"
    out=$(vt call file_head '{"path":"dir.txt"}' 2>&1); rc=$?
    check_eq "$L: run refuses a directory: exit" 1 "$rc"
    check "$L: run refuses a directory: message" "is not a regular file" "$out"

    # Permission subjects: the deny rule matches the reported path and
    # beats the broader allow; outside it the allow applies; with no rule
    # the default is to ask, which --yes answers.
    out=$(vt call word_count '{"path":"secret/keys.txt","unique":false}' 2>&1); rc=$?
    check_eq "$L: word_count denied exit" 1 "$rc"
    check "$L: word_count denied by rule" 'global deny rule \"word_count(/secret/**)\"' "$out"
    check_not "$L: denied call did not run" '"result"' "$out"
    out=$(vt call file_head '{"path":"secret/keys.txt"}' 2>&1); rc=$?
    check_eq "$L: file_head denied exit" 1 "$rc"
    check_not "$L: file_head denied output" "alpha" "$out"
    out=$(vt explain word_count '{"path":"secret/keys.txt","unique":true}' 2>&1)
    check "$L: explain deny" '"decision":"deny"' "$out"
    check "$L: explain rule" '"rule":"word_count(/secret/**)"' "$out"
    check "$L: explain subject" '"subjects":[{"kind":"path_read","value":"secret/keys.txt"}]' "$out"
    out=$(vt explain word_count '{"path":"notes.txt","unique":true}' 2>&1)
    check "$L: explain allow" '"decision":"allow"' "$out"
    check "$L: explain allow rule" '"rule":"word_count(/**/*.txt)"' "$out"
    # The worked file tool (sdk/examples/linecount.c): lines counted,
    # a directory and a path leaving the workspace refused with what to
    # do, a deny rule on the path it reports applied before it runs.
    out=$(vt call line_count '{"path":"notes.txt"}' 2>&1); rc=$?
    check_eq "$L: line_count exit" 0 "$rc"
    check "$L: line_count result" '"lines":2' "$out"
    out=$(vt call line_count '{"path":"three.txt"}' 2>&1)
    check "$L: line_count counts a last line without newline" '"lines":3' "$out"
    out=$(vt call line_count '{"path":"dir.txt"}' 2>&1); rc=$?
    check_eq "$L: line_count refuses a directory: exit" 1 "$rc"
    check "$L: line_count refuses a directory: message" \
        "dir.txt is a directory, not a regular file" "$out"
    # approved (--yes), so that it is the tool's resolve_path that refuses
    out=$(vt --yes call line_count '{"path":"escape.txt"}' 2>&1); rc=$?
    check_eq "$L: line_count refuses a link out of the workspace: exit" 1 "$rc"
    check "$L: line_count refuses a link out: message" "outside the workspace" "$out"
    check_not "$L: line_count read nothing outside" '"lines"' "$out"
    out=$(vt call line_count '{"path":"no-such.txt"}' 2>&1)
    check "$L: line_count names a missing file" "no-such.txt does not exist" "$out"
    out=$(vt call line_count '{"path":"secret/keys.txt"}' 2>&1); rc=$?
    check_eq "$L: line_count denied exit" 1 "$rc"
    check "$L: line_count denied by rule" 'line_count(/secret/**)' "$out"
    check_not "$L: line_count denied did not run" '"lines"' "$out"

    out=$(vt call word_count '{"path":"docs/readme.md","unique":false}' 2>&1); rc=$?
    check_eq "$L: unlisted path asks, no prompt" 1 "$rc"
    out=$(vt --yes call word_count '{"path":"docs/readme.md","unique":false}' 2>&1); rc=$?
    check_eq "$L: --yes approves" 0 "$rc"
    check "$L: --yes result" '"result":3' "$out"
}

run_checks make "$T/plugins-make"
run_checks cmake "$T/plugins-cmake"

# The version file refuses an SDK older than requested.
mkdir -p "$T/newer"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(x NONE)\nfind_package(vthost-plugin 99 REQUIRED)\n' \
    >"$T/newer/CMakeLists.txt"
out=$("$CMAKE" -S "$T/newer" -B "$T/newer/build" -DCMAKE_PREFIX_PATH="$P" 2>&1); rc=$?
check_eq "find_package refuses a newer requested version: exit" 1 "$rc"
check "find_package names the installed version" "$("$V" --version | awk '{print $2}')" "$out"

# DESTDIR staging (what a package build does) works for both builds and
# lands under the plugin directory the SDK names.
PKG_CONFIG_PATH="$P/share/pkgconfig" make -C "$T/mk" install DESTDIR="$T/destdir-make" \
    >"$T/make-destdir.log" 2>&1 || { cat "$T/make-destdir.log"; die "make install DESTDIR"; }
f="$T/destdir-make$P/lib/vthost/plugins/wordtools.so"
[[ -f "$f" ]] && echo "ok   make install DESTDIR: staged at \$DESTDIR$P/lib/vthost/plugins" ||
    { echo "FAIL make install DESTDIR: no $f"; find "$T/destdir-make" -type f; fails=$((fails + 1)); }
check_eq "make install DESTDIR: mode 0644" "644" "$(stat -c %a "$f" 2>&1)"
DESTDIR="$T/destdir-cmake" "$CMAKE" --install "$T/cm/build" >"$T/cm-destdir.log" 2>&1 ||
    { cat "$T/cm-destdir.log"; die "cmake --install DESTDIR"; }
f="$T/destdir-cmake$P/lib/vthost/plugins/wordtools.so"
[[ -f "$f" ]] && echo "ok   cmake --install DESTDIR: staged under the plugin directory" ||
    { echo "FAIL cmake --install DESTDIR: no $f"; find "$T/destdir-cmake" -type f; fails=$((fails + 1)); }
check_eq "cmake --install DESTDIR: mode 0644" "644" "$(stat -c %a "$f" 2>&1)"

# "make install" puts the module in the installed host's own plugin
# directory: found there without --plugin-dir.
PKG_CONFIG_PATH="$P/share/pkgconfig" make -C "$T/mk" install >"$T/make-install.log" 2>&1 ||
    { cat "$T/make-install.log"; die "make install"; }
out=$("$V" --workspace "$WS" plugins 2>&1)
check "make install: loaded from the prefix" "loaded   wordtools" "$out"
out=$("$V" --workspace "$WS" --config "$WS/vtcode.toml" call word_count '{"path":"notes.txt","unique":true}' 2>&1); rc=$?
check_eq "make install: callable without --plugin-dir" 0 "$rc"
check "make install: result" '"result":4' "$out"

# The relocated host reads the profiles of its own prefix (not only the
# copies built into it): an edit there shows.
sed -i 's/^tools = exec_command, write_stdin, /tools = exec_command, /' \
    "$P/share/vthost/profiles/default.ini"
out=$("$V" --workspace "$WS" tools 2>/dev/null)
check_eq "installed profile file is the one used" \
    $'exec_command\napply_patch\nsearch_tools' "$out"

if ((fails)); then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
