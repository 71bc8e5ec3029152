#!/usr/bin/env python3
"""A client that writes 2,000 tools/call requests and reads nothing for
10 s, then reads everything.  Throughout, the server's threads and RSS
(sampled from /proc/PID/status) stay under their bounds; calls over the
concurrency limit get busy answers; the server stops reading requests
once its output queue is full (our writer blocks); every call gets
exactly one response and ping answers resume.  Before that: ids echo
byte-exactly (2^53+1, -1, 1e300, 1.50, a long string) and invalid ids
are answered as JSON-RPC says (id null, -32600).

usage: mcp_backpressure.py VTHOST_BIN [MAX_CALLS|default]
(default: a limit of 16 set in vtcode.toml; "default" sets none, so the
built-in 128 applies)"""
import json, os, shutil, subprocess, sys, tempfile, threading, time
from mcp_client import trusted_config


BIN = sys.argv[1]
ARG = sys.argv[2] if len(sys.argv) > 2 else "16"
MAX_CALLS = 128 if ARG == "default" else int(ARG)
N = 2000
QUIET_S = 10


def status(pid):
    d = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            d[k] = v.strip()
    return int(d["Threads"]), int(d["VmRSS"].split()[0]) // 1024


def main():
    ws = tempfile.mkdtemp(prefix="vthost-bp-")
    with open(os.path.join(ws, "vtcode.toml"), "w") as f:
        f.write('[permissions]\nallow = ["exec_command", "write_stdin"]\n')
        if ARG != "default":
            f.write(f"[mcp]\nmax_concurrent_calls = {MAX_CALLS}\n")
    err = open(os.path.join(ws, "stderr.txt"), "w+")
    p = subprocess.Popen([BIN, "--workspace", ws, *trusted_config(ws), "serve"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=err, bufsize=0)
    out = p.stdout
    buf = b""

    def send(obj_or_text):
        t = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text)
        p.stdin.write(t.encode("utf-8") + b"\n")

    def read_line(timeout=30):
        nonlocal buf
        end = time.time() + timeout
        while b"\n" not in buf:
            if time.time() > end:
                raise SystemExit("FAIL: no response within %ds" % timeout)
            chunk = os.read(out.fileno(), 1 << 20)
            if not chunk:
                raise SystemExit("FAIL: server closed its output")
            buf += chunk
        line, _, buf = buf.partition(b"\n")
        return line.decode("utf-8")

    fails = []
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "bp", "version": "1"}}})
    read_line()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    # ---- exact ids ----
    long_id = '"' + "id-" + "x\\u00e9y" * 3000 + '"'
    # unescaped text (UTF-8 included) comes back byte for byte
    long_plain = '"' + "id-" + "x\u00e9y\u4e2d/" * 20000 + '"'
    for raw in ["9007199254740993", "-9007199254740993", "-1", "1e300", "1E+300", "1.50", "-0",
                "123456789012345678901234567890", long_id, long_plain]:
        send('{"jsonrpc":"2.0","id":%s,"method":"ping"}' % raw)
        line = read_line()
        want = '{"jsonrpc":"2.0","id":%s,"result":{}}' % raw
        if raw == long_id:  # same string value (escapes may be written as UTF-8)
            ok = json.loads(line)["id"] == json.loads(raw)
        else:
            ok = line == want
        if not ok:
            fails.append(f"id {raw[:40]} echoed as {line[:120]}")
    for raw in ["null", "true", "[1]", "{}"]:
        send('{"jsonrpc":"2.0","id":%s,"method":"ping"}' % raw)
        r = json.loads(read_line())
        if r.get("id", "missing") is not None or r.get("error", {}).get("code") != -32600:
            fails.append(f"invalid id {raw} answered {r}")
    # a cancellation names a large id exactly (2^53 must not cancel 2^53+1)
    send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
          "params": {"name": "exec_command", "arguments": {"cmd": "sleep 30"}}})
    send('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"exec_command","arguments":{"cmd":"sleep 0.5; echo done","yield_time_ms":5000}}}')
    send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740992}}')
    send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    line = read_line()
    if not line.startswith('{"jsonrpc":"2.0","id":9007199254740993,"result"') or "done" not in line:
        fails.append("call 2^53+1 was not answered exactly: " + line[:160])

    base_threads, base_rss = status(p.pid)
    with open(f"/proc/{p.pid}/maps") as f:
        asan = "libasan" in f.read()  # ASan's quarantine grows RSS by design
    print(f"baseline: {base_threads} threads, {base_rss} MiB RSS")

    # ---- 2,000 calls, nothing read for 10 s ----
    big = {"cmd": "head -c 300000 /dev/zero | tr '\\0' x", "max_output_tokens": 50000}
    def args_for(i):
        if i <= 12:
            return big
        if i <= 40 + MAX_CALLS - 16:  # more long calls than the limit
            return {"cmd": "sleep 4", "yield_time_ms": 10000}
        return {"cmd": f"echo {i}"}
    lines = [json.dumps({"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call",
                         "params": {"name": "exec_command", "arguments": args_for(i)}})
             for i in range(1, N + 1)]
    done_writing = threading.Event()

    def writer():
        # The large outputs first, and time for them to fill the output
        # queue: from then on the server must stop reading requests.
        for i, l in enumerate(lines):
            p.stdin.write(l.encode() + b"\n")
            if i == 11:
                time.sleep(2)
        send({"jsonrpc": "2.0", "id": "after", "method": "ping"})
        done_writing.set()
    t = threading.Thread(target=writer, daemon=True)
    t.start()
    max_threads = max_rss = 0
    end = time.time() + QUIET_S
    while time.time() < end:
        th, rss = status(p.pid)
        max_threads, max_rss = max(max_threads, th), max(max_rss, rss)
        time.sleep(0.05)
    print(f"while not reading: max {max_threads} threads, {max_rss} MiB RSS; "
          f"all requests read by the server: {done_writing.is_set()}")
    # A running exec_command has its own thread for the run-time execve
    # checks besides the call's thread.
    if max_threads > 2 * MAX_CALLS + 10:
        fails.append(f"threads grew to {max_threads} (limit {MAX_CALLS} calls)")
    if max_rss > base_rss + (320 if asan else 64):
        fails.append(f"RSS grew to {max_rss} MiB from {base_rss}")
    if done_writing.is_set():
        fails.append("the server kept reading requests while its output was not read")

    # ---- read everything ----
    seen, busy, after = {}, 0, False
    t_end = time.time() + 120
    while len(seen) < N or not after:
        if time.time() > t_end:
            fails.append(f"only {len(seen)} of {N} calls answered")
            break
        r = json.loads(read_line(60))
        if "method" in r:
            continue  # progress / log notifications
        rid = r.get("id")
        if rid == "after":
            after = True
            continue
        if not isinstance(rid, int) or not 1001 <= rid <= 1000 + N:
            continue
        seen[rid] = seen.get(rid, 0) + 1
        if r.get("error", {}).get("code") == -32000:
            busy += 1
    dup = [k for k, v in seen.items() if v != 1]
    if dup:
        fails.append(f"{len(dup)} calls answered more than once")
    if busy == 0:
        fails.append("no busy answer arrived")
    # ping answers resume
    send({"jsonrpc": "2.0", "id": "last", "method": "ping"})
    r = json.loads(read_line())
    while r.get("id") != "last":
        r = json.loads(read_line())
    print(f"answered {len(seen)} of {N} calls exactly once ({busy} busy answers); ping answered")
    p.stdin.close()
    rc = p.wait(timeout=20)
    err.seek(0)
    log = err.read()
    if rc != 0 or "ERROR: AddressSanitizer" in log or "runtime error" in log:
        fails.append(f"server exit {rc}: {log[-2000:]}")
    shutil.rmtree(ws, ignore_errors=True)
    for f in fails:
        print("FAIL:", f)
    sys.exit(1 if fails else 0)


main()
