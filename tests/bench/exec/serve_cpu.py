#!/usr/bin/env python3
"""CPU per `exec_command true` through a running `vthost serve`, the whole
process tree (the host's threads, each call's session leader and its
command), against the namespaces alone (`unshare -m -p -n -i -u --fork
/bin/true`) or against an older build.  CPU rather than wall time: on a
shared machine the load falls on the wall figure, much less on CPU.

    tests/bench/exec/serve_cpu.py [--rounds R] [--calls N] VTHOST [OLD_VTHOST]
    tests/bench/exec/serve_cpu.py --perf [--rounds R] [--calls N] VTHOST OLD_VTHOST

Alternating rounds (A, B, A, B, ...) of N calls each; the serve's CPU is
read from /proc/PID/stat (utime+stime of its threads, cutime+cstime of
the reaped leaders, utime+stime of the leader maker) before and after a
round, the floor's from wait4's rusage.  Prints per-call CPU and wall medians and the median of the
per-round ratios.  /proc counts in clock ticks (10 ms): keep N * the
per-call CPU well above a second, or use --perf: each round then starts
both serves under `perf stat -e task-clock` (the whole tree, in
nanoseconds), alternates batches of 10 calls between them up to N each,
and the round's ratio is of the two totals (start-up included, so keep
N in the hundreds).  --old-env KEY=VALUE sets a variable for the second
serve only: `--perf --old-env SHELL=/usr/bin/true VTHOST VTHOST` is what
the user's shell costs a call of `true` (the second serve runs
`/usr/bin/true -c true`).  Not a test: prints figures only.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ratios import FLOOR, Serve, scratch  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def tree_cpu(pid):
    """The serve's threads and reaped children, and its live children in
    its own PID namespace: the exec plugin's leader maker (zygote.c),
    which the serve reaps only when it ends."""
    total = sum(int(x) for x in _stat(pid)[11:15])
    own = os.readlink(f"/proc/{pid}/ns/pid")
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                kids = f.read().split()
        except OSError:
            continue
        for k in kids:
            try:
                if os.readlink(f"/proc/{k}/ns/pid") == own:
                    total += sum(int(x) for x in _stat(k)[11:13])
            except OSError:
                pass
    return total * 1e3 / TICK


def serve_round(s, n):
    c0, t0 = tree_cpu(s.p.pid), time.perf_counter()
    for _ in range(n):
        s.call()
    return (tree_cpu(s.p.pid) - c0) / n, (time.perf_counter() - t0) * 1e3 / n


def floor_round(ws, env, n):
    cpu, t0 = 0.0, time.perf_counter()
    for _ in range(n):
        p = subprocess.Popen(FLOOR, cwd=ws, env=env)
        _, _, ru = os.wait4(p.pid, 0)
        p.returncode = 0
        cpu += (ru.ru_utime + ru.ru_stime) * 1e3
    return cpu / n, (time.perf_counter() - t0) * 1e3 / n


class PerfServe(Serve):
    """A serve under `perf stat -e task-clock` (inherited by every thread
    and child); close() returns the tree's CPU in milliseconds."""

    def __init__(self, vt, ws, env, out):
        self.out = out
        super().__init__(vt, ws, env, wrap=["perf", "stat", "-x,", "-e", "task-clock", "-o", out])

    def close(self):
        super().close()
        with open(self.out) as f:
            for line in f:
                if "task-clock" in line:
                    return float(line.split(",")[0])
        sys.exit("perf stat gave no task-clock")


def perf_rounds(a, ws, env, root):
    ratios, ta, tb = [], [], []
    env_b = dict(env, **dict(kv.split("=", 1) for kv in a.old_env))
    for r in range(a.rounds):
        sa = PerfServe(os.path.realpath(a.vthost), ws, env, os.path.join(root, "a%d" % r))
        sb = PerfServe(os.path.realpath(a.old), ws, env_b, os.path.join(root, "b%d" % r))
        for _ in range(max(1, a.calls // 10)):
            for s in (sa, sb):
                for _ in range(10):
                    s.call()
        n = max(1, a.calls // 10) * 10
        ca, cb = sa.close() / n, sb.close() / n
        ta.append(ca)
        tb.append(cb)
        ratios.append(ca / cb)
    other = "the same with " + " ".join(a.old_env) if a.old_env else "old build"
    print(f"serve exec_command true / {other}, perf stat task-clock: {a.rounds} rounds of "
          f"{a.calls} calls each")
    print(f"  CPU  {statistics.median(ta):6.3f} ms / {statistics.median(tb):6.3f} ms = "
          f"{statistics.median(ratios):5.3f}x  (per-round ratios "
          f"{' '.join('%.3f' % x for x in sorted(ratios))})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vthost")
    ap.add_argument("old", nargs="?")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--perf", action="store_true")
    ap.add_argument("--old-env", action="append", default=[], metavar="KEY=VALUE",
                    help="with --perf: set in the second serve's environment only (the same "
                    "build twice with SHELL=/usr/bin/true gives what the shell costs a call)")
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="vthost-servecpu-")
    try:
        ws, env = scratch(root, "ws")
        if a.perf:
            if not a.old:
                sys.exit("--perf compares two builds: VTHOST OLD_VTHOST")
            return perf_rounds(a, ws, env, root)
        sa = Serve(os.path.realpath(a.vthost), ws, env)
        sb = Serve(os.path.realpath(a.old), ws, env) if a.old else None
        A = lambda: serve_round(sa, a.calls)
        B = (lambda: serve_round(sb, a.calls)) if sb else (lambda: floor_round(ws, env, a.calls))
        A(), B()
        ra, rb = [], []
        for _ in range(a.rounds):
            ra.append(A())
            rb.append(B())
        for s in (sa, sb):
            if s:
                s.close()
        med = lambda xs, i: statistics.median(x[i] for x in xs)
        cr = statistics.median(x[0] / y[0] for x, y in zip(ra, rb))
        wr = statistics.median(x[1] / y[1] for x, y in zip(ra, rb))
        name = "old build" if sb else "unshare floor"
        print(f"serve exec_command true / {name}: {a.rounds} rounds of {a.calls} calls")
        print(f"  CPU  {med(ra, 0):6.2f} ms / {med(rb, 0):6.2f} ms = {cr:5.2f}x")
        print(f"  wall {med(ra, 1):6.2f} ms / {med(rb, 1):6.2f} ms = {wr:5.2f}x")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
