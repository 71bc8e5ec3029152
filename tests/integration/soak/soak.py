#!/usr/bin/env python3
"""Soak: mixed load from several concurrent clients on one `vthost serve`.

Each client thread loops over a random mix of operations (short
commands, 1 MB outputs, sessions left unpolled or polled later, Ctrl-C,
patches, searches, invalid arguments, unknown tools, cancellations,
pings) on one connection, concurrently.  Every `--step` seconds the
server's RSS, descriptors, threads, children, zombies and spool size are
printed; the server's children are sampled every 0.1 s, and how long
each stayed a zombie is kept.  At the end the clients
stop, the server idles a few seconds, and the verdict compares the end
with the start.  It fails on any zombie older than a second, on growth
past the bounds (RSS, fds, threads), a spool over its cap, a call
without exactly one response, or an unclean exit.

With --massif FILE the server runs under valgrind's massif and the heap
profile is written to FILE (read it with ms_print); commands then run
unsandboxed, since valgrind does not know the Landlock system calls.

usage: soak.py VTHOST_BIN [--seconds N] [--step S] [--clients N] [--dir-mib M] [--massif FILE]"""
import argparse, json, os, random, shutil, subprocess, sys, tempfile, threading, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "robust"))
from mcp_client import ZombieWatch, sample, sanitized, trusted_config


ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("--seconds", type=float, default=60)
ap.add_argument("--step", type=float, default=10)
ap.add_argument("--clients", type=int, default=4)
ap.add_argument("--dir-mib", type=int, default=16)
ap.add_argument("--massif", help="run the server under valgrind massif, profile written here")
opt = ap.parse_args()

SPOOL = ".vtcode/context/tool_outputs"


class Conn:
    """One stdio connection shared by the client threads."""

    def __init__(self, ws):
        self.err = open(os.path.join(ws, ".stderr.txt"), "w+")
        wrap = []
        if opt.massif:  # valgrind execs the tool in the same process: the pid sampled stays the server's
            wrap = ["valgrind", "--tool=massif", f"--massif-out-file={opt.massif}", "--max-snapshots=200",
                    "--detailed-freq=5"]
        self.p = subprocess.Popen([*wrap, opt.bin, "--workspace", ws, *trusted_config(ws), "serve"],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err, bufsize=0)
        self.lock = threading.Lock()
        self.pending = {}
        self.answers = {}
        self.next = 1
        self.dups = 0
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        buf = b""
        while True:
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, _, buf = buf.partition(b"\n")
                m = json.loads(line)
                if "method" in m or "id" not in m:
                    continue
                with self.lock:
                    ev = self.pending.pop(m["id"], None)
                    if ev is None:
                        self.dups += 1
                        continue
                    self.answers[m["id"]] = m
                ev.set()
        with self.lock:
            for ev in self.pending.values():
                ev.set()

    def send(self, obj):
        data = json.dumps(obj).encode() + b"\n"
        with self.lock:
            self.p.stdin.write(data)

    def request(self, method, params=None, timeout=60, wait=True):
        ev = threading.Event()
        with self.lock:
            rid = self.next
            self.next += 1
            self.pending[rid] = ev
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        if not wait:
            return rid, ev
        if not ev.wait(timeout):
            raise RuntimeError(f"no answer to {method} {str(params)[:80]} in {timeout}s")
        with self.lock:
            return self.answers.pop(rid, None)

    def call(self, tool, args, timeout=60):
        r = self.request("tools/call", {"name": tool, "arguments": args}, timeout)
        return r or {}


def sc(r):
    return (r.get("result") or {}).get("structuredContent") or {}


counts = {}
errors = []
stop = threading.Event()


