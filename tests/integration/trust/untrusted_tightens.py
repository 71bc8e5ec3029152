#!/usr/bin/env python3
"""An untrusted workspace's vtcode.toml only tightens.

- `[permissions] approval = "read-only"` is ignored: under the default
  `ask` preset a command reading a secret file outside the workspace is
  asked (and refused with --no), and the secret's bytes never reach the
  output; `explain` and the start warning name the file and the key.
- `ask = ["exec_command"]` never outranks the user's agent
  `default: deny`, even where the user's `non_interactive = "allow"`
  answers questions: the command does not run (a marker never appears).
- Over an agent's auto (the review) the untrusted ask is only answered
  by a person, never by non_interactive.
- Where the user's allow rule would decide, the untrusted ask still asks.

Usage: untrusted_tightens.py VTHOST
"""
import json
import os
import subprocess
import sys

from trustlib import check, finish, scratch

VTHOST = sys.argv[1]
root, ws, home, ENV = scratch("vthost-tightens-")
ws_cfg = os.path.join(ws, "vtcode.toml")
user_dir = os.path.join(home, ".config", "vtcode")
os.makedirs(os.path.join(user_dir, "agents"))


def run(*args, stdin=subprocess.DEVNULL):
    return subprocess.run([VTHOST, "--workspace", ws, *args], capture_output=True, text=True,
                          env=ENV, cwd=ws, stdin=stdin, timeout=120)


def explain(cmd, *args):
    r = run(*args, "explain", "exec_command", json.dumps({"cmd": cmd}))
    try:
        return json.loads(r.stdout), r.stderr
    except ValueError:
        return {"raw": r.stdout + r.stderr}, r.stderr


# ---- approval = "read-only" from an untrusted workspace -----------------
secret_dir = os.path.join(home, ".ssh")
os.makedirs(secret_dir)
secret = os.path.join(secret_dir, "id_rsa")
SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- vthost-test-secret-5f1c"
with open(secret, "w") as f:
    f.write(SECRET + "\n")
with open(ws_cfg, "w") as f:
    f.write('[permissions]\napproval = "read-only"\n')

r = run("--no", "call", "exec_command", json.dumps({"cmd": f"cat {secret}"}))
check("approval read-only: the secret is not read", SECRET not in r.stdout + r.stderr,
      r.stdout + r.stderr)
check("approval read-only: the command is asked and refused",
      r.returncode != 0 and "refused" in r.stdout, r.stdout + r.stderr)
r = run("call", "exec_command", json.dumps({"cmd": f"cat {secret}"}))
check("approval read-only, no prompter: the secret is not read",
      SECRET not in r.stdout + r.stderr and r.returncode != 0, r.stdout + r.stderr)
o, err = explain(f"cat {secret}")
check("approval read-only: explain says ask", o.get("decision") == "ask", json.dumps(o))
check("approval read-only: the warning names the file and the key",
      "permissions.approval" in err and ws_cfg in err, err)

# ---- ask = [exec_command] against the user's agent default: deny --------
with open(os.path.join(user_dir, "vtcode.toml"), "w") as f:
    f.write('[permissions]\nnon_interactive = "allow"\nallow = ["exec_command(echo *)"]\n')
with open(os.path.join(user_dir, "agents", "locked.md"), "w") as f:
    f.write("---\nname: locked\npermissions:\n  default: deny\n---\nNothing runs.\n")
with open(os.path.join(user_dir, "agents", "review.md"), "w") as f:
    f.write("---\nname: review\npermissions:\n  default: auto\n---\nReviewed.\n")
with open(ws_cfg, "w") as f:
    f.write('[permissions]\nask = ["exec_command"]\n')
marker = os.path.join(root, "ran")

r = run("--agent", "locked", "call", "exec_command", json.dumps({"cmd": f"touch {marker}"}))
check("agent default deny: the command does not run", not os.path.exists(marker),
      r.stdout + r.stderr)
check("agent default deny: refused by the agent's default",
      "default decision for exec_command is deny" in r.stdout, r.stdout + r.stderr)
o, _ = explain(f"touch {marker}", "--agent", "locked")
check("agent default deny: explain says deny", o.get("decision") == "deny", json.dumps(o))
check("agent default deny: the untrusted ask is shown as not applied",
      any(s.get("origin") == "workspace" and "not applied" in (s.get("note") or "")
          for s in o.get("trace", [])), json.dumps(o))

if os.path.exists(marker):
    os.unlink(marker)
r = run("--agent", "review", "call", "exec_command", json.dumps({"cmd": f"touch {marker}"}))
check("agent auto: non_interactive does not answer the untrusted ask",
      not os.path.exists(marker) and r.returncode != 0, r.stdout + r.stderr)

# ---- where allow would decide, the untrusted ask asks -------------------
o, _ = explain("echo hi")
check("user allow: the untrusted ask turns it into ask", o.get("decision") == "ask" and
      o.get("layer", "global.ask") == "global.ask", json.dumps(o))
r = run("--no", "call", "exec_command", json.dumps({"cmd": "echo tightened"}))
check("user allow: asked and refused with --no", '"output"' not in r.stdout and
      "refused" in r.stdout and r.returncode != 0, r.stdout + r.stderr)

finish("untrusted-tightens", root)
