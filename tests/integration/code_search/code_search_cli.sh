#!/usr/bin/env bash
# code_search through `vthost call`: profile gating, argument checks,
# response shape, ignore rules, bounds, permissions on the search scope.
# Usage: code_search_cli.sh VTHOST FIXTURES_DIR
set -u
VTHOST=$1
FIXTURES=$2
command -v jq >/dev/null || { echo "jq is required (apt-get install -y jq)"; exit 1; }

WS=$(mktemp -d "${TMPDIR:-/tmp}/cs_cli_XXXXXX")
# The content index goes to a cache of its own, not the user's.
CACHE=$(mktemp -d "${TMPDIR:-/tmp}/cs_cli_cache_XXXXXX")
export XDG_CACHE_HOME="$CACHE"
trap 'rm -rf "$WS" "$CACHE"' EXIT
cp -r "$FIXTURES"/. "$WS"/
mkdir -p "$WS/ignored" "$WS/src/deep" "$WS/secret"
printf 'ignored/\n*.tmp\n' > "$WS/.gitignore"
printf 'struct Widget;\n' > "$WS/ignored/hidden.rs"
printf 'Widget\n' > "$WS/notes.tmp"
printf 'fn make() -> Widget { Widget {} }\n' > "$WS/src/deep/use.rs"
printf 'Widget secret\n' > "$WS/secret/s.txt"
printf '[permissions]\ndeny = ["code_search(/secret/**)"]\n' > "$WS/vtcode.toml"

fails=0
OUT=""; RC=0
call() {  # call PROFILE JSON -> $OUT (stdout), $RC
    if [ "$1" = default ]; then
        OUT=$("$VTHOST" --workspace "$WS" call code_search "$2" 2>/dev/null); RC=$?
    else
        OUT=$("$VTHOST" --workspace "$WS" --profile "$1" call code_search "$2" 2>/dev/null); RC=$?
    fi
}
check() {  # check NAME JQ-EXPR (must print true)
    local got
    got=$(printf '%s' "$OUT" | jq -e "$2" 2>&1)
    if [ "$got" != "true" ]; then
        echo "FAIL: $1"
        echo "  expr: $2"
        echo "  rc=$RC out: ${OUT:0:600}"
        fails=$((fails + 1))
    else
        echo "ok: $1"
    fi
}
check_rc() {  # check_rc NAME WANT
    if [ "$RC" -ne "$2" ]; then
        echo "FAIL: $1: exit $RC, want $2; out: ${OUT:0:400}"
        fails=$((fails + 1))
    else
        echo "ok: $1 (exit $RC)"
    fi
}

# Profile gating: not callable in the default profile.
call default '{"query":"Widget"}'
check_rc "gated in default profile" 2
check "gated error names the advanced profile" '.success == false and (.error | test("advanced"))'

# Definitions only, full result shape.
call advanced '{"query":"Widget","result_types":["definition"]}'
check_rc "definition search runs" 0
check "one definition, shape" '.returned == 1 and .truncated == false and
  .results[0] == {"result_type":"definition","path":"sample.rs","line":4,"column":12,
                  "snippet":"pub struct Widget {","name":"Widget"}'
check "filters echo" '.query == "Widget" and .filters == {"path":".","file_types":[],
  "result_types":["definition"],"max_results":20}'

# All categories: ordered by category, then path, line, column; ignored files absent.
call advanced '{"query":"Widget","max_results":100}'
check "category order" '[.results[].result_type] as $t |
  ($t | map({"definition":0,"usage":1,"text":2,"path":3}[.])) as $o | $o == ($o | sort)'
check "location order within a category" '[.results[] | select(.result_type=="usage") |
  [.path, .line, .column]] as $u | $u == ($u | sort)'
check "gitignored dir and pattern skipped" '[.results[].path] |
  (index("ignored/hidden.rs") == null) and (index("notes.tmp") == null)'
check "nested file found" '[.results[] | select(.path=="src/deep/use.rs") | .result_type] == ["usage","usage"]'
check "text results have no name" '[.results[] | select(.result_type=="text") | has("name")] | any | not'
check "usage hint" '.hints | map(test("not resolved references")) | any'

# path limit and file_types canonicalisation.
call advanced '{"query":"Widget","path":"src","file_types":["rs",".rs","RUST"]}'
check "path limit" '[.results[].path] | unique == ["src/deep/use.rs"]'
check "file_types canonical and deduplicated" '.filters.file_types == ["rust"] and .filters.path == "src"'
call advanced '{"query":"widget","file_types":["go"]}'
check "file_types filter excludes other languages" '.returned == 0 and (.hints | map(test("No matches")) | any)'

# Bounds and truncation.
call advanced '{"query":"Widget","max_results":2}'
check "bounded and truncated" '.returned == 2 and (.results | length) == 2 and .truncated == true and
  (.hints | map(test("narrow")) | any)'
call advanced '{"query":"Widget","result_types":["usage"],"path":"src"}'
check "exact count not truncated" '.returned == 2 and .truncated == false'

# The structured results stay within max_output_tokens.
call advanced '{"query":"e","max_results":100,"max_output_tokens":500}'
check "results cut to max_output_tokens" '.returned >= 1 and .returned < 100 and
  (.results | length) == .returned and .truncated == true and
  (.hints | map(test("max_output_tokens")) | any) and (tostring | length) < 4000'

