#!/usr/bin/env bash
# What a start maps: without any vtcode.toml the TOML reader module (toml++
# and the C++ runtime) is never opened; with one it is opened and the file
# takes effect; a broken file is still reported with its position; and an
# installation that lost the module says so instead of misreading.
set -u
V=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/ws" "$T/home"
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_CACHE_HOME=$T/home/.cache
cd "$T/ws"
fails=0
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh" # check, check_not, check_eq
loaded() { # the shared objects a run opens (the dynamic loader's own account)
    # without the cached listing of `vthost tools` (tools_cache.sh tests it)
    rm -rf "$XDG_CACHE_HOME/vthost/tools"
    LD_DEBUG=files "$@" 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\) .*/\1/p' | sort -u | tr '\n' ' '
}

# ---- no vtcode.toml anywhere: nothing of the TOML reader is mapped ----------
out=$("$V" tools --format names 2>&1)
check "bare start lists the default profile" $'exec_command\nwrite_stdin\napply_patch\nsearch_tools' "$out"
objs=$(loaded "$V" tools)
check "the loader trace is readable" "exec.so" "$objs"
check_not "bare start: no TOML reader module" "toml-reader.mod" "$objs"
check_not "bare start: no toml++" "libtomlplusplus" "$objs"
# a sanitizer runtime may bring the C++ runtime itself
if ! ldd "$V" | grep -q 'libstdc++'; then
    check_not "bare start: no C++ runtime" "libstdc++" "$objs"
fi
# cJSON and libutf8proc are opened by the host's first call of theirs
# (util/cjson_lazy.c, util/utf8proc_lazy.c): a listing from the cache
# makes none, and opens no plugin.
"$V" tools >/dev/null
objs=$(LD_DEBUG=files "$V" tools 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\) .*/\1/p' | sort -u)
check_not "a cached listing: no plugin opened" "exec.so" "$objs"
check_not "a cached listing: no libutf8proc" "libutf8proc" "$objs"
check_not "a cached listing: no libcjson" "libcjson" "$objs"
check "a listing made afresh opens libcjson" "libcjson" "$(loaded "$V" tools)"
objs=$(loaded "$V" call search_tools '{"query":"patch"}')
check_not "one-shot call: no TOML reader module" "toml-reader.mod" "$objs"
# Libraries opened on first use, and a module the profile leaves closed.
objs=$(loaded "$V" tools)
for lib in libcurl http-transport.mod libstemmer libffi libyaml libseccomp libpcre2 code_search.so libmicrohttpd libcrypto libgnutls; do
    check_not "bare start: no $lib" "$lib" "$objs"
done
# search_tools also ranks the tools already listed, so a search stems its
# words (libstemmer) even when nothing is deferred; one that matches
# nothing still scores nothing.
objs=$(loaded "$V" call search_tools '{"query":"review pull requests"}')
# The math library scores search results (a sanitizer runtime brings it).
if ldd "$V" | grep -q 'libm\.so'; then
    echo "skip no libm at start: the executable itself links it (sanitizer runtime)"
else
    check_not "a search that matches nothing: no libm" "libm.so" "$objs"
    check_not "bare start: no libm" "libm.so" "$(loaded "$V" tools)"
fi
check_not "a one-shot call under the default policy: no libpcre2" "libpcre2" "$objs"
# A rule with a wildcard inside is a pattern: PCRE2 opens for it and the
# rule holds.
printf '[permissions]\ndeny = ["Bash(git * --force)"]\n' >"$T/ws/vtcode.toml"
objs=$(loaded "$V" explain exec_command '{"cmd":"git push --force"}')
check "a pattern rule opens libpcre2" "libpcre2" "$objs"
out=$("$V" explain exec_command '{"cmd":"git push --force"}' 2>&1)
check "the pattern rule denies" '"decision":"deny"' "$out"
out=$("$V" explain exec_command '{"cmd":"git push origin"}' 2>&1)
check_not "the pattern rule denies only what it matches" '"decision":"deny"' "$out"
rm -f "$T/ws/vtcode.toml"
# For real: a pattern deny rule must stop the command however it is
# spelt (the run-time check matches what actually executes, through the
# same lazily opened PCRE2), and the victim file must survive; an allowed
# command beside it does run.
printf '[permissions]\ndeny = ["Bash(rm * victim)"]\nallow = ["Bash(*)"]\n' >"$T/policy.toml"
for cmd in 'rm -f victim' '$(echo rm) -f victim' 'echo cm0gLWYgdmljdGltCg== | base64 -d | sh'; do
    touch "$T/ws/victim"
    "$V" --config "$T/policy.toml" call exec_command "{\"cmd\":\"$cmd\"}" >/dev/null 2>&1
    check "pattern deny rule holds against [$cmd]: the victim survives" "yes" \
        "$([ -e "$T/ws/victim" ] && echo yes || echo no)"
done
"$V" --config "$T/policy.toml" call exec_command '{"cmd":"touch allowed-marker"}' >/dev/null 2>&1
check "an allowed command beside the pattern rule runs" "yes" \
    "$([ -e "$T/ws/allowed-marker" ] && echo yes || echo no)"
rm -f "$T/ws/victim" "$T/ws/allowed-marker" "$T/policy.toml"
objs=$(loaded "$V" --profile advanced tools)
check "advanced profile: code_search.so is opened" "code_search.so" "$objs"

