#!/usr/bin/env bash
# turn.sh claude_code|codex VTHOST DOCS/clients.md
# One unattended turn of a real agent CLI set up as docs/clients.md says,
# its model played by model_standin.mjs on loopback: the agent calls
# vthost's exec_command, and a hyphen-named tool of an MCP provider that
# takes 3 s to start.  Offline, in a scratch HOME.
set -u
PART=$1 V=$(realpath "$2") DOC=$(realpath "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$HERE/node_modules/.bin
T=$(mktemp -d)
STANDIN_PID=
trap '[[ -n $STANDIN_PID ]] && kill $STANDIN_PID 2>/dev/null; rm -rf "$T"' EXIT
fails=0
. "$HERE/../checks.sh" # check, check_not, check_eq
finish() {
    if ((fails)); then echo "$fails check(s) failed"; exit 1; fi
    echo "all checks passed"; exit 0
}
for cli in claude codex; do
    [[ -x "$BIN/$cli" ]] || { echo "FAIL $BIN/$cli is missing: run ./setup.sh test" \
        "(it runs npm ci --prefix tests/integration/clients)"; exit 1; }
done
command -v jq >/dev/null || { echo "FAIL jq is not installed"; exit 1; }
. "$HERE/clients_lib.sh" # doc_file, doc_command, fresh_home, project

# The model: a script of tool calls (regexes on the names the agent
# offers), its log of what the agent sent back.
standin() { # SCRIPT_JSON
    printf '%s' "$1" >"$T/script.json"
    : >"$T/model.log"
    node "$HERE/model_standin.mjs" "$T/script.json" "$T/model.log" "$T/port" &
    STANDIN_PID=$!
    for _ in $(seq 50); do [[ -s $T/port ]] && break; sleep 0.1; done
    PORT=$(cat "$T/port")
}
results() { jq -r 'select(.result) | .result' "$T/model.log"; }
show_log() { echo "  the model stand-in's log:"; cut -c1-300 "$T/model.log" | sed 's/^/    /'; }

# The user's vtcode.toml: a provider that takes 3 s to start, with the
# page's allow rule for unattended use, for this provider.
user_config() {
    mkdir -p "$HOME/.config/vtcode"
    rule=$(awk '/^```toml/ { t = 1; next } /^```/ { t = 0 }
                t && /^allow = \["mcp__github"\]/ { sub(/ +#.*/, ""); print; exit }' "$DOC")
    check_eq "the page allows a provider's tools for unattended use" \
        'allow = ["mcp__github"]' "$rule"
    cat >"$HOME/.config/vtcode/vtcode.toml" <<EOF
[[mcp.providers]]
name = "slow"
command = "node"
args = ["$HERE/slow_provider.mjs"]
env = { SLOW_START_MS = "3000" }

[permissions]
${rule//github/slow}
EOF
}

case "$PART" in
claude_code)
    echo "claude $(claude --version)"
    fresh_home turn
    project proj-turn
    user_config
    add=$(doc_command "claude mcp add vthost")
    bash -c "$add --approval sandboxed" >/dev/null 2>&1
    standin '[{"tool":"^mcp__vthost__exec_command$","input":{"cmd":"echo claude-was-here > marker.txt && echo ran-it"}},
              {"tool":"^mcp__vthost__search_tools$","input":{"query":"sum of two numbers"}},
              {"tool":"^mcp__vthost__mcp__slow__get_sum$","select":"mcp__vthost__mcp__slow__get_sum","input":{"a":2,"b":3}}]'
    cmd=$(doc_command "claude -p")
    check "the page's claude -p line allows vthost's tools" "--allowedTools mcp__vthost" "$cmd"
    out=$(ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-standin \
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 timeout 180 bash -c "$cmd" 2>&1); rc=$?
    check_eq "claude -p as on the page: exit" 0 "$rc"
    ((rc == 0)) || echo "$out" | tail -5
    check_eq "exec_command ran in the project" "claude-was-here" "$(cat marker.txt 2>/dev/null)"
    res=$(results)
    check "exec_command's output reached the model" "ran-it" "$res"
    check "search_tools found the provider's tool" '"name":"mcp__slow__get_sum"' "$res"
    check "search_tools named it as Claude Code shows it" \
        '"client_name":"mcp__vthost__mcp__slow__get_sum"' "$res"
    check "the hyphen-named provider tool ran" "The sum of 2 and 3 is 5." "$res"
    check_eq "the model got no error result" "" "$(jq -r 'select(.isError == true) | .result' "$T/model.log")"
    ((fails)) && show_log
    finish
    ;;
codex)
    echo "$(codex --version 2>/dev/null)"
    fresh_home turn
    project proj-turn
    user_config
    # The page: after adding a provider, start it once so that Codex,
    # which lists once, has its tools from the first answer.
    check "the page says how to fill the provider cache" "vthost mcp tools NAME" \
        "$(grep -o 'vthost mcp tools NAME' "$DOC" | head -1)"
    out=$(timeout 60 vthost mcp tools slow 2>&1); rc=$?
    check_eq "vthost mcp tools slow: exit" 0 "$rc"
    check "vthost mcp tools slow lists the mapped name" "mcp__slow__get_sum" "$out"
    standin '[{"tool":"^mcp__vthost__exec_command$","input":{"cmd":"echo codex-was-here > marker.txt && echo ran-it"}},
              {"tool":"^mcp__vthost__search_tools$","input":{"query":"sum of two numbers"}},
              {"tool":"^mcp__vthost__mcp__slow__get_sum$","input":{"a":2,"b":3}}]'
    mkdir -p "$HOME/.codex"
    {
        printf 'model = "standin"\nmodel_provider = "standin"\n\n'
        printf '[model_providers.standin]\nname = "standin"\nbase_url = "http://127.0.0.1:%s/v1"\n' "$PORT"
        printf 'wire_api = "responses"\nenv_key = "STANDIN_API_KEY"\n\n'
        # The page's unattended entry, as it stands.
        awk '/^```toml/ { b = ""; inside = 1; next }
             inside && /^```/ { if (b ~ /default_tools_approval_mode/) { printf "%s", b; exit } inside = 0; next }
             inside { b = b $0 "\n" }' "$DOC"
    } >"$HOME/.codex/config.toml"
    check "the unattended entry from the page" 'default_tools_approval_mode = "approve"' \
        "$(cat "$HOME/.codex/config.toml")"
    out=$(STANDIN_API_KEY=standin timeout 180 codex exec --skip-git-repo-check \
          "run the tests and fix what fails" 2>&1); rc=$?
    check_eq "codex exec: exit" 0 "$rc"
    ((rc == 0)) || echo "$out" | tail -5
    check_eq "exec_command ran in the project" "codex-was-here" "$(cat marker.txt 2>/dev/null)"
    res=$(results)
    check "exec_command's output reached the model" "ran-it" "$res"
    check "search_tools named the tool as Codex shows it" \
        '"client_name":"mcp__vthost__mcp__slow__get_sum"' "$res"
    check "the hyphen-named provider tool ran" "The sum of 2 and 3 is 5." "$res"
    check_eq "the model got no error result" "" "$(jq -r 'select(.isError == true) | .result' "$T/model.log")"
    ((fails)) && show_log
    finish
    ;;
*)
    echo "usage: $0 claude_code|codex VTHOST clients.md" >&2
    exit 2
    ;;
esac
