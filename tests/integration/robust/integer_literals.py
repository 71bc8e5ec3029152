#!/usr/bin/env python3
"""Integers are integer literals: 1.0, 1e3 and -0 are refused for every
integer field, through the CLI and over MCP, with the usual message;
the same values written as integers are accepted.

usage: integer_literals.py VTHOST_BIN"""
import json, os, shutil, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_client import Server, trusted_config


BIN = sys.argv[1]
ws = tempfile.mkdtemp(prefix="vthost-int-")
with open(os.path.join(ws, "vtcode.toml"), "w") as f:
    f.write('[permissions]\nallow = ["exec_command", "write_stdin", "search_tools"]\n')
fails = []
# (tool, argument text with @ for the number, field)
cases = [("exec_command", '{"cmd":"true","max_output_tokens":@}', "max_output_tokens"),
         ("exec_command", '{"cmd":"true","yield_time_ms":@}', "yield_time_ms"),
         ("write_stdin", '{"session_id":@,"chars":""}', "session_id"),
         ("search_tools", '{"query":"x","limit":@}', "limit")]
for tool, text, field in cases:
    for bad in ["1.0", "1e3", "-0", "5E0"]:
        args = text.replace("@", bad)
        p = subprocess.run([BIN, "--workspace", ws, *trusted_config(ws), "call", tool, args], capture_output=True, text=True)
        want = f"{field}: must be"
        if p.returncode != 2 or want not in p.stdout or f"got {bad}" not in p.stdout:
            fails.append(f"CLI {tool} {args}: exit {p.returncode} {p.stdout.strip()[:160]}")
    good = text.replace("@", "1000" if field != "limit" else "3")
    p = subprocess.run([BIN, "--workspace", ws, *trusted_config(ws), "call", tool, good], capture_output=True, text=True)
    if "must be" in p.stdout:
        fails.append(f"CLI {tool} {good} refused: {p.stdout.strip()[:160]}")

s = Server(BIN, ws)
for tool, text, field in cases:
    for bad in ["1.0", "1e3", "-0"]:
        line = '{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"%s","arguments":%s}}' % (
            tool, text.replace("@", bad))
        s.p.stdin.write(line.encode() + b"\n")
        r = s.read()
        while r.get("id") != 77:
            r = s.read()
        res = r.get("result", {})
        msg = (res.get("content") or [{}])[0].get("text", "")
        if not res.get("isError") or f"{field}: must be" not in msg or f"got {bad}" not in msg:
            fails.append(f"MCP {tool} {field}={bad}: {json.dumps(r)[:200]}")
rc, log = s.close()
if rc != 0:
    fails.append(f"server exit {rc}: {log[-1000:]}")
shutil.rmtree(ws, ignore_errors=True)
for f in fails:
    print("FAIL:", f)
print(f"{len(cases) * 7} refusals checked; {len(fails)} failures")
sys.exit(1 if fails else 0)
