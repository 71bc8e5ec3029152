#!/usr/bin/env python3
"""Paired, alternating timing of whole processes, wall and CPU.

Reads the same SPEC.json as ../paired.js and prints, per command, the
median wall time and the median CPU time (user + system of the process
and the children it waited for, from wait4), each with the median over
rounds of its ratio to the yardstick's figure in the same round:
  NAME  WALL ms   NAME / YARDSTICK = WALL_RATIO (...)   cpu CPU ms: CPU_RATIO  The
CPU figure is the steadier one on a loaded machine: it does not count
time spent waiting for the disk or for a core.

  python3 paired_cpu.py SPEC.json
"""
import json
import os
import subprocess
import sys
import time


def run(argv, stdin=None, cwd=None, ok=(0,)):
    fin = open(stdin, 'rb') if stdin else subprocess.DEVNULL
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdin=fin, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, cwd=cwd)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = (time.monotonic() - t0) * 1e3
    p.returncode = os.waitstatus_to_exitcode(status)
    p.stderr.close()
    if stdin:
        fin.close()
    if p.returncode not in ok:
        sys.exit(f'paired_cpu: {" ".join(argv)} exited {p.returncode}: {err.decode(errors="replace")}')
    return wall, (ru.ru_utime + ru.ru_stime) * 1e3


def median(v):
    s = sorted(v)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def main():
    spec = json.load(open(sys.argv[1]))
    rounds = spec.get('rounds', 10)
    cmds = spec['commands']
    wall = {c['name']: [] for c in cmds}
    cpu = {c['name']: [] for c in cmds}
    for r in range(rounds):
        # Reversed every other round, rotated every two: with three
        # commands or more, none keeps the middle place.
        k = (r // 2) % len(cmds)
        order = cmds[k:] + cmds[:k]
        for c in (order if r % 2 == 0 else order[::-1]):
            if spec.get('prepare'):
                run(spec['prepare'])
            w, u = run(c['argv'], c.get('stdin'), c.get('cwd'), tuple(c.get('ok', [0])))
            wall[c['name']].append(w)
            cpu[c['name']].append(u)
    y = spec['yardstick']
    # The wall part keeps ../paired.js's form (../cost.sh reads it).
    for c in cmds:
        n = c['name']
        line = f'  {n:<20} {median(wall[n]):8.1f} ms   '
        if n == y:
            line += f'(yardstick)   cpu {median(cpu[n]):.1f} ms'
        else:
            rw = median([a / b for a, b in zip(wall[n], wall[y])])
            rc = median([a / b for a, b in zip(cpu[n], cpu[y]) if b > 0])
            line += (f'{n} / {y} = {rw:.2f} (median of {rounds} paired ratios)'
                     f'   cpu {median(cpu[n]):.1f} ms: {rc:.2f}')
        print(line)


if __name__ == '__main__':
    main()
