#!/usr/bin/env python3
"""Workspaces chosen for the user are never system trees or the home's.

`vthost serve` without --workspace refuses a client's root or a working
directory inside /usr, /etc, /var, /lib*, ..., above $HOME, $HOME itself,
its dot-directories and /home (every user's home) (the refusal reaches the client and no command
runs there); `vthost trust` refuses the same directories and leaves the
user's config as it was.

Usage: workspace_roots.py VTHOST
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from trustlib import LineClient, check, finish

VTHOST = sys.argv[1]
root = os.path.realpath(tempfile.mkdtemp(prefix="vthost-roots-"))
home = os.path.join(root, "home")
proj = os.path.join(home, "src", "proj")
for d in (proj, os.path.join(home, ".config"), os.path.join(home, ".ssh")):
    os.makedirs(d)
ENV = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
ENV["HOME"] = home
user_cfg = os.path.join(home, ".config", "vtcode", "vtcode.toml")



# ---- vthost trust ---------------------------------------------------------
for d in ["/", "/usr/lib", "/etc", "/var/tmp", "/opt", os.path.dirname(home), home,
          os.path.join(home, ".config"), os.path.join(home, ".ssh")]:
    if not os.path.isdir(d):
        continue
    r = subprocess.run([VTHOST, "trust", d], capture_output=True, text=True, env=ENV)
    check(f"trust {d}: refused", r.returncode != 0 and "will not trust" in r.stderr,
          r.stdout + r.stderr)
    check(f"trust {d}: the user's config is not written", not os.path.exists(user_cfg))
r = subprocess.run([VTHOST, "trust", proj], capture_output=True, text=True, env=ENV)
check("trust a project directory: accepted", r.returncode == 0, r.stdout + r.stderr)
check("trust a project directory: listed", os.path.exists(user_cfg) and proj in open(user_cfg).read())


# ---- vthost serve: the working directory and the client's roots -----------
def serve(cwd, roots=None, args=()):
    """initialize (declaring roots when given), then exec_command: the text of
    its answer and the server's stderr."""
    caps = {"roots": {}} if roots is not None else {}
    p = subprocess.Popen([VTHOST, *args, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=ENV, cwd=cwd)
    def answer(m):
        if m.get("method") != "roots/list":
            return None
        return {"roots": [{"uri": "file://" + r} for r in roots or []]}

    client = LineClient(p, answer, timeout=30)
    request, send = client.request, client.send

    request("initialize", {"protocolVersion": "2025-06-18", "capabilities": caps,
                           "clientInfo": {"name": "roots-test", "version": "1"}})
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    marker = os.path.join(root, "ran")
    r = request("tools/call", {"name": "exec_command", "arguments": {"cmd": f"touch {marker}"}})
    p.stdin.close()
    err = p.stderr.read()
    p.wait(timeout=30)
    ran = os.path.exists(marker)
    if ran:
        os.unlink(marker)
    return json.dumps(r), err, ran


for cwd, why in [("/usr/lib", "inside a system directory"), ("/etc", "inside a system directory"),
                 (home, "the home directory"), (os.path.dirname(home), "above the home directory"),
                 (os.path.join(home, ".config"), "inside a hidden directory")]:
    out, err, ran = serve(cwd)
    check(f"serve in {cwd}: refused ({why})", f"will not use {cwd} (the working directory)" in out
          and why in out, out)
    check(f"serve in {cwd}: nothing ran", not ran)
for r in ["/etc", "/usr/lib", "/var/tmp", os.path.dirname(home), os.path.join(home, ".ssh")]:
    out, err, ran = serve(proj, roots=[r])
    check(f"serve, root {r}: refused", f"will not use {r} (the client's root)" in out, out + err)
    check(f"serve, root {r}: nothing ran", not ran)
# every user's home: /home (and /Users), refused like $HOME though the
# test's own home is elsewhere
for r in ["/home", "/Users"]:
    if not os.path.isdir(r) or os.path.islink(r):
        continue
    out, err, ran = serve(proj, roots=[r])
    check(f"serve, root {r}: refused", f"will not use {r} (the client's root)" in out and
          "users' home directories" in out, out + err)
    check(f"serve, root {r}: nothing ran", not ran)
    t = subprocess.run([VTHOST, "trust", r], capture_output=True, text=True, env=ENV)
    check(f"trust {r}: refused", t.returncode != 0 and "will not trust" in t.stderr,
          t.stdout + t.stderr)
out, err, ran = serve(proj, roots=[proj])
check("serve, a project root: used", "will not use" not in out, out + err)
out, err, ran = serve("/", args=["--workspace", proj])
check("serve --workspace: the working directory does not matter", "will not use" not in out, out)

finish("workspace", root)
