#!/usr/bin/env bash
# The reference filesystem server (@modelcontextprotocol/server-filesystem,
# pinned in reference/) as a vthost provider, started without a directory:
# it takes its allowed directories from vthost's roots, the workspace.
# Its tools work on a workspace file at once (the first call of a fresh
# provider, through `vthost call`), and nothing outside the workspace is
# read or written: an absolute path, `..`, a symbolic link, /etc.
set -u
V=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
FS="$HERE/reference/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
if [ ! -f "$FS" ]; then
    echo "FAIL $FS is missing: run ./setup.sh test (npm ci in tests/integration/mcp_providers/reference)"
    exit 1
fi
command -v node >/dev/null || { echo "FAIL node is not installed (./setup.sh test)"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_STATE_HOME="$T/home/.state"
unset VTHOST_PLUGIN_PATH
mkdir -p "$HOME" "$T/ws/src" "$T/outside"
WS=$(realpath "$T/ws")
OUT=$(realpath "$T/outside")
printf 'hello from the workspace\n' >"$WS/src/hello.txt"
printf 'secret outside\n' >"$OUT/secret.txt"
ln -s "$OUT/secret.txt" "$WS/link.txt"
ln -s "$OUT" "$WS/outdir"
cat >"$T/vtcode.toml" <<EOF
[[mcp.providers]]
name = "fs"
command = "node"
args = ["$FS"]
EOF
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
call() { # call TOOL JSON: one fresh vthost (and provider) per call
    timeout 60 "$V" --workspace "$WS" --config "$T/vtcode.toml" --yes call "$@" 2>"$T/err"
}

out=$(call mcp__fs__list_allowed_directories '{}'); rc=$?
[ "$rc" = 0 ] && [[ "$out" == *"$WS"* ]] && ok "the allowed directory is the workspace" ||
    bad "list_allowed_directories: rc $rc [$out] [$(cat "$T/err")]"

# The first call of a provider that has just been given its roots.
for i in 1 2 3; do
    out=$(call mcp__fs__read_text_file "{\"path\":\"$WS/src/hello.txt\"}"); rc=$?
    [ "$rc" = 0 ] && [[ "$out" == *"hello from the workspace"* ]] &&
        ok "read_text_file of a workspace file ($i)" ||
        bad "read_text_file of a workspace file ($i): rc $rc [$out] [$(cat "$T/err")]"
done
out=$(cd "$WS" && call mcp__fs__read_text_file '{"path":"src/hello.txt"}'); rc=$?
[ "$rc" = 0 ] && [[ "$out" == *"hello from the workspace"* ]] &&
    ok "a relative path is the workspace's" || bad "relative path: rc $rc [$out]"

# Nothing outside: every spelling is refused and no byte comes back.
for p in "$OUT/secret.txt" "$WS/../outside/secret.txt" "$WS/link.txt" "$WS/outdir/secret.txt" \
    /etc/hostname; do
    out=$(call mcp__fs__read_text_file "{\"path\":\"$p\"}"); rc=$?
    [ "$rc" = 1 ] && [[ "$out" == *"Access denied"* && "$out" != *"secret outside"* ]] &&
        ok "refused: $p" || bad "read outside: $p: rc $rc [$out]"
done
out=$(call mcp__fs__read_multiple_files "{\"paths\":[\"$WS/src/hello.txt\",\"$OUT/secret.txt\"]}")
[[ "$out" == *"hello from the workspace"* && "$out" != *"secret outside"* ]] &&
    ok "read_multiple_files: the workspace file only" || bad "read_multiple_files: [$out]"
out=$(call mcp__fs__write_file "{\"path\":\"$OUT/marker\",\"content\":\"x\"}"); rc=$?
[ "$rc" = 1 ] && [ ! -e "$OUT/marker" ] && ok "write outside refused, no file made" ||
    bad "write outside: rc $rc [$out]"
out=$(call mcp__fs__write_file "{\"path\":\"$WS/outdir/marker\",\"content\":\"x\"}"); rc=$?
[ "$rc" = 1 ] && [ ! -e "$OUT/marker" ] && ok "write through a linked directory refused" ||
    bad "write through link: rc $rc [$out]"
[ "$(cat "$OUT/secret.txt")" = "secret outside" ] && ok "the outside file is unchanged" ||
    bad "outside file changed"

if ((fails)); then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
