#!/usr/bin/env bash
# The cached listing of `vthost tools`: a second listing of an unchanged
# install opens no plugin and prints the same; a changed module, profile
# or vtcode.toml is seen at once; a cache file that is not the user's own
# private regular file (or a link) is never read; a call never reads it.
set -u
V=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/ws" "$T/home"
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_CACHE_HOME=$T/home/.cache
cd "$T/ws"
fails=0
. "$here/../checks.sh" # check, check_not, check_eq
loaded() { LD_DEBUG=files "$@" 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\) .*/\1/p' | sort -u | tr '\n' ' '; }
listing=$'exec_command\nwrite_stdin\napply_patch\nsearch_tools'

# A copy of the installation whose files are older than the two seconds
# within which a listing is not kept (a change in one timestamp tick).
root=$(cd "$(dirname "$V")/.." && pwd)
mkdir -p "$T/inst/bin" "$T/inst/lib/vthost" "$T/inst/share/vthost"
cp "$V" "$T/inst/bin/vthost"
cp -r "$root/lib/vthost/plugins" "$root/lib/vthost/private" "$T/inst/lib/vthost/"
cp -r "$root/share/vthost/profiles" "$T/inst/share/vthost/profiles"
I=$T/inst/bin/vthost
sleep 2.2

out=$("$I" tools 2>&1)
check_eq "first listing" "$listing" "$out"
files=$(ls "$XDG_CACHE_HOME/vthost/tools" 2>/dev/null)
[[ -n $files ]] || { echo "FAIL no cache file was written"; fails=$((fails + 1)); }
f=$XDG_CACHE_HOME/vthost/tools/$files
check_eq "the cache file is private" "600" "$(stat -c %a "$f" 2>/dev/null)"
objs=$(loaded "$I" tools)
check_not "second listing: no plugin opened" "exec.so" "$objs"
check_not "second listing: no plugin opened (search_tools)" "search_tools.so" "$objs"
check_not "second listing: no profile parsed (no libinih)" "libinih" "$objs"
check_eq "second listing: the same" "$listing" "$("$I" tools 2>&1)"
mcp1=$("$I" tools --format mcp 2>&1)
check "another format is its own listing" '"inputSchema"' "$mcp1"
check_eq "another format, from the cache: the same" "$mcp1" "$("$I" tools --format mcp 2>&1)"
# a call never reads the listing: it opens its plugins
objs=$(loaded "$I" call search_tools '{"query":"x"}')
check "a call opens its plugins" "search_tools.so" "$objs"

# ---- what the listing is made of changes: seen at once -----------------------
mkdir -p "$XDG_CONFIG_HOME/vtcode"
printf '[tools]\nprofile = "advanced"\n' >"$XDG_CONFIG_HOME/vtcode/vtcode.toml"
check "a new user vtcode.toml takes effect" "code_search" "$("$I" tools 2>&1)"
printf '[tools]\nprofile = 3\n' >"$XDG_CONFIG_HOME/vtcode/vtcode.toml"
out=$("$I" tools 2>&1)
rc=$?
check_eq "a broken user vtcode.toml: exit 2" "2" "$rc"
check "a broken user vtcode.toml: said" "tools.profile" "$out"
rm -rf "$XDG_CONFIG_HOME/vtcode"
check_eq "the file gone: the default listing again" "$listing" "$("$I" tools 2>&1)"
sed 's/^tools = exec_command, write_stdin, apply_patch, search_tools/tools = exec_command, search_tools/' \
    "$T/inst/share/vthost/profiles/default.ini" >"$T/default.ini"
cat "$T/default.ini" >"$T/inst/share/vthost/profiles/default.ini"
check_eq "an edited profile takes effect" $'exec_command\nsearch_tools' "$("$I" tools 2>&1)"
cp "$root/share/vthost/profiles/default.ini" "$T/inst/share/vthost/profiles/default.ini"
check_eq "the profile restored" "$listing" "$("$I" tools 2>&1)"
# a module replaced by one that is no plugin: refused, never listed from the cache
cp "$T/inst/lib/vthost/plugins/exec.so" "$T/exec.so"
printf 'not a plugin' >"$T/inst/lib/vthost/plugins/exec.so"
out=$("$I" tools 2>&1)
rc=$?
check_not "a replaced module: not listed from the cache (exit)" "0" "$rc"
check "a replaced module: refused" "exec" "$out"
cp "$T/exec.so" "$T/inst/lib/vthost/plugins/exec.so"
check_eq "the module restored" "$listing" "$("$I" tools 2>&1)"

