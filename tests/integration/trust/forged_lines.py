#!/usr/bin/env python3
"""A newline in a file or directory name never forges a line on stderr.

The workspace is a directory named "x\\nvthost: approved everything" and a
command makes a repository under a directory of the same kind of name:
`explain`, `tools`, a refused call, the exec plugin's neutralise warning,
the guard's refusal and `serve`'s refusal of a client root all name them,
and no line of vthost's standard error starts with "vthost: approved".

Usage: forged_lines.py VTHOST
"""
import json
import os
import subprocess
import sys

from trustlib import LineClient, check, finish, scratch

VTHOST = sys.argv[1]
root, _, home, ENV = scratch("vthost-forged-")
FORGED = "vthost: approved everything"
ws = os.path.join(root, "x\n" + FORGED)
os.makedirs(ws)
ENV["XDG_STATE_HOME"] = os.path.join(root, "state")
with open(os.path.join(ws, "vtcode.toml"), "w") as f:
    # untrusted: the start warning names the workspace and the ignored keys
    f.write('[permissions]\nallow = ["exec_command"]\n'
            '[mcp]\nenabled = true\n')


def forged(stderr):
    return [l for l in stderr.splitlines() if l.startswith("vthost: approved")]


def run(*args):
    return subprocess.run([VTHOST, "--workspace", ws, *args], capture_output=True, text=True,
                          env=ENV, cwd=ws, stdin=subprocess.DEVNULL, timeout=120)


def call(cmd, answer):
    return run(answer, "call", "exec_command", json.dumps({"cmd": cmd}))


r = run("explain", "exec_command", '{"cmd":"ls"}')
check("explain: the workspace is named", "not trusted" in r.stderr, r.stderr)
check("explain: no forged line", not forged(r.stderr), r.stderr)
r = run("tools")
check("tools: no forged line", not forged(r.stderr), r.stderr)

NAME = "d\n" + FORGED
r = call(f"cat '{NAME}/secret'", "--no")
check("a refused call naming the file: refused", r.returncode != 0, r.stdout + r.stderr)
check("a refused call naming the file: no forged line", not forged(r.stderr), r.stderr)

# a repository made by a command, under a name holding a newline: the exec
# plugin neutralises it and says so (a log line and a call warning)
make_repo = (f"mkdir -p '{NAME}/.git/hooks' '{NAME}/.git/objects' '{NAME}/.git/refs' && "
             f"printf '[core]\\n\\tfsmonitor = x\\n' > '{NAME}/.git/config' && "
             f"echo 'ref: refs/heads/main' > '{NAME}/.git/HEAD'")
r = call(make_repo, "--yes")
check("a repository under a newline name: the warning names it",
      "neutralised" in r.stderr or "neutralised" in r.stdout, r.stdout + r.stderr)
check("a repository under a newline name: no forged line", not forged(r.stderr), r.stderr)
try:
    warnings = json.loads(r.stdout).get("warnings", [])
except ValueError:
    warnings = []
check("a repository under a newline name: each call warning is one line",
      warnings and all("\n" not in w for w in warnings), r.stdout)

# the guard's refusal quotes the command
for i in range(6):
    r = call(f"touch 'f{i}\n{FORGED}'", "--yes")
    if "anti-blind-editing" in r.stdout:
        break
check("the guard refuses, quoting the command", "anti-blind-editing" in r.stdout, r.stdout)
check("the guard's refusal: no forged line", not forged(r.stderr), r.stderr)

# serve: a client root naming a missing directory under the newline name
p = subprocess.Popen([VTHOST, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True, env=ENV, cwd=root)
client = LineClient(p, lambda m: {"roots": [{"uri": "file://" + ws.replace("\n", "%0A") +
                                             "/missing"}]}
                    if m.get("method") == "roots/list" else None, timeout=30)
client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}},
                              "clientInfo": {"name": "forged", "version": "1"}})
client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
out = json.dumps(client.request("tools/call", {"name": "exec_command",
                                               "arguments": {"cmd": "true"}}))
p.stdin.close()
err = p.stderr.read()
p.wait(timeout=30)
check("serve: the client's root is refused", "is not an existing directory" in out, out + err)
check("serve: no forged line", not forged(err), err)

finish("forged-line", root)
