#!/usr/bin/env bash
# doc_lines.sh VTHOST SOURCE_DIR
# Every command line of README.md's and docs/clients.md's ```sh blocks,
# run as written (continuation lines joined, trailing comments dropped) in
# a scratch HOME and project, by the program it names: vthost lines by
# vthost, `claude ...` lines by the pinned Claude Code CLI.  A line passes
# when the program took its arguments (no usage error) and did what the
# page says it does; the two build lines (./setup.sh, cmake) are what CI
# itself runs and are only listed.
set -u
V=$(realpath "$1") SRC=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$HERE/node_modules/.bin
T=$(mktemp -d)
SERVER_PID=
trap '[[ -n $SERVER_PID ]] && kill $SERVER_PID 2>/dev/null; [[ -n ${KEEP:-} ]] || rm -rf "$T"' EXIT
fails=0
. "$HERE/../checks.sh" # check, check_not, check_eq
[[ -x "$BIN/claude" ]] || { echo "FAIL $BIN/claude is missing: run ./setup.sh test"; exit 1; }

mkdir -p "$T/bin" "$T/home" "$T/project"
ln -s "$V" "$T/bin/vthost"
export PATH="$T/bin:$BIN:$PATH" HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config"
unset XDG_CACHE_HOME XDG_STATE_HOME
cd "$T/project"
printf 'print("hello")\n' >app.py # something for the README's examples to see

# The page's ```sh lines, one command per line.
lines_of() {
    awk '/^```(sh|bash)$/ { sh = 1; next } /^```/ { sh = 0; next }
         sh { if (cont != "") { $0 = cont " " $0; cont = "" }
              if ($0 ~ /\\$/) { sub(/ *\\$/, ""); cont = $0; next }
              sub(/  +#.*$/, ""); if ($0 != "") print }' "$1"
}

# What no program says when it took its arguments.
USAGE_RX="unrecognized option|unknown option|wrong number of arguments|Try 'vthost help'|see vthost help|unknown command|error: unknown|Usage: claude|was read as a value of"

run_vthost() { # LINE
    local line=${1/#build\/bin\/vthost/vthost}
    line=${line//\/path\/to\/project/$T/project}
    line=${line// --workspace DIR/ --workspace $T/project}
    case "$line" in
    *"serve --http"*)
        # The pages' two HTTP lines use one port: the later replaces the earlier.
        [[ -n $SERVER_PID ]] && { kill $SERVER_PID; wait $SERVER_PID; } 2>/dev/null
        bash -c "exec $line" >"$T/http.out" 2>"$T/http.err" </dev/null &
        SERVER_PID=$!
        local addr=${line#*--http } code=
        addr=${addr%% *}
        for _ in $(seq 100); do
            code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://$addr/mcp" 2>/dev/null)
            [[ $code == 401 ]] && break
            sleep 0.1
        done
        check_eq "$1: serves, a request without the token gets 401" 401 "$code"
        kill -0 $SERVER_PID 2>/dev/null ||
            { echo "FAIL $1: the server is not running: $(head -2 "$T/http.err")"; fails=$((fails + 1)); }
        [[ -s $HOME/.config/vthost/http-token ]] || { echo "FAIL $1: no token file"; fails=$((fails + 1)); }
        return
        ;;
    *" serve"*)
        out=$(timeout 10 bash -c "$line" </dev/null 2>&1); rc=$?
        check_eq "$1: ends cleanly at the end of its input" 0 "$rc"
        return
        ;;
    esac
    out=$(timeout 60 bash -c "$line" </dev/null 2>&1); rc=$?
    if [[ $out =~ $USAGE_RX ]]; then
        echo "FAIL $1: the command line was refused: $(head -2 <<<"$out")"
        fails=$((fails + 1))
        return
    fi
    case "$line" in
    *"call exec_command"*)
        # Without a terminal the call cannot ask: the refusal says how to approve.
        if ((rc != 0)); then
            check "$1: asks for approval, says how to give it" "--yes" "$out"
            out=$(timeout 60 bash -c "${line/vthost call/vthost call --yes}" </dev/null 2>&1); rc=$?
            check "$1 (approved): lists the project" "app.py" "$out"
        fi
        ;;
    *"call apply_patch -"*)
        # The page elides the patch ("..."): the error names what is wrong.
        check "$1: the elided patch is refused by what it lacks" "Invalid patch on line 1" "$out"
        ;;
    *) check_eq "$1: exit" 0 "$rc" ;;
    esac
}

run_claude() { # LINE
    out=$(timeout 120 bash -c "$1" </dev/null 2>&1); rc=$?
    if [[ $out =~ $USAGE_RX ]]; then
        echo "FAIL $1: Claude Code refused the command line: $(head -2 <<<"$out")"
        fails=$((fails + 1))
        return
    fi
    case "$1" in
    "claude -p "*) ;; # needs a model: clients_turn_claude_code runs it
    "claude mcp list"*) check "$1: vthost connects" "✔ Connected" "$out" ;;
    *) check_eq "$1: exit" 0 "$rc" ;;
    esac
}

for page in README.md docs/clients.md; do
    while IFS= read -r line; do
        case "$line" in
        ./setup.sh* | cmake*) echo "---- $page: $line (the build CI runs)" ;;
        vthost* | build/bin/vthost* | echo*"| vthost"*) run_vthost "$line" ;;
        claude*) run_claude "$line" ;;
        *) echo "FAIL $page: no runner for the command line: $line"; fails=$((fails + 1)) ;;
        esac
    done < <(lines_of "$SRC/$page")
done
# After the HTTP `claude mcp add` (user scope), Claude Code connects with
# the token, from a project where no local `vthost` entry shadows it.
mkdir -p "$T/other" && cd "$T/other"
out=$(timeout 120 claude mcp list 2>&1)
check "claude mcp list: the HTTP entry connects with the token" "http://127.0.0.1:8765/mcp (HTTP) - ✔ Connected" "$out"

if ((fails)); then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
