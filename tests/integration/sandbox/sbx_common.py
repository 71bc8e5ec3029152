"""Set-up shared by the sandbox tests: the Landlock check (exit 77 where
the kernel has none), a scratch directory every user can enter, a tag that
makes this run's markers unique, trusted --config, the ok/FAIL report, the
environment git and vthost get, and a client of `vthost serve`."""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

_failures = 0


def require_landlock():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(444, None, 0, 1) <= 0:  # landlock_create_ruleset(VERSION)
        print("SKIP: this kernel offers no Landlock")
        sys.exit(77)


def require_git():
    if not shutil.which("git"):
        print("SKIP: git is not installed")
        sys.exit(77)


def tag(modulo=100000):
    return "%d%d" % (os.getpid(), int(time.time()) % modulo)


def scratch_dir(prefix):
    """A fresh directory under /var/tmp (not /tmp, which the sandbox lets
    commands write), readable by the unprivileged CI user too."""
    base = tempfile.mkdtemp(prefix=prefix, dir="/var/tmp")
    os.chmod(base, 0o755)
    return base


def trusted_config(ws):
    """--config naming the workspace's own vtcode.toml: an explicit --config
    is trusted, so its allow rules apply (a workspace's own file alone only
    tightens)."""
    path = os.path.join(ws, "vtcode.toml")
    return ["--config", path] if os.path.exists(path) else []


def allow_config(base, tools, extra=""):
    """A config.toml in `base` allowing `tools` (then `extra` TOML); its
    path, for --config."""
    path = os.path.join(base, "config.toml")
    with open(path, "w") as f:
        f.write("[permissions]\nallow = [%s]\n" % ", ".join('"%s"' % t for t in tools) + extra)
    return path


# What would point git at another repository or configuration, or vthost
# at the caller's own state and cache, rather than the test's HOME.
_UNSET = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
          "GIT_CEILING_DIRECTORIES", "GIT_PAGER", "PAGER",
          "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")


def git_env(home, **more):
    """The environment for vthost and the user's own git: HOME is `home`,
    no system git config, none of _UNSET, then `more`."""
    env = dict((k, v) for k, v in os.environ.items() if k not in _UNSET)
    env.update(GIT_CONFIG_NOSYSTEM="1", HOME=home, **more)
    return env


# A committer for tests that commit.
COMMITTER = dict(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e", GIT_COMMITTER_NAME="t",
                 GIT_COMMITTER_EMAIL="t@e")


def call_tool(vthost, ws, config, tool, args, env, *opts):
    """One `vthost call` of `tool` in `ws` under `config`: its JSON
    answer (or {"output": what it printed}) with "_stderr" added."""
    p = subprocess.run([vthost, "--workspace", ws, "--config", config, *opts, "call", tool,
                        json.dumps(args)], capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL, env=env)
    try:
        r = json.loads(p.stdout)
    except ValueError:
        r = {"output": p.stdout}
    r["_stderr"] = p.stderr
    return r



def children(pid):
    """The children of every thread of `pid` (a child's parent is the
    thread that forked it: the leader maker's is a worker thread)."""
    kids = []
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return kids
    for t in tasks:
        try:
            with open("/proc/%d/task/%s/children" % (pid, t)) as f:
                kids += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return kids

def wait_for(cond, seconds):
    end = time.time() + seconds
    while time.time() < end and not cond():
        time.sleep(0.1)
    return cond()


CLONE_NEWUSER = 0x10000000


def no_userns():
    """preexec_fn: in the child before exec, a user namespace of its own
    (as an ordinary user there) whose limit of nested user namespaces is
    0, so that vthost finds none to give its sessions: the sandbox is
    Landlock alone, as on a machine that refuses unprivileged user
    namespaces.  Exits 90 when the namespace cannot be made."""
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.geteuid(), os.getegid()
    if libc.unshare(CLONE_NEWUSER) != 0:
        os._exit(90)
    inner = uid if uid else 65534
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write("%d %d 1\n" % (inner, uid))
    with open("/proc/self/gid_map", "w") as f:
        f.write("%d %d 1\n" % (gid if gid else 65534, gid))
    with open("/proc/sys/user/max_user_namespaces", "w") as f:
        f.write("0")
    if uid == 0:
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)


def ok(name, cond, detail=""):
    global _failures
    if cond:
        print("ok   " + name)
    else:
        _failures += 1
        print("FAIL " + name + (": " + detail if detail else ""))


def failures():
    return _failures


class Served:
    """`vthost serve` on stdio in `ws`, initialized, under `config` (a
    path) or else the workspace's trusted configuration; `env`,
    `preexec_fn` and `stderr` as for Popen.  send() a message, reply(id)
    waits for the response to request `id` ({} once the server is gone);
    request() and tool() number their own.  `p` is the process."""

    def __init__(self, vthost, ws, config=None, env=None, preexec_fn=None,
                 stderr=subprocess.DEVNULL):
        conf = ["--config", config] if config else trusted_config(ws)
        self.p = subprocess.Popen([vthost, "--workspace", ws, *conf, "serve"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=stderr, text=True, env=env, preexec_fn=preexec_fn)
        self.n = 1
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "t", "version": "1"}}})
        self.reply(1)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, o):
        self.p.stdin.write(json.dumps(o) + "\n")
        self.p.stdin.flush()

    def reply(self, i):
        while True:
            line = self.p.stdout.readline()
            if not line:
                return {}
            m = json.loads(line)
            if m.get("id") == i and ("result" in m or "error" in m):
                return m

    def request(self, method, params):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        return self.reply(self.n)

    def tool(self, name, args):
        """A tools/call: its structured content, else its result."""
        m = self.request("tools/call", {"name": name, "arguments": args})
        return m.get("result", {}).get("structuredContent", {}) or m.get("result", {})

    def close(self):
        """End the input and wait (a minute, then kill); what it wrote
        on stderr when that was a pipe."""
        self.p.stdin.close()
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        return self.p.stderr.read() if self.p.stderr else ""
