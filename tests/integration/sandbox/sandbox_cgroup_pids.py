#!/usr/bin/env python3
"""The process bound through a delegated pids cgroup, for real: cgroup v2
where the pids controller is there (Debian 12's default), else the cgroup
v1 pids hierarchy (a hybrid set-up); it says which.  VTHOST_TEST_CGROUP=v2
insists on v2 (exit 77 where it is not available).

As root, the test delegates a subtree the way an administrator (or
systemd's Delegate=yes) would: a guard cgroup G with its own pids.max
(so that the machine stays safe whatever vthost does), and in it the
cgroup D that vthost runs in (on v2 with the pids controller enabled for
D's children).  vthost then runs a real fork bomb with [sandbox]
max_processes = 32 and the test checks, while it runs and after:
  - the session got its own cgroup under D with pids.max = 32, and the
    kernel refused forks there (pids.events max > 0);
  - the bomb never saw more than 32 processes of its session;
  - the guard was never hit (the bound was vthost's, not the guard's);
  - after the call nothing of the session is left (G's pids.current is 0
    once vthost is gone), the session cgroups were removed, and this
    machine still forks;
  - under `vthost serve`, where a finished session's empty cgroup is
    taken for the next one, the bombs of three calls in a row are each
    bounded the same, also after that kept cgroup was removed between
    calls or swapped for an unbounded one of the same name, and the
    cgroups are removed when serve ends.
Exit 77 with the reason where it cannot run: not root, or no pids
controller in either hierarchy.

    sandbox_cgroup_pids.py path/to/vthost
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import threading
import time

from sbx_common import Served, failures, ok, require_landlock, scratch_dir, tag

V = sys.argv[1]
MAX = 32
GUARD = 256


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def mount_of(fstype, option=None):
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields = right.split()
            if fields[0] == fstype and (not option or option in fields[2].split(",")):
                return left.split()[4]
    return None


if os.geteuid() != 0:
    skip("creating a delegated cgroup subtree needs root")
require_landlock()
mnt = mount_of("cgroup2")
V2 = bool(mnt) and "pids" in read(os.path.join(mnt, "cgroup.controllers")).split()
if not V2:
    if os.environ.get("VTHOST_TEST_CGROUP") == "v2":
        skip("the pids controller is not available in cgroup v2 here (bound to a cgroup v1 "
             "hierarchy, or no v2 mount): the delegated v2 path cannot be exercised")
    mnt = mount_of("cgroup", "pids")
    if mnt != "/sys/fs/cgroup/pids":
        skip("no pids controller in cgroup v2 nor at /sys/fs/cgroup/pids (v1) here")
print("hierarchy: %s at %s" % ("cgroup v2" if V2 else "cgroup v1 (pids)", mnt))

added_root_pids = False
root_ctl = os.path.join(mnt, "cgroup.subtree_control")
if V2 and "pids" not in read(root_ctl).split():
    try:
        write(root_ctl, "+pids")
        added_root_pids = True
    except OSError as e:
        skip("cannot enable pids below the cgroup v2 root: %s" % e)

G = os.path.join(mnt, "vthost-cg-test-" + tag())
D = os.path.join(G, "deleg")
try:
    os.mkdir(G)
    write(os.path.join(G, "pids.max"), str(GUARD))
    if V2:
        write(os.path.join(G, "cgroup.subtree_control"), "+pids")
    os.mkdir(D)
except OSError as e:
    skip("cannot create a pids cgroup subtree here: %s" % e)

base = scratch_dir("vthost-cgpids-")
WS = os.path.join(base, "ws")
os.makedirs(WS)
cfg = os.path.join(base, "vtcode.toml")
write(cfg, '[permissions]\nallow = ["exec_command"]\n[sandbox]\nmax_processes = %d\n' % MAX)


def enter_deleg():
    # vthost's whole process starts in D; on v2 D's children then get the
    # pids controller (allowed with D populated: pids is a threaded
    # controller): the delegation vthost finds through /proc/self/cgroup.
    write(os.path.join(D, "cgroup.procs"), "0")
    if V2:
        write(os.path.join(D, "cgroup.subtree_control"), "+pids")


def cleanup():
    for d in sorted(glob.glob(os.path.join(D, "*/")), reverse=True):
        for pid in read(os.path.join(d, "cgroup.procs")).split():
            try:
                os.kill(int(pid), 9)
            except OSError:
                pass
    for pid in read(os.path.join(G, "cgroup.procs")).split() + read(
            os.path.join(D, "cgroup.procs")).split():
        try:
            os.kill(int(pid), 9)
        except OSError:
            pass
    for _ in range(100):
        left = [d for d in glob.glob(os.path.join(D, "*/"))]
        for d in left:
            try:
                os.rmdir(d)
            except OSError:
                pass
        for d in (D, G):
            try:
                os.rmdir(d)
            except OSError:
                pass
        if not os.path.exists(G):
            break
        time.sleep(0.05)
    if added_root_pids:
        try:
            write(root_ctl, "-pids")
        except OSError:
            pass
    shutil.rmtree(base, ignore_errors=True)


# A real fork bomb (every child forks on), for 3 seconds; the first
# process reports the most processes it ever saw in its PID namespace.
BOMB = ("import os, time\n"
        "end = time.time() + 3\n"
        "root = os.getpid(); peak = 0\n"
        "while time.time() < end:\n"
        "    try:\n"
        "        os.fork()\n"
        "    except OSError:\n"
        "        time.sleep(0.005)\n"
        "    if os.getpid() == root:\n"
        "        peak = max(peak, sum(1 for d in os.listdir('/proc') if d.isdigit()))\n"
        "if os.getpid() != root:\n"
        "    time.sleep(0.5); os._exit(0)\n"
        "print('peak', peak)\n")

seen = {"cgroups": set(), "max_current": 0, "events_max": 0, "pids_max": set()}
stop = threading.Event()


def watch():
    while not stop.is_set():
        for d in glob.glob(os.path.join(D, "vthost-*")):
            seen["cgroups"].add(d)
            cur = read(os.path.join(d, "pids.current")).strip()
            if cur.isdigit():
                seen["max_current"] = max(seen["max_current"], int(cur))
            m = read(os.path.join(d, "pids.max")).strip()
            if m and cur.isdigit() and int(cur) > 0:
                # once populated (a just-made one may not have its bound yet)
                seen["pids_max"].add(m)
            for line in read(os.path.join(d, "pids.events")).splitlines():
                k, _, v = line.partition(" ")
                if k == "max" and v.strip().isdigit():
                    seen["events_max"] = max(seen["events_max"], int(v))
        time.sleep(0.02)


try:
    t = threading.Thread(target=watch)
    t.start()
    cmd = "python3 -c '" + BOMB.replace("'", "'\"'\"'") + "'"
    p = subprocess.run([V, "--workspace", WS, "--config", cfg, "--yes", "call", "exec_command",
                        json.dumps({"cmd": cmd, "yield_time_ms": 30000})],
                       capture_output=True, text=True, timeout=90, preexec_fn=enter_deleg)
    stop.set()
    t.join()
    try:
        r = json.loads(p.stdout)
    except ValueError:
        r = {"output": p.stdout + p.stderr}
    out = r.get("output", "")
    warn = json.dumps(r.get("warnings", ""))
    ok("no warning that the process count is not bounded",
       "not enforced" not in (warn + p.stderr) and "not bounded" not in warn, warn + p.stderr)
    ok("the session had its own cgroup under the delegated one", len(seen["cgroups"]) >= 1,
       str(seen))
    ok("its pids.max was %d" % MAX, seen["pids_max"] == {str(MAX)}, str(seen["pids_max"]))
    ok("the kernel refused forks in it (pids.events max > 0)", seen["events_max"] > 0, str(seen))
    ok("never more than %d processes in it" % MAX, 0 < seen["max_current"] <= MAX, str(seen))
    peak = int(out.split("peak ")[1].split()[0]) if "peak " in out else -1
    ok("the bomb saw at most %d processes of its session" % MAX, 0 < peak <= MAX, out[-400:])
    guard_hits = 0
    for line in read(os.path.join(G, "pids.events")).splitlines():
        k, _, v = line.partition(" ")
        if k == "max":
            guard_hits = int(v)
    ok("the guard cgroup was never hit", guard_hits == 0, "guard pids.events max %d" % guard_hits)
    left = -1
    for _ in range(100):
        left = int(read(os.path.join(G, "pids.current")).strip() or -1)
        if left == 0:
            break
        time.sleep(0.05)
    ok("nothing of the session is left once vthost is gone", left == 0, "pids.current %d" % left)
    ok("the session cgroups were removed",
       not any(os.path.exists(d) for d in seen["cgroups"]), str(seen["cgroups"]))
    ok("this machine still forks", subprocess.run(["true"]).returncode == 0)

    # Under serve a finished session's empty cgroup is taken for the next
    # session: each bomb of consecutive calls is bounded all the same.
    S = Served(V, WS, config=cfg, preexec_fn=enter_deleg)
    seen.update(cgroups=set(), max_current=0, events_max=0, pids_max=set())
    stop.clear()
    t = threading.Thread(target=watch)
    t.start()
    peaks = []
    for i in range(3):
        r = S.tool("exec_command", {"cmd": cmd, "yield_time_ms": 30000})
        out = r.get("output", "")
        peaks.append(int(out.split("peak ")[1].split()[0]) if "peak " in out else -1)
        S.tool("exec_command", {"cmd": "true", "yield_time_ms": 30000})
    # The host keeps the finished session's cgroup for the next one and
    # bounds it again through the pids.max it keeps open.  Between calls
    # the cgroup is removed, or swapped for an unbounded one of the same
    # name: the next session is bounded all the same.
    for how in ("swapped", "removed"):
        spares = []
        for _ in range(5):  # kept unless the namespace was gone at the release
            time.sleep(0.3)
            spares = [d for d in glob.glob(os.path.join(D, "vthost-*"))
                      if not read(os.path.join(d, "cgroup.procs")).strip()]
            if spares:
                break
            S.tool("exec_command", {"cmd": "true", "yield_time_ms": 30000})
        ok("serve: a finished session's cgroup was kept for the next (%s)" % how, spares != [],
           str(glob.glob(os.path.join(D, "*"))))
        for d in spares:
            try:
                os.rmdir(d)
                if how == "swapped":
                    os.mkdir(d)
                    write(os.path.join(d, "pids.max"), "max")
            except OSError as e:
                ok("serve: %s %s" % (how, d), False, str(e))
        r = S.tool("exec_command", {"cmd": cmd, "yield_time_ms": 30000})
        out = r.get("output", "")
        peak = int(out.split("peak ")[1].split()[0]) if "peak " in out else -1
        ok("serve: after its kept cgroup was %s, a bomb saw at most %d processes" % (how, MAX),
           0 < peak <= MAX, out[-400:])
        ok("serve: after its kept cgroup was %s, no warning" % how,
           "not bounded" not in json.dumps(r.get("warnings", "")), json.dumps(r))
        S.tool("exec_command", {"cmd": "true", "yield_time_ms": 30000})
        for d in spares:
            if how == "swapped" and os.path.isdir(d) and \
                    not read(os.path.join(d, "cgroup.procs")).strip():
                os.rmdir(d)  # the test's own, if vthost left it
    stop.set()
    t.join()
    S.close()
    ok("serve: every bomb of consecutive calls saw at most %d processes" % MAX,
       all(0 < x <= MAX for x in peaks), str(peaks))
    ok("serve: never more than %d processes in a session's cgroup" % MAX,
       0 < seen["max_current"] <= MAX and seen["pids_max"] == {str(MAX)}, str(seen))
    ok("serve: the session cgroups were removed once it ended",
       not any(os.path.exists(d) for d in seen["cgroups"]), str(seen["cgroups"]))
finally:
    stop.set()
    cleanup()

print("failures: %d" % failures())
sys.exit(1 if failures() else 0)
