#!/usr/bin/env bash
# `vthost mcp list`, `vthost mcp tools PROVIDER` and provider state in
# `vthost plugins`, against real provider processes.
set -u
V=$1 HERE=$(cd "$(dirname "$0")" && pwd)
NODE=$(command -v node) || { echo "node not found: install nodejs" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh" # check, check_not, check_eq
cat >"$T/vtcode.toml" <<TOML
[[mcp.providers]]
name = "test"
command = "$NODE"
args = ["$HERE/sdk_provider.mjs"]
env = { PROVIDER_MARKER = "$T/danger.marker" }

[[mcp.providers]]
name = "broken"
command = "/nonexistent/mcp-server"

[[mcp.providers]]
name = "off"
command = "$NODE"
enabled = false

[[mcp.providers]]
name = "notallowed"
command = "/bin/cat"

[mcp.requirements]
enforce = true
allowed_stdio_commands = ["$NODE", "/nonexistent/mcp-server"]
TOML
vt() { "$V" --workspace "$T" --config "$T/vtcode.toml" "$@"; }

out=$(vt plugins 2>&1)
check "plugins: provider state without starting" "mcp      test           idle, 0 tools" "$out"
check "plugins: disabled provider says why" "off            disabled, 0 tools: disabled in vtcode.toml" "$out"
check "plugins: requirements refuse a command" "not in [mcp.requirements] allowed_stdio_commands" "$out"

out=$(vt mcp list 2>&1); rc=$?
check_eq "mcp list exits 0" 0 "$rc"
[[ "$out" =~ test\ +ready\ +[0-9]+ ]] && echo "ok   mcp list: test ready with tools" ||
    { echo "FAIL mcp list: [$out]"; fails=$((fails + 1)); }
check "mcp list: a command that cannot run" "cannot run '/nonexistent/mcp-server'" "$out"
n=$(vt --format json mcp list | jq '.[] | select(.name == "test") | .tools')
[[ "$n" -ge 8 ]] && echo "ok   mcp list json: $n tools" || { echo "FAIL json tools: [$n]"; fails=$((fails + 1)); }

out=$(vt mcp tools test 2>&1); rc=$?
check_eq "mcp tools exits 0" 0 "$rc"
check "mcp tools: vthost names" "mcp__test__echo" "$out"
check "mcp tools: descriptions" "Echo a text back unchanged" "$out"
out=$(vt mcp tools nosuch 2>&1); rc=$?
check_eq "mcp tools of an unknown provider: usage error" 2 "$rc"
out=$(vt mcp frobnicate 2>&1); rc=$?
check_eq "mcp with a bad subcommand: usage error" 2 "$rc"

# call and explain start the provider that owns the name (lazy start)
printf '[permissions]\ndeny = ["mcp__test__danger"]\nallow = ["mcp__test__echo", "mcp__test__summarise", "mcp__test__ask_name", "mcp__test__client_caps"]\n' >>"$T/vtcode.toml"
out=$(vt call mcp__test__echo '{"text":"from the cli"}' 2>&1); rc=$?
check_eq "call starts the provider: exit 0" 0 "$rc"
check "call: provider output" "echo: from the cli" "$out"
out=$(vt explain mcp__test__danger '{}' 2>&1)
check "explain: the deny rule decides" "deny" "$out"
out=$(vt call mcp__test__danger '{}' 2>&1); rc=$?
check_eq "call of a denied provider tool exits 1" 1 "$rc"
[ ! -e "$T/danger.marker" ] && echo "ok   denied tool did not run" ||
    { echo "FAIL denied tool ran"; fails=$((fails + 1)); }

# the CLI has no MCP client: only roots (answered by vthost itself) is
# declared to the provider, and a request sent anyway is refused
# cleanly; the tool's fallback answers
out=$(vt call mcp__test__client_caps '{}' 2>&1)
check "cli: only roots declared to providers" '"output":"{\"roots\":{}}"' "$out"
out=$(vt call mcp__test__summarise '{"text":"one two three four five"}' 2>&1); rc=$?
check_eq "cli: a refused sampling request: the call still succeeds" 0 "$rc"
check "cli: the tool's own fallback" "fallback summary: one two three" "$out"
check "cli: the refusal says why" "this front end has no MCP client to ask" "$out"
check "cli: not 'method not found'" "MCP error -32000" "$out"
out=$(vt call mcp__test__ask_name '{"raw":true}' 2>&1); rc=$?
check_eq "cli: a refused elicitation: exit 0" 0 "$rc"
check "cli: elicitation fallback" "fallback: hello stranger" "$out"
check "cli: elicitation refusal says why" "this front end has no MCP client to ask" "$out"

# a configuration error names the key
printf '[mcp]\ntool_timeout_seconds = "soon"\n' >"$T/bad.toml"
out=$("$V" --workspace "$T" --config "$T/bad.toml" plugins 2>&1)
check "bad [mcp] key named" "[mcp] tool_timeout_seconds must be an integer" "$out"

[ "$fails" -eq 0 ] || { echo "failures: $fails"; exit 1; }
