#!/usr/bin/env bash
# Drives the built vthost on the loader fixture plugins: every loader
# refusal, profile selection, preflight errors, exit codes, the output
# budget and spool.
set -u
V=$1 FIX=$2 PROF=$3
WS=$(mktemp -d)
trap 'rm -rf "$WS"' EXIT
cd "$WS"
fails=0
# The fixture tools are allowed by a global rule; permissions have tests of their own.
CFG=$(mktemp)
trap 'rm -rf "$WS" "$CFG"' EXIT
printf '[permissions]\nallow = ["fx_echo", "fx_output", "fx_fail", "fx_picky", "fx_gated", "fx_hidden", "fx_format"]\n' > "$CFG"
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh" # check, check_not, check_eq
vt() { "$V" --config "$CFG" --profile "$PROF" --plugin-dir "$FIX" "$@"; }

# ---- loader: one fixture per rule -------------------------------------
out=$(vt plugins 2>&1)
check "not a plugin" "fixture_not_a_plugin.so: not a vthost plugin: no vt_plugin_v1 symbol" "$out"
check "abi major" "fixture_abi_major.so: ABI major version 2, this host speaks 1" "$out"
read -r abi_major abi_minor < <("$V" --version | sed -n 's/.*plugin ABI \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
check "newer minor" "fixture_newer_minor.so: built for ABI $abi_major.$((abi_minor + 1)), newer than this host's $abi_major.$abi_minor" "$out"
check "cjson major" "fixture_cjson_major.so: built against cJSON 2.2.3, but this host uses cJSON 1." "$out"
check "cjson major advice" "rebuild the plugin against cJSON 1.x" "$out"
check "non-zero tail" "fixture_nonzero_tail.so: descriptor is" "$out"
check "non-zero tail reason" "non-zero fields beyond" "$out"
check "duplicate tool" "duplicate tool name 'fx_echo' (already registered by plugin 'fixture_ok')" "$out"
check "missing plugin" "missing required plugin 'no_such_plugin'" "$out"
check "missing service" "missing required service 'no.such.service'" "$out"
check "init failure" "init failed (-4): database not reachable" "$out"
check "malformed schema" "tool 'fx_bad_schema': input schema is not valid JSON" "$out"
check "legacy name" "tool 'unified_exec' uses a removed legacy name" "$out"
check "ok loaded" "loaded   fixture_ok" "$out"
check "deferred tool" "fx_hidden                deferred" "$out"

# group/world-writable modules are refused
W=$(mktemp -d); cp "$FIX/fixture_ok.so" "$W/fixture_ok.so"; chmod 0777 "$W/fixture_ok.so"
out=$("$V" --profile "$PROF" --plugin-dir "$W" tools 2>&1); rc=$?
check "world-writable module" "group- or world-writable" "$out"
check_eq "world-writable exit" 1 "$rc"
rm -rf "$W"

# ---- tools listing ------------------------------------------------------
out=$(vt tools)
check_eq "tools names" $'fx_echo\nfx_output\nfx_fail\nfx_picky\nfx_gated' "$out"
out=$(vt tools --format mcp)
check "tools mcp schema" '"inputSchema"' "$out"
check "tools mcp budget property" '"max_output_tokens"' "$out"
check "tools mcp annotations" '"readOnlyHint":	true' "$out"
check "tools mcp describe (ABI 1.7)" 'Preflight wants the word please (shell profile unix_like).' "$out"
check_not "descriptor text replaced by describe" 'Not shown: picky_describe' "$out"
out=$(vt tools --format openai)
check "tools openai" '"type":	"function"' "$out"
out=$(vt tools --format xml 2>&1); rc=$?
check_eq "tools bad format exit" 2 "$rc"

# ---- call: exit codes and messages ------------------------------------
out=$(vt call fx_echo '{"text":"hi"}'); rc=$?
check_eq "call ok exit" 0 "$rc"
check "call ok body" '"args":{"text":"hi"}' "$out"
out=$(echo '{"text":"from stdin"}' | vt call fx_echo -)
check "call reads stdin" '"text":"from stdin"' "$out"
out=$(vt call fx_fail 2>/dev/null); rc=$?
check_eq "tool failure exit" 1 "$rc"
check "tool failure message" '"error":"fixture failure: as asked"' "$out"
out=$(vt call fx_echo '{"n":"1"}' 2>&1); rc=$?
check_eq "invalid args exit" 2 "$rc"
check "invalid args message" "Invalid arguments for tool 'fx_echo': n: " "$out"
out=$(vt call fx_echo '{not json' 2>&1); rc=$?
check_eq "bad json exit" 2 "$rc"
check "bad json message" "not valid JSON" "$out"
out=$(vt call fx_picky '{"word":"now"}' 2>&1); rc=$?
check_eq "preflight exit" 2 "$rc"
check "preflight message" "word: say 'please'" "$out"
out=$(vt call fx_echoo '{}' 2>&1); rc=$?
check_eq "unknown tool exit" 2 "$rc"
check "unknown tool message" "Unknown tool: fx_echoo. Available tools: fx_echo, fx_output, fx_fail, fx_picky, fx_gated." "$out"
check "did you mean" "Did you mean 'fx_echo'?" "$out"
for legacy in unified_exec unified_file unified_search; do
    out=$(vt call $legacy '{}' 2>&1); rc=$?
    check_eq "legacy $legacy exit" 2 "$rc"
done
check "legacy unified_search names replacement" "code_search in the advanced profile" \
    "$(vt call unified_search '{}' 2>&1)"
check "legacy unified_file names replacement" "apply_patch" "$(vt call unified_file '{}' 2>&1)"
# fixture_ok has no init: its API pointer comes from .api_slot (1.2),
# and fx_format uses the 1.2 string builder and api->format through it.
out=$(vt call fx_format '{"text":"ab","n":3}'); rc=$?
check_eq "api slot without init exit" 0 "$rc"
check "string builder" '"text":"[ab0;ab1;ab2;end] 15"' "$out"
out=$(vt call fx_format '{"n":1000}'); rc=$?
check "string builder grows" ';999;end] 3893"' "$out"
# A third-party tool declares that its rules take command patterns and
# an alias (fx_cmd, alias fxsh): the host parses its rules as commands.
CFG2=$(mktemp)
printf '[permissions]\nallow = ["fxsh(ls *)"]\ndeny = ["fx_cmd(rm *)"]\n' > "$CFG2"
vc() { "$V" --config "$CFG2" --profile "$PROF" --plugin-dir "$FIX" "$@"; }
out=$(vc call fx_cmd '{"cmd":"ls -l"}'); rc=$?
check_eq "declared command rule allows" 0 "$rc"
out=$(vc call fx_cmd '{"cmd":"rm -rf x"}' 2>&1); rc=$?
check_eq "declared command rule denies" 1 "$rc"
check "deny names the command rule" 'fx_cmd(rm *)' "$out"
out=$(vc explain fx_cmd '{"cmd":"ls -a"}')
check "alias resolved to the tool" '"rule":"fxsh(ls *)"' "$out"
check "explain allows" '"decision":"allow"' "$out"
printf '[permissions]\nallow = ["fxs(ls)"]\n' > "$CFG2"
out=$(vc tools 2>&1)
check "declared alias suggested" 'did you mean "fxsh"?' "$out"
rm -f "$CFG2"
out=$(vt call fx_hidden '{}'); rc=$?
check_eq "deferred tool callable" 0 "$rc"
out=$("$V" --plugin-dir "$FIX" --profile "$PROF" call 2>&1); rc=$?
check_eq "usage exit" 2 "$rc"

# ---- max_output_tokens ---------------------------------------------------
for bad in '"100"' 1.5 0 -1 50001 true null; do
    out=$(vt call fx_echo "{\"max_output_tokens\":$bad}" 2>&1); rc=$?
    check_eq "max_output_tokens $bad refused" 2 "$rc"
    check "max_output_tokens $bad message" "max_output_tokens: must be an integer from 1 to 50000" "$out"
done
for good in 1 50000 10000; do
    vt call fx_echo "{\"max_output_tokens\":$good}" >/dev/null; rc=$?
    check_eq "max_output_tokens $good accepted" 0 "$rc"
done

# ---- budget and spool ----------------------------------------------------
out=$(vt call fx_output '{"bytes":400}')
check "under budget not truncated" '"output":"abcdefghij' "$out"
[[ "$out" != *truncated* ]] && echo "ok   no truncated flag" || { echo "FAIL truncated flag under budget"; fails=$((fails+1)); }
out=$(vt call fx_output '{"bytes":1000000,"max_output_tokens":100}')
check "truncated flag" '"truncated":true' "$out"
check "original count" '"original_token_count":250000' "$out"
check "omitted marker" '[... 249900 tokens omitted' "$out"
spool=$(printf '%s' "$out" | sed -n 's/.*"spool_path":"\([^"]*\)".*/\1/p')
check_eq "spool file size" 1000000 "$(stat -c %s "$WS/$spool" 2>/dev/null)"
out=$(vt call fx_output '{"bytes":1000,"plain":true,"max_output_tokens":10}')
check "plain output budgeted" '"original_token_count":250' "$out"
spool=$(printf '%s' "$out" | sed -n 's/.*"spool_path":"\([^"]*\)".*/\1/p')
check_eq "plain spool complete" 1000 "$(stat -c %s "$WS/$spool" 2>/dev/null)"
# multi-byte characters at the cut: 5 tokens = 20 bytes, 10 for the head
# and 10 for the tail; both cuts fall inside a 3-byte "€", so each side
# keeps 3 whole characters (9 bytes) and 250 - ceil(18/4) = 245 are omitted.
out=$(vt call fx_output '{"bytes":999,"multibyte":true,"max_output_tokens":5}')
check "multibyte head" '"output":"€€€\n[... 245 tokens omitted' "$out"
check "multibyte tail" '...]\n€€€"' "$out"

# ---- profiles ------------------------------------------------------------
# a profile file comes from --profile; vtcode.toml names an installed one
printf '[tools]\nprofile = "%s"\n' "$PROF" > "$WS/vtcode.toml"
out=$("$V" --plugin-dir "$FIX" tools 2>&1)
check "profile file from vtcode.toml refused" "a profile file is chosen with --profile FILE" "$out"
rm -f "$WS/vtcode.toml"
out=$("$V" --plugin-dir "$FIX" --profile "$PROF" tools 2>&1)
check "profile file from --profile" "fx_echo" "$out"
printf '[tools]\nprofile = 5\n' > "$WS/vtcode.toml"
out=$("$V" --plugin-dir "$FIX" tools 2>&1); rc=$?
check "config wrong type names key" "vtcode.toml: key 'tools.profile' must be a string" "$out"
printf '[tools\nprofile = "x"\n' > "$WS/vtcode.toml"
out=$("$V" --plugin-dir "$FIX" tools 2>&1); rc=$?
check "config syntax error names file" "vtcode.toml:1:" "$out"
rm -f "$WS/vtcode.toml"
out=$("$V" --profile nosuch tools 2>&1); rc=$?
check "unknown profile" "unknown profile 'nosuch'" "$out"
out=$("$V" --profile advanced_vtcode plugins 2>&1)
check "advanced_vtcode alias" "profile: advanced" "$out"
out=$("$V" --profile vt_code plugins 2>&1)
check "vt_code alias" "profile: default" "$out"
printf '[profile]\nname = needs\ntools = fx_echo\n[module.fixture_ok]\npackage = a\n[module.not_installed_mod]\npackage = vthost-plugin-not-installed\n' > "$WS/needs.ini"
out=$("$V" --profile "$WS/needs.ini" --plugin-dir "$FIX" tools 2>&1); rc=$?
check_eq "missing module exit" 1 "$rc"
check "missing module names file" "needs plugin module(s) not_installed_mod.so, not installed" "$out"
check "missing module names dirs" "Searched: " "$out"
check "missing module names fixture dir" "$(cd "$FIX" && pwd -P)" "$out"
check "missing module names package" "Install the package(s): vthost-plugin-not-installed" "$out"

# ---- gating: a gated tool outside a profile that lists it --------------
printf '[profile]\nname = mini\ntools = fx_echo\n[module.fixture_ok]\npackage = x\n' > "$WS/mini.ini"
out=$("$V" --profile "$WS/mini.ini" --plugin-dir "$FIX" call fx_gated '{}' 2>&1); rc=$?
check_eq "gated exit" 2 "$rc"
check "gated message" "available only in a profile that lists it" "$out"

echo "failures: $fails"
[ "$fails" -eq 0 ]
