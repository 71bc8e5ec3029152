#!/usr/bin/env python3
"""Throughput of the sandbox's filtering proxy: a 100 MB download by curl
inside the sandbox through the proxy (a plain request, and a CONNECT
tunnel with curl -p) against the same download by curl run directly on
the host.  The server sends the file with sendfile(2) from 127.0.0.2, so
the proxy's relay is what differs.  Runs alternate (direct, plain,
tunnel, direct, ...); the ratio printed is the median of the paired
ratios of curl's own speed_download (goal: >= 0.8).

    python3 tests/bench/netproxy/netproxy_bench.py [build/bin/vthost] [runs] [MB]
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading

here = os.path.dirname(os.path.abspath(__file__))
V = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                    os.path.join(here, "..", "..", "..", "build", "bin", "vthost"))
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
MB = int(sys.argv[3]) if len(sys.argv) > 3 else 100

tmp = tempfile.mkdtemp(prefix="vthost-np-bench-", dir="/var/tmp")
os.chmod(tmp, 0o755)
big = os.path.join(tmp, "big")
with open(big, "wb") as f:
    f.write(os.urandom(1 << 20) * MB)
size = os.path.getsize(big)


def server(lsock):
    while True:
        c, _ = lsock.accept()
        threading.Thread(target=answer, args=(c,), daemon=True).start()


def answer(c):
    with c:
        data = b""
        while b"\r\n\r\n" not in data:
            d = c.recv(4096)
            if not d:
                return
            data += d
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % size)
        with open(big, "rb") as f:
            c.sendfile(f)


ls = socket.create_server(("127.0.0.2", 0))
port = ls.getsockname()[1]
threading.Thread(target=server, args=(ls,), daemon=True).start()

ws = os.path.join(tmp, "ws")
os.mkdir(ws)
with open(os.path.join(ws, "vtcode.toml"), "w") as f:
    f.write('[permissions]\nallow = ["exec_command"]\n'
            '[sandbox.network]\nallowed_domains = ["reg.test", "localhost"]\n')
hosts = os.path.join(tmp, "hosts")
with open(hosts, "w") as f:
    f.write("127.0.0.2 reg.test\n")
CURL = "curl -sS -o /dev/null -w '%{speed_download} %{size_download}\\n' "


def direct():
    out = subprocess.run(CURL + f"http://127.0.0.2:{port}/big", shell=True, capture_output=True,
                         text=True, check=True).stdout.split()
    assert int(out[1]) == size, out
    return float(out[0])


def sandboxed(tunnel):
    cmd = CURL + ("-p " if tunnel else "") + f"http://reg.test:{port}/big"
    p = subprocess.run([V, "--workspace", ws, "--config", os.path.join(ws, "vtcode.toml"), "--yes",
                        "call", "exec_command", json.dumps({"cmd": cmd, "yield_time_ms": 30000})],
                       capture_output=True, text=True, env=dict(os.environ,
                                                                VTHOST_TEST_NETPROXY_HOSTS=hosts))
    out = json.loads(p.stdout)["output"].split()
    assert int(out[1]) == size, out
    return float(out[0])


plain, tunnel, speeds = [], [], {"direct": [], "plain": [], "tunnel": []}
for _ in range(RUNS):
    d = direct()
    p = sandboxed(False)
    t = sandboxed(True)
    speeds["direct"].append(d)
    speeds["plain"].append(p)
    speeds["tunnel"].append(t)
    plain.append(p / d)
    tunnel.append(t / d)
for k, v in speeds.items():
    print(f"{k:7s} median {statistics.median(v) / 1e6:8.1f} MB/s")
print(f"plain request through the proxy / direct: {statistics.median(plain):.2f}x "
      f"(goal >= 0.8; {MB} MB, {RUNS} paired runs)")
print(f"CONNECT tunnel through the proxy / direct: {statistics.median(tunnel):.2f}x")
subprocess.run(["rm", "-rf", tmp])
