#!/usr/bin/env python3
"""code_search against ripgrep on a cold tree with both cores busy.

A private copy of /usr/include (made once in $CS_BENCH_DIR, default
$TMPDIR or /tmp) has its page cache dropped before every run
(posix_fadvise DONTNEED on each of its files: other trees and other
people's runs keep theirs), while `--busy N` processes spin on the CPU
(default: one per core).  Each round runs every command once, the order
reversed every other round; printed are the medians of each command's
wall and CPU time (wait4) and the medians of the paired ratios to rg's.

  cold_busy.py VTHOST [ROUNDS] [--query Q] [--busy N] [--warm]

--warm skips the eviction (the figures of a warm tree under the same
load).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_paired import run  # noqa: E402


def evict(tree):
    for d, _, files in os.walk(tree):
        for f in files:
            try:
                fd = os.open(os.path.join(d, f), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def spinners(n):
    """n processes burning CPU until killed (by the pids returned)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vthost")
    ap.add_argument("rounds", nargs="?", type=int, default=9)
    ap.add_argument("--query", default="pthread_mutex_lock")
    ap.add_argument("--busy", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--warm", action="store_true")
    a = ap.parse_args()
    base = os.environ.get("CS_BENCH_DIR", os.environ.get("TMPDIR", "/tmp"))
    tree = os.path.join(base, "cs_bench_cold_include")
    if not os.path.isdir(tree):
        shutil.copytree("/usr/include", tree, symlinks=True)
    work = tempfile.mkdtemp()
    env = dict(os.environ, XDG_STATE_HOME=work + "/state", XDG_CACHE_HOME=work + "/cache")

    def call(types):
        q = {"query": a.query, "max_results": 100}
        if types:
            q["result_types"] = types
        return [a.vthost, "--workspace", tree, "--profile", "advanced", "call", "code_search",
                json.dumps(q)]

    cmds = [("rg", ["rg", "-F", "-i", "-n", "--", a.query, tree]), ("text", call(["text"])),
            ("all", call(None))]
    wall = {n: [] for n, _ in cmds}
    cpu = {n: [] for n, _ in cmds}
    spin = spinners(a.busy)
    try:
        for r in range(a.rounds):
            for name, argv in cmds if r % 2 == 0 else list(reversed(cmds)):
                if not a.warm:
                    evict(tree)
                w, c = run(argv, (0, 1), env)
                wall[name].append(w)
                cpu[name].append(c)
    finally:
        for p in spin:
            p.kill()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{'warm' if a.warm else 'cold'} tree, {a.busy} spinning processes, "
          f"'{a.query}', {a.rounds} rounds")
    for name, _ in cmds:
        line = (f"  {name:<5} wall {statistics.median(wall[name]):8.1f} ms"
                f"  cpu {statistics.median(cpu[name]):8.1f} ms")
        if name != "rg":
            rw = statistics.median(x / y for x, y in zip(wall[name], wall["rg"]))
            rc = statistics.median(x / y for x, y in zip(cpu[name], cpu["rg"]) if y > 0)
            line += f"   {name}/rg: wall {rw:.2f}  cpu {rc:.2f}"
        print(line)


if __name__ == "__main__":
    main()
