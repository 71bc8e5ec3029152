#!/usr/bin/env python3
"""One-shot calls in a big workspace with and without its keeper
(docs/internals.md, "The workspace keeper"), against the same call in an
empty workspace: paired, alternating runs, the median of the per-pair
ratios, wall and CPU time (the call's own, from wait4, children
included).  The keeper's CPU is not the call's: its share per call is
printed apart (from /proc/PID/stat).

    tests/bench/workspace/keeper.py [--runs N] [--files N] [VTHOST]

Rows: big with keeper / empty (the goal of issue 42: <= 1.5x), big
without keeper / empty, big with / big without.  Not a test: figures.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "exec"))
from ratios import CALL, scratch  # noqa: E402


def run(argv, cwd, env):
    """(wall ms, CPU ms) of one call."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = (time.perf_counter() - t) * 1e3
    if status:
        raise SystemExit("%s failed (%d)" % (argv, status))
    return wall, (ru.ru_utime + ru.ru_stime) * 1e3


def keeper_pid(env):
    d = os.path.join(env["XDG_CACHE_HOME"], "vthost", "keeper")
    for n in os.listdir(d) if os.path.isdir(d) else []:
        if n.endswith(".lock"):
            pid = open(os.path.join(d, n)).read().strip()
            if pid and os.path.exists("/proc/%s/stat" % pid):
                return int(pid)
    return None


def cpu_ticks(pid):
    try:
        f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
        return int(f[11]) + int(f[12])
    except (OSError, TypeError):
        return 0


def paired(label, a, b, runs):
    a(), b()
    wa, wb, ca, cb, rw, rc = [], [], [], [], [], []
    for _ in range(runs):
        (x, xc), (y, yc) = a(), b()
        wa.append(x), wb.append(y), ca.append(xc), cb.append(yc)
        rw.append(x / y), rc.append(xc / max(yc, 0.001))
    m = statistics.median
    print(f"  {label:44s} wall {m(wa):7.1f} / {m(wb):7.1f} ms = {m(rw):5.2f}x   "
          f"CPU {m(ca):6.1f} / {m(cb):6.1f} ms = {m(rc):5.2f}x", flush=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("vthost", nargs="?", default=os.path.join(here, "../../../build/bin/vthost"))
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--files", type=int, default=100000)
    a = ap.parse_args()
    vt = os.path.realpath(a.vthost)
    root = tempfile.mkdtemp(prefix="vthost-keeper-")
    try:
        empty, eenv = scratch(root, "empty")
        big, benv = scratch(root, "big", a.files)
        off_cfg = os.path.join(root, "off.toml")
        with open(off_cfg, "w") as f:
            f.write("[workspace]\nkeeper = false\n")
        off, oenv = scratch(root, "off", a.files)
        on = lambda: run([vt] + CALL, big, benv)
        nokeeper = lambda: run([vt, "--config", off_cfg] + CALL, off, oenv)
        bare = lambda: run([vt] + CALL, empty, eenv)
        on()
        end = time.time() + 120  # the keeper's first build
        while keeper_pid(benv) is None and time.time() < end:
            time.sleep(0.2)
        time.sleep(1)
        kp = keeper_pid(benv)
        print(f"{vt}: {a.files} files, medians of {a.runs} paired runs; keeper pid {kp}")
        t0, n0 = cpu_ticks(kp), 0
        paired(f"{a.files} files, keeper / empty (goal <= 1.5x)", on, bare, a.runs)
        n0 += a.runs + 1
        hz = os.sysconf("SC_CLK_TCK")
        print(f"  the keeper's CPU: {(cpu_ticks(kp) - t0) * 1e3 / hz / n0:.2f} ms per call")
        paired(f"{a.files} files, no keeper / empty", nokeeper, bare, a.runs)
        paired(f"{a.files} files, keeper / no keeper", on, nokeeper, a.runs)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
