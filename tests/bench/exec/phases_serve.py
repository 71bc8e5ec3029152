#!/usr/bin/env python3
"""Where the time of one `exec_command true` through `vthost serve` goes,
phase by phase (the serve row of ratios.py).

    tests/bench/exec/phases_serve.py [VTHOST] [CALLS]

Runs one `vthost --approval sandboxed serve` (MCP on stdio) under
`strace -f -ttt -T` in a scratch workspace, makes 3 untimed calls and then
CALLS (default 15) traced ones, and cuts each call at the system calls
that begin a phase: the host (its threads), the spawn template (where
there is one: plugins/exec/spawn_template.c) and the call's session
leader.  Prints the median of each phase over the calls and its share,
with the slowest system calls in it.  strace slows every system call:
read the shares; ratios.py gives the untraced figure.

Phases: the request read to the plan's start (dispatch, permission,
guard); the plan (Landlock ruleset, paths, cgroup) to the clone, or to
the hand-over to the template; the template's receipt until its clone;
the leader's clone until it runs; its mounts; cgroup, rlimits and
capabilities; Landlock; seccomp and the run-time checks; the command;
the leader's report to the answer on stdout (the host's wake-up and
after-call checks).
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from phases import parse

# (name, whose system call ends it: "host", "template" or "leader", pattern)
PHASES = [
    ("dispatch, permission, guard", "host", r"^landlock_create_ruleset\(\{"),
    ("plan: Landlock, paths, cgroup", "host",
     r"^clone3\(\{flags=CLONE_PIDFD|^sendmsg\(\d+, \{msg_name=NULL.*SCM_RIGHTS"),
    ("hand-over to the template", "template", r"^clone3\(\{flags=CLONE_PIDFD"),
    ("leader clone until it runs", "leader", r"."),
    ("namespace/mount setup", "leader", r"^chdir\("),
    ("pids cgroup, rlimits, capabilities", "leader", r"PR_SET_NO_NEW_PRIVS"),
    ("Landlock", "leader", r"PR_SET_SECCOMP|^seccomp\(SECCOMP_SET_MODE_FILTER"),
    ("seccomp + run-time checks", "leader", r"^vfork\(|^clone"),
    ("the command (sh -c true)", "leader",
     r"^wait4\(-1, \[\{WIFEXITED|^<\.\.\. wait4 resumed>\[\{WIFEXITED"),
    ("leader report to the answer", "host", r'^write\(\d+, "\{\\"jsonrpc'),
]
CALL = r'^(read\(\d+, |<\.\.\. read resumed>)"\{.*tools/call'


def actors(lines):
    """The host's threads, the template (or None) and the leaders in order
    (a clone strace splits in two lines is joined by its pid)."""
    host = {lines[0][0]}
    template, leaders, pending = None, [], {}
    for pid, _, call, _ in lines:
        if call.startswith(("clone(", "clone3(")):
            pending[pid] = call
        elif not call.startswith(("<... clone resumed>", "<... clone3 resumed>")):
            continue
        m = re.search(r"= (\d+)$", call)
        if not m:
            continue
        call, child = pending.pop(pid, call), int(m.group(1))
        if pid in host and "CLONE_THREAD" in call:
            host.add(child)
        elif pid in host and template is None and "flags=SIGCHLD" in call and "CLONE_" not in call:
            template = child
        elif call.startswith("clone3({flags=CLONE_PIDFD") and "CLONE_NEWPID" in call:
            leaders.append(child)
    return host, template, leaders


def cut(lines, start, host, template, leader):
    """Per phase of the call whose request line is lines[start]: (ms, slowest)."""
    who = {"host": host, "template": {template}, "leader": {leader}}
    bounds, i = [lines[start][1]], start
    for name, actor, pat in PHASES:
        rx, want = re.compile(pat), who[actor]
        j = i
        while j < len(lines) and not (lines[j][0] in want and rx.search(lines[j][2])):
            j += 1
        if j == len(lines):  # not in this trace (no template): zero length
            bounds.append(bounds[-1])
            continue
        bounds.append(max(lines[j][1], bounds[-1]))
        i = j
    res = []
    mine = host | {template, leader}
    for k in range(len(PHASES)):
        a, b = bounds[k], bounds[k + 1]
        slow = sorted(((d * 1e3, c) for p, t, c, d in lines
                       if p in mine and d > 0.0003 and a <= t - d and t < b
                       and not c.startswith(("poll(", "futex(", "recvmsg(", "epoll_wait("))),
                      reverse=True)[:2]
        res.append(((b - a) * 1e3, slow))
    return res, (bounds[-1] - bounds[0]) * 1e3


def trace(vt, calls, root):
    env = dict(os.environ)
    for k in ("CONFIG", "CACHE", "STATE"):
        os.makedirs(f"{root}/{k.lower()}")
        env[f"XDG_{k}_HOME"] = f"{root}/{k.lower()}"
    ws = f"{root}/ws"
    os.makedirs(ws)
    tr = f"{root}/trace"
    p = subprocess.Popen(["strace", "-f", "-ttt", "-T", "-s", "256", "-o", tr, vt,
                          "--approval", "sandboxed", "serve"], cwd=ws, env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def rpc(i, method, params):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                  "params": params}) + "\n")
        p.stdin.flush()
        while True:
            m = json.loads(p.stdout.readline())
            if m.get("id") == i:
                return m

    rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "phases", "version": "1"}})
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    for i in range(calls + 3):
        r = rpc(10 + i, "tools/call", {"name": "exec_command", "arguments": {"cmd": "true"}})
        if "error" in r or r["result"].get("isError"):
            sys.exit(f"exec_command through serve failed: {r}")
    p.stdin.close()
    p.wait(timeout=60)
    return parse(tr)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    vt = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else
                          os.path.join(here, "../../../build/bin/vthost"))
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    if not shutil.which("strace"):
        sys.exit("phases_serve.py needs strace (apt-get install strace)")
    root = tempfile.mkdtemp(prefix="vthost-phases-serve-")
    try:
        lines = trace(vt, n, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    host, template, leaders = actors(lines)
    starts = [k for k, (p, _, c, _) in enumerate(lines) if p in host and re.search(CALL, c)]
    if len(starts) != len(leaders) or len(starts) < n + 3:
        sys.exit(f"trace not understood: {len(starts)} requests, {len(leaders)} leaders")
    runs = [cut(lines, s, host, template, ld) for s, ld in list(zip(starts, leaders))[3:]]
    total = statistics.median(t for _, t in runs)
    print(f"serve exec_command true, {vt}: phases, median of {n} calls under strace -f"
          f" ({'with' if template else 'without'} a spawn template)")
    print(f"  {'phase':42s} {'ms':>7s} {'share':>6s}  slowest calls in it (ms)")
    for k, (name, _, _) in enumerate(PHASES):
        ms = statistics.median(r[0][k][0] for r in runs)
        slow = max((r[0][k][1] for r in runs), key=lambda s: s[0][0] if s else 0)
        shown = "; ".join(f"{d:.1f} {c[:48]}" for d, c in slow)
        print(f"  {name:42s} {ms:7.2f} {100 * ms / total:5.1f}%  {shown}")
    print(f"  {'total (traced), request to answer':42s} {total:7.2f}")


if __name__ == "__main__":
    main()
