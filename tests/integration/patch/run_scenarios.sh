#!/bin/bash
# Runs every scenario under scenarios/: copies before/ into a fresh
# workspace, applies `patch` (or the raw arguments in input.json) with
# `vthost call apply_patch -`, then checks the tree against after/ (or,
# with an `error` file, that the call failed with that text and left the
# tree byte-for-byte as before/).  response.json, when present, must be a
# subset of the response.  `env` holds VAR=value lines for the call.
# Usage: run_scenarios.sh VTHOST [NAME...]
set -u
VTHOST=${1:?usage: run_scenarios.sh VTHOST [NAME...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
PROFILE="$HERE/patch-only.ini"
WORK=$(mktemp -d /tmp/vthost-patch-scen.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

if [ $# -gt 0 ]; then names=("$@"); else
    names=(); for d in "$HERE"/scenarios/*/; do names+=("$(basename "$d")"); done
fi

pass=0; fail=0
# The tree as text: every entry's type, the exec bit of files, and link
# targets; file contents are compared with cmp.
manifest() {
    (cd "$1" && find . -mindepth 1 \( -type l -printf '%P l -> %l\n' \) -o \
        \( -type f -printf '%P f %m\n' \) -o \( -type d -printf '%P d\n' \) | sort |
        awk '$2=="f"{ $3 = (int(substr($3,1,1)) % 2) ? "x" : "-" } {print}')
}
same_tree() { # expected actual
    local m1 m2
    m1=$(manifest "$1"); m2=$(manifest "$2")
    if [ "$m1" != "$m2" ]; then
        diff <(echo "$m1") <(echo "$m2") | sed 's/^/    /'
        return 1
    fi
    (cd "$1" && find . -type f -print0) | while IFS= read -r -d '' f; do
        cmp -s "$1/$f" "$2/$f" || { echo "    content differs: $f"; od -c "$2/$f" | head -5 | sed 's/^/      /'; exit 1; }
    done
}
subset() { # expected.json actual.json
    node -e '
      const fs = require("fs");
      const want = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
      const got = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
      function sub(w, g, at) {
        if (Array.isArray(w)) {
          if (!Array.isArray(g) || g.length !== w.length) return at + ": array length " + (g && g.length) + " != " + w.length;
          for (let i = 0; i < w.length; i++) { const e = sub(w[i], g[i], at + "[" + i + "]"); if (e) return e; }
          return null;
        }
        if (w && typeof w === "object") {
          if (!g || typeof g !== "object") return at + ": not an object";
          for (const k of Object.keys(w)) { const e = sub(w[k], g[k], at + "." + k); if (e) return e; }
          return null;
        }
        return w === g ? null : at + ": " + JSON.stringify(g) + " != " + JSON.stringify(w);
      }
      const e = sub(want, got, "$");
      if (e) { console.log("    response mismatch " + e); process.exit(1); }
    ' "$1" "$2"
}

for name in "${names[@]}"; do
    s="$HERE/scenarios/$name"
    ws="$WORK/$name/ws"
    mkdir -p "$ws"
    [ -d "$s/before" ] && cp -a "$s/before/." "$ws/"
    if [ -f "$s/input.json" ]; then cp "$s/input.json" "$WORK/$name/args.json"
    else
         # Send the patch bytes unchanged: read as UTF-8 (scenarios are UTF-8).
         node -e 'process.stdout.write(JSON.stringify({input: require("fs").readFileSync(process.argv[1], "utf8")}))' \
              "$s/patch" > "$WORK/$name/args.json"
    fi
    envs=()
    [ -f "$s/env" ] && while IFS= read -r l; do [ -n "$l" ] && envs+=("$l"); done < "$s/env"
    env "${envs[@]}" "$VTHOST" --workspace "$ws" --profile "$PROFILE" --yes call apply_patch - \
        < "$WORK/$name/args.json" > "$WORK/$name/out.json" 2> "$WORK/$name/err.txt"
    rc=$?
    ok=1
    if [ -f "$s/error" ]; then
        want=$(cat "$s/error")
        got=$(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); process.stdout.write(String(r.error || ""))' "$WORK/$name/out.json" 2>/dev/null)
        if [ $rc -eq 0 ]; then echo "  $name: expected a failure, exit code was 0"; ok=0; fi
        case "$got" in *"$want"*) ;; *) echo "  $name: error text differs"; echo "    want: $want"; echo "    got:  $got"; ok=0;; esac
        expected="$s/before"; [ -d "$expected" ] || { mkdir -p "$WORK/$name/empty"; expected="$WORK/$name/empty"; }
        same_tree "$expected" "$ws" || { echo "  $name: tree changed although the patch failed"; ok=0; }
    else
        if [ $rc -ne 0 ]; then echo "  $name: exit code $rc: $(cat "$WORK/$name/out.json")"; ok=0; fi
        expected="$s/after"; [ -d "$expected" ] || { mkdir -p "$WORK/$name/empty"; expected="$WORK/$name/empty"; }
        same_tree "$expected" "$ws" || { echo "  $name: tree differs from after/"; ok=0; }
    fi
    if [ -f "$s/response.json" ]; then
        subset "$s/response.json" "$WORK/$name/out.json" || { echo "  $name: response differs"; ok=0; }
    fi
    if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name"; fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
