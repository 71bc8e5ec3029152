#!/usr/bin/env python3
"""vthost's own directories stay masked when they lie where commands may
write, when one lies inside another, and on every call of a serve.

The session masks each of vthost's own directories with an empty
read-only tmpfs; the masks of one session are copies of one such mount,
and a protected path under a mask gets no read-only bind of its own (the
mask is all a command sees there).  This test puts the configuration,
state and cache directories under /tmp (which commands may write), in
two layouts: the state directory inside the configuration's, and the
configuration inside the cache's (so the first mask made is covered by a
later one); between calls the user removes a directory and makes it
again with another secret (the state directory, then the first one
masked).  Through `vthost serve` (the first call, then calls made by
the leader maker) a command lists, reads, writes, creates in, renames and
removes each directory and the directories above it, and tries to
unmount and remount it.  Afterwards, on the host: every secret has its
bytes, nothing new is in any of the directories, none was renamed, no
secret reached the output, and the command saw each directory empty and
read-only.  Exit 77 without Landlock or namespaces.

    sandbox_data_masks.py path/to/vthost
"""
import os
import secrets
import shutil
import subprocess
import sys
import tempfile

from sbx_common import Served, failures, git_env, ok, require_landlock, scratch_dir, tag

V = os.path.abspath(sys.argv[1])
require_landlock()
TAG = tag()

ATTACK = r'''
for d in "$@"; do
  echo "LIST $d: [$(ls -A "$d" 2>/dev/null | tr '\n' ' ')]"
  cat "$d"/* "$d"/*/* 2>/dev/null
  python3 -c 'import os,sys; d=sys.argv[1]; print("RO %s: %d" % (d, os.statvfs(d).f_flag & 1 if os.path.exists(d) else 1))' "$d"
  echo PLANT-MARK > "$d/planted" 2>/dev/null
  mkdir "$d/made" 2>/dev/null
  rm -rf "$d"/* 2>/dev/null
  umount -l "$d" 2>/dev/null
  mount -t tmpfs none "$d" 2>/dev/null
  mount -o remount,rw "$d" 2>/dev/null
  mv "$d" "$d.moved" 2>/dev/null
  mv "$(dirname "$d")" "$(dirname "$d").moved" 2>/dev/null
  rm -rf "$d" 2>/dev/null
done
echo DONE
'''


def layout(root, name):
    """XDG homes under `root` (in /tmp) for layout `name`: the vthost
    directories (the masks) and the secret files in them."""
    home = os.path.join(root, "home")
    if name == "state inside config":
        cfg = os.path.join(root, "cfg")
        homes = {"XDG_CONFIG_HOME": cfg,
                 "XDG_STATE_HOME": os.path.join(cfg, "vthost", "st"),
                 "XDG_CACHE_HOME": os.path.join(root, "cache")}
    else:
        cache = os.path.join(root, "cache")
        homes = {"XDG_CONFIG_HOME": os.path.join(cache, "vthost", "cfg"),
                 "XDG_STATE_HOME": os.path.join(root, "state"),
                 "XDG_CACHE_HOME": cache}
    dirs = [os.path.join(homes["XDG_CONFIG_HOME"], "vthost"),
            os.path.join(homes["XDG_CONFIG_HOME"], "vtcode"),
            os.path.join(homes["XDG_STATE_HOME"], "vthost"),
            os.path.join(homes["XDG_CACHE_HOME"], "vthost")]
    found = {}
    for d in dirs:
        plant(d, found)
    os.makedirs(home)
    return git_env(home, **homes), dirs, found


def plant(d, found):
    """A secret file of unique content in `d` (made when missing)."""
    os.makedirs(d, mode=0o755, exist_ok=True)
    p = os.path.join(d, "secret-%s.txt" % secrets.token_hex(4))
    data = ("S3CR3T-%s-%s\n" % (TAG, secrets.token_hex(12))).encode()
    with open(p, "wb") as f:
        f.write(data)
    found[p] = data


def replace(d, found):
    """The user removes `d` between two calls and makes it again with
    another secret: the next call must mask the new directory."""
    for p in [p for p in found if p.startswith(d + "/")]:
        del found[p]
    shutil.rmtree(d)
    plant(d, found)


def contents(dirs):
    """Every name under the directories and beside them (renames)."""
    out = set()
    for d in dirs:
        for top in (d, os.path.dirname(d)):
            for r, ds, fs in os.walk(top):
                out.update(os.path.join(r, x) for x in ds + fs)
    return out


def attack(name):
    root = tempfile.mkdtemp(prefix="vthost-masks-", dir="/tmp")
    os.chmod(root, 0o755)
    base = scratch_dir("vthost-masks-ws-")
    ws = os.path.join(base, "ws")
    os.makedirs(ws)
    with open(os.path.join(ws, "vtcode.toml"), "w") as f:
        f.write('[permissions]\nallow = ["exec_command"]\n'
                '[tools.anti_blind_editing]\nenabled = false\n')
    env, dirs, found = layout(root, name)
    # what the host itself made in its directories at start-up is theirs
    s = Served(V, ws, env=env)
    try:
        r = s.tool("exec_command", {"cmd": "true"})
        if r.get("sandbox") != "workspace-write":
            print("SKIP: commands are not sandboxed with namespaces here: %s" % str(r)[:300])
            sys.exit(77)
        before = contents(dirs)
        cmd = "sh -c '%s' sh %s" % (ATTACK.replace("'", "'\\''"), " ".join(dirs))
        for call in range(3):
            what = "%s, call %d" % (name, call + 1)
            if call:
                # the state directory, then the first one masked (whose
                # mount the others copy), made anew from outside
                replace(dirs[2] if call == 1 else dirs[0], found)
                before = contents(dirs)
                what += " (%s made anew)" % (dirs[2] if call == 1 else dirs[0])
            out = s.tool("exec_command", {"cmd": cmd, "yield_time_ms": 20000}).get("output", "")
            ok("%s: the command ran" % what, "DONE" in out, out[-300:])
            for d in dirs:
                ok("%s: %s is empty to the command" % (what, d), "LIST %s: []" % d in out, out)
                ok("%s: %s is read-only (or hidden) to the command" % (what, d), "RO %s: 1" % d in out, out)
            ok("%s: no secret reached the output" % what,
               not any(v.strip().decode() in out for v in found.values()), out)
            ok("%s: the secrets keep their bytes and place" % what,
               all(os.path.isfile(p) and open(p, "rb").read() == v for p, v in found.items()))
            # the host writes its own files there meanwhile: only what the
            # attack would leave is looked for
            left = [p for p in contents(dirs) - before
                    if os.path.basename(p) in ("planted", "made") or p.endswith(".moved")]
            ok("%s: nothing made or renamed in or above the directories" % what, not left,
               str(left))
    finally:
        s.close()
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(base, ignore_errors=True)


if shutil.which("python3") is None:
    print("SKIP: python3 is not installed")
    sys.exit(77)
for layout_name in ("state inside config", "config inside cache"):
    attack(layout_name)
sys.exit(1 if failures() else 0)
