#!/usr/bin/env python3
"""vthost's own data is unreadable from inside the sandbox.

A command tries to read every file of vthost's own (the HTTP bearer token,
http.toml, the OAuth public key file, the access log, the state and cache
directories, the trust list) by every spelling: directly, through a
symlinked parent it makes in the workspace and in /tmp, through
/proc/self/root and /proc/1/root, through ".." walks, by a hard link, by a
copy, and by listing and reading the directories (ls, find, python).  No
byte of any of them may reach the command's output or any file it leaves
(checked on the host afterwards against the real bytes, the token as the
server made it included), and none may change.

Runs: one-shot `vthost call` (pipes and a terminal, every approval
preset, the XDG defaults under $HOME); `serve --http` with a bearer token
file outside the configuration directory and $XDG_* set, one of them
through a symlink; `serve --http` as an OAuth resource server; and the
sandbox without mount namespaces (Landlock alone: user namespaces
refused, and as root without CAP_SYS_ADMIN), where a home under /tmp,
which commands may write, makes vthost refuse the command instead.
Exit 77 without Landlock or namespaces.

    sandbox_host_data.py path/to/vthost
"""
import base64
import json
import os
import secrets
import shutil
import stat
import subprocess
import sys
import time
import urllib.request

from sbx_common import failures, no_userns, ok, require_landlock, scratch_dir, tag

V = os.path.abspath(sys.argv[1])
require_landlock()
TAG = tag()
base = scratch_dir("vthost-hostdata-")
WS = os.path.join(base, "ws")
os.makedirs(WS)
os.chmod(base, 0o700)
with open(os.path.join(WS, "vtcode.toml"), "w") as f:
    # the attack leaves copies in the workspace on every call: the guard's
    # count of unverified edits is not what this test is about
    f.write('[permissions]\nallow = ["exec_command"]\n'
            '[tools.anti_blind_editing]\nenabled = false\n')
SECRETS = {}  # path -> bytes the command must never see (and must not change)
MARKERS = []  # bytes of files the host itself writes to (the access log)


def secret(path, text=None, mode=0o600):
    """A file of vthost's with unique content."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    data = (text if text is not None else "S3CR3T-%s-%s\n" % (TAG, secrets.token_hex(12)))
    with open(path, "w") as f:
        f.write(data)
    os.chmod(path, mode)
    SECRETS[path] = data.encode()
    return path


def markers():
    """The bytes to look for: every secret's distinctive line."""
    out = list(MARKERS)
    for data in SECRETS.values():
        for line in data.splitlines():
            if len(line.strip()) >= 16:
                out.append(line.strip())
    return out


# The attack: every spelling of each target, and what it copies or links
# is left in the workspace and /tmp for the host to inspect.
ATTACK = r'''
ws=$1; shift
for t in "$@"; do
  d=$(dirname "$t"); b=$(basename "$t"); dd=$(dirname "$d"); db=$(basename "$d")
  echo "== $t"
  cat "$t"
  cat "/proc/self/root$t"
  cat "/proc/1/root$t"
  cat "$d/../$db/$b"
  cat "$d/./../../$(basename "$dd")/$db/$b"
  (cd "$dd" && cat "$db/$b" && cat "./$db/../$db/$b")
  (cd "$d" && cat "$b")
  ln -sfn "$dd" "/tmp/vthd-@TAG@-lnk" && cat "/tmp/vthd-@TAG@-lnk/$db/$b"
  ln -sfn "$d" "$ws/lnk-$db" && cat "$ws/lnk-$db/$b"
  ln "$t" "/tmp/vthd-@TAG@-hard-$b" && cat "/tmp/vthd-@TAG@-hard-$b"
  ln "$t" "$ws/hard-$b" && cat "$ws/hard-$b"
  cp "$t" "/tmp/vthd-@TAG@-copy-$b"; cp "$t" "$ws/copy-$b"
  cp -r "$d" "/tmp/vthd-@TAG@-dir-$db"
  ls -laR "$d"
  find "$d" -type f -exec cat {} +
  python3 -c 'import os,sys
for root, _, files in os.walk(sys.argv[1]):
    for n in files:
        try:
            print(open(os.path.join(root, n), "rb").read())
        except OSError as e:
            print(e)' "$d"
  echo tampered >> "$t"
done
find "$HOME" -type f -exec cat {} + 2>&1 | head -c 20000
echo attack-ran
'''.replace("@TAG@", TAG)
with open(os.path.join(WS, "attack.sh"), "w") as f:
    f.write(ATTACK)


