#!/usr/bin/env python3
"""What the session leader's mounts cost a `vthost serve` call, by kind,
and which mount calls it makes.

    tests/bench/exec/leader_mounts.py [--calls N] [--rounds R] VTHOST [OLD_VTHOST]

Each round runs one `vthost --approval sandboxed serve` per build (in
turn, A B A B ...) in a scratch workspace under /tmp (so its XDG homes,
beside it, are where commands may write: the plan protects and masks
them as it would a home under /tmp) under `perf record --call-graph
dwarf` for N calls (default 300), and counts the samples whose stack
passes through the leader's enter_mounts, sorted by the system call they
are in and, for mount(2), whether it made a new superblock (fc_mount: a
tmpfs, /proc, devpts) or not (a bind, the propagation change).  Then one
call of each build under `strace -f` lists the leader's mount calls.
Prints ms per call (samples / frequency / N, the median over the rounds)
and, with two builds, the ratio of the medians.  Sampling inflates every
system call alike: read the kinds against each other and the builds
against each other.  Not a test: prints figures only.
"""
import argparse
import collections
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ratios import Serve, scratch  # noqa: E402
from serve_profile import samples  # noqa: E402

FREQ = 4000
MOUNT_CALLS = re.compile(r"^\d+\s+(mount|open_tree|move_mount|mount_setattr|fsopen|fsmount|"
                         r"fsconfig|openat2)\(")


def kind(frames):
    """The mount kind of one sample of the leader's enter_mounts."""
    for f in frames:
        if f.startswith("__x64_sys_") or f.startswith("__do_sys_"):
            name = f.replace("__x64_sys_", "").replace("__do_sys_", "")
            if name == "mount":
                return "mount: new superblock" if "fc_mount" in frames else "mount: binds, lookups"
            return name
    return "user space"


def profile(vt, calls, root, n):
    ws, env = scratch(root, f"ws{n}")
    data = os.path.join(root, f"perf{n}.data")
    s = Serve(vt, ws, env, wrap=["perf", "record", "-q", "-F", str(FREQ), "--call-graph",
                                 "dwarf,16384", "-o", data, "--"])
    for _ in range(calls):
        s.call()
    s.close()
    count = collections.Counter(kind(fr) for _, _, fr in samples(data) if "enter_mounts" in fr)
    os.unlink(data)
    return {k: v * 1e3 / FREQ / calls for k, v in count.items()}


def mount_calls(vt, root, n):
    """The leader's mount system calls of the last of three calls."""
    ws, env = scratch(root, f"st{n}")
    out = os.path.join(root, f"strace{n}")
    s = Serve(vt, ws, env, wrap=["strace", "-f", "-o", out, "-e",
                                 "trace=mount,open_tree,move_mount,mount_setattr,fsopen,"
                                 "fsmount,fsconfig,openat2"])
    for _ in range(3):
        s.call()
    s.close()
    lines = [ln for ln in open(out) if MOUNT_CALLS.match(ln)]
    leader = [ln.split()[0] for ln in lines if " mount(" in ln][-1:]
    return collections.Counter(MOUNT_CALLS.match(ln).group(1) for ln in lines
                               if leader and ln.split()[0] == leader[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vthost", nargs="+")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    for tool in ("perf", "strace"):
        if not shutil.which(tool):
            sys.exit(f"leader_mounts.py needs {tool}")
    builds = [os.path.realpath(v) for v in a.vthost[:2]]
    root = tempfile.mkdtemp(prefix="vthost-leadermounts-", dir="/tmp")
    try:
        runs = {b: [] for b in builds}
        n = 0
        for _ in range(a.rounds):
            for b in builds:
                n += 1
                runs[b].append(profile(b, a.calls, root, n))
        kinds = sorted({k for b in builds for r in runs[b] for k in r})
        print(f"the leader's mounts, ms per call (perf, {FREQ} Hz, {a.calls} calls, median of "
              f"{a.rounds} rounds)")
        print(f"  {'':28}" + "".join(f"{'build ' + str(i + 1):>16}" for i in range(len(builds))))
        totals = {}
        for k in kinds + ["total"]:
            row = []
            for b in builds:
                per = [sum(r.values()) if k == "total" else r.get(k, 0.0) for r in runs[b]]
                row.append(statistics.median(per))
            totals[k] = row
            print(f"  {k:28}" + "".join(f"{v:16.3f}" for v in row))
        if len(builds) == 2 and totals["total"][1]:
            print(f"  total ratio {totals['total'][0] / totals['total'][1]:.2f}x")
        for b in builds:
            n += 1
            c = mount_calls(b, root, n)
            print(f"  build {builds.index(b) + 1} ({b}): {sum(c.values())} mount calls a leader "
                  f"({', '.join(f'{k} {v}' for k, v in sorted(c.items()))})")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
