#!/usr/bin/env python3
"""Where the time of one one-shot sandboxed call goes, phase by phase.

    tests/bench/exec/phases.py [VTHOST] [TRACES]

Traces `vthost call --approval sandboxed exec_command '{"cmd":"true"}'`
TRACES times (default 7) with `strace -f -ttt -T` in a scratch workspace
(empty XDG_CONFIG_HOME/XDG_CACHE_HOME/XDG_STATE_HOME; one untimed call
first, so that the index cache exists as it does for any second call) and
cuts each trace at the system calls that begin a phase (below).  Prints
the median of each phase over the traces, its share of the traced total,
and the slowest system calls inside it (a wait shows up there: a lock, a
grace period, a poll).  strace slows every system call, so the traced
total is larger than an untraced call's: read the shares and the waits,
and the untraced medians printed last.

Phases: exec + dynamic loading; profile/config parse; plugin dlopen and
init (with the permission decision); guard state; the workspace index's
load and validation; the namespace probe (where one runs); the plan
(Landlock ruleset, seccomp program, paths, pids cgroup); the session
leader's clone; its mounts; the pids cgroup, rlimits and capabilities;
Landlock; seccomp and the run-time checks; the command; the leader's exit
and the host's wake-up; the after-call checks (guard, index, aftermath);
exit.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LINE = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(.*?)(?:\s+<(\d+\.\d+)>)?$")

# (name, whose system call ends it: "main" or "leader", pattern)
PHASES = [
    ("exec + dynamic loading", "main", r'^openat\(AT_FDCWD, "(?![^"]*\.so[."])(?!/etc/ld\.so)'),
    ("profile/config parse", "main", r'/plugins", O_RDONLY'),
    ("plugin dlopen + init, permission", "main", r"guard/[0-9a-f]+\.json"),
    ("guard state", "main", r"^inotify_init1|wsindex/"),
    # the probe: a fork (older builds) or one clone3 into the namespaces
    ("index load/validate", "main",
     r"^clone\(child_stack=NULL|^clone3\(\{flags=(?!CLONE_PIDFD)[^}]*CLONE_NEWPID"
     r"|^landlock_create_ruleset\(\{"),
    ("namespace probe", "main", r"^landlock_create_ruleset\(\{"),
    ("plan: Landlock, seccomp, paths, cgroup", "main", r"^clone3\(\{flags=CLONE_PIDFD"),
    ("leader clone until it runs", "leader", r"."),
    ("namespace/mount setup", "leader", r"^chdir\("),
    ("pids cgroup, rlimits, capabilities", "leader", r"PR_SET_NO_NEW_PRIVS"),
    ("Landlock", "leader", r"PR_SET_SECCOMP|^seccomp\(SECCOMP_SET_MODE_FILTER"),
    ("seccomp + run-time checks", "leader", r"^vfork\(|^clone"),
    # the leader reaps the shell (strace may split the call in two lines)
    ("the command (sh -c true)", "leader",
     r"^wait4\(-1, \[\{WIFEXITED|^<\.\.\. wait4 resumed>\[\{WIFEXITED"),
    ("leader exit, host wake-up", "main", r"guard/[0-9a-f]+\.json|^read\(|^rmdir\("),
    ("after-call checks", "main", r"^write\(1, "),
    ("exit", "end", None),
]


def parse(path):
    out = []
    for raw in open(path, errors="replace"):
        m = LINE.match(raw.rstrip("\n"))
        if m:
            dur = float(m.group(4)) if m.group(4) else 0.0
            out.append((int(m.group(1)), float(m.group(2)), m.group(3), dur))
    return out


def cut(lines):
    """Per phase: (milliseconds, [(ms, call)] slowest calls in it)."""
    main = lines[0][0]
    leader = None
    for pid, _, call, _ in lines:
        if pid == main and call.startswith("clone3({flags=CLONE_PIDFD"):
            m = re.search(r"= (\d+)", call)
            leader = int(m.group(1)) if m else None
    # the host's own exit (a helper it left may write lines after it)
    t_end = next((t for p, t, c, _ in reversed(lines) if p == main), lines[-1][1])
    bounds, i = [lines[0][1]], 0
    for name, who, pat in PHASES:
        if who == "end":
            bounds.append(t_end)
            break
        want = main if who == "main" else leader
        rx = re.compile(pat)
        j = i
        while j < len(lines) and not (lines[j][0] == want and rx.search(lines[j][2])):
            j += 1
        if j == len(lines):  # not in this trace (e.g. no probe): zero length
            bounds.append(bounds[-1])
            continue
        bounds.append(max(lines[j][1], bounds[-1]))
        i = j
    res = []
    for k, (name, _, _) in enumerate(PHASES):
        a, b = bounds[k], bounds[k + 1]
        # the host's and the leader's own calls that began in this phase
        # (a helper thread's long poll is a wait of its own, not the call's)
        slow = sorted(((d * 1e3, c) for p, t, c, d in lines
                       if p in (main, leader) and d > 0.0005 and a <= t - d and t < b),
                      reverse=True)[:2]
        res.append(((b - a) * 1e3, slow))
    return res


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    vt = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else
                          os.path.join(here, "../../../build/bin/vthost"))
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    if not shutil.which("strace"):
        sys.exit("phases.py needs strace (apt-get install strace)")
    root = tempfile.mkdtemp(prefix="vthost-phases-")
    try:
        env = dict(os.environ)
        for k in ("CONFIG", "CACHE", "STATE"):
            os.makedirs(f"{root}/{k.lower()}")
            env[f"XDG_{k}_HOME"] = f"{root}/{k.lower()}"
        ws = f"{root}/ws"
        os.makedirs(ws)
        argv = [vt, "call", "--approval", "sandboxed", "exec_command", '{"cmd":"true"}']
        subprocess.run(argv, cwd=ws, env=env, check=True, stdout=subprocess.DEVNULL)
        runs, totals = [], []
        for r in range(n):
            tr = f"{root}/trace{r}"
            subprocess.run(["strace", "-f", "-ttt", "-T", "-o", tr] + argv, cwd=ws, env=env,
                           check=True, stdout=subprocess.DEVNULL)
            lines = parse(tr)
            runs.append(cut(lines))
            end = next(t for p, t, _, _ in reversed(lines) if p == lines[0][0])
            totals.append((end - lines[0][1]) * 1e3)
        untraced = []
        for _ in range(max(15, n)):
            t = time.perf_counter()
            subprocess.run(argv, cwd=ws, env=env, check=True, stdout=subprocess.DEVNULL)
            untraced.append((time.perf_counter() - t) * 1e3)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    total = statistics.median(totals)
    print(f"one-shot exec_command true, {vt}: phases, median of {n} strace -f runs")
    print(f"  {'phase':42s} {'ms':>7s} {'share':>6s}  slowest calls in it (ms)")
    for k, (name, _, _) in enumerate(PHASES):
        ms = statistics.median(run[k][0] for run in runs)
        slow = max((run[k][1] for run in runs), key=lambda s: s[0][0] if s else 0)
        shown = "; ".join(f"{d:.1f} {c[:48]}" for d, c in slow)
        print(f"  {name:42s} {ms:7.2f} {100 * ms / total:5.1f}%  {shown}")
    print(f"  {'total (traced)':42s} {total:7.2f}")
    print(f"  untraced wall, median of {len(untraced)}: {statistics.median(untraced):.2f} ms")


if __name__ == "__main__":
    main()
