#!/usr/bin/env python3
"""A workspace .vtcode that is not a plain directory of the workspace (a
mount of another directory, a symbolic link, a file) is refused as a
policy source and reported at start, never followed: vthost still starts,
says so once, reads no agent spec from it, and writes nothing through it
(the audit log and the spool leave the mounted directory's contents
unchanged).  The mount is a bind mount in a private user and mount
namespace (unshare -rm); exit 77 where one cannot be made.

Usage: vtcode_not_plain.py VTHOST
"""
import json
import os
import shutil
import subprocess
import sys

from trustlib import check, finish, scratch


VTHOST = sys.argv[1]
root, ws, home, ENV = scratch("vthost-notplain-", keep_state=False)
outside = os.path.join(root, "outside")
for d in (os.path.join(outside, "agents"), os.path.join(ws, ".vtcode")):
    os.makedirs(d)
with open(os.path.join(outside, "agents", "rev.md"), "w") as f:
    f.write("---\nname: rev\npermissions:\n  default: allow\n---\nx\n")
with open(os.path.join(ws, "vtcode.toml"), "w") as f:
    f.write("[permissions]\naudit_enabled = true\n")



def snapshot(d):
    out = {}
    for base, dirs, files in os.walk(d):
        for n in dirs + files:
            p = os.path.join(base, n)
            out[os.path.relpath(p, d)] = open(p, "rb").read() if os.path.isfile(p) else None
    return out


def mounted(*args):
    """vthost with OUTSIDE bind-mounted on ws/.vtcode (private namespace)."""
    script = 'mount --bind "$1" "$2" || exit 97; shift 2; exec "$@"'
    return subprocess.run(["unshare", "-rm", "sh", "-c", script, "sh", outside,
                           os.path.join(ws, ".vtcode"), VTHOST, "--workspace", ws, *args],
                          capture_output=True, text=True, env=ENV, cwd=ws, timeout=120,
                          stdin=subprocess.DEVNULL)


probe = mounted("--version")
if probe.returncode != 0 or not shutil.which("unshare"):
    print("SKIP: cannot bind-mount in a private namespace here: " + probe.stderr[:300])
    shutil.rmtree(root, ignore_errors=True)
    sys.exit(77)

before = snapshot(outside)
r = mounted("--agent", "rev", "explain", "exec_command", '{"cmd":"ls"}')
check("a mounted .vtcode: its agent spec is not read", r.returncode != 0 and
      '"agent":"rev"' not in r.stdout and "agent specs in it are never read" in r.stderr,
      r.stdout + r.stderr)
r = mounted("explain", "exec_command", '{"cmd":"ls"}')
check("a mounted .vtcode: vthost starts and says it is refused", r.returncode == 0 and
      "refused as a policy source" in r.stderr and "another filesystem or a mount" in r.stderr,
      r.stdout + r.stderr)
r = mounted("--no", "call", "exec_command", json.dumps({"cmd": "echo $(id) > f"}))
check("a mounted .vtcode: the audit log is not written through it",
      not os.path.exists(os.path.join(outside, "audit")), r.stdout + r.stderr)
r = mounted("--yes", "call", "exec_command",
            json.dumps({"cmd": "seq 1 200000", "max_output_tokens": 50}))
check("a mounted .vtcode: the spool is not written through it",
      not os.path.exists(os.path.join(outside, "context")), r.stdout + r.stderr)
check("a mounted .vtcode: the mounted directory is unchanged", snapshot(outside) == before,
      sorted(set(snapshot(outside)) ^ set(before)))

# a file and a link are refused and reported the same way
os.rmdir(os.path.join(ws, ".vtcode"))
for kind in ("file", "link"):
    p = os.path.join(ws, ".vtcode")
    if kind == "file":
        open(p, "w").close()
    else:
        os.unlink(p)
        os.symlink(outside, p)
    r = subprocess.run([VTHOST, "--workspace", ws, "explain", "exec_command", '{"cmd":"ls"}'],
                       capture_output=True, text=True, env=ENV, timeout=120)
    check(".vtcode a %s: vthost starts and says it is refused" % kind,
          r.returncode == 0 and "refused as a policy source" in r.stderr, r.stdout + r.stderr)
check("the linked directory is unchanged", snapshot(outside) == before)

finish(".vtcode", root)
