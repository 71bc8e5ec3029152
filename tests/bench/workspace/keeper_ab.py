#!/usr/bin/env python3
"""Two builds side by side on the workspace keeper's path: one-shot calls
in one big workspace, each build with its own cache directory (so its
own keeper), in paired runs that alternate which build goes first.
Prints the medians and the median of the per-pair ratios NEW/OLD of the
call's wall and CPU time (wait4, children included), and each keeper's
CPU per call (perf stat's task-clock over all runs).

    tests/bench/workspace/keeper_ab.py [--runs N] [--files N] NEW OLD

Not a test: figures.
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "exec"))
from keeper import cpu_ticks, keeper_pid, run  # noqa: E402
from ratios import CALL, scratch  # noqa: E402


class KeeperCpu:
    """A keeper's CPU over the runs (ms): perf stat's task-clock, which
    counts the threads it starts later too (answers it could not send at
    once go out on one); without perf, /proc/PID/stat's ticks."""

    def __init__(self, pid):
        self.pid = pid
        self.perf = None
        if shutil.which("perf"):
            self.perf = subprocess.Popen(["perf", "stat", "-x", ",", "-e", "task-clock", "-p",
                                          str(pid)], stderr=subprocess.PIPE, text=True)
            time.sleep(0.5)
        self.t0 = cpu_ticks(pid)

    def stop(self):
        if self.perf:
            self.perf.send_signal(signal.SIGINT)
            out = self.perf.communicate()[1]
            for line in out.splitlines():
                f = line.split(",")
                if len(f) > 2 and f[2] == "task-clock":
                    try:
                        return float(f[0])
                    except ValueError:
                        pass
        return (cpu_ticks(self.pid) - self.t0) * 1e3 / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("new")
    ap.add_argument("old")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--files", type=int, default=100000)
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="vthost-keeper-ab-")
    try:
        ws, base_env = scratch(root, "big", a.files)
        builds = []
        for name, vt in (("new", a.new), ("old", a.old)):
            env = dict(base_env)
            for k in ("CONFIG", "CACHE", "STATE"):
                d = os.path.join(root, f"{name}-{k.lower()}")
                os.makedirs(d)
                env[f"XDG_{k}_HOME"] = d
            argv = [os.path.realpath(vt)] + CALL
            run(argv, ws, env)
            end = time.time() + 120  # the keeper's first build
            while keeper_pid(env) is None and time.time() < end:
                time.sleep(0.2)
            builds.append((argv, env))
        time.sleep(1)
        for argv, env in builds:  # each keeper vouching, its file saved
            run(argv, ws, env)
        pids = [keeper_pid(env) for _, env in builds]
        kcpu = [KeeperCpu(p) for p in pids]
        w = {0: [], 1: []}
        c = {0: [], 1: []}
        rw, rc = [], []
        for i in range(a.runs):
            order = (0, 1) if i % 2 == 0 else (1, 0)
            got = {}
            for b in order:
                got[b] = run(builds[b][0], ws, builds[b][1])
            for b in (0, 1):
                w[b].append(got[b][0])
                c[b].append(got[b][1])
            rw.append(got[0][0] / got[1][0])
            rc.append(got[0][1] / max(got[1][1], 0.001))
        kc = [k.stop() / a.runs for k in kcpu]
        m = statistics.median
        print(f"{a.files} files, {a.runs} alternating pairs; keepers {pids}")
        print(f"  call wall new/old {m(w[0]):7.2f} / {m(w[1]):7.2f} ms = {m(rw):5.3f}x")
        print(f"  call CPU  new/old {m(c[0]):7.2f} / {m(c[1]):7.2f} ms = {m(rc):5.3f}x")
        print(f"  keeper CPU per call: new {kc[0]:.2f} ms, old {kc[1]:.2f} ms")
    finally:
        for _, env in builds if "builds" in dir() else []:
            p = keeper_pid(env)
            if p:
                os.kill(p, 15)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
