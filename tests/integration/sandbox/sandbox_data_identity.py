#!/usr/bin/env python3
"""vthost's data directories are judged where they lead, tried for real:
~/.cache and ~/.local/state are links into /tmp (a common tmpfs layout),
where another user (root runs this test: the user vtci; an ordinary user:
a directory writable by all) made vthost's directories first and planted
a forged workspace index or guard count.  vthost must refuse to start
there, naming the directory, and leave the planted files as they were
(nothing read, nothing written); with directories of the user's own
behind the same links it starts and makes them 0700.  Also run as an
ordinary user by .ci/run.

    sandbox_data_identity.py path/to/vthost
"""
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile

from sbx_common import failures, ok, tag

V = sys.argv[1]
TAG = tag()
base = tempfile.mkdtemp(prefix="vthost-data-id-", dir="/var/tmp")
os.chmod(base, 0o755)
home = os.path.join(base, "home")
ws = os.path.join(base, "ws")
os.makedirs(os.path.join(home, ".local"))
os.makedirs(ws)
other = None
if os.geteuid() == 0:
    try:
        other = pwd.getpwnam("vtci")
    except KeyError:
        other = None


def planted(where, sub):
    """/tmp/<where>/vthost/<sub> made by someone else (another user's, or
    writable by all), holding a forged file; the link target."""
    top = "/tmp/vthost-data-id-%s-%s" % (where, TAG)
    d = os.path.join(top, "vthost", sub)
    os.makedirs(d)
    with open(os.path.join(d, "forged"), "w") as f:
        f.write("forged\n")
    for p in (top, os.path.join(top, "vthost"), d):
        os.chmod(p, 0o777)
        if other:
            os.chown(p, other.pw_uid, other.pw_gid)
    return top


def run(env_home):
    env = dict((k, v) for k, v in os.environ.items()
               if k not in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"))
    env["HOME"] = env_home
    return subprocess.run([V, "--workspace", ws, "--yes", "call", "exec_command",
                           json.dumps({"cmd": "echo ran"})], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, env=env)


def relink(name, target):
    link = os.path.join(home, name)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(target, link)


tops = []
# ---- the index's directory made first by someone else ---------------------------------
top = planted("cache", "wsindex")
tops.append(top)
own_state = tempfile.mkdtemp(prefix="vthost-data-id-state-", dir="/tmp")
tops.append(own_state)
relink(".cache", top)
relink(".local/state", own_state)
p = run(home)
ok("cache: vthost refuses to start", p.returncode != 0 and "ran" not in p.stdout,
   p.stdout[-300:] + p.stderr[-300:])
ok("cache: the message names the directory", top in p.stderr, p.stderr[-400:])
ok("cache: the planted directory holds only the forged file",
   os.listdir(os.path.join(top, "vthost", "wsindex")) == ["forged"],
   repr(os.listdir(os.path.join(top, "vthost", "wsindex"))))

# ---- the guard's directory made first by someone else -----------------------------------
top = planted("state", "guard")
tops.append(top)
own_cache = tempfile.mkdtemp(prefix="vthost-data-id-cache-", dir="/tmp")
tops.append(own_cache)
relink(".cache", own_cache)
relink(".local/state", top)
p = run(home)
ok("state: vthost refuses to start", p.returncode != 0 and "ran" not in p.stdout,
   p.stdout[-300:] + p.stderr[-300:])
ok("state: the message names the directory", top in p.stderr, p.stderr[-400:])
ok("state: the planted guard directory holds only the forged file",
   os.listdir(os.path.join(top, "vthost", "guard")) == ["forged"],
   repr(os.listdir(os.path.join(top, "vthost", "guard"))))

# ---- the user's own directories behind the same links: it starts --------------------------
relink(".local/state", own_state)
p = run(home)
ok("own: vthost starts through the links", "ran" in p.stdout, p.stdout[-300:] + p.stderr[-300:])
for d in (os.path.join(own_cache, "vthost", "wsindex"), os.path.join(own_state, "vthost", "guard")):
    st = os.stat(d) if os.path.isdir(d) else None
    ok("own: %s is made 0700" % d, st is not None and stat.S_IMODE(st.st_mode) == 0o700,
       oct(st.st_mode) if st else "missing")

for t in tops:
    shutil.rmtree(t, ignore_errors=True)
shutil.rmtree(base, ignore_errors=True)
print("failures: %d" % failures())
sys.exit(1 if failures() else 0)
