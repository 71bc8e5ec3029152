"""What a person meets first, by hand at a terminal:
- `vthost serve` with stdin on a terminal (a pty) says once on stderr that
  it speaks MCP on stdin/stdout and how to try it, then answers
  initialize as usual; with stdin a pipe (a client) it says nothing;
- `vthost explain --format text` is one sentence per stage, no JSON;
- `vthost plugins` explains its tool states, `gated` included.

usage: first_contact.py VTHOST
"""
import atexit
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tty

vthost = sys.argv[1]
ws = tempfile.mkdtemp(prefix="vthost-first-")
atexit.register(shutil.rmtree, ws, ignore_errors=True)
env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(ws, ".cfg"), HOME=ws)
failures = []
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "first-contact", "version": "1"}}})
NOTICE = "speaking MCP"


def check(name, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def read_until(fd, want, seconds):
    buf, end = b"", time.monotonic() + seconds
    while want not in buf and time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buf += chunk
    return buf


def serve_on_tty():
    master, slave = pty.openpty()
    tty.setraw(slave)  # no echo, no line editing: the bytes go through as they are
    p = subprocess.Popen([vthost, "-w", ws, "serve"], stdin=slave, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    os.close(slave)
    os.write(master, (INIT + "\n").encode())
    out = read_until(p.stdout.fileno(), b"\n", 20)
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    try:
        err = p.communicate(timeout=20)[1].decode()
    except subprocess.TimeoutExpired:
        p.kill()
        err = p.communicate()[1].decode()
    os.close(master)
    check("serve on a terminal says it speaks MCP and how to try it",
          NOTICE in err and "vthost call" in err, err[:400])
    check("serve on a terminal says it once", err.count(NOTICE) == 1, err[:400])
    check("serve on a terminal still answers initialize", b'"result"' in out, out[:300])


def serve_on_pipe():
    p = subprocess.run([vthost, "-w", ws, "serve"], input=INIT + "\n", capture_output=True,
                       text=True, env=env, timeout=30)
    check("serve on a pipe answers initialize", '"result"' in p.stdout, p.stdout[:300])
    check("serve on a pipe says nothing about terminals", NOTICE not in p.stderr, p.stderr[:400])


def explain_text():
    p = subprocess.run([vthost, "-w", ws, "explain", "--format", "text", "exec_command",
                        '{"cmd":"rm -rf build"}'], capture_output=True, text=True, env=env,
                       timeout=30)
    lines = p.stdout.splitlines()
    check("explain --format text exits 0", p.returncode == 0, p.stderr[:300])
    check("explain --format text is sentences, not JSON",
          len(lines) >= 4 and all(l[:1].isupper() and l.endswith(".") for l in lines)
          and "{" not in p.stdout.split("rm -rf")[0], p.stdout[:500])
    check("explain --format text names each stage",
          all(any(l.startswith(k) for l in lines) for k in
              ("Subjects:", "Settings:", "Trust:", "Rule:", "Decision:")), p.stdout[:500])
    check("explain --format text gives the decision and what it means",
          any(l.startswith('Decision: "ask"') and "asked" in l for l in lines), p.stdout[:500])
    j = subprocess.run([vthost, "-w", ws, "explain", "exec_command", '{"cmd":"ls"}'],
                       capture_output=True, text=True, env=env, timeout=30)
    try:
        check("explain stays JSON by default", "decision" in json.loads(j.stdout))
    except ValueError:
        check("explain stays JSON by default", False, j.stdout[:300])
    unk = subprocess.run([vthost, "-w", ws, "explain", "--format", "text", "nosuch"],
                         capture_output=True, text=True, env=env, timeout=30)
    check("explain --format text of an unknown tool: exit 2, message on stderr, no JSON",
          unk.returncode == 2 and "nosuch" in unk.stderr and "{" not in unk.stdout,
          unk.stdout[:300] + unk.stderr[:300])
    bad = subprocess.run([vthost, "-w", ws, "explain", "--format", "yaml", "exec_command"],
                         capture_output=True, text=True, env=env, timeout=30)
    check("explain --format yaml is a usage error naming the formats",
          bad.returncode == 2 and "json or text" in bad.stderr, bad.stderr[:300])


def plugins_legend():
    p = subprocess.run([vthost, "-w", ws, "plugins"], capture_output=True, text=True, env=env,
                       timeout=60)
    legend = [l for l in p.stdout.splitlines() if l.startswith("tool states:")]
    check("plugins explains listed, deferred and gated once",
          len(legend) == 1 and all(w + " =" in legend[0] for w in ("listed", "deferred", "gated")),
          p.stdout[-600:])


serve_on_tty()
serve_on_pipe()
explain_text()
plugins_legend()
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
