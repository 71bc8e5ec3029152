#!/usr/bin/env python3
"""The workspace keeper (docs/internals.md, "The workspace keeper") under
a caller that does not play along, and after it can no longer follow
the workspace by events, tried with the built vthost:

  - a caller asks for a long journal and then reads it a trickle at a
    time: a second, honest call made meanwhile is still vouched for, and
    the changes made meanwhile reach the keeper's index without its
    event queue overflowing (the call after it is vouched for too); a
    repository made meanwhile stays read-only to the next command;
  - a keeper whose index degrades (the inotify watch limit reached) ends
    by itself, and the next call starts a fresh keeper that vouches; so
    does one whose tree grows deeper than the index keeps (its file can
    no longer be written).

The keeper runs under the index's test knobs (a queue of 2,000 events, a
watch limit just above the workspace's directories), started directly
as `vthost __ws-keeper ROOT IDLE` since a call with the knobs set starts
none.

    keeper_stall.py path/to/vthost
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keeper_common import (ENV, V, attempt, base, call, failures, keeper_files, keeper_up,  # noqa
                           ok, outside_repo, vouched, wait_for, workspace)

QUEUE = 2000  # events one drain may read before it counts as an overflow


def start_keeper(ws, **knobs):
    env = dict(ENV, **{"VTHOST_TEST_WSINDEX_" + k: str(v) for k, v in knobs.items()})
    subprocess.run([V, "__ws-keeper", ws, "120"], env=env, check=True, timeout=30,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return wait_for(lambda: keeper_files(ws) is not None and vouched(call(ws, "true")[1]), 60)


def stop_keeper(ws):
    k = keeper_files(ws)
    if k:
        os.kill(k[2], signal.SIGKILL)
        wait_for(lambda: keeper_files(ws) is None, 5)


def paced_files(d, n, text="x"):
    """n files with long names in d, 100 at a time: each batch well under
    the knob's queue for a keeper that drains as events come."""
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        with open(os.path.join(d, "%05d-%s" % (i, "n" * 150)), "w") as f:
            f.write(text)
        if i % 100 == 99:
            time.sleep(0.05)


def ask(sock, kid, since):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(sock)
    s.sendall(b"VTKEEP1 SYNC %x %d\n" % (kid, since))
    return s


def head(sock, kid, since):
    """The keeper's answer to an ask: (id, seq, complete), or None."""
    s = ask(sock, kid, since)
    line = s.makefile("rb").readline().decode()
    s.close()
    parts = line.split()
    if len(parts) < 5 or parts[1] != "OK":
        return None
    return int(parts[2], 16), int(parts[3]), parts[4] == "1"


class Trickle:
    """Asks for the whole journal, then reads 2 KiB every 0.1 s until told
    to stop (30 s at most), then hangs up."""

    def __init__(self, sock, kid):
        self.s = ask(sock, kid, 0)
        self.got = 0
        self.stop = threading.Event()
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        end = time.time() + 30
        try:
            while time.time() < end and not self.stop.is_set():
                b = self.s.recv(2048)
                if not b:
                    break
                self.got += len(b)
                time.sleep(0.1)
        except OSError:
            pass
        self.s.close()


# ---- a caller that reads a trickle --------------------------------------
ws = os.path.realpath(workspace("stall", 1200))
ok("a keeper started with a small event queue vouches", start_keeper(ws, MAX_QUEUED=QUEUE))
sock, lock, kpid = keeper_files(ws) or (None, None, None)
paced_files(os.path.join(ws, "long"), 3000)  # a journal of ~1 MB
ok("... and follows changes made at a pace", vouched(call(ws, "true")[1]))
os.makedirs(os.path.join(ws, "during"))  # watched before the trickle: its files make events
kid, seq, _ = (head(sock, 0, 0) if sock else None) or (0, 0, False)
ok("the keeper answers a first ask with its id", kid != 0)

slow = Trickle(sock, kid)
time.sleep(0.5)
writer = threading.Thread(target=paced_files, args=(os.path.join(ws, "during"), 3000))
writer.start()
rel = outside_repo(ws, "d3/d333/stalled")
t0 = time.time()
out, err = call(ws, "true")
took = time.time() - t0
ok("a call made while another caller reads a trickle is vouched for", vouched(err),
   "%.1f s: %s" % (took, err[-300:]))
writer.join()
slow.stop.set()
slow.t.join()
ok("... that caller was reading meanwhile", slow.got > 0, "%d bytes" % slow.got)
h = head(sock, kid, seq)
ok("the keeper's queue did not overflow meanwhile: its journal since then has no gap",
   h is not None and h[0] == kid and h[2], str(h))
out, err = call(ws, "true")
ok("... and the next call is vouched for", vouched(err), err[-300:])
ok("a .git made meanwhile is read-only to the next command", not attempt(ws, rel))
ok("the same keeper still serves", keeper_files(ws) is not None and keeper_files(ws)[2] == kpid)
stop_keeper(ws)


# ---- a keeper that can no longer follow the workspace -------------------
def watched_dirs(ws):
    n = 0
    for top, dirs, _ in os.walk(ws):
        n += 1
        if ".git" in dirs:
            dirs.remove(".git")
            n += 1
    return n


ok("a keeper started just under the watch limit vouches",
   start_keeper(ws, MAX_WATCHES=watched_dirs(ws) + 20))
sock, lock, kpid = keeper_files(ws) or (None, None, None)
for i in range(60):
    os.makedirs(os.path.join(ws, "grow", "g%d" % i))


def ended(pid):
    try:
        return "Z" in open("/proc/%d/status" % pid).read().split("State:")[1][:4]
    except OSError:
        return True


ok("a keeper whose index degraded ends by itself", kpid and wait_for(lambda: ended(kpid), 5))
call(ws, "true")
ok("the next call starts a fresh keeper, which vouches", keeper_up(ws))
k = keeper_files(ws)
ok("... another process", k is not None and k[2] != kpid)

stop_keeper(ws)

# ---- a keeper whose tree grew deeper than the index keeps ------------------
deep = workspace("deep", 1200)
call(deep, "true")
ok("a keeper vouches for another workspace", keeper_up(deep))
dk = keeper_files(deep)
os.makedirs(os.path.join(deep, *(["a"] * 140)))
ok("a keeper whose tree was cut (its file no longer written) ends by itself",
   dk is not None and wait_for(lambda: ended(dk[2]), 5))
stop_keeper(deep)
shutil.rmtree(base, ignore_errors=True)
print("keeper_stall: %d failed" % failures())
sys.exit(1 if failures() else 0)
