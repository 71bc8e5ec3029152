#!/usr/bin/env bash
# Start-up benchmark: `vthost tools` with the default profile loaded,
# median wall time over repeated runs, beside a bare /bin/true for scale.
# Target: under 5 ms.
#   tests/bench/host/startup.sh [build/bin/vthost] [runs]
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
V=${1:-$here/build/bin/vthost}
runs=${2:-200}
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
"$V" --workspace "$ws" tools >/dev/null   # fails loudly if the profile cannot load

median_ms() { # median_ms CMD...
    python3 - "$runs" "$@" <<'PY'
import subprocess, sys, time
runs = int(sys.argv[1]); cmd = sys.argv[2:]
t = []
for _ in range(runs):
    s = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    t.append((time.perf_counter() - s) * 1000)
t.sort()
print(f"{t[len(t)//2]:.3f}")
PY
}
vt=$(median_ms "$V" --workspace "$ws" tools)
tr=$(median_ms /bin/true)
python3 - "$vt" "$tr" <<'PY'
import sys
vt, tr = float(sys.argv[1]), float(sys.argv[2])
print(f"vthost tools (default profile): median {vt:.3f} ms")
print(f"/bin/true:                      median {tr:.3f} ms")
print(f"ratio: {vt/tr:.2f}x /bin/true; target < 5 ms: {'met' if vt < 5 else 'NOT met'}")
PY