def client(conn, k):
    rnd = random.Random(k)
    unpolled = []
    n = 0
    while not stop.is_set():
        op = rnd.choice(["cmd", "cmd", "big", "session", "poll", "ctrlc", "patch", "search",
                         "invalid", "unknown", "cancel", "ping"])
        try:
            if op == "cmd":
                r = sc(conn.call("exec_command", {"cmd": f"echo {k}-{n}; ls >/dev/null"}))
                assert f"{k}-{n}" in r.get("output", ""), r
            elif op == "big":
                r = sc(conn.call("exec_command", {"cmd": "head -c 1000000 /dev/zero | tr '\\0' x",
                                                  "max_output_tokens": 200}))
                assert r.get("truncated") is True, r
            elif op == "session":
                r = sc(conn.call("exec_command", {"cmd": "sleep 0.3; echo s", "yield_time_ms": 10}))
                if "session_id" in r and rnd.random() < 0.5:
                    unpolled.append(r["session_id"])  # polled later, or never
            elif op == "poll" and unpolled:
                sid = unpolled.pop(0)
                conn.call("write_stdin", {"session_id": sid, "chars": "", "yield_time_ms": 500})
            elif op == "ctrlc":
                r = sc(conn.call("exec_command", {"cmd": "sleep 30", "yield_time_ms": 50}))
                if "session_id" in r:
                    r = sc(conn.call("write_stdin", {"session_id": r["session_id"], "chars": "\u0003",
                                                     "yield_time_ms": 3000}))
                    assert r.get("exit_code") is not None, r
            elif op == "patch":
                name = f"soak-{k}.txt"
                conn.call("apply_patch", {"input": f"*** Begin Patch\n*** Add File: {name}.{n}\n+line {n}\n*** End Patch\n"})
                conn.call("apply_patch", {"input": f"*** Begin Patch\n*** Delete File: {name}.{n}\n*** End Patch\n"})
            elif op == "search":
                conn.call("search_tools", {"query": rnd.choice(["run command", "patch files", "stdin"])})
            elif op == "invalid":
                r = conn.call("exec_command", {"cmd": "true", "max_output_tokens": 1.0})
                assert (r.get("result") or {}).get("isError"), r
            elif op == "unknown":
                r = conn.call("no_such_tool", {})
                assert "error" in r or (r.get("result") or {}).get("isError"), r
            elif op == "cancel":
                rid, ev = conn.request("tools/call", {"name": "exec_command",
                                                      "arguments": {"cmd": "sleep 5", "yield_time_ms": 5000}},
                                       wait=False)
                time.sleep(0.05)
                conn.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": rid}})
                ev.wait(0.5)  # a cancelled request gets no answer
                with conn.lock:
                    conn.pending.pop(rid, None)
                    conn.answers.pop(rid, None)
            elif op == "ping":
                conn.request("ping")
            counts[op] = counts.get(op, 0) + 1
        except Exception as e:  # noqa: BLE001 - reported in the verdict
            errors.append(f"client {k} {op}: {e}")
            if len(errors) > 20:
                stop.set()
        n += 1


def spool_mib(ws):
    d = os.path.join(ws, SPOOL)
    total = 0
    try:
        names = os.listdir(d)
    except OSError:
        return 0.0
    for f in names:
        try:  # a file may be deleted by the cap between listing and stat
            total += os.path.getsize(os.path.join(d, f))
        except OSError:
            pass
    return total / 2**20


