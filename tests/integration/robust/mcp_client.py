"""A minimal raw JSON-RPC client of `vthost serve` for the robustness
tests, and /proc sampling of the server process."""
import json, os, subprocess, time


def trusted_config(ws):
    """--config naming the workspace's own vtcode.toml: an explicit --config
    is trusted, so its allow rules apply (a workspace's own file alone only
    tightens)."""
    path = os.path.join(ws, "vtcode.toml")
    return ["--config", path] if os.path.exists(path) else []


class Server:
    def __init__(self, bin_, ws, extra=()):
        self.err = open(os.path.join(ws, ".stderr.txt"), "w+")
        self.p = subprocess.Popen([bin_, "--workspace", ws, *trusted_config(ws), *extra, "serve"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, bufsize=0)
        self.buf = b""
        self.next_id = 1
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "robust", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, obj):
        self.p.stdin.write(json.dumps(obj).encode() + b"\n")

    def read(self, timeout=60):
        end = time.time() + timeout
        while b"\n" not in self.buf:
            if time.time() > end:
                raise SystemExit("FAIL: no message within %ds" % timeout)
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                raise SystemExit("FAIL: the server closed its output")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line)

    def request(self, method, params=None, timeout=120):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        while True:
            r = self.read(timeout)
            if r.get("id") == rid and "method" not in r:
                return r

    def call(self, tool, args, timeout=120):
        r = self.request("tools/call", {"name": tool, "arguments": args}, timeout)
        if "error" in r:
            raise SystemExit(f"FAIL: {tool} {args}: {r['error']}")
        return r["result"].get("structuredContent", {})

    def close(self, timeout=20):
        self.p.stdin.close()
        rc = self.p.wait(timeout=timeout)
        self.err.seek(0)
        return rc, self.err.read()


def descendants(pid):
    """[(pid, state, start_ticks)] of every process below pid."""
    procs = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        rest = st[st.rindex(")") + 2:].split()
        procs[int(d)] = (int(rest[1]), rest[0], int(rest[19]))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c, (pp, state, start) in procs.items():
            if pp == p:
                out.append((c, state, start))
                todo.append(c)
    return out


def sample(pid):
    """RSS MiB, fds, threads, children, zombies of the server."""
    st = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            st[k] = v.strip()
    kids = descendants(pid)
    # The exec plugin's leader maker (plugins/exec/zygote.c) is the server's
    # child for the server's whole life: counted apart, so a leaked command
    # still shows as a child and a second maker still shows as a leak.
    makers = [k for k in kids if comm(k[0]) == "vthost-maker"]
    return {"rss": int(st["VmRSS"].split()[0]) / 1024, "fds": len(os.listdir(f"/proc/{pid}/fd")),
            "threads": int(st["Threads"]), "children": len(kids) - len(makers),
            "makers": len(makers), "zombies": sum(1 for k in kids if k[1] == "Z")}


def comm(pid):
    """The process's name, or "" once it is gone."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def zombie_ages(pid):
    """Ages in seconds of the zombies below pid."""
    hz = os.sysconf("SC_CLK_TCK")
    with open("/proc/uptime") as f:
        up = float(f.read().split()[0])
    return [up - start / hz for _, state, start in descendants(pid) if state == "Z"]


def sanitized(pid):
    """True when the server runs under AddressSanitizer, whose quarantine
    and shadow memory make RSS grow by design: RSS bounds are then loose."""
    try:
        with open(f"/proc/{pid}/maps") as f:
            return "libasan" in f.read()
    except OSError:
        return False


class ZombieWatch:
    """Samples the server's children every `step` seconds in a thread and
    keeps, for each one seen as a zombie, how long it stayed one (from
    the first sample that saw it dead to the last, plus one step): a
    process's age alone counts its running time too.  Only the server's
    own children are its to collect; a zombie further down is waited for
    by its own parent inside the session (`inner` counts those seen)."""

    def __init__(self, pid, step=0.05):
        import threading
        self.pid, self.step = pid, step
        self.seen = {}  # (pid, start) -> [first, last]
        self.inner = set()
        self.stop = threading.Event()
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self.stop.is_set():
            now = time.monotonic()
            try:
                kids = descendants(self.pid)
            except OSError:
                kids = []
            for c, state, start in kids:
                if state != "Z":
                    continue
                try:
                    with open(f"/proc/{c}/stat") as f:
                        st = f.read()
                    ppid = int(st[st.rindex(")") + 2:].split()[1])
                except (OSError, ValueError):
                    continue
                if ppid != self.pid:
                    self.inner.add((c, start))
                    continue
                span = self.seen.setdefault((c, start), [now, now])
                span[1] = now
            time.sleep(self.step)

    def worst(self):
        """The longest time a child of the server stayed a zombie, in s."""
        return max([0.0] + [b - a + self.step for a, b in self.seen.values()])

    def count(self):
        return len(self.seen)

    def close(self):
        self.stop.set()
        self.t.join(5)
        return self.worst()
