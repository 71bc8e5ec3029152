#!/usr/bin/env python3
"""Where the CPU of `exec_command true` through `vthost serve` goes, by
phase, from a sampling profile of the whole process tree (the host's
threads, each call's session leader and its command).

    tests/bench/exec/serve_profile.py [--calls N] [--freq F] [VTHOST]

Runs one `vthost --approval sandboxed serve` in a scratch workspace under
`perf record -F F --call-graph dwarf` for N calls (default 300), then
sorts every sample into a phase by the functions on its stack (the build
needs its symbols: RelWithDebInfo) and prints each phase's share and its
CPU per call (samples / F / N; the server's start-up is in "host: other").
Unlike phases_serve.py (strace, which slows every system call and so
inflates the phases that make many), the shares here are of CPU time as
it is spent.  Not a test: prints figures only.
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ratios import Serve, scratch  # noqa: E402

# (a function on the stack, the phase), first match wins; leader rules
# apply to the session leader's samples, host rules to the host's.
LEADER = [
    ("execwatch_child_install", "leader: run-time checks filter"),
    ("start_command", "leader: shell start (vfork, exec)"),
    ("enter_mounts", "leader: mounts"),
    ("sandbox_caps_drop", "leader: capabilities"),
    ("sandbox_limits_apply", "leader: pids cgroup, rlimits"),
    ("__GI___prctl", "leader: seccomp, no_new_privs"),
    ("sandbox_confine", "leader: Landlock, working directory"),
    ("child_setup", "leader: set-up (signals, descriptors)"),
    ("sandbox_id_maps", "leader: set-up (signals, descriptors)"),
]
HOST = [
    ("clone_leader", "host: the leader's fork (a copy of the host)"),
    ("hide_sockets", "host plan: path sockets (/proc/net/unix)"),
    ("sandbox_paths_plan", "host plan: protected paths"),
    ("sandbox_data_plan", "host plan: host data masks"),
    ("build_ruleset", "host plan: Landlock ruleset"),
    ("sandbox_cgroup_make", "host plan: pids cgroup"),
    ("sandbox_plan_make", "host plan: other"),
    ("make_plan", "host plan: other"),
    ("thread_main", "host: run-time checks watcher"),
    ("collect", "host: output, end of call"),
]


def samples(path):
    """(command name, thread id, frames leaf first) of each sample."""
    out = subprocess.run(["perf", "script", "-i", path, "-F", "comm,tid,ip,sym"],
                         capture_output=True, text=True, check=True).stdout
    cur = None
    for line in out.splitlines() + [""]:
        if not line.strip():
            if cur:
                yield cur
            cur = None
        elif not line[0].isspace():
            f = line.split()
            cur = (f[0], f[1], [])
        elif cur is not None:
            parts = line.split(None, 1)
            if len(parts) > 1:
                cur[2].append(parts[1].split("+")[0].replace(" (inlined)", "").strip())


def phase(comm, frames, leader):
    if comm == "vthost-maker":  # the exec plugin's leader maker (zygote.c)
        return ("maker: the leader's clone" if "clone_for_host" in frames
                else "maker: request, answer")
    if comm != "vthost":
        return "the command ($SHELL -c true)"
    rules, rest = (LEADER, "leader: wait, reap, exit") if leader else (HOST, None)
    for fn, name in rules:
        if fn in frames:
            return name
    return rest or "host: other (MCP, dispatch, permission, guard, index, start-up)"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("vthost", nargs="?", default=os.path.join(here, "../../../build/bin/vthost"))
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--freq", type=int, default=2000)
    a = ap.parse_args()
    if not shutil.which("perf"):
        sys.exit("serve_profile.py needs perf")
    root = tempfile.mkdtemp(prefix="vthost-serveprof-")
    try:
        ws, env = scratch(root, "ws")
        data = os.path.join(root, "perf.data")
        s = Serve(os.path.realpath(a.vthost), ws, env,
                  wrap=["perf", "record", "-q", "-F", str(a.freq), "--call-graph",
                        "dwarf,16384", "-o", data, "--"])
        for _ in range(a.calls):
            s.call()
        s.close()
        all_ = list(samples(data))
        # a thread is a session leader (or its vfork child before the
        # exec) when any of its stacks passes through lead_session
        leaders = {t for c, t, fr in all_
                   if "lead_session" in fr or "spawn_lead_session" in fr}
        count = collections.Counter(phase(c, fr, t in leaders) for c, t, fr in all_)
        total = sum(count.values())
        print(f"serve exec_command true, {a.vthost}: {a.calls} calls, {total} samples "
              f"at {a.freq} Hz")
        print(f"  {'phase':64} {'share':>6} {'ms/call':>8}")
        for name, n in count.most_common():
            print(f"  {name:64} {100 * n / total:5.1f}% {n * 1e3 / a.freq / a.calls:8.3f}")
        print(f"  {'total':64} {100.0:5.1f}% {total * 1e3 / a.freq / a.calls:8.3f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