# ---- default profile: code_search left closed, its names still valid ---------
out=$("$V" call code_search '{"query":"x"}' 2>&1)
rc=$?
check "closed module: calling its tool is refused (exit 2)" "2" "$rc"
check "closed module: the refusal names the profile that lists it" \
    "Tool 'code_search' is available only in a profile that lists it (for code_search: --profile advanced" "$out"
out=$("$V" explain code_search '{"query":"x"}' 2>&1)
check "closed module: explain says the same" "available only in a profile that lists it" "$out"
printf '[permissions]\ndeny = ["Read(secret/**)", "code_search(x/**)"]\nallow = ["read"]\n' >"$T/ws/vtcode.toml"
out=$("$V" --config "$T/ws/vtcode.toml" tools --format names 2>&1)
check "closed module: rules naming its tool and aliases stay valid" "search_tools" "$out"
printf '[permissions]\ndeny = ["Reed(secret/**)"]\n' >"$T/ws/vtcode.toml"
out=$("$V" --config "$T/ws/vtcode.toml" tools 2>&1)
check "closed module: a misspelt alias is still caught" 'did you mean "Read"' "$out"
rm -f "$T/ws/vtcode.toml"
out=$("$V" plugins 2>&1)
check "vthost plugins still opens and shows it" "code_search" "$out"
# The profile's list of the closed module's names is the module's own.
declared=$(sed -n 's/^unopened_names *= *//p' "$(dirname "$V")/../share/vthost/profiles/default.ini" |
    tr -d ' ' | tr ',' '\n' | sort | tr '\n' ' ')
actual=$("$V" --profile advanced --format json plugins | python3 -c '
import json, sys
names = set()
for m in json.load(sys.stdin)["modules"]:
    if m["module"] == "code_search":
        for t in m["tools"]:
            names.add(t["name"]); names.update(t.get("rule_aliases", []))
print(" ".join(sorted(names)) + " ")')
if [[ -n "${actual// }" && "$actual" == "$declared" ]]; then
    echo "ok   default.ini unopened_names match code_search's tools and aliases ($actual)"
else
    echo "FAIL default.ini unopened_names [$declared] != code_search's tools and aliases [$actual]"
    fails=$((fails + 1))
fi

# ---- a workspace vtcode.toml: the module is opened and the file counts -----
printf '[tools]\nprofile = "advanced"\n' >"$T/ws/vtcode.toml"
objs=$(loaded "$V" --config "$T/ws/vtcode.toml" tools)
check "vtcode.toml: the TOML reader module is opened" "toml-reader.mod" "$objs"
check_not "vtcode.toml: toml++ is compiled into the module" "libtomlplusplus" "$objs"
mod=$(dirname "$V")/../lib/vthost/private/toml-reader.mod
if ! readelf -d "$mod" | grep -q 'libstdc++'; then  # sanitizer builds link it
    check_not "vtcode.toml: the C++ runtime is inside the module" "libstdc++" "$objs"
    # ... and the two rounding-mode functions its float parsing needs.
    printf '[tools]\nprofile = "default"\n' >"$T/ws/vtcode.toml"
    check_not "vtcode.toml: no libm for the module" "libm.so" \
        "$(loaded "$V" --config "$T/ws/vtcode.toml" tools)"
    printf '[tools]\nprofile = "advanced"\n' >"$T/ws/vtcode.toml"
fi
out=$("$V" --config "$T/ws/vtcode.toml" tools --format names 2>&1)
check "vtcode.toml: its profile takes effect" "code_search" "$out"
printf '[tools]\nprofile = \n' >"$T/ws/vtcode.toml"
out=$("$V" --config "$T/ws/vtcode.toml" tools 2>&1)
rc=$?
check "broken vtcode.toml: exit 2" "2" "$rc"
check "broken vtcode.toml: file and line" "vtcode.toml:2:" "$out"
printf '[tools]\nprofile = "advanced"\n' >"$HOME/user.toml"
mkdir -p "$XDG_CONFIG_HOME/vtcode" && cp "$HOME/user.toml" "$XDG_CONFIG_HOME/vtcode/vtcode.toml"
rm -f "$T/ws/vtcode.toml"
out=$("$V" tools --format names 2>&1)
check "the user's vtcode.toml is read too" "code_search" "$out"
rm -rf "$XDG_CONFIG_HOME/vtcode"

# ---- an installation without the module ------------------------------------
root=$(cd "$(dirname "$V")/.." && pwd)
mkdir -p "$T/inst/bin" "$T/inst/lib/vthost/private" "$T/inst/share/vthost"
cp "$V" "$T/inst/bin/vthost"
cp -r "$root/lib/vthost/plugins" "$T/inst/lib/vthost/plugins"
cp -r "$root/share/vthost/profiles" "$T/inst/share/vthost/profiles"
out=$("$T/inst/bin/vthost" tools --format names 2>&1)
check "no module, no vtcode.toml: still starts" "search_tools" "$out"
printf '[tools]\nprofile = "advanced"\n' >"$T/ws/vtcode.toml"
out=$("$T/inst/bin/vthost" --config "$T/ws/vtcode.toml" tools 2>&1)
rc=$?
check "no module, a vtcode.toml: refuses to start" "2" "$rc"
check "no module: names the missing part" "cannot load the TOML reader $T/inst/bin/../lib/vthost/private/toml-reader.mod" "$out"
check_not "no module: does not list tools" "exec_command" "$out"

[ $fails -eq 0 ] && echo "all startup path checks passed" || echo "$fails startup path checks FAILED"
exit $((fails != 0))
