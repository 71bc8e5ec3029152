#!/usr/bin/env python3
"""Paired, alternating runs of whole processes, timed by wall clock and by
CPU (user + system of the child and its threads, from wait4's rusage).

On a shared machine the CPU time of a process is far steadier than its
wall time: other people's work delays a run but does not bill it.  Each
round runs every command once (the order reversed every other round); the
figure printed is the median over rounds of each command's time over the
first command's (the yardstick's) in the same round.

  cpu_paired.py ROUNDS NAME=ARGV_AS_JSON [NAME=ARGV_AS_JSON ...]

Example:
  cpu_paired.py 9 'rg=["rg","-F","-i","x","/usr/include"]' \\
                  'cs=["build/bin/vthost","call","code_search","{\\"query\\":\\"x\\"}"]'
"""
import json
import os
import statistics
import sys
import time


def run(argv):
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            fd = os.open(os.devnull, os.O_RDWR)
            os.dup2(fd, 0)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"cpu_paired: {' '.join(argv)} exited {code}")
    return wall * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    cmds = []
    for spec in sys.argv[2:]:
        name, _, argv = spec.partition("=")
        cmds.append((name, json.loads(argv)))
    wall = {n: [] for n, _ in cmds}
    cpu = {n: [] for n, _ in cmds}
    for r in range(rounds):
        order = cmds if r % 2 == 0 else list(reversed(cmds))
        for name, argv in order:
            w, c = run(argv)
            wall[name].append(w)
            cpu[name].append(c)
    y = cmds[0][0]
    for name, _ in cmds:
        line = (f"  {name:<10} wall {statistics.median(wall[name]):8.1f} ms"
                f"  cpu {statistics.median(cpu[name]):8.1f} ms")
        if name != y:
            rw = statistics.median(a / b for a, b in zip(wall[name], wall[y]))
            rc = statistics.median(a / b for a, b in zip(cpu[name], cpu[y]) if b > 0)
            line += f"   {name}/{y}: wall {rw:.2f}x  cpu {rc:.2f}x"
        else:
            line += "   (yardstick)"
        print(line, flush=True)


if __name__ == "__main__":
    main()
