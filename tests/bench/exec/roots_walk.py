#!/usr/bin/env python3
"""What finding the repositories below a writable root costs a one-shot
sandboxed `exec_command true`: a `[sandbox] writable_roots` directory of
DIRS directories (a repository every 500) outside an empty workspace,
timed for vthost NEW against vthost BASE (the yardstick: another build),
in paired, alternating runs; prints each build's median wall time and
the median of the per-pair ratios NEW/BASE.

    roots_walk.py NEW BASE [RUNS=15] [DIRS=20000]
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

NEW, BASE = sys.argv[1], sys.argv[2]
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 15
DIRS = int(sys.argv[4]) if len(sys.argv) > 4 else 20000

base = tempfile.mkdtemp(prefix="vthost-roots-walk-", dir="/var/tmp")
ws = os.path.join(base, "ws")
root = os.path.join(base, "root")
os.makedirs(ws)
for i in range(DIRS):
    d = os.path.join(root, "d%03d" % (i // 100), "e%03d" % (i % 100))
    os.makedirs(d)
    if i % 500 == 0:
        os.makedirs(os.path.join(d, ".git", "objects"))
cfg = os.path.join(base, "config.toml")
with open(cfg, "w") as f:
    f.write('[permissions]\nallow = ["exec_command"]\n[sandbox]\nwritable_roots = ["%s"]\n' % root)
env = dict(os.environ, HOME=base)


def once(v):
    t = time.perf_counter()
    p = subprocess.run([v, "--workspace", ws, "--config", cfg, "--yes", "call", "exec_command",
                        json.dumps({"cmd": "true"})], capture_output=True, text=True, env=env,
                       stdin=subprocess.DEVNULL)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit("%s failed: %s" % (v, p.stderr[:300]))
    return dt


once(NEW), once(BASE)  # warm the page cache and both index caches
new, old, ratios = [], [], []
for i in range(RUNS):
    if i % 2:
        b, n = once(BASE), once(NEW)
    else:
        n, b = once(NEW), once(BASE)
    new.append(n)
    old.append(b)
    ratios.append(n / b)
shutil.rmtree(base, ignore_errors=True)
print("dirs %d runs %d: new %.1f ms, base %.1f ms, new/base median of ratios %.2fx"
      % (DIRS, RUNS, 1000 * statistics.median(new), 1000 * statistics.median(old),
         statistics.median(ratios)))
