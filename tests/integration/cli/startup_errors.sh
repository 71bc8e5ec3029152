#!/usr/bin/env bash
# Every way `vthost` can refuse to start, for every command: the exit code
# follows the table (2: what the user wrote must change -- the command
# line, vtcode.toml, an agent spec, a profile; 1: what is installed or the
# system must change), and the message names what was wrong and what to do.
set -u
V=$(realpath "$1")
T=$(mktemp -d)
chmod 0755 "$T"
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_STATE_HOME="$T/home/.state"
unset VTHOST_PLUGIN_PATH
mkdir -p "$HOME" "$T/ws" "$T/cfg"
touch "$T/afile"
cd "$T/ws"
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }

# expect CODE 'WHAT' 'TO DO' ARGS...: exit CODE; the output (stderr and
# stdout) holds WHAT (what was wrong) and TO DO (what to do about it).
expect() {
    local want=$1 what=$2 todo=$3
    shift 3
    local out rc
    out=$(timeout 60 "$V" "$@" 2>&1 </dev/null)
    rc=$?
    local name="vthost $*"
    [ "$rc" = "$want" ] && ok "exit $want: $name" || bad "exit $want: $name: got $rc [$out]"
    [[ "$out" == *"$what"* ]] && ok "  names what: $what" || bad "  $name: no [$what] in [$out]"
    [[ "$out" == *"$todo"* ]] && ok "  says what to do: $todo" ||
        bad "  $name: no [$todo] in [$out]"
}

cfg() { # cfg NAME TEXT: a vtcode.toml for --config
    printf '%b' "$2" >"$T/cfg/$1.toml"
    echo "$T/cfg/$1.toml"
}

# ---- 2: the command line ------------------------------------------------------
for cmd in tools serve "call exec_command" "explain exec_command" plugins "mcp list" spool; do
    read -r -a c <<<"$cmd"
    expect 2 "unrecognized option '--bogus'" "Try 'vthost help'" --bogus "${c[@]}"
    expect 2 "--approval must be ask, sandboxed or read-only, not 'bogus'" "ask, sandboxed" \
        --approval bogus "${c[@]}"
    expect 2 "unknown profile 'nosuch'" "known: advanced, default" --profile nosuch "${c[@]}"
    expect 2 "workspace '$T/none' is not a directory" "with --workspace DIR" \
        --workspace "$T/none" "${c[@]}"
    expect 2 "--config $T/none.toml: no such file" "Name an existing vtcode.toml" \
        --config "$T/none.toml" "${c[@]}"
done
expect 2 "--plugin-dir '$T/none' is not a directory" "Name the directory that holds the plugin" \
    --plugin-dir "$T/none" tools
expect 2 "--plugin-dir '$T/afile' is not a directory: Not a directory" "NAME.so" \
    --plugin-dir "$T/afile" plugins
expect 2 "cannot read profile file $T/none.ini" "--profile takes a profile name" \
    --profile "$T/none.ini" tools
expect 2 "workspace '$T/afile' is not a directory: Not a directory" "with --workspace DIR" \
    --workspace "$T/afile" tools
expect 2 "--timeout 'soon' is not a number of seconds" "see vthost help" \
    call --timeout soon exec_command
expect 2 "--catalog 'all' is not auto, full or deferred" "see vthost help" serve --catalog all
expect 2 "--token-file goes with --http" "see vthost help serve" serve --token-file "$T/tok"
expect 2 "--http 'nowhere' is not an address to listen on" "give ADDR:PORT" \
    serve --http nowhere
expect 2 "agent 'nosuch'" ".vtcode/agents/nosuch.md" --agent nosuch call exec_command
expect 2 "cannot trust '$T/none': not a directory" "trust" trust "$T/none"
expect 2 "will not trust /" "Trust a project directory instead" trust /
expect 2 "no MCP provider named 'nosuch'" "see vthost mcp list" mcp tools nosuch
expect 2 "usage: vthost mcp list" "vthost mcp tools PROVIDER" mcp frobnicate
expect 2 "usage: vthost spool" "[list|clean]" spool frobnicate

# serve --http has no client roots: started in / or the home directory
# without --workspace, it does not start (stdio serve starts and asks the
# client's roots, refusing calls until it has a workspace).
out=$(cd / && timeout 20 "$V" serve --http 127.0.0.1:0 2>&1 </dev/null); rc=$?
[ "$rc" = 2 ] && ok "exit 2: serve --http in /" || bad "serve --http in /: $rc [$out]"
[[ "$out" == *"will not use the current directory / as the workspace: it is the root"* &&
    "$out" == *"with --workspace DIR"* ]] && ok "  names / and what to do" || bad "  [$out]"
out=$(cd "$HOME" && timeout 20 "$V" serve --http 127.0.0.1:0 2>&1 </dev/null); rc=$?
[ "$rc" = 2 ] && [[ "$out" == *"it is the home directory"* ]] &&
    ok "exit 2: serve --http in the home directory" || bad "serve --http in home: $rc [$out]"
out=$(cd / && timeout 20 "$V" serve 2>&1 <<<'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'); rc=$?
[ "$rc" = 0 ] && [[ "$out" == *'"id":1'* ]] && ok "stdio serve in / starts (a client may send roots)" ||
    bad "stdio serve in /: $rc [$out]"

