#!/usr/bin/env bash
# The host's own data files are read back only while they are still the
# user's own regular file: at the tools listing's cache (`vthost tools`),
# a listing planted through a symbolic link or in a file others could
# write is not shown, and a FIFO planted there is neither waited on nor
# read (the listing comes at once, from the plugins).
set -u
V=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export HOME="$T/home"
unset XDG_CACHE_HOME XDG_CONFIG_HOME XDG_STATE_HOME VTHOST_PLUGIN_PATH
mkdir -p "$HOME" "$T/ws"
cd "$T/ws"
fails=0
. "$here/../checks.sh" # check, check_not, check_eq
MARK=FORGED_LISTING_7f3a

fresh=$(timeout 20 "$V" tools 2>/dev/null)
check "a first listing names tools" "exec_command" "$fresh"
mapfile -t caches < <(find "$HOME/.cache/vthost/tools" -type f 2>/dev/null)
check_eq "the listing was cached in one file" 1 "${#caches[@]}"
cache=${caches[0]:-$T/none}
cp "$cache" "$T/good"

# The cached file with its listing replaced by MARK (same key).
forge() {
    python3 - "$T/good" "$1" "$MARK" <<'PY'
import re, sys
src, dst, mark = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(src, "rb").read()
m = re.match(rb"(\S+ \S+) (\d+) (\d+) (\d+)\n", data)
k, o, s = int(m[2]), int(m[3]), int(m[4])
body = data[m.end():]
out = (mark + "\n").encode()
head = b"%s %d %d %d\n" % (m[1], k, len(out), s)
open(dst, "wb").write(head + body[:k] + out + body[k + o:])
PY
}
listing() { timeout 10 "$V" tools 2>/dev/null; }

# the control: a forged file of the user's own, 0600, is replayed
forge "$cache"
chmod 600 "$cache"
check "control: the user's own cache file is replayed" "$MARK" "$(listing)"

# others could have written it: not replayed
forge "$cache"
chmod 666 "$cache"
out=$(listing)
check_not "a cache file others could write is not replayed" "$MARK" "$out"
check "... and the listing is made from the plugins" "exec_command" "$out"

# a symbolic link to a forged file: not followed
forge "$T/elsewhere"
chmod 600 "$T/elsewhere"
rm -f "$cache"
ln -s "$T/elsewhere" "$cache"
out=$(listing)
check_not "a cache reached through a link is not replayed" "$MARK" "$out"
check "... and the listing is made from the plugins" "exec_command" "$out"

# a FIFO: no wait (nothing will ever write to it)
rm -f "$cache"
mkfifo -m 600 "$cache"
t0=$(date +%s%3N)
out=$(listing)
rc=$?
el=$(($(date +%s%3N) - t0))
check_eq "a FIFO at the cache: vthost tools exits 0 (not held on the FIFO)" 0 "$rc"
check "... and lists the tools" "exec_command" "$out"
[[ $el -lt 5000 ]] && echo "ok   ... at once (${el} ms)" ||
    { echo "FAIL a FIFO at the cache held vthost tools for ${el} ms"; fails=$((fails + 1)); }

exit $((fails > 0))
