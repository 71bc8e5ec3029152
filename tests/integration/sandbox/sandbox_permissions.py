#!/usr/bin/env python3
"""exec_command's sandbox_permissions tried for real through the built
vthost: with_additional_permissions asks like an escalation (naming what
is added), writes nothing unless approved, and runs in the sandbox
extended by exactly what was approved (a path not added stays
unwritable, the network stays off unless added, a repository inside an
added path stays read-only); bypass_sandbox is require_escalated.  Also
the policy files that do not exist yet: a command cannot create the
workspace's vtcode.toml or .vtcode/.  Every case checks the world after
(marker files, bytes, a listener's connections).  Exit 77 without
Landlock or namespaces.

    sandbox_permissions.py path/to/vthost
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import threading

from sbx_common import failures, ok, require_landlock, scratch_dir, tag, trusted_config

V = sys.argv[1]
require_landlock()
TAG = tag()
base = scratch_dir("vthost-sbxperm-")
WS = os.path.join(base, "ws")
ADDED = os.path.join(base, "added")        # outside the workspace, /tmp and TMPDIR
OTHER = os.path.join(base, "not-added")
for d in (WS, ADDED, OTHER, os.path.join(ADDED, "repo", ".git", "hooks"),
          os.path.join(WS, "sub")):
    os.makedirs(d, exist_ok=True)
GITCFG = b"[core]\n\tbare = false\n"
with open(os.path.join(ADDED, "repo", ".git", "config"), "wb") as f:
    f.write(GITCFG)
CFG = os.path.join(base, "config.toml")   # not the workspace's: it has none
with open(CFG, "w") as f:
    f.write('[permissions]\nallow = ["exec_command", "write_stdin"]\n')

# Without namespaces .vtcode/vtcode.toml and the private /dev/pts cannot hold.
probe = subprocess.run([V, "--workspace", WS, "--config", CFG, "--yes", "call", "exec_command",
                        json.dumps({"cmd": "cat /proc/1/cmdline"})],
                       capture_output=True, text=True)
if "sandbox" not in probe.stdout or "cannot sandbox" in probe.stdout:
    print("SKIP: commands are not sandboxed here: " + (probe.stdout + probe.stderr)[:300])
    shutil.rmtree(base, ignore_errors=True)
    sys.exit(77)


def call(args, answer="--yes", env=None):
    a = {"yield_time_ms": 15000}
    a.update(args)
    cmd = [V, "--workspace", WS, "--config", CFG]
    if answer:
        cmd.append(answer)
    p = subprocess.run(cmd + ["call", "exec_command", json.dumps(a)], capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL, env=env)
    try:
        r = json.loads(p.stdout)
    except ValueError:
        r = {"output": p.stdout}
    r["_exit"] = p.returncode
    r["_stderr"] = p.stderr
    return r


def explain(args):
    p = subprocess.run([V, "--workspace", WS, "--config", CFG, "explain", "exec_command",
                        json.dumps(args)], capture_output=True, text=True)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {}


def marker(d, name):
    return os.path.join(d, "%s-%s" % (name, TAG))


class Listener:
    """A TCP listener on the host that counts connections."""

    def __init__(self):
        self.s = socket.socket()
        self.s.bind(("127.0.0.1", 0))
        self.s.listen(8)
        self.port = self.s.getsockname()[1]
        self.count = 0
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while True:
            try:
                c, _ = self.s.accept()
            except OSError:
                return
            self.count += 1
            c.close()

    def close(self):
        self.s.close()


def connect_cmd(port):
    code = ("import socket\n"
            "try: socket.socket().connect(('127.0.0.1', %d)); print('connected')\n"
            "except OSError as e: print('refused', e.errno)\n") % port
    return "python3 -c " + "'" + code.replace("'", "'\"'\"'") + "'"


def extra(write=None, network=None):
    ap = {}
    if write is not None:
        ap["file_system"] = {"write": write}
    if network is not None:
        ap["network"] = {"enabled": network}
    return {"sandbox_permissions": "with_additional_permissions",
            "additional_permissions": ap, "justification": "test " + TAG}


# ---- with_additional_permissions: the question names what is added ----------
e = explain(dict(cmd="true", **extra([ADDED], True)))
subj = " ".join(s.get("value", "") for s in e.get("subjects", []) if s.get("kind") == "escalation")
ok("asks", e.get("decision") == "ask", json.dumps(e)[:300])
ok("the question names the added path", ADDED in subj, subj)
ok("the question names network access", "network" in subj, subj)
ok("the question names nothing else", OTHER not in subj and WS not in subj, subj)
ok("no allow rule approves it", any(t.get("layer") == "escalation" for t in e.get("trace", [])),
   json.dumps(e.get("trace"))[:300])

# ---- not approved: nothing written --------------------------------------------
touch = "touch %s" % marker(ADDED, "refused")
r = call(dict(cmd=touch, **extra([ADDED])), answer="--no")
ok("declined: refused", r.get("success") is False, json.dumps(r)[:300])
ok("declined: nothing written", not os.path.exists(marker(ADDED, "refused")))
r = call(dict(cmd=touch, **extra([ADDED])), answer=None)
ok("no prompt possible: refused", r.get("success") is False and
   "additional" in (r.get("error", "") + r.get("_stderr", "")), json.dumps(r)[:300])
ok("no prompt possible: nothing written", not os.path.exists(marker(ADDED, "refused")))
# A serve client that cannot be asked: denied too.
req = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}},
       {"jsonrpc": "2.0", "method": "notifications/initialized"},
       {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "exec_command", "arguments": dict(cmd=touch, **extra([ADDED]))}}]
p = subprocess.run([V, "--workspace", WS, "--config", CFG, "serve"],
                   input="".join(json.dumps(m) + "\n" for m in req), capture_output=True,
                   text=True, timeout=60)
resp = [json.loads(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]
res = [m for m in resp if m.get("id") == 2]
ok("serve without a prompt: refused", bool(res) and res[0].get("result", {}).get("isError"),
   p.stdout[-300:])
ok("serve without a prompt: nothing written", not os.path.exists(marker(ADDED, "refused")))

# ---- approved: exactly what was added ------------------------------------------
L = Listener()
r = call(dict(cmd="touch %s; touch %s; echo x >> %s/repo/.git/config; echo x > %s/repo/.git/hooks/pre-commit; %s"
              % (marker(ADDED, "ok"), marker(OTHER, "bad"), ADDED, ADDED, connect_cmd(L.port)),
              **extra([ADDED])))
ok("approved: runs sandboxed", r.get("sandbox") == "workspace-write", json.dumps(r)[:300])
ok("approved: the added path is writable", os.path.exists(marker(ADDED, "ok")), r.get("output", ""))
ok("approved: a path not added stays unwritable", not os.path.exists(marker(OTHER, "bad")))
with open(os.path.join(ADDED, "repo", ".git", "config"), "rb") as f:
    ok("approved: a repository in the added path stays read-only", f.read() == GITCFG)
ok("approved: no hook in it", not os.path.exists(os.path.join(ADDED, "repo/.git/hooks/pre-commit")))
ok("approved: the network stays off", "refused" in r.get("output", "") and L.count == 0,
   r.get("output", ""))
ok("approved: the result says what was added",
   r.get("additional_permissions") == {"write": [os.path.realpath(ADDED)], "network": False},
   json.dumps(r.get("additional_permissions")))
# The next call gets nothing of it.
r = call({"cmd": "touch %s" % marker(ADDED, "later")})
ok("the next call: the path is unwritable again", not os.path.exists(marker(ADDED, "later")),
   r.get("output", ""))

# network only
r = call(dict(cmd="%s; touch %s" % (connect_cmd(L.port), marker(ADDED, "netonly")),
              **extra(network=True)))
ok("network added: connects", "connected" in r.get("output", "") and L.count == 1,
   r.get("output", "") + " count=%d" % L.count)
ok("network added: no path added", not os.path.exists(marker(ADDED, "netonly")))
r = call({"cmd": connect_cmd(L.port)})
ok("the next call: the network is off again", "refused" in r.get("output", "") and L.count == 1,
   r.get("output", ""))
L.close()

# symlinked path: the sandbox opens (and the question names) the target
link = os.path.join(WS, "sub", "link-to-added")
os.symlink(ADDED, link)
e = explain(dict(cmd="true", **extra(["sub/link-to-added"])))
subj = " ".join(s.get("value", "") for s in e.get("subjects", []) if s.get("kind") == "escalation")
ok("a relative, symlinked path is named by its target", os.path.realpath(ADDED) in subj, subj)

# ---- malformed arguments --------------------------------------------------------
for name, args in [
        ("additional_permissions without with_additional_permissions",
         {"cmd": "true", "additional_permissions": {"network": {"enabled": True}}}),
        ("with_additional_permissions without additional_permissions",
         {"cmd": "true", "sandbox_permissions": "with_additional_permissions",
          "justification": "x"}),
        ("no justification", dict(cmd="true", **dict(extra([ADDED]), justification=""))),
        ("a path that does not exist", dict(cmd="true", **extra([os.path.join(base, "nope")]))),
        ("an unknown key", dict(cmd="true", **dict(extra([ADDED]), additional_permissions={
            "file_system": {"write": [ADDED]}, "processes": {}}))),
        ("adds nothing", dict(cmd="true", **extra([], False))),
        ("an unknown sandbox_permissions", {"cmd": "true", "sandbox_permissions": "sudo",
                                            "justification": "x"})]:
    r = call(dict(args, cmd="touch %s" % marker(ADDED, "bad-args")))
    ok("invalid: " + name, r.get("success") is False and r["_exit"] == 2, json.dumps(r)[:300])
ok("invalid arguments wrote nothing", not os.path.exists(marker(ADDED, "bad-args")))

# ---- bypass_sandbox is require_escalated -----------------------------------------
esc = {"sandbox_permissions": "bypass_sandbox", "justification": "test"}
r = call(dict(cmd="touch %s" % marker(OTHER, "bypass-no"), **esc), answer="--no")
ok("bypass_sandbox declined: nothing written", not os.path.exists(marker(OTHER, "bypass-no")))
r = call(dict(cmd="touch %s" % marker(OTHER, "bypass-yes"), **esc))
ok("bypass_sandbox approved: unsandboxed", r.get("sandbox") == "none" and
   os.path.exists(marker(OTHER, "bypass-yes")), json.dumps(r)[:300])
e = explain(dict(cmd="true", **esc))
ok("bypass_sandbox asks like require_escalated", e.get("decision") == "ask" and any(
    t.get("layer") == "escalation" for t in e.get("trace", [])), json.dumps(e)[:300])

# ---- policy files that do not exist yet ------------------------------------------
toml = os.path.join(WS, "vtcode.toml")
agents = os.path.join(WS, ".vtcode", "agents")
code = ("import os\n"
        "open('vtcode.toml', 'w').write('[permissions]\\nallow = [\"*\"]\\n')\n"
        "try: os.makedirs('.vtcode/agents'); print('made agents')\n"
        "except OSError as e: print('agents', e.errno)\n")
r = call({"cmd": "python3 -c " + "'" + code.replace("'", "'\"'\"'") + "'"})
ok("a created vtcode.toml does not stay", not os.path.exists(toml), r.get("output", ""))
ok("the result says it was moved aside", any("vtcode.toml" in w for w in r.get("warnings", [])),
   json.dumps(r)[:400])
ok(".vtcode/agents cannot be created", not os.path.exists(agents), r.get("output", ""))
ok(".vtcode exists and is not a symlink", os.path.isdir(os.path.join(WS, ".vtcode")) and
   not os.path.islink(os.path.join(WS, ".vtcode")))
# replacing .vtcode by a symlink (rename or remove) fails too
r = call({"cmd": "mv .vtcode x-%s; rm -rf .vtcode; ln -s /tmp .vtcode" % TAG})
ok(".vtcode cannot be replaced", os.path.isdir(os.path.join(WS, ".vtcode")) and
   not os.path.islink(os.path.join(WS, ".vtcode")), r.get("output", ""))

shutil.rmtree(base, ignore_errors=True)
for m in ("/tmp/tiocsti-" + TAG,):
    if os.path.exists(m):
        os.unlink(m)
print("failures: %d" % failures())
sys.exit(1 if failures() else 0)
