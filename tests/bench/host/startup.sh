#!/usr/bin/env bash
# Start-up benchmark: `vthost tools` and a one-shot `vthost call` beside a
# bare /bin/true, run interleaved (true, tools, call, true, tools, ...) so
# that machine load falls on all three alike; median wall time, the ratio
# to /bin/true, the median of the per-round ratios (goal: at most 1.5x,
# issue 42), minor page faults and CPU time
# (user + system, from wait4: steadier than wall time on a loaded
# machine), and the instructions each executes (perf stat where the CPU
# counters are readable, else callgrind's total, which counts user space
# including the dynamic loader).
#
# The call is `vthost call search_tools '{"query":"find symbol definitions"}'`:
# a whole tools/call through the pipeline (schema check, permission, run,
# render) with the deferred catalog indexed and the query's words stemmed
# and searched (the default profile's catalog is empty until MCP providers
# or third-party plugins add tools: the search finds nothing), and no
# process started (a sandboxed command's
# own start-up would measure the sandbox, see tests/bench/sandbox).
#
# It runs in an empty scratch workspace with an empty XDG_CONFIG_HOME and
# XDG_CACHE_HOME (no vtcode.toml anywhere, the caches written by a first
# run that is not counted: the workspace index, and the listing of
# `vthost tools`, kept once its inputs are two seconds old), and once more
# with a vtcode.toml in the workspace.
#   tests/bench/host/startup.sh [build/bin/vthost] [runs]
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
V=$(realpath "${1:-$here/build/bin/vthost}")
runs=${2:-300}
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/work" "$ws/config" "$ws/cache"
cd "$ws/work"
export XDG_CONFIG_HOME=$ws/config XDG_CACHE_HOME=$ws/cache HOME=$ws
"$V" tools >/dev/null   # fails loudly if the default profile cannot load
sleep 2.1               # the listing is kept from files older than 2 s
QUERY='{"query":"find symbol definitions"}'
"$V" call search_tools "$QUERY" | grep -q '"count":'  # the search ran

timing() { # timing LABEL: the interleaved loop over true, tools, call
python3 - "$V" "$runs" "$1" "$QUERY" <<'PY'
import os, sys, time, statistics
vt, runs, label, query = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
cmds = [("/bin/true", ["/bin/true"]),
        ("vthost tools", [vt, "tools"]),
        ("vthost call search_tools", [vt, "call", "search_tools", query])]
null = os.open(os.devnull, os.O_WRONLY)
acts = ((os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2))
wall = {n: [] for n, _ in cmds}
faults = {n: [] for n, _ in cmds}
cpu = {n: [] for n, _ in cmds}
for i in range(runs + 10):  # the first ten warm the caches
    for name, argv in cmds:
        t = time.perf_counter_ns()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=acts)
        _, status, ru = os.wait4(pid, 0)
        dt = time.perf_counter_ns() - t
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{name} failed")
        if i >= 10:
            wall[name].append(dt / 1e6)
            faults[name].append(ru.ru_minflt)
            cpu[name].append((ru.ru_utime + ru.ru_stime) * 1e3)
base = statistics.median(wall["/bin/true"])
cbase = statistics.median(cpu["/bin/true"]) or 1e-3
print(f"{label}: median of {runs} interleaved runs")
for name, _ in cmds:
    m = statistics.median(wall[name])
    c = statistics.median(cpu[name])
    print(f"  {name:26s} {m:7.3f} ms  {m / base:5.2f}x /bin/true  "
          f"page faults {int(statistics.median(faults[name]))}  "
          f"cpu {c:6.3f} ms ({c / cbase:4.1f}x)")
# the goal is read on the median of the ratios of each round's runs
# (paired: the load of the moment falls on both)
for name, _ in cmds[1:]:
    r = statistics.median(a / b for a, b in zip(wall[name], wall["/bin/true"]))
    goal = (f" (goal <= 1.5x: {'met' if r <= 1.5 else 'NOT met'})"
            if name == "vthost tools" else "")
    print(f"  {name} / /bin/true: {r:5.2f}x, median of {runs} paired ratios{goal}")
PY
}

instructions() { # instructions ARGV...: user-space instructions of one run
    local n
    if n=$(perf stat -x, -e instructions:u "$@" 2>&1 >/dev/null | cut -d, -f1) && [[ $n =~ ^[0-9]+$ ]]; then
        echo "$n (perf stat instructions:u)"
    elif command -v valgrind >/dev/null; then
        n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
            sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
        echo "$n (callgrind)"
    else
        echo "n/a (neither perf counters nor valgrind)"
    fi
}

report() { # report LABEL
    timing "$1"
    echo "  instructions: /bin/true $(instructions /bin/true)"
    echo "                vthost tools $(instructions "$V" tools)"
    echo "                vthost call search_tools $(instructions "$V" call search_tools "$QUERY")"
    echo "  shared objects mapped by vthost tools: $(LD_DEBUG=files "$V" tools 2>&1 >/dev/null |
        grep -c 'calling init:'), by the call: $(LD_DEBUG=files "$V" call search_tools "$QUERY" \
        2>&1 >/dev/null | grep -c 'calling init:')"
}

report "no vtcode.toml"
printf '[tools]\nprofile = "default"\n' >"$ws/work/vtcode.toml"
sleep 2.1
"$V" tools >/dev/null
report "with a workspace vtcode.toml"
