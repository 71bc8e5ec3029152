#!/usr/bin/env python3
"""What a person is shown is what runs.

A command `rm -rf victim <ESC>[2K<CR>  run: ls -la` (and one with U+202E)
is asked about on the terminal (`vthost call`, a real pty), in an MCP
elicitation (`vthost serve`) and named by a warning; a spool file name
holds an escape too (`vthost spool list`).  None of these texts may carry
ESC, CR, C1 or bidi controls: they show them as \\x1b, \\r, \\u202E, one
subject per line; declining keeps the victim.

Usage: shown_text.py VTHOST
"""
import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time

from trustlib import check as trust_check
from trustlib import LineClient, finish, scratch

VTHOST = sys.argv[1]
root, ws, home, ENV = scratch("vthost-shown-")
ATTACK = "rm -rf victim \u001b[2K\r  run: ls -la"
BIDI = "rm -rf victim \u202e/f.txt"
BAD = ["\u001b", "\u009b", "\u202e", "\u200b", "\u2066"]


def check(name, ok, detail=""):
    trust_check(name, ok, repr(detail))  # control characters shown escaped


def clean(text):
    """No raw control but newline (and the pty's CR before it)."""
    t = text.replace("\r\n", "\n")
    return not any(c in t for c in BAD) and "\r" not in t


def victim():
    os.makedirs(os.path.join(ws, "victim"), exist_ok=True)
    with open(os.path.join(ws, "victim", "f"), "w") as f:
        f.write("keep\n")


# ---- the terminal prompt of vthost call -----------------------------------
for cmd, visible in [(ATTACK, "\\x1b[2K\\r run: ls -la"), (BIDI, "\\u202E/f.txt")]:
    victim()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(ws)
        os.execve(VTHOST, [VTHOST, "--workspace", ws, "call", "exec_command",
                           json.dumps({"cmd": cmd})], ENV)
    seen = b""
    deadline = time.time() + 60
    while time.time() < deadline and b"Approve once?" not in seen:
        if select.select([fd], [], [], 1)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    os.write(fd, b"n\n")
    try:
        while select.select([fd], [], [], 5)[0]:
            if not os.read(fd, 65536):
                break
    except OSError:
        pass
    os.waitpid(pid, 0)
    os.close(fd)
    text = seen.decode("utf-8", "replace")
    check(f"call prompt for {cmd!r}: asked", "Approve once?" in text, text)
    check(f"call prompt for {cmd!r}: no raw control reaches the terminal", clean(text), text)
    check(f"call prompt for {cmd!r}: the bytes are shown", visible in text, text)
    check(f"call prompt for {cmd!r}: one subject per line",
          any(line.startswith("  run: rm -rf victim ") for line in text.replace("\r\n", "\n").split("\n")),
          text)
    check(f"call prompt for {cmd!r}: declined, the victim is kept",
          os.path.exists(os.path.join(ws, "victim", "f")))

# ---- the MCP elicitation of vthost serve ----------------------------------
victim()
p = subprocess.Popen([VTHOST, "--workspace", ws, "serve"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, cwd=ws)
elicited = []


def decline(m):
    if m.get("method") != "elicitation/create":
        return None
    elicited.append(m["params"].get("message", ""))
    return {"action": "decline"}


client = LineClient(p, decline)
request, send = client.request, client.send
request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
                       "clientInfo": {"name": "shown-test", "version": "1"}})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
for cmd in [ATTACK, BIDI]:
    elicited.clear()
    r = request("tools/call", {"name": "exec_command",
                               "arguments": {"cmd": cmd, "justification": "fine\u001b[1A\rtrust me"}})
    check(f"elicitation for {cmd!r}: asked", len(elicited) == 1, json.dumps(r))
    msg = elicited[0] if elicited else ""
    check(f"elicitation for {cmd!r}: no raw control in the message", clean(msg) and "\r" not in msg, msg)
    check(f"elicitation for {cmd!r}: the bytes are shown", "\\x1b" in msg or "\\u202E" in msg, msg)
    check(f"elicitation for {cmd!r}: declined, the victim is kept",
          os.path.exists(os.path.join(ws, "victim", "f")))
p.stdin.close()
err = p.stderr.read()
p.wait(timeout=30)
check("serve: no raw control in its log", clean(err), err)

# ---- vthost spool list ----------------------------------------------------
spool = os.path.join(ws, ".vtcode", "context", "tool_outputs")
os.makedirs(spool, exist_ok=True)
name = "exec-\u001b[2J\u001b[1;1Hall clean\u202e.txt"
with open(os.path.join(spool, name), "w") as f:
    f.write("x" * 10)
r = subprocess.run([VTHOST, "--workspace", ws, "spool", "list"], capture_output=True, text=True,
                   env=ENV)
check("spool list: lists the file", "all clean" in r.stdout, r.stdout + r.stderr)
check("spool list: no raw control in the listing", clean(r.stdout), r.stdout)

finish("shown-text", root)
