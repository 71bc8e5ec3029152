#!/usr/bin/env python3
"""The workspace keeper (docs/internals.md, "The workspace keeper"), tried
for real with the built vthost on a workspace of 3,000 directories:

  - a call on a big workspace starts a keeper; the next calls load the
    index it vouches for instead of checking every directory;
  - what the keeper must not miss: a repository (.git/hooks) made by a
    process outside vthost between two calls, and one made by the command
    during a call, stay read-only to the next call's command;
  - a keeper killed between calls, and one killed during a call: the call
    walks instead, and protects the same;
  - a socket held by another process (the keeper's path, an answer that
    names the file on disk): the peer is not the process the lock names,
    so it is not believed;
  - a keeper whose file is of an older format, and one that speaks
    another protocol: not believed;
  - `[workspace] keeper = false`: no keeper is started.

Each protection is checked in the outside world: the marker file a
command tries to write into a .git/hooks must not exist afterwards.

    journal_keeper.py path/to/vthost
"""
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keeper_common import (CACHE, CFG, CFG_NOW, attempt, base, call, failures, keeper_files,  # noqa
                           keeper_up, ok, outside_repo, pending, vouched, wait_for, workspace)


# ---- the keeper starts, and vouches ------------------------------------
ws = workspace("ws")
out, err = call(ws, "true")
ok("the first call checks the workspace itself", not vouched(err), err[-300:])
ok("a keeper is started for a big workspace and vouches for the next calls", keeper_up(ws))
if keeper_files(ws) is None:  # nothing below can be tried
    shutil.rmtree(base, ignore_errors=True)
    print("journal_keeper: no keeper started; %d failed" % failures())
    sys.exit(1)
sock, lock, kpid = keeper_files(ws)
ok("the keeper's directory is private", sock and (os.stat(os.path.dirname(sock)).st_mode & 0o077) == 0)
ok("the keeper is in a session of its own", kpid and os.getsid(kpid) != os.getsid(0))

# ---- what it must not miss -----------------------------------------------
rel = outside_repo(ws, "d7/d777/between")
out, err = call(ws, "true")
ok("a call after a change made outside vthost is vouched for", vouched(err), err[-300:])
ok("a .git made outside vthost between two calls is read-only to the next command",
   not attempt(ws, rel))

p0 = pending()
out, err = call(ws, "mkdir -p d8/d888/during/.git/hooks; echo x >> d2/d200/f.c")
ok("a command's edit in a call vouched for is counted", pending() == p0 + 1,
   "%d -> %d" % (p0, pending()))
ok("a .git made by a command during a call is read-only to the next command",
   not attempt(ws, "d8/d888/during/.git/hooks"))
ok("... and the keeper still vouches", vouched(call(ws, "true")[1]))

# ---- a command goes for the keeper: its pid, its socket ----------------
ATTACK = r"""
import os, signal, socket, sys
sock, lock = sys.argv[1], sys.argv[2]
try:
    os.kill(int(open(lock).read()), signal.SIGKILL)
except Exception as e:
    print("kill:", e)
for name in (sock, lock):
    try:
        os.unlink(name)
    except Exception as e:
        print("unlink:", e)
try:
    s = socket.socket(socket.AF_UNIX)
    s.bind(sock)
    print("BOUND")
except Exception as e:
    print("bind:", e)
"""
ino = os.stat(sock).st_ino
out, err = call(ws, "python3 -c '%s' %s %s" % (ATTACK.replace("'", "'\\''"), sock, lock))
ok("a command cannot bind the keeper's socket path", "BOUND" not in out, out[-300:])
ok("... nor replace or remove it", os.path.exists(sock) and os.stat(sock).st_ino == ino)
ok("... nor kill the keeper", os.path.exists("/proc/%d/cmdline" % kpid) and keeper_files(ws))

# ---- a keeper killed between calls, and during one ------------------------
os.kill(kpid, signal.SIGKILL)
wait_for(lambda: not os.path.exists("/proc/%d/status" % kpid) or
         "Z" in open("/proc/%d/status" % kpid).read().split("State:")[1][:4], 5)
rel = outside_repo(ws, "d9/d999/afterkill")
out, err = call(ws, "true")
ok("after the keeper is killed the call checks the workspace itself", not vouched(err))
ok("a .git made while no keeper ran is read-only to the next command", not attempt(ws, rel))
ok("a new keeper is started", keeper_up(ws))
sock, lock, kpid = keeper_files(ws) or (None, None, None)


def kill_soon(pid, delay):
    time.sleep(delay)
    if pid:
        os.kill(pid, signal.SIGKILL)


