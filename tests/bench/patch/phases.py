#!/usr/bin/env python3
"""Where the wall time of one one-shot apply_patch goes, phase by phase,
for one build or two side by side.

    sudo tests/bench/patch/phases.py [--case many_chunks|many_files]
                                     [--rounds N] VTHOST [OLD_VTHOST]

Puts uprobes (perf probe) on the entry and return of the functions that
bound each phase, in the vthost executable and in the patch plugin of
each build (lib/vthost/plugins/patch.so beside bin/), runs the case of
gen_cases.js N times per build, alternating (A B, B A, ...), each run
on a fresh copy of the tree with fresh XDG state and cache directories
(as bench_patch.sh does), records the probes with `perf record`, and
prints the median of each phase over the runs, for each build, and the
median wall time from exec to exit.  uprobes cost a few microseconds a
hit and perf's recording changes the scheduling, so the total is above
an unprobed run's and work a thread does beside the main one (the
release of replaced files, the syncs) can shift between phases: read the
phases against each other, and confirm a change's effect on the whole
call with bench_patch.sh (YARDSTICK=vthost_base VTHOST_BASE=OLD, in both
orders).  The probes are removed at the end.

Needs root (uprobes), perf and node.  The trees live under $TMPDIR
(default /tmp): point it at the filesystem to measure.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILE = os.path.join(HERE, "..", "..", "integration", "patch", "patch-only.ini")

HOST_FUNCS = ["host_open", "pipeline_call", "permission_check", "guard_begin",
              "ws_check_call_start", "ws_after_begin", "guard_end", "ws_after_end",
              "ws_check_call_end", "stage_respond", "close_host", "loader_fini_all",
              "wsx_cache_save", "wsx_watch_close"]
PLUGIN_FUNCS = ["patch_subjects", "patch_run", "tx_plan", "tx_commit", "fs_sync_paths",
                "release_wait"]

# (name, from event, to event); "exec" and "exit" are the process's own
PHASES = [
    ("exec -> host_open", "exec", "host_open"),
    ("host_open", "host_open", "host_open_r"),
    ("host_open -> pipeline (arguments)", "host_open_r", "pipeline_call"),
    ("subjects (parse, link check)", "patch_subjects", "patch_subjects_r"),
    ("permission", "permission_check", "permission_check_r"),
    ("guard_begin", "guard_begin", "guard_begin_r"),
    ("ws_check_call_start", "ws_check_call_start", "ws_check_call_start_r"),
    ("ws_after_begin", "ws_after_begin", "ws_after_begin_r"),
    ("plan (parse, read, match)", "tx_plan", "tx_plan_r"),
    ("commit: stage", "tx_commit", "fs_sync_paths"),
    ("commit: sync", "fs_sync_paths", "fs_sync_paths_r"),
    ("commit: publish", "fs_sync_paths_r", "tx_commit_r"),
    ("response", "tx_commit_r", "patch_run_r"),
    ("guard_end", "guard_end", "guard_end_r"),
    ("ws_after_end", "ws_after_end", "ws_after_end_r"),
    ("ws_check_call_end", "ws_check_call_end", "ws_check_call_end_r"),
    ("respond", "stage_respond", "stage_respond_r"),
    ("close_host", "close_host", "close_host_r"),
    ("  of it: plugin fini (release_wait)", "loader_fini_all", "loader_fini_all_r"),
    ("  of it: index cache save", "wsx_cache_save", "wsx_cache_save_r"),
    ("  of it: inotify release (fork)", "wsx_watch_close", "wsx_watch_close_r"),
    ("close_host -> exit", "close_host_r", "exit"),
    ("total: exec -> exit", "exec", "exit"),
]


def perf_probe(*args):
    return subprocess.run(["perf", "probe", "-q", *args], capture_output=True, text=True)


def add_probes(tag, vthost):
    """Events named <tag>_<func> and <tag>_<func>_r; returns their group globs."""
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(vthost))),
                       "lib", "vthost", "plugins", "patch.so")
    if not os.path.exists(lib):
        sys.exit(f"phases: no patch plugin at {lib}")
    for binary, funcs in ((os.path.realpath(vthost), HOST_FUNCS), (lib, PLUGIN_FUNCS)):
        for f in funcs:
            for ev, spec in ((f"{tag}_{f}", f), (f"{tag}_{f}_r", f"{f}%return")):
                r = perf_probe("-x", binary, "--add", f"vtphase:{ev}={spec}")
                if r.returncode != 0:
                    sys.exit(f"phases: perf probe on {f} in {binary}: {r.stderr.strip()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", default="many_chunks", choices=["many_chunks", "many_files"])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("builds", nargs="+")
    a = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("perf") or not shutil.which("node"):
        sys.exit("phases: needs root (uprobes), perf and node")
    builds = a.builds[:2]
    tags = ["a", "b"][:len(builds)]
    work = tempfile.mkdtemp(prefix="vthost-patch-phases.")
    perf_probe("-d", "vtphase:*")
    try:
        subprocess.run(["node", os.path.join(HERE, "gen_cases.js"), work], check=True)
        for tag, b in zip(tags, builds):
            add_probes(tag, b)
        case = os.path.join(work, a.case)
        script = os.path.join(work, "rounds.sh")
        with open(script, "w") as f:
            f.write("set -e\n")
            for r in range(a.rounds):
                order = list(zip(tags, builds))
                for tag, b in (order if r % 2 == 0 else order[::-1]):
                    f.write(f"rm -rf {work}/w {work}/state {work}/cache\n"
                            f"cp -a {case}/base {work}/w\n"
                            f"XDG_STATE_HOME={work}/state XDG_CACHE_HOME={work}/cache "
                            f"{b} --workspace {work}/w --profile {PROFILE} --yes call "
                            f"apply_patch - < {case}/args.json > /dev/null\n")
        data = os.path.join(work, "perf.data")
        subprocess.run(["perf", "record", "-q", "-o", data, "-e", "vtphase:*",
                        "-e", "sched:sched_process_exec", "-e", "sched:sched_process_exit",
                        "sh", script], check=True, stdout=subprocess.DEVNULL)
        out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,tid,time,event"],
                             capture_output=True, text=True, check=True).stdout
    finally:
        perf_probe("-d", "vtphase:*")
    runs = parse(out)
    table(a, builds, tags, runs)
    shutil.rmtree(work, ignore_errors=True)


def parse(out):
    """Per vthost process: its build's tag and the first time of each
    event (the last for close_host's parts, which an open also calls)."""
    runs, by_pid = [], {}
    line_re = re.compile(r"^\s*(\S+)\s+(\d+)/(\d+)\s+([\d.]+):\s+(\S+):")
    for line in out.splitlines():
        m = line_re.match(line)
        if not m:
            continue
        comm, pid, tid = m.group(1), int(m.group(2)), int(m.group(3))
        t, ev = float(m.group(4)), m.group(5)
        if ev == "sched:sched_process_exec":
            if comm == "vthost":
                by_pid[pid] = {"tag": None, "t": {"exec": t}}
                runs.append(by_pid[pid])
            continue
        r = by_pid.get(pid)
        if r is None:
            continue
        if ev == "sched:sched_process_exit":
            if tid == pid:  # the process, not one of its threads
                r["t"].setdefault("exit", t)
            continue
        name = ev.split(":", 1)[1]
        tag, func = name.split("_", 1)
        r["tag"] = tag
        if func.endswith("__return"):  # perf's name for a %return probe
            func = func[: -len("__return")]
        if func.startswith(("wsx_", "loader_fini")) or func not in r["t"]:
            r["t"][func] = t
    return runs


def table(a, builds, tags, runs):
    med = {}
    for tag in tags:
        mine = [r["t"] for r in runs if r["tag"] == tag and "exit" in r["t"]]
        for name, x, y in PHASES:
            v = [(t[y] - t[x]) * 1e3 for t in mine if x in t and y in t]
            med[(tag, name)] = (statistics.median(v), len(v)) if v else None
    print(f"apply_patch {a.case}, median ms over {a.rounds} alternating runs each")
    head = "".join(f"{os.path.basename(os.path.dirname(os.path.dirname(os.path.realpath(b))))[:14]:>16}"
                   for b in builds)
    print(f"  {'phase':38s}{head}")
    for name, _, _ in PHASES:
        cells = ""
        for tag in tags:
            m = med[(tag, name)]
            cells += f"{m[0]:13.2f} ms" if m else f"{'-':>16}"
        print(f"  {name:38s}{cells}")


if __name__ == "__main__":
    main()