# Cut results: the complete list is spooled, one result a line, and
# named by spool_path; it holds exactly the uncut search's results.
call advanced '{"query":"e","max_results":100}'
whole=$OUT
check "uncut search is not cut" '.returned > 20 and .spool_path == null'
call advanced '{"query":"e","max_results":100,"max_output_tokens":100}'
check "cut search names its spool file" '.truncated == true and .returned < 20 and
  (.spool_path | type) == "string" and (.output | test("tokens omitted")) and
  (.hints | map(test("spool_path")) | any)'
spool=$(printf '%s' "$OUT" | jq -r '.spool_path')
want=$(printf '%s' "$whole" | jq -r '.results[] | if .result_type == "path" then "\(.path): path"
  else "\(.path):\(.line):\(.column): \(.result_type)\(if .name then " " + .name else "" end): \(.snippet | gsub("\n"; "\\n"))" end')
if [ -f "$WS/$spool" ] && [ "$(cat "$WS/$spool")" = "$want" ]; then
    echo "ok: spool file holds every result ($(wc -l < "$WS/$spool") lines)"
else
    echo "FAIL: spool file '$spool' differs from the uncut results"
    diff <(printf '%s\n' "$want") "$WS/$spool" | head -10
    fails=$((fails + 1))
fi
# within the budget nothing is spooled
call advanced '{"query":"Widget","result_types":["definition"],"max_output_tokens":1000}'
check "uncut result has no spool" '.truncated == false and .spool_path == null and .output == null'

# Smart case.
call advanced '{"query":"widget","result_types":["definition"],"file_types":["rust"]}'
check "lower-case query is case-insensitive" '.returned == 1 and .results[0].name == "Widget" and
  (.hints[0] | test("case-insensitive"))'
call advanced '{"query":"WIDGET"}'
check "upper-case query is case-sensitive" '.returned == 0'

# Paths.
call advanced '{"query":"deep","result_types":["path"]}'
check "path results" '.results == [{"result_type":"path","path":"src/deep"}]'

# Determinism.
call advanced '{"query":"e","max_results":100}'
first=$OUT
call advanced '{"query":"e","max_results":100}'
if [ "$first" != "$OUT" ]; then echo "FAIL: output differs between runs"; fails=$((fails + 1)); else echo "ok: deterministic"; fi

# Argument errors.
call advanced '{"query":"x","file_types":["cobol"]}'
check_rc "unknown file type is invalid" 2
check "unknown file type lists known ones" '.error | test("cobol") and test("python") and test("rust")'
call advanced '{"query":"x","result_types":["symbols"]}'
check_rc "bad result_types" 2
call advanced '{"query":"x","max_results":0}'
check_rc "max_results below 1" 2
call advanced '{"query":"x","max_results":101}'
check_rc "max_results above 100" 2
call advanced '{"query":"x","regex":true}'
check_rc "unknown argument" 2
call advanced '{"path":"src"}'
check_rc "query required" 2
call advanced '{"query":"x","path":"../"}'
check "path outside the workspace refused" '.success == false and (.error | test("outside"))'
call advanced '{"query":"x","path":"no/such/dir"}'
check "missing path refused" '.success == false and (.error | test("does not exist"))'

# Permissions see the scope: a deny rule on /secret/** refuses path "secret".
call advanced '{"query":"Widget","path":"secret"}'
check "deny rule on the scope" '.success == false and (.error | test("denied"))'
call advanced '{"query":"Widget","path":"secret/s.txt"}'
check "deny rule on a file in scope" '.success == false'
# ... and inside a search of the whole workspace: the walk skips it.
call advanced '{"query":"Widget","max_results":100}'
check "deny rule holds inside a wider search" '.success != false and .returned > 0 and
  ([.results[].path | select(startswith("secret"))] | length) == 0'
call advanced '{"query":"secret","result_types":["path","text"]}'
check "denied subtree not found by path either" '([.results[].path | select(startswith("secret"))] | length) == 0'

# Every language of the original is accepted, by name and by extension.
for t in rust python javascript typescript tsx go java md c cpp csharp css html json yaml \
         ruby php kotlin swift lua bash sql scala elixir dockerfile toml hcl dart zig proto \
         haskell nix solidity rb kt cs tf tfvars ex hs sol cc hpp cu ino py3 bzl jsx mjs cts \
         mdx jsonc zsh bats shell markdown; do
    call advanced "{\"query\":\"Widget\",\"file_types\":[\"$t\"]}"
    [ "$RC" -eq 0 ] || { echo "FAIL: file type $t refused: ${OUT:0:300}"; fails=$((fails + 1)); }
done
echo "ok: all file types accepted"
# A type without definitions says so.
mkdir -p "$WS/web"
printf '<div id="Widget">Widget</div>\n' > "$WS/web/page.html"
call advanced '{"query":"Widget","file_types":["html"]}'
check "html: text results and a hint that definitions are unavailable" \
  '.returned == 2 and ([.results[].result_type] | unique) == ["text"] and
   (.hints | map(select(test("Definitions are unavailable for html"))) | length) == 1'
call advanced '{"query":"Widget","file_types":["rust"]}'
check "rust: no such hint" '(.hints | map(select(test("unavailable"))) | length) == 0'
# Text is one set: with definitions and text requested, usages come back as text.
call advanced '{"query":"Widget","path":"src","result_types":["definition","text"]}'
check "usages come back as text" '.returned == 2 and ([.results[].result_type] | unique) == ["text"]'
call advanced '{"query":"Widget","path":"src","result_types":["text"]}'
check "text alone: every match" '.returned == 2'
# An empty directory is an empty result, not a failure.
mkdir -p "$WS/void"
call advanced '{"query":"Widget","path":"void"}'
check "empty scope" '.returned == 0 and .truncated == false'

if [ "$fails" -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all checks passed"