p0 = pending()
t = threading.Thread(target=kill_soon, args=(kpid, 1.5))
t.start()
out, err = call(ws, "mkdir -p d10/d1000/midcall/.git/hooks; echo x >> d3/d300/f.c; sleep 3")
t.join()
ok("a keeper killed during a call: the call says it walked", "could not vouch" in err, err[-400:])
ok("... the command's edit is counted", pending() > p0, "%d -> %d" % (p0, pending()))
ok("... and the .git the command made is read-only to the next command",
   not attempt(ws, "d10/d1000/midcall/.git/hooks"))


# ---- impostors -----------------------------------------------------------
def stamp_of_file(ws):
    """The keeper's index file: its magic and stamp."""
    d = os.path.join(CACHE, "vthost", "keeper")
    f = [os.path.join(d, n) for n in os.listdir(d) if n.endswith("-2.idx")][0]
    head = open(f, "rb").read(40)
    return f, head[:8], struct.unpack("<QQ", head[24:40])


class Impostor:
    """A process outside vthost answering on the keeper's socket path as
    a keeper would, naming the file on disk (its stamp) in its answers."""

    def __init__(self, path, answer):
        if os.path.exists(path):
            os.unlink(path)
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.bind(path)
        self.s.listen(4)
        self.answer, self.asked = answer, 0
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while True:
            try:
                c, _ = self.s.accept()
            except OSError:
                return
            try:
                c.recv(256)
                self.asked += 1
                c.sendall(self.answer().encode())
            except OSError:  # the caller hung up on it
                pass
            c.close()

    def close(self):
        self.s.close()


def stop_keeper(ws):
    k = keeper_files(ws)
    if k:
        os.kill(k[2], signal.SIGKILL)
        wait_for(lambda: keeper_files(ws) is None, 5)


def forged():
    _, _, (kid, kseq) = stamp_of_file(ws)
    return "VTKEEP1 OK %x %d 1 0\n" % (kid, kseq)


# (calls that start no keeper of their own meanwhile)
NOSTART = os.path.join(base, "nostart.toml")
with open(CFG) as src, open(NOSTART, "w") as dst:
    dst.write(src.read().replace("keeper_min_dirs = 1000", "keeper_min_dirs = 4000000000"))
ok("a keeper is running again", keeper_up(ws))
sock, lock, kpid = keeper_files(ws)
stop_keeper(ws)
CFG_NOW[0] = NOSTART
imp = Impostor(sock, forged)
rel = outside_repo(ws, "d11/d1100/impostor")
out, err = call(ws, "true")
ok("an impostor on the keeper's socket is asked", imp.asked > 0)
ok("... and not believed (the peer is not the process the lock names)", not vouched(err), err[-300:])
ok("... a .git made while it answered is read-only to the next command", not attempt(ws, rel))
imp.close()

# an older keeper: holds the lock (its pid in it, as a keeper of an older
# build would), answers for a file of the older format
os.unlink(sock)
fake = subprocess.Popen([sys.executable, "-c", """
import fcntl, os, socket, sys
lock, sock, answer = sys.argv[1:4]
fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0); os.write(fd, b"%d\\n" % os.getpid())
s = socket.socket(socket.AF_UNIX); s.bind(sock); s.listen(4)
print("up", flush=True)
while True:
    c, _ = s.accept(); c.recv(256); c.sendall(answer.encode()); c.close()
""", lock, sock, forged()], stdout=subprocess.PIPE, text=True)
fake.stdout.readline()
f, magic, _ = stamp_of_file(ws)
data = bytearray(open(f, "rb").read())
data[:8] = b"VTWSIX3\0"
open(f, "wb").write(bytes(data))
rel = outside_repo(ws, "d12/d1200/oldformat")
out, err = call(ws, "true")
ok("a keeper vouching for a file of an older format is not believed", not vouched(err), err[-300:])
ok("... a .git made meanwhile is read-only to the next command", not attempt(ws, rel))
fake.kill()
fake.wait()

# ---- turned off ----------------------------------------------------------
off = workspace("off", 1200)
cfg_off = os.path.join(base, "off.toml")
with open(CFG) as src, open(cfg_off, "w") as dst:
    dst.write(src.read().replace("[workspace]\n", "[workspace]\nkeeper = false\n"))
call(off, "true", cfg_off)
time.sleep(1)
ok("[workspace] keeper = false starts no keeper", keeper_files(off) is None)
ok("... and no call is vouched for", not vouched(call(off, "true", cfg_off)[1]))

# the keepers end when their workspace goes
stop_keeper(ws)
shutil.rmtree(base, ignore_errors=True)
print("journal_keeper: %d failed" % failures())
sys.exit(1 if failures() else 0)