# A workspace this user may not read or enter (as root: run as nobody).
mkdir -p "$T/locked"
if [ "$(id -u)" = 0 ]; then
    chmod 0700 "$T/locked"
    chmod 0777 "$HOME"
    if command -v setpriv >/dev/null; then
        out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
            "$V" --workspace "$T/locked" tools 2>&1 </dev/null)
        rc=$?
        [ "$rc" = 2 ] && ok "exit 2: unreadable workspace" || bad "unreadable workspace: $rc [$out]"
        [[ "$out" == *"workspace '$T/locked' cannot be read: Permission denied"* &&
            "$out" == *"Name a directory this user may read"* ]] &&
            ok "  unreadable workspace: names it and what to do" || bad "  unreadable: [$out]"
    else
        bad "setpriv is not installed (util-linux): the unreadable-workspace case cannot run"
    fi
    chmod 0755 "$HOME"
else
    chmod 0000 "$T/locked"
    expect 2 "workspace '$T/locked' cannot be read: Permission denied" \
        "Name a directory this user may read" --workspace "$T/locked" tools
fi

# ---- 2: configuration files -----------------------------------------------------
expect 2 "syntax.toml:1:" "Error while parsing" --config "$(cfg syntax 'x = [\n')" tools
expect 2 "key 'tools.profile' must be a string" '("default" or "advanced")' \
    --config "$(cfg type '[tools]\nprofile = 3\n')" tools
expect 2 "unknown profile 'nosuch'" "known: advanced, default" \
    --config "$(cfg prof '[tools]\nprofile = "nosuch"\n')" call exec_command
expect 2 'unknown tool "exec_comand"' 'did you mean "exec_command"?' \
    --config "$(cfg near '[permissions]\nallow = ["exec_comand"]\n')" serve
expect 2 "[tools.anti_blind_editing] enabled must be true or false" "true or false" \
    --config "$(cfg guard '[tools.anti_blind_editing]\nenabled = "x"\n')" tools
for cmd in spool tools; do
    expect 2 "key 'tools.spool.max_age_days' must be an integer from 0 to 36500" "36500" \
        --config "$(cfg spool '[tools.spool]\nmax_age_days = "x"\n')" "$cmd"
done
# [workspace] (the keeper's keys): not a table, or a key of the wrong type
for cmd in tools "call exec_command" serve; do
    read -r -a c <<<"$cmd"
    expect 2 "wsnum.toml: key 'workspace' must be a table" "write [workspace] on a line" \
        --config "$(cfg wsnum 'workspace = 5\n')" "${c[@]}"
    expect 2 "wskeep.toml: key 'workspace.keeper' must be true or false" "true or false" \
        --config "$(cfg wskeep '[workspace]\nkeeper = 3\n')" "${c[@]}"
done
# A key a plugin reads, refused by the plugin's init: the same kind of
# mistake as one the host reads.
for cmd in tools "call exec_command" serve; do
    read -r -a c <<<"$cmd"
    expect 2 "key 'sandbox.mode' must be" '"workspace-write", "read-only" or' \
        --config "$(cfg mode '[sandbox]\nmode = "bogus"\n')" "${c[@]}"
done
# plugins lists even then, and exits like the others
out=$("$V" --config "$T/cfg/mode.toml" plugins 2>&1 </dev/null); rc=$?
[ "$rc" = 2 ] && ok "exit 2: plugins with a refused configuration" || bad "plugins: $rc"
[[ "$out" == *"refused  exec"* ]] && ok "  plugins still lists" || bad "  plugins listing: [$out]"
out=$("$V" --profile nosuch plugins --format json 2>/dev/null </dev/null); rc=$?
[ "$rc" = 2 ] && ok "exit 2: plugins --profile nosuch" || bad "plugins --profile nosuch: $rc"
[[ "$(jq -r .profile_loaded <<<"$out")" == false ]] && ok "  its JSON says so" ||
    bad "  plugins --profile nosuch json: [$out]"
ln -s "$T/cfg/type.toml" "$T/ws/vtcode.toml"
expect 2 "vtcode.toml is a symbolic link" "Replace it with a regular file" tools
rm "$T/ws/vtcode.toml"
# a rule naming a tool that is not installed only warns
expect 0 'rule "hello" names no installed tool' "until a tool \"hello\" is installed" \
    --config "$(cfg miss '[permissions]\nallow = ["hello"]\n')" tools

# ---- 1: what is installed or the system ---------------------------------------
mkdir -p "$T/lonely/bin"
cp "$V" "$T/lonely/bin/vthost"
for cmd in tools serve "call exec_command" plugins; do
    read -r -a c <<<"$cmd"
    out=$("$T/lonely/bin/vthost" "${c[@]}" 2>&1 </dev/null); rc=$?
    [ "$rc" = 1 ] && ok "exit 1: $cmd without the profile's modules" || bad "$cmd lonely: $rc"
    [[ "$out" == *"needs plugin module(s) exec.so"* && "$out" == *"Install the package(s)"* ]] &&
        ok "  names the module and the package" || bad "  $cmd lonely: [$out]"
done
python3 - "$V" "$T" <<'EOF' && ok "exit 1: serve --http on a port in use" || bad "serve --http busy port"
import socket, subprocess, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
port = s.getsockname()[1]
r = subprocess.run([sys.argv[1], "--workspace", sys.argv[2] + "/ws", "--http",
                    f"127.0.0.1:{port}", "serve"], capture_output=True, text=True, timeout=30,
                   stdin=subprocess.DEVNULL)
ok = r.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in r.stderr
print(r.returncode, r.stderr.strip()[-200:])
sys.exit(0 if ok else 1)
EOF

if ((fails)); then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
