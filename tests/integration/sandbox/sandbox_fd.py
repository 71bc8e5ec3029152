#!/usr/bin/env python3
"""The places a command may write are granted by what they are, never by
where a name leads at the time: each attack swaps a granted place for a
symbolic link to a fake home directory holding a file whose bytes must
not change, and the call must say what it refused.

1. $TMPDIR=/tmp/x: a first call writes there; /tmp/x is then replaced by
   a link to the fake home (what a command can do: /tmp is writable); the
   next call writes through $TMPDIR.  One-shot and under `vthost serve`,
   where the first call's command makes the swap itself.
2. The same with a writable root under /tmp ([sandbox] writable_roots).
3. An approved additional write path inside the workspace, swapped for a
   link while the question is open (`vthost serve` on stdio, a client
   that answers the elicitation after the swap); and one outside it
   replaced by another directory meanwhile.
4. ~/.cache and ~/.local/state as links into /tmp that lead nowhere yet
   (a tmpfs layout after a reboot): a command tries to make vthost's
   data directories there and plant what vthost later reads as its own
   (the workspace index, the anti-blind-editing count), or links that
   send vthost's writes to a place in /tmp it can change later; nothing
   it writes may appear there, the repository's .git stays read-only and
   the guard still stops blind edits after the command tried to reset
   its count.

Exit 77 without Landlock or namespaces.

    sandbox_fd.py path/to/vthost
"""
import json
import os
import shutil
import subprocess
import sys

from sbx_common import failures, ok, require_landlock, scratch_dir, tag

V = os.path.abspath(sys.argv[1])
require_landlock()
TAG = tag()
base = scratch_dir("vthost-sbxfd-")
WS = os.path.join(base, "ws")
FAKE_HOME = os.path.join(base, "fakehome")   # outside every writable place
VICTIM = os.path.join(FAKE_HOME, "victim.txt")
VICTIM_BYTES = ("the user's own file %s\n" % TAG).encode()
TMPX = "/tmp/vthost-fd-tmpdir-%s" % TAG
ROOT = "/tmp/vthost-fd-root-%s" % TAG
CACHE = "/tmp/vthost-fd-cache-%s" % TAG
STATE = "/tmp/vthost-fd-state-%s" % TAG
EVIL = "/tmp/vthost-fd-evil-%s" % TAG
os.makedirs(os.path.join(WS, "sub"))
os.makedirs(FAKE_HOME)
CFG = os.path.join(base, "config.toml")
with open(CFG, "w") as f:
    f.write('[permissions]\nallow = ["exec_command"]\n'
            '[sandbox]\nwritable_roots = ["%s"]\n' % ROOT)
CLEAN = [TMPX, ROOT, CACHE, STATE, EVIL]


def reset_victim():
    with open(VICTIM, "wb") as f:
        f.write(VICTIM_BYTES)


def victim_intact():
    with open(VICTIM, "rb") as f:
        return f.read() == VICTIM_BYTES


def fresh_dir(path):
    if os.path.islink(path) or os.path.isfile(path):
        os.unlink(path)
    elif os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)


def swap_for_link(path):
    """What a command can do to a directory under /tmp: replace it with a
    link to the fake home."""
    shutil.rmtree(path)
    os.symlink(FAKE_HOME, path)


def env_with(**kw):
    e = dict(os.environ)
    for k, v in kw.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return e


def call(cmd, env=None, extra_args=()):
    a = {"cmd": cmd, "yield_time_ms": 15000}
    p = subprocess.run([V, "--workspace", WS, "--config", CFG, "--yes", *extra_args, "call",
                        "exec_command", json.dumps(a)], capture_output=True, text=True,
                       timeout=90, stdin=subprocess.DEVNULL, env=env)
    return p.stdout + p.stderr


def attack(var):
    return ('echo PWNED-%s > "%s/victim.txt"; echo wrote-$?' % (TAG, var))


probe = call("cat /proc/1/cmdline")
if "sandbox" not in probe or "cannot sandbox" in probe:
    print("SKIP: commands are not sandboxed here: " + probe[:300])
    shutil.rmtree(base, ignore_errors=True)
    sys.exit(77)

# ---- 1. $TMPDIR swapped for a link between two calls (one-shot) -------------
reset_victim()
fresh_dir(TMPX)
env = env_with(TMPDIR=TMPX)
out = call('echo ok > "$TMPDIR/first" && cat "$TMPDIR/first"', env)
ok("tmpdir: the first call writes $TMPDIR", os.path.exists(os.path.join(TMPX, "first")), out[:400])
swap_for_link(TMPX)
out = call(attack("$TMPDIR"), env)
ok("tmpdir: the fake home's file is unchanged after the swap", victim_intact(), out[:400])
ok("tmpdir: the call names the refusal", "$TMPDIR" in out and TMPX in out and "link" in out,
   out[:400])

