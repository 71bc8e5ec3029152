#!/usr/bin/env python3
"""A command's view of the filesystem is the same whichever process made
its session leader: the leader maker of `vthost serve`, or the host itself
(VTHOST_NO_LEADER_MAKER=1).  A workspace under /tmp with its XDG homes
beside it (so the plan pins, protects and masks all it can) and a
repository; three calls of each serve print /proc/self/mountinfo without
the mount ids and device numbers, and for each place whether it reads,
writes and how many names it holds.  The views must be equal, call for
call; and every place the plan makes read-only or masks must refuse a
write.  Exit 77 without Landlock or namespaces.

    sandbox_mount_view.py path/to/vthost
"""
import os
import shutil
import subprocess
import sys
import tempfile

from sbx_common import Served, failures, git_env, ok, require_landlock

V = os.path.abspath(sys.argv[1])
require_landlock()

WALK = r'''
awk '{ $1 = ""; $2 = ""; $3 = ""; print }' /proc/self/mountinfo
for d in "$@"; do
  r=-; w=-; [ -r "$d" ] && r=r
  (: > "$d/.vthost-probe") 2>/dev/null && rm -f "$d/.vthost-probe" && w=w
  echo "PLACE $d $r$w $(ls -A "$d" 2>/dev/null | grep -vc '^\.vthost-probe$')"
done
echo DONE
'''


def view(env, ws, places):
    s = Served(V, ws, env=env)
    try:
        cmd = "sh -c '%s' sh %s" % (WALK.replace("'", "'\\''"), " ".join(places))
        out = []
        for _ in range(3):
            r = s.tool("exec_command", {"cmd": cmd, "yield_time_ms": 20000})
            if r.get("sandbox") != "workspace-write":
                print("SKIP: commands are not sandboxed with namespaces here: %s" % str(r)[:300])
                sys.exit(77)
            out.append(r.get("output", ""))
        return out
    finally:
        s.close()


root = tempfile.mkdtemp(prefix="vthost-view-", dir="/tmp")
os.chmod(root, 0o755)
try:
    ws = os.path.join(root, "ws")
    os.makedirs(os.path.join(ws, ".vtcode"))
    subprocess.run(["git", "init", "-q", ws], check=True)
    with open(os.path.join(ws, "vtcode.toml"), "w") as f:
        f.write('[permissions]\nallow = ["exec_command"]\n'
                '[tools.anti_blind_editing]\nenabled = false\n')
    homes = {"XDG_%s_HOME" % k.upper(): os.path.join(root, k) for k in ("config", "state", "cache")}
    os.makedirs(os.path.join(root, "home"))
    for h in homes.values():
        os.makedirs(h)
    env = git_env(os.path.join(root, "home"), **homes)
    masked = [os.path.join(homes["XDG_CONFIG_HOME"], "vthost"),
              os.path.join(homes["XDG_CONFIG_HOME"], "vtcode"),
              os.path.join(homes["XDG_STATE_HOME"], "vthost"),
              os.path.join(homes["XDG_CACHE_HOME"], "vthost")]
    readonly = [os.path.join(ws, ".git"), os.path.join(ws, ".vtcode")]
    places = [root, ws] + readonly + masked
    maker = view(env, ws, places)
    host = view(dict(env, VTHOST_NO_LEADER_MAKER="1"), ws, places)

    def steady(out):
        """The lines that do not follow the machine: the path sockets of
        other programs (each hidden by /dev/null) come and go between the
        two serves."""
        return [ln for ln in out.splitlines()
                if not (ln.split()[:1] == ["/null"] and not ln.split()[1].startswith(root))]

    for i, (a, b) in enumerate(zip(maker, host)):
        ok("call %d: the commands ran" % (i + 1), "DONE" in a and "DONE" in b, (a + b)[-300:])
        diff = sorted(set(steady(a)) ^ set(steady(b)))
        ok("call %d: the same mounts and places with and without the leader maker" % (i + 1),
           steady(a) == steady(b), "\n".join(diff))
    for d in readonly + masked:
        ok("%s refuses a write" % d, all(("PLACE %s r- " % d) in out or ("PLACE %s -- " % d) in out
                                         for out in maker + host), maker[-1])
    for d in masked:
        ok("%s is empty" % d, all(("PLACE %s r- 0" % d) in out for out in maker + host),
           maker[-1])
finally:
    shutil.rmtree(root, ignore_errors=True)
sys.exit(1 if failures() else 0)