def main():
    ws = tempfile.mkdtemp(prefix="vthost-soak-")
    with open(os.path.join(ws, "vtcode.toml"), "w") as f:
        f.write('[permissions]\nallow = ["exec_command", "write_stdin", "apply_patch", "search_tools"]\n'
                f"[tools.spool]\nmax_dir_mib = {opt.dir_mib}\n")
        if opt.massif:
            f.write('[sandbox]\nfallback = "unsandboxed"\n')
    conn = Conn(ws)
    conn.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "soak", "version": "1"}})
    conn.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    pid = conn.p.pid
    asan = sanitized(pid)
    threads = [threading.Thread(target=client, args=(conn, k), daemon=True) for k in range(opt.clients)]
    t0 = time.time()
    for t in threads:
        t.start()
    rows = []
    zombies = ZombieWatch(pid, step=0.1)
    hdr = f"{'t(s)':>6} {'RSS MiB':>8} {'fds':>5} {'threads':>7} {'children':>8} {'zombies':>7} {'spool MiB':>9} {'ops':>6}"
    print(hdr, flush=True)

    def row(label):
        s = sample(pid)
        s["spool"] = spool_mib(ws)
        rows.append(s)
        print(f"{label:>6} {s['rss']:8.1f} {s['fds']:5d} {s['threads']:7d} {s['children']:8d} "
              f"{s['zombies']:7d} {s['spool']:9.1f} {sum(counts.values()):6d}", flush=True)
        return s

    first = row("0")
    next_row = t0 + opt.step
    while time.time() - t0 < opt.seconds and not stop.is_set():
        if time.time() >= next_row:
            row(f"{time.time() - t0:.0f}")
            next_row += opt.step
        time.sleep(0.25)
    stop.set()
    for t in threads:
        t.join(60)
    time.sleep(5)  # idle: sessions end, spool files close
    worst_zombie = zombies.close()
    end = row("idle")
    peak_rss = max(r["rss"] for r in rows)
    peak_threads = max(r["threads"] for r in rows)
    t_exit = time.time()
    conn.p.stdin.close()
    try:
        rc = conn.p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        conn.p.kill()
        rc = -9
    t_exit = time.time() - t_exit
    conn.err.seek(0)
    log = conn.err.read()
    verdict = []
    if worst_zombie > 1.0:
        verdict.append(f"a child of the server stayed a zombie for {worst_zombie:.2f} s")
    if end["zombies"]:
        verdict.append(f"{end['zombies']} zombies at idle")
    rss_growth = end["rss"] - rows[1]["rss"] if len(rows) > 2 else 0
    rss_bound = 320 if asan else 32
    if rss_growth > rss_bound:
        verdict.append(f"RSS grew {rss_growth:.1f} MiB from the first step to idle (bound {rss_bound})")
    # slow growth: over the second half of the run RSS must level off (the
    # allocator keeps what it reached at the busiest moment; a leak keeps
    # climbing).  Judged on runs of at least 6 steps.
    timed = rows[1:-1]
    if len(timed) >= 6:
        half = timed[len(timed) // 2]["rss"]
        late = max(r["rss"] for r in timed[len(timed) // 2:]) - half
        plateau_bound = 64 if asan else 4
        print(f"RSS over the second half: {half:.1f} -> {timed[-1]['rss']:.1f} MiB "
              f"(at most +{late:.1f}; bound +{plateau_bound})")
        if late > plateau_bound:
            verdict.append(f"RSS still grew {late:.1f} MiB over the second half of the run (no plateau)")
    if end["fds"] > first["fds"] + 16:
        verdict.append(f"fds {first['fds']} -> {end['fds']}")
    if peak_threads > 128 + 12:
        verdict.append(f"{peak_threads} threads")
    if end["children"]:
        verdict.append(f"{end['children']} children left at idle")
    if end["makers"] > 1:
        verdict.append(f"{end['makers']} leader makers at idle (one at most)")
    if max(r["spool"] for r in rows) > opt.dir_mib + 4 * opt.clients:
        verdict.append(f"spool {max(r['spool'] for r in rows):.1f} MiB over its {opt.dir_mib} MiB cap")
    if conn.dups:
        verdict.append(f"{conn.dups} unexpected or duplicate responses")
    if errors:
        verdict.append(f"{len(errors)} failed operations, first: {errors[0]}")
    if rc != 0 or "Sanitizer" in log or "runtime error" in log:
        verdict.append(f"server exit {rc}: {log[-1500:]}")
    print(f"operations: {sum(counts.values())} " + json.dumps(dict(sorted(counts.items()))))
    print(f"peak RSS {peak_rss:.1f} MiB, peak threads {peak_threads}, {zombies.count()} children "
          f"seen as zombies, the longest for {worst_zombie:.2f} s ({len(zombies.inner)} zombies "
          f"seen further down), exit in {t_exit:.2f} s")
    for e in errors:
        print("failed:", e[:300])
    print("verdict: " + ("PASS" if not verdict else "FAIL: " + "; ".join(verdict)))
    shutil.rmtree(ws, ignore_errors=True)
    sys.exit(1 if verdict else 0)


main()