# ---- 2. a writable root under /tmp swapped the same way (one-shot) ----------
reset_victim()
fresh_dir(ROOT)
out = call('echo ok > "%s/first"' % ROOT)
ok("root: the first call writes the writable root", os.path.exists(os.path.join(ROOT, "first")),
   out[:400])
swap_for_link(ROOT)
out = call(attack(ROOT))
ok("root: the fake home's file is unchanged after the swap", victim_intact(), out[:400])
ok("root: the call names the refusal", "writable root" in out and ROOT in out, out[:400])
os.unlink(ROOT)


# ---- 1 and 2 under serve: the first call's command makes the swap ----------
class Serve:
    def __init__(self, env, caps=None, answer=None):
        self.answer = answer
        self.p = subprocess.Popen([V, "--workspace", WS, "--config", CFG, "serve"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env)
        self.n = 0
        self.request("initialize", {"protocolVersion": "2025-06-18",
                                    "capabilities": caps or {},
                                    "clientInfo": {"name": "fd-test", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, m):
        self.p.stdin.write(json.dumps(m) + "\n")
        self.p.stdin.flush()

    def request(self, method, params):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                return {}
            m = json.loads(line)
            if m.get("method") and "id" in m:  # a request of the server's
                r = self.answer(m) if self.answer else None
                if r is None:
                    self.send({"jsonrpc": "2.0", "id": m["id"],
                               "error": {"code": -32601, "message": "no"}})
                else:
                    self.send({"jsonrpc": "2.0", "id": m["id"], "result": r})
            elif m.get("id") == self.n:
                return m

    def exec(self, args):
        a = {"yield_time_ms": 15000}
        a.update(args)
        return json.dumps(self.request("tools/call", {"name": "exec_command", "arguments": a}))

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


for what, path, var in (("$TMPDIR", TMPX, "$TMPDIR"), ("a writable root", ROOT, ROOT)):
    reset_victim()
    fresh_dir(path)
    s = Serve(env_with(TMPDIR=TMPX if path == TMPX else None))
    swap = 'rm -rf "%s" && ln -s "%s" "%s" && echo swapped' % (path, FAKE_HOME, path)
    out = s.exec({"cmd": swap})
    ok("serve: the first call's command swaps %s for a link" % what, "swapped" in out, out[:400])
    out = s.exec({"cmd": attack(var)})
    ok("serve: %s swapped by a command grants nothing" % what, victim_intact(), out[:400])
    ok("serve: the refusal names %s" % what, path in out and "link" in out, out[:400])
    s.close()
    os.unlink(path)

# ---- 3. an approved path swapped while the question is open ----------------
reset_victim()
SUB = os.path.join(WS, "sub")
asked = []


def approve_after_swap(m):
    if m.get("method") != "elicitation/create":
        return None
    asked.append(m["params"].get("message", ""))
    # the question names the directory; the client swaps it meanwhile
    shutil.rmtree(SUB)
    os.symlink(FAKE_HOME, SUB)
    return {"action": "accept", "content": {"decision": "approve"}}


s = Serve(env_with(), caps={"elicitation": {}}, answer=approve_after_swap)
out = s.exec({"cmd": attack(SUB), "sandbox_permissions": "with_additional_permissions",
              "additional_permissions": {"file_system": {"write": ["sub"]}},
              "justification": "test " + TAG})
s.close()
ok("approved path: the question was asked and named the directory",
   len(asked) == 1 and SUB in asked[0], json.dumps(asked)[:300])
ok("approved path: the link's target is not written", victim_intact(), out[:400])
ok("approved path: the call names the path it refused", SUB in out and "wrote-0" not in out,
   out[:400])
if os.path.islink(SUB):
    os.unlink(SUB)
    os.makedirs(SUB)

ADDED = os.path.join(base, "added")  # outside the workspace and /tmp
os.makedirs(ADDED)


def other_dir_after_question(m):
    """The directory named is replaced by another one (no link): the run
    must not grant a directory the question did not name."""
    if m.get("method") != "elicitation/create":
        return None
    os.rename(ADDED, ADDED + ".asked")
    os.makedirs(ADDED)
    return {"action": "accept", "content": {"decision": "approve"}}


s = Serve(env_with(), caps={"elicitation": {}}, answer=other_dir_after_question)
out = s.exec({"cmd": 'echo x > "%s/new-%s"; echo wrote-$?' % (ADDED, TAG),
              "sandbox_permissions": "with_additional_permissions",
              "additional_permissions": {"file_system": {"write": [ADDED]}},
              "justification": "test " + TAG})
s.close()
ok("approved path replaced by another directory: nothing written",
   not os.path.exists(os.path.join(ADDED, "new-" + TAG)), out[:400])
ok("approved path replaced by another directory: the call says so",
   ADDED in out and "no longer" in out, out[:400])

# ---- 4. ~/.cache and ~/.local/state leading into /tmp, not there yet --------
if shutil.which("git"):
    home = os.path.join(base, "home4")
    os.makedirs(os.path.join(home, ".local"))
    for p in (CACHE, STATE):
        if os.path.lexists(p):
            shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)
    os.symlink(CACHE, os.path.join(home, ".cache"))
    os.symlink(STATE, os.path.join(home, ".local", "state"))
    subprocess.run(["git", "init", "-q", WS], check=True)
    env = env_with(HOME=home, XDG_CACHE_HOME=None, XDG_STATE_HOME=None, XDG_CONFIG_HOME=None,
                   TMPDIR=None)
    out = call("true", env)
    ok("xdg links: vthost's data directories are made where the links lead",
       os.path.isdir(os.path.join(CACHE, "vthost")) and os.path.isdir(os.path.join(STATE, "vthost")),
       out[:300])
    # every file there overwritten, and new ones planted, as the index
    # and the guard's count would be forged
    # and the index's and the guard's directories made links to places
    # in /tmp that stay writable, for the host to write through later
    plant = ('for d in "{c}/vthost/wsindex" "{s}/vthost/guard"; do mkdir -p "$d"; '
             'echo FORGED-{t} > "$d/planted"; '
             'for f in "$d"/*; do echo FORGED-{t} > "$f"; done; done; '
             'mkdir -p "{e}/idx" "{e}/guard"; rm -rf "{c}/vthost/wsindex" "{s}/vthost/guard"; '
             'ln -s "{e}/idx" "{c}/vthost/wsindex"; ln -s "{e}/guard" "{s}/vthost/guard"; '
             'echo FORGED-{t} > "{c}/vthost/planted"; echo FORGED-{t} > "{s}/vthost/planted"; '
             'echo done').format(c=CACHE, s=STATE, t=TAG, e=EVIL)
    out = call(plant, env)
    ok("xdg links: no link planted in vthost's data directories",
       not os.path.islink(os.path.join(CACHE, "vthost", "wsindex")) and
       not os.path.islink(os.path.join(STATE, "vthost", "guard")), out[:300])
    forged = []
    for top in (CACHE, STATE):
        for dirpath, _, files in os.walk(top):
            for fn in files:
                try:
                    with open(os.path.join(dirpath, fn), "rb") as f:
                        if ("FORGED-" + TAG).encode() in f.read():
                            forged.append(os.path.join(dirpath, fn))
                except OSError:
                    pass
    ok("xdg links: nothing a command writes lands in vthost's data directories", not forged,
       json.dumps(forged) + " " + out[:300])
    out = call('touch .git/pwned-%s; echo rc=$?' % TAG, env)
    ok("xdg links: the repository's .git stays read-only",
       not os.path.exists(os.path.join(WS, ".git", "pwned-" + TAG)), out[:300])
    # The anti-blind-editing count: shell edits, an attempt to reset the
    # count between them, and the guard must still stop the edits.
    for n in (1, 2):
        call("echo %d >> edits-%s.txt" % (n, TAG), env)
    call('rm -f "{e}"/guard/*.json; rm -rf "{s}/vthost/guard"; mkdir -p "{s}/vthost/guard"; '
         'for f in "{s}"/vthost/guard/*.json; do echo "{{}}" > "$f"; done'.format(s=STATE, e=EVIL),
         env)
    outs = [call("echo %d >> edits-%s.txt" % (n, TAG), env) for n in (3, 4, 5, 6)]
    ok("xdg links: the guard still stops blind edits after a reset attempt",
       "anti_blind_editing_verification_required" in outs[-1], outs[-1][:300])
else:
    print("skip xdg links: git is not installed")

for p in CLEAN:
    if os.path.islink(p) or os.path.isfile(p):
        os.unlink(p)
    elif os.path.isdir(p):
        shutil.rmtree(p, ignore_errors=True)
shutil.rmtree(base, ignore_errors=True)
n = failures()
print("%d failed" % n if n else "all passed")
sys.exit(1 if n else 0)