def attack_cmd(targets):
    return "bash attack.sh %s %s 2>&1" % (WS, " ".join(targets))


def read_regular(path):
    """A regular file's bytes, never through a symbolic link: a link the
    command left (or a hard link to one) holds a name, not the data."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        chunks = []
        while True:
            b = os.read(fd, 1 << 16)
            if not b:
                return b"".join(chunks)
            chunks.append(b)
    finally:
        os.close(fd)


def left_behind():
    """What the command copied or linked, as the host reads it."""
    found = b""
    for n in os.listdir("/tmp"):
        if n.startswith("vthd-%s-" % TAG):
            p = os.path.join("/tmp", n)
            if os.path.isdir(p) and not os.path.islink(p):
                for root, _, files in os.walk(p):
                    for fn in files:
                        found += read_regular(os.path.join(root, fn))
            else:
                found += read_regular(p)
    for n in os.listdir(WS):
        if n != "attack.sh":
            found += read_regular(os.path.join(WS, n))
    return found


def clean_leftovers():
    for n in os.listdir("/tmp"):
        if n.startswith("vthd-%s-" % TAG):
            p = os.path.join("/tmp", n)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                try:
                    os.unlink(p)
                except OSError:
                    pass
    for n in os.listdir(WS):
        p = os.path.join(WS, n)
        if n not in ("attack.sh", "vtcode.toml", ".vtcode") and (os.path.islink(p) or
                                                                os.path.isfile(p)):
            os.unlink(p)


def judge(name, result_text, ran_marker="attack-ran"):
    out = result_text.encode() if isinstance(result_text, str) else result_text
    leaked = [m.decode() for m in markers() if m in out]
    ok(name + ": the attack ran", ran_marker.encode() in out, result_text[-600:]
       if isinstance(result_text, str) else "")
    ok(name + ": no byte of vthost's data in the output", not leaked, ", ".join(leaked))
    behind = left_behind()
    leaked = [m.decode() for m in markers() if m in behind]
    ok(name + ": nothing of it copied or linked out", not leaked, ", ".join(leaked))
    changed = []
    for path, data in SECRETS.items():
        try:
            with open(path, "rb") as f:
                if f.read() != data:
                    changed.append(path)
        except OSError:
            changed.append(path)
    ok(name + ": vthost's files unchanged", not changed, ", ".join(changed))
    clean_leftovers()


# ---- one-shot calls, the XDG defaults under $HOME -------------------------
HOME = os.path.join(base, "home")
default_targets = [
    secret(os.path.join(HOME, ".config", "vthost", "http-token"),
           secrets.token_hex(32) + "\n"),
    secret(os.path.join(HOME, ".config", "vthost", "http.toml"),
           "# S3CR3T-%s-%s\n" % (TAG, secrets.token_hex(12))),
    secret(os.path.join(HOME, ".local", "state", "vthost", "guard", "state-" + TAG)),
    secret(os.path.join(HOME, ".cache", "vthost", "wsindex", "cache-" + TAG)),
    # the trust list: the user's vtcode.toml, a link into a dotfiles
    # checkout (masked where it leads)
    secret(os.path.join(base, "dotfiles", "vtcode.toml"),
           '[trust]\nworkspaces = ["/var/tmp/S3CR3T-%s-%s"]\n' % (TAG, secrets.token_hex(12))),
    os.path.join(HOME, ".config", "vtcode", "vtcode.toml"),
]
os.makedirs(os.path.dirname(default_targets[-1]), mode=0o700)
os.symlink(default_targets[-2], default_targets[-1])
ENV = dict(os.environ, HOME=HOME)
for k in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "TMPDIR"):
    ENV.pop(k, None)


def one_shot(args, env, approval=None, preexec=None):
    argv = [V, "--workspace", WS, "--config", os.path.join(WS, "vtcode.toml")]
    if approval:
        argv += ["--approval", approval]
    argv += ["--yes", "call", "exec_command", json.dumps(args)]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env,
                       cwd=WS, preexec_fn=preexec)
    try:
        return json.loads(p.stdout), p.stdout + p.stderr
    except ValueError:
        return {}, p.stdout + p.stderr


probe, _ = one_shot({"cmd": "true"}, ENV)
if "namespace" in json.dumps(probe.get("warnings", "")):
    print("SKIP: no PID and mount namespaces here")
    sys.exit(77)

for approval in (None, "sandboxed", "read-only"):
    for tty in (False, True):
        name = "call (%s, %s)" % (approval or "ask", "tty" if tty else "pipes")
        r, raw = one_shot({"cmd": attack_cmd(default_targets), "tty": tty,
                           "yield_time_ms": 30000, "max_output_tokens": 50000}, ENV, approval)
        judge(name, r.get("output", raw))

# The same directories through a second mount of their filesystem (root
# sets the scene): the mask covers every mount of them.
if os.geteuid() == 0:
    alias = os.path.join(base, "alias")
    os.makedirs(alias)
    subprocess.run(["mount", "--bind", HOME, alias], check=True)
    try:
        via = [os.path.join(alias, os.path.relpath(t, HOME)) for t in default_targets
               if t.startswith(HOME + "/")]
        r, raw = one_shot({"cmd": attack_cmd(via), "yield_time_ms": 30000,
                           "max_output_tokens": 50000}, ENV)
        judge("call, through a second mount of the home", r.get("output", raw))
    finally:
        subprocess.run(["umount", "-l", alias])
else:
    print("note: not root: the second-mount case is skipped")

# A home in /tmp, where commands may write: the directories above the
# masks cannot be renamed away (the host would then write its next files
# at the old path, outside the mask).
THOME2 = "/tmp/vthome-%s-2" % TAG
tmp_targets = [secret(os.path.join(THOME2, ".config", "vthost", "http-token")),
               secret(os.path.join(THOME2, ".local", "state", "vthost", "s"))]
above = [os.path.join(THOME2, ".config"), os.path.join(THOME2, ".local", "state"),
         os.path.join(THOME2, ".config", "vthost")]
inodes = [os.stat(a).st_ino for a in above]
r, raw = one_shot({"cmd": "mv %s/.config %s/moved; mv %s/.local/state %s/st2; "
                          "mkdir -p %s/.config/vthost && echo mine > %s/.config/vthost/x; %s" %
                          (THOME2, THOME2, THOME2, THOME2, THOME2, THOME2,
                           attack_cmd(tmp_targets)),
                   "yield_time_ms": 30000, "max_output_tokens": 50000},
                  dict(ENV, HOME=THOME2))
judge("call, home in /tmp", r.get("output", raw))
# (mv falls back to copying what it cannot rename: the copies are judged
# above, the originals must stay where they were)
ok("call, home in /tmp: nothing above the masks was renamed",
   [os.stat(a).st_ino if os.path.isdir(a) else 0 for a in above] == inodes and
   not os.path.exists(os.path.join(THOME2, ".config", "vthost", "x")), raw[-400:])
for t in tmp_targets:
    del SECRETS[t]
shutil.rmtree(THOME2, ignore_errors=True)

# A vthost directory that does not exist yet is made and masked before
# the command runs: what the host writes there later is not readable.
shutil.rmtree(os.path.join(HOME, ".cache"))
r, raw = one_shot({"cmd": "ls -la $HOME/.cache/vthost; echo probe > $HOME/.cache/vthost/x; "
                          "echo done", "yield_time_ms": 30000}, ENV)
ok("a missing cache directory exists after the call (made 0700)",
   os.path.isdir(os.path.join(HOME, ".cache", "vthost")) and
   os.stat(os.path.join(HOME, ".cache", "vthost")).st_mode & 0o777 == 0o700, raw[-400:])
ok("the command could not write into it",
   not os.path.exists(os.path.join(HOME, ".cache", "vthost", "x")), raw[-400:])
os.makedirs(os.path.join(HOME, ".cache", "vthost", "wsindex"), exist_ok=True)
for p in list(SECRETS):
    if p.startswith(os.path.join(HOME, ".cache")):
        secret(p, SECRETS[p].decode())


# ---- serve --http ------------------------------------------------------------
def http_post(url, token, body, session=None):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Accept", "application/json, text/event-stream")
    req.add_header("Authorization", "Bearer " + token)
    if session:
        req.add_header("Mcp-Session-Id", session)
    with urllib.request.urlopen(req, timeout=120) as resp:
        sid = resp.headers.get("Mcp-Session-Id")
        text = resp.read().decode()
    if text.startswith("{"):
        return json.loads(text) if text.strip() else {}, sid
    msg = {}
    for line in text.splitlines():  # an event stream: the last message with an id
        if line.startswith("data:") and line[5:].strip():  # a priming event has no data
            m = json.loads(line[5:])
            if "id" in m:
                msg = m
    return msg, sid


class Server:
    def __init__(self, env, extra_args):
        self.err_path = os.path.join(base, "serve-%d.err" % len(os.listdir(base)))
        self.err = open(self.err_path, "w")
        self.p = subprocess.Popen([V, "--workspace", WS, "--config",
                                   os.path.join(WS, "vtcode.toml"), "--approval", "sandboxed",
                                   "serve", "--http", "127.0.0.1:0", *extra_args],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=self.err, env=env, cwd=WS)
        self.url = None
        for _ in range(200):
            with open(self.err_path) as f:
                text = f.read()
            if "listening on http://" in text:
                self.url = text.split("listening on ")[1].split(",")[0].rstrip(")")
                break
            if self.p.poll() is not None:
                break
            time.sleep(0.05)

    def call(self, token, args):
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "1"}}}
        _, sid = http_post(self.url, token, init)
        http_post(self.url, token, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        m, _ = http_post(self.url, token, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                           "params": {"name": "exec_command",
                                                      "arguments": args}}, sid)
        res = m.get("result", {})
        return json.dumps(res.get("structuredContent") or res or m)

    def stop(self):
        self.p.terminate()
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
        self.err.close()
        with open(self.err_path) as f:
            return f.read()


# $XDG_* set, the configuration's through a symlinked spelling; the token
# file outside it; http.toml names an access log.
XDG = os.path.join(base, "xdg")
os.makedirs(os.path.join(XDG, "config-real"), mode=0o700)
os.symlink(os.path.join(XDG, "config-real"), os.path.join(XDG, "config"))
SECRETDIR = os.path.join(base, "secrets")
os.makedirs(SECRETDIR, mode=0o700)
TOKEN_FILE = os.path.join(SECRETDIR, "token")
ACCESS_LOG = os.path.join(SECRETDIR, "access.log")
xdg_targets = [
    secret(os.path.join(XDG, "config-real", "vthost", "http.toml"),
           'access_log = "%s"\n# S3CR3T-%s-%s\n' % (ACCESS_LOG, TAG, secrets.token_hex(12))),
    secret(os.path.join(XDG, "state", "vthost", "guard", "s-" + TAG)),
    secret(os.path.join(XDG, "cache", "vthost", "c-" + TAG)),
]
XENV = dict(ENV, HOME=os.path.join(base, "xhome"), XDG_CONFIG_HOME=os.path.join(XDG, "config"),
            XDG_STATE_HOME=os.path.join(XDG, "state"), XDG_CACHE_HOME=os.path.join(XDG, "cache"))
srv = Server(XENV, ["--token-file", TOKEN_FILE])
if not srv.url:
    ok("serve --http starts", False, srv.stop()[-800:])
else:
    with open(TOKEN_FILE, "rb") as f:
        SECRETS[TOKEN_FILE] = f.read()
    token = SECRETS[TOKEN_FILE].decode().strip()
    # the server appends to its log: judged by a line of its own
    log_marker = b"S3CR3T-%s-%s" % (TAG.encode(), secrets.token_hex(12).encode())
    with open(ACCESS_LOG, "ab") as f:
        f.write(log_marker + b"\n")
    MARKERS.append(log_marker)
    targets = [TOKEN_FILE, ACCESS_LOG, os.path.join(XDG, "config", "vthost", "http.toml"),
               *xdg_targets[1:]]
    for tty in (False, True):
        out = srv.call(token, {"cmd": attack_cmd(targets), "tty": tty, "yield_time_ms": 30000,
                               "max_output_tokens": 50000})
        name = "serve --http, token file (%s)" % ("tty" if tty else "pipes")
        judge(name, json.loads(out).get("output", out) if out.startswith("{") else out)
        ok(name + ": the bearer token itself not in the output", token not in out)
    # Another vthost of the same user (a stdio one in another project)
    # knows nothing of --token-file, but must not let its commands take
    # this server's token either.
    r, raw = one_shot({"cmd": attack_cmd([TOKEN_FILE, ACCESS_LOG]), "yield_time_ms": 30000,
                       "max_output_tokens": 50000}, XENV)
    judge("another vthost of the user, while the server runs", r.get("output", raw))
    srv.stop()
    r, raw = one_shot({"cmd": attack_cmd([TOKEN_FILE]), "yield_time_ms": 30000,
                       "max_output_tokens": 50000}, XENV)
    judge("another vthost of the user, after the server stopped", r.get("output", raw))


# ---- serve --http as an OAuth resource server ---------------------------------
def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def have_openssl():
    return shutil.which("openssl") is not None


if have_openssl():
    KEYS = os.path.join(base, "keys")
    os.makedirs(KEYS, mode=0o700)
    priv, pub = os.path.join(KEYS, "priv.pem"), os.path.join(KEYS, "pub.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                    "-out", priv], check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", priv, "-pubout", "-out", pub], check=True,
                   capture_output=True)
    with open(pub) as f:
        SECRETS[pub] = f.read().encode()
    ISS, AUD = "https://auth.vthost.test", "https://vthost.test/mcp"
    OHOME = os.path.join(base, "ohome")
    toml = secret(os.path.join(OHOME, ".config", "vthost", "http.toml"),
                  'public_url = "%s"\n[oauth]\nissuer = "%s"\npublic_key_file = "%s"\n'
                  'algorithm = "RS256"\n# S3CR3T-%s-%s\n' % (AUD, ISS, pub, TAG,
                                                             secrets.token_hex(12)))
    now = int(time.time())
    signing_input = "%s.%s" % (
        b64u(json.dumps({"alg": "RS256", "typ": "JWT"}).encode()),
        b64u(json.dumps({"iss": ISS, "aud": AUD, "sub": "alice", "iat": now,
                         "exp": now + 600}).encode()))
    sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", priv],
                         input=signing_input.encode(), capture_output=True, check=True).stdout
    jwt = signing_input + "." + b64u(sig)
    osrv = Server(dict(ENV, HOME=OHOME), [])
    if not osrv.url:
        ok("serve --http (OAuth) starts", False, osrv.stop()[-800:])
    else:
        out = osrv.call(jwt, {"cmd": attack_cmd([pub, toml]), "yield_time_ms": 30000,
                              "max_output_tokens": 50000})
        judge("serve --http, OAuth public key file",
              json.loads(out).get("output", out) if out.startswith("{") else out)
        osrv.stop()
else:
    print("note: openssl is not installed: the OAuth key file case is skipped")


# ---- without mount namespaces: Landlock alone -----------------------------------
def no_sys_admin_argv():
    return ["setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin"]


modes = [("user namespaces refused", no_userns, None)]
if os.geteuid() == 0 and shutil.which("setpriv"):
    modes.append(("root without CAP_SYS_ADMIN", None, no_sys_admin_argv()))
for label, preexec, prefix in modes:
    args = {"cmd": attack_cmd(default_targets), "yield_time_ms": 30000,
            "max_output_tokens": 50000}
    argv = [V, "--workspace", WS, "--config", os.path.join(WS, "vtcode.toml"), "--yes", "call",
            "exec_command", json.dumps(args)]
    p = subprocess.run((prefix or []) + argv, capture_output=True, text=True, timeout=120,
                       env=ENV, cwd=WS, preexec_fn=preexec)
    if p.returncode == 90 or ("namespace" not in p.stdout + p.stderr):
        ok("no namespaces (%s): the sandbox runs without them" % label, False,
           (p.stdout + p.stderr)[-400:])
        continue
    try:
        r = json.loads(p.stdout)
    except ValueError:
        r = {"output": p.stdout + p.stderr}
    judge("no namespaces (%s)" % label, r.get("output", p.stdout + p.stderr))

    # a home under /tmp (commands may write there): refused, said why
    THOME = "/tmp/vthome-%s-1" % TAG
    tmp_secret = secret(os.path.join(THOME, ".config", "vthost", "http-token"))
    argv[-1] = json.dumps({"cmd": "cat %s; echo ran" % tmp_secret})
    p = subprocess.run((prefix or []) + argv, capture_output=True, text=True, timeout=120,
                       env=dict(ENV, HOME=THOME), cwd=WS, preexec_fn=preexec)
    text = p.stdout + p.stderr
    ok("no namespaces (%s), home in /tmp: no byte of the token" % label,
       SECRETS[tmp_secret].strip() not in text.encode(), text[-400:])
    ok("no namespaces (%s), home in /tmp: the command is refused and says why" % label,
       "own data" in text and "mount namespace" in text and "ran\\n" not in text, text[-400:])
    del SECRETS[tmp_secret]
    shutil.rmtree(THOME, ignore_errors=True)

clean_leftovers()
shutil.rmtree(base, ignore_errors=True)
sys.exit(1 if failures() else 0)
