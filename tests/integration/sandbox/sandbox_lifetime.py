#!/usr/bin/env python3
"""A `vthost serve` whose 10 sessions started background jobs and daemons
(setsid -f, a subshell's background job, nohup, a double-forked setsid
daemon) is killed with SIGKILL: afterwards no process of theirs remains,
checked by command-line marker and by PID namespace.

    sandbox_lifetime.py path/to/vthost
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from sbx_common import Served, scratch_dir, tag


V = sys.argv[1]
base = scratch_dir("vthost-lifetime-")
WS = os.path.join(base, "ws")
os.makedirs(WS)
with open(os.path.join(WS, "vtcode.toml"), "w") as f:
    f.write('[permissions]\nallow = ["exec_command", "write_stdin"]\n')
TAG = tag(10000)
SESSIONS = 10


def procs_with(marker):
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                args = f.read().split(b"\0")
            with open("/proc/%s/stat" % d) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if any(a.startswith(marker.encode()) for a in args) and state != "Z":
            found.append(int(d))
    return found


def pidns_of(pid):
    try:
        return os.readlink("/proc/%d/ns/pid" % pid)
    except OSError:
        return None


def start_ticks(pid):
    """Start time in clock ticks since boot, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def now_ticks():
    with open("/proc/uptime") as f:
        return int(float(f.read().split()[0]) * os.sysconf("SC_CLK_TCK"))


KILLED_AT = None  # ticks: a namespace id freed by then may be reused by others


def in_namespaces(nss):
    left = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or pidns_of(int(d)) not in nss:
            continue
        # A process started after the host was killed lives in a new
        # namespace that got a freed one's id (another host running
        # meanwhile): not one of ours.
        st = start_ticks(int(d))
        if KILLED_AT is not None and st is not None and st > KILLED_AT:
            continue
        left.append(int(d))
    return left


host_ns = pidns_of(os.getpid())
srv = Served(V, WS)
p, send, reply = srv.p, srv.send, srv.reply
marker = "3%s." % TAG
for k in range(SESSIONS):
    m = "%s%d" % (marker, k)
    cmd = ("setsid -f sleep {m}1; (sleep {m}2 &); nohup sleep {m}3 >/dev/null 2>&1 & "
           "python3 -c 'import os,time\nif os.fork()==0:\n os.setsid()\n if os.fork()==0: time.sleep(300)' {m}4; "
           "sleep {m}5 & echo up; sleep {m}6").format(m=m)
    send({"jsonrpc": "2.0", "id": 10 + k, "method": "tools/call",
          "params": {"name": "exec_command", "arguments": {"cmd": cmd, "yield_time_ms": 2000}}})
    r = reply(10 + k)
    if "session_id" not in json.dumps(r):
        print("FAIL session %d did not start: %s" % (k, json.dumps(r)[:300]))
        p.kill()
        sys.exit(1)

end = time.time() + 10
while len(procs_with(marker)) < SESSIONS * 6 and time.time() < end:
    time.sleep(0.1)
started = procs_with(marker)
nss = {pidns_of(pid) for pid in started} - {None, host_ns}
print("started %d processes in %d PID namespaces" % (len(started), len(nss)))
fails = 0
if len(started) < SESSIONS * 6 or len(nss) != SESSIONS:
    print("FAIL expected %d processes in %d namespaces" % (SESSIONS * 6, SESSIONS))
    fails += 1

KILLED_AT = now_ticks() + 1
p.send_signal(signal.SIGKILL)
p.wait()
end = time.time() + 5
while (procs_with(marker) or in_namespaces(nss)) and time.time() < end:
    time.sleep(0.1)
left = procs_with(marker)
left_ns = in_namespaces(nss)
if left or left_ns:
    print("FAIL after SIGKILL: %d by marker, %d in the sessions' namespaces" % (len(left), len(left_ns)))
    for pid in set(left + left_ns):
        try:  # what is left, for the log: state, parent, command line
            with open("/proc/%d/stat" % pid) as f:
                rest = f.read().rsplit(")", 1)[1].split()
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            print("     left: pid %d state %s ppid %s: %s" % (pid, rest[0], rest[1], cmd[:120]))
        except OSError:
            pass
        os.kill(pid, signal.SIGKILL)
    fails += 1
else:
    print("ok   no process left after the host's SIGKILL (by marker and by PID namespace)")
shutil.rmtree(base, ignore_errors=True)
sys.exit(1 if fails else 0)
