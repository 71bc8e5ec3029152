#!/usr/bin/env python3
"""Time exec_command {"cmd":"true"} through `vthost serve` over stdio.

Usage: serve_calls.py VTHOST WORKSPACE CONFIG RUNS
Prints: median_ms first_ms rss_kib  (rss of the server after the calls)
The first call builds the workspace index; the median is over the rest.
"""
import json
import subprocess
import sys
import time


def main():
    vthost, ws, config, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    p = subprocess.Popen(
        [vthost, "--workspace", ws, "--config", config, "serve"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True, bufsize=1)

    def rpc(i, method, params):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                  "params": params}) + "\n")
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit("vthost serve ended early")
            msg = json.loads(line)
            if msg.get("id") == i:
                return msg

    rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "scale-bench", "version": "1"}})
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    times = []
    for i in range(1, runs + 2):
        a = time.perf_counter()
        r = rpc(i, "tools/call", {"name": "exec_command", "arguments": {"cmd": "true"}})
        times.append((time.perf_counter() - a) * 1000)
        res = r.get("result", {})
        if res.get("isError"):
            sys.exit("call failed: " + json.dumps(r)[:400])
    rss = 0
    with open(f"/proc/{p.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    p.stdin.close()
    p.wait(timeout=30)
    rest = sorted(times[1:])
    print(f"{rest[len(rest) // 2]:.2f} {times[0]:.2f} {rss}")


main()
