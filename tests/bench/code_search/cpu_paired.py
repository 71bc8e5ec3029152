#!/usr/bin/env python3
"""Paired, alternating runs of whole processes (as ../paired.js runs
them), timed by wall clock and by CPU: user + system time of the child
and its threads, from wait4's rusage.

On a shared machine the CPU time of a process is far steadier than its
wall time: other people's work delays a run but does not bill it.  Each
round runs every command once (the order reversed every other round); the
figures printed are the medians over rounds of each command's time over
the yardstick's in the same round.

  cpu_paired.py SPEC.json

SPEC is ../paired.js's: {"rounds": N, "yardstick": name, "commands":
[{"name", "argv": [...], "ok": [exit statuses taken for success]}]}.
"""
import json
import os
import statistics
import sys
import time


def run(argv, ok, env=None):
    """One run of argv (stdin and stdout on /dev/null): its wall and CPU
    in ms; exits naming the command when its status is not in ok."""
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            fd = os.open(os.devnull, os.O_RDWR)
            os.dup2(fd, 0)
            os.dup2(fd, 1)
            os.execvpe(argv[0], argv, env if env is not None else os.environ)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        sys.exit(f"cpu_paired: {' '.join(argv)} exited {code}")
    return wall * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3


def ratio(xs, ys):
    return statistics.median(a / b for a, b in zip(xs, ys) if b > 0)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    cmds = spec["commands"]
    rounds = spec.get("rounds", 10)
    wall = {c["name"]: [] for c in cmds}
    cpu = {c["name"]: [] for c in cmds}
    for r in range(rounds):
        for c in cmds if r % 2 == 0 else list(reversed(cmds)):
            w, u = run(c["argv"], c.get("ok", [0]))
            wall[c["name"]].append(w)
            cpu[c["name"]].append(u)
    y = spec["yardstick"]
    for c in cmds:
        n = c["name"]
        line = (f"  {n:<8} wall {statistics.median(wall[n]):8.1f} ms"
                f"  cpu {statistics.median(cpu[n]):8.1f} ms")
        if n == y:
            line += "   (yardstick)"
        else:
            line += (f"   {n}/{y}: wall {ratio(wall[n], wall[y]):.2f}"
                     f"  cpu {ratio(cpu[n], cpu[y]):.2f}")
        print(line, flush=True)
    print(f"  (medians of {rounds} paired ratios)")


if __name__ == "__main__":
    main()
