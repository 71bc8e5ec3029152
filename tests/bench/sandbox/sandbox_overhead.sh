#!/usr/bin/env bash
# Start-up cost of the sandbox: 200 exec_command {"cmd":"true"} calls
# through one host, sandboxed (workspace-write: Landlock, seccomp, the
# read-only .git mount namespace) against unsandboxed
# (danger-full-access).  Target: at most 1.3x.
#   tests/bench/sandbox/sandbox_overhead.sh [build] [calls]
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
B=${1:-$here/build}
n=${2:-200}
bench="$B/tests/exec_bench"
[ -x "$bench" ] || { echo "build $bench first (cmake --build $B --target exec_bench)"; exit 1; }
run() { VTHOST_BENCH_TOML="$1" "$bench" overhead "$n" | sed -n 's/^overhead \/bin\/sh  : [0-9]* exec_command calls \([0-9.]*\) s.*/\1/p'; }
best() { local b=""; for _ in 1 2 3; do t=$(run "$1"); if [ -z "$b" ] || python3 -c "import sys; sys.exit(0 if $t < $b else 1)"; then b=$t; fi; done; echo "$b"; }
off=$(best $'[sandbox]\nmode = "danger-full-access"')
on=$(best '')
python3 - "$on" "$off" "$n" <<'PY'
import sys
on, off, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
print(f"{n} exec_command 'true', sandboxed (workspace-write): {on:.3f} s ({on/n*1000:.2f} ms/call)")
print(f"{n} exec_command 'true', unsandboxed:                 {off:.3f} s ({off/n*1000:.2f} ms/call)")
print(f"ratio: {on/off:.2f}x (best of 3 each); target at most 1.3x: {'met' if on/off <= 1.3 else 'NOT met'}")
PY