# a new entry in the plugin directory or an agent file: the listing is
# made afresh (its plugins opened), not replayed
sleep 2.2
"$I" tools >/dev/null 2>&1 # kept again
check_not "before the new entries: from the cache" "exec.so" "$(loaded "$I" tools)"
printf 'junk' >"$T/inst/lib/vthost/plugins/zz_new.so"
check "a new file among the plugins: not from the cache" "exec.so" "$(loaded "$I" tools)"
rm -f "$T/inst/lib/vthost/plugins/zz_new.so"
sleep 2.2
"$I" tools >/dev/null 2>&1
for d in "$T/ws/.vtcode/agents" "$XDG_CONFIG_HOME/vtcode/agents"; do
    mkdir -p "$d"
    printf -- '---\npermissions:\n  default: deny\n---\n' >"$d/new.md"
    check "a new agent file in ${d#"$T"/}: not from the cache" "exec.so" "$(loaded "$I" tools)"
    rm -rf "$d"
done
rm -rf "$T/ws/.vtcode"

# two installations listing the same workspace keep a listing each
# (the executable's path names the cache file)
cp -r "$T/inst" "$T/inst2"
sleep 2.2
"$I" tools >/dev/null 2>&1
"$T/inst2/bin/vthost" tools >/dev/null 2>&1
check_not "after another installation's listing: still from the cache" "exec.so" \
    "$(loaded "$I" tools)"
check_eq "... and the same" "$listing" "$("$I" tools 2>&1)"
rm -rf "$T/inst2"

# an untrusted workspace's vtcode.toml: its warning is said again with the
# listing from the cache, word for word
printf '[tools]\nprofile = "advanced"\n' >"$T/ws/vtcode.toml"
sleep 2.2
first=$("$I" tools 2>&1)
check "untrusted vtcode.toml: its keys are ignored, said" "are ignored: tools" "$first"
check_not "untrusted vtcode.toml: its profile is not applied" "code_search" "$first"
check_eq "untrusted vtcode.toml, from the cache: the same words" "$first" "$("$I" tools 2>&1)"
check_not "untrusted vtcode.toml, from the cache: no plugin opened" "exec.so" "$(loaded "$I" tools)"
"$I" trust "$T/ws" >/dev/null 2>&1
out=$("$I" tools 2>&1)
check "trusted now: its profile applies at once" "code_search" "$out"
check_not "trusted now: no warning" "ignored" "$out"
rm -rf "$T/ws/vtcode.toml" "$XDG_CONFIG_HOME/vtcode"

# ---- a cache file that is not the user's own private file --------------------
sleep 2.2
"$I" tools >/dev/null 2>&1 # kept again
sed 's/^search_tools$/evil___tools/' "$f" >"$T/forged"
check "the forgery keeps the key" "evil___tools" "$(tr -d '\0' <"$T/forged")"
rm -f "$f"
cp "$T/forged" "$f" && chmod 600 "$f"
check "a private cache file of the user's is read (the forgery is well made)" "evil___tools" \
    "$("$I" tools 2>&1)"
chmod 644 "$f"
out=$("$I" tools 2>&1)
check_not "a group/world-readable cache file is not read" "evil___tools" "$out"
check_eq "... and the listing is made afresh" "$listing" "$out"
rm -f "$f"
chmod 600 "$T/forged"
ln -s "$T/forged" "$f"
out=$("$I" tools 2>&1)
check_not "a cache file that is a link is not read" "evil___tools" "$out"
rm -f "$f"
mkdir "$f"
check_eq "a directory in its place: the listing still works" "$listing" "$("$I" tools 2>&1)"
rmdir "$f"

exit $((fails > 0))
