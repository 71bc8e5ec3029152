#!/usr/bin/env bash
# Start-up benchmark: `vthost tools` with the default profile loaded,
# median wall time over repeated runs (hyperfine, no shell), beside a bare
# /bin/true for scale, plus the instructions and page faults it costs.
# Target: under 5 ms.
#   tests/bench/host/startup.sh [build/bin/vthost] [runs]
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
V=${1:-$here/build/bin/vthost}
runs=${2:-300}
command -v hyperfine >/dev/null || { echo "hyperfine is required (apt-get install -y hyperfine)"; exit 1; }
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
cd "$ws"
"$V" tools >/dev/null   # fails loudly if the default profile cannot load
hyperfine -N --warmup 20 --runs "$runs" --export-json "$ws/hf.json" "$V tools" /bin/true >/dev/null
python3 - "$ws/hf.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
vt, tr = r[0]["median"] * 1000, r[1]["median"] * 1000
print(f"vthost tools (default profile): median {vt:.3f} ms")
print(f"/bin/true:                      median {tr:.3f} ms")
print(f"ratio: {vt / tr:.2f}x /bin/true; target < 5 ms: {'met' if vt < 5 else 'NOT met'}")
PY
if command -v perf >/dev/null && perf stat -e page-faults true >/dev/null 2>&1; then
    for cmd in "$V tools" /bin/true; do
        pf=$(perf stat -x, -e page-faults $cmd 2>&1 >/dev/null | cut -d, -f1)
        echo "page faults: $pf ($cmd)"
    done
fi
if command -v valgrind >/dev/null; then
    ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$V" tools 2>&1 >/dev/null |
         sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    echo "instructions: $ir ($V tools, callgrind)"
fi
