#!/usr/bin/env python3
"""An unlisted domain is asked over MCP (elicitation) and the answer holds
for the client session: `vthost serve` on stdio with a client that can
show a question.  Approved: reached now and in a later call, with no
second question; declined: refused now and later, with no second
question.  The same client without elicitation is never asked and the
host is refused.

Usage: netproxy_ask.py VTHOST
"""
import json
import os
import subprocess
import sys

from np_common import Workspace, failures, hit, ok, require_landlock, serve, trusted_config

V = sys.argv[1]
require_landlock()
port = serve()
ws = Workspace(V, 'allowed_domains = ["reg.test", "localhost"]',
               ["reg.test", "yes.test", "no.test", "quiet.test", "late-yes.test",
                "late-no.test"])
asked = []


class Client:
    def __init__(self, caps):
        env = dict(os.environ, VTHOST_TEST_NETPROXY_HOSTS=ws.hosts)
        self.p = subprocess.Popen([V, "--workspace", ws.ws, *trusted_config(ws.ws), "serve"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env)
        self.n = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": caps,
                                    "clientInfo": {"name": "np-ask", "version": "1"}})
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
            if m.get("method") == "elicitation/create" and "id" in m:
                msg = m["params"].get("message", "")
                asked.append(msg)
                yes = "yes.test" in msg or msg.startswith("write_stdin")
                self.send({"jsonrpc": "2.0", "id": m["id"],
                           "result": {"action": "accept" if yes else "decline",
                                      "content": {"decision": "approve"} if yes else {}}})
            elif m.get("method") and "id" in m:
                self.send({"jsonrpc": "2.0", "id": m["id"],
                           "error": {"code": -32601, "message": "no"}})
            elif m.get("id") == self.n:
                return m

    def run(self, cmd):
        r = self.request("tools/call", {"name": "exec_command",
                                        "arguments": {"cmd": cmd, "yield_time_ms": 30000}})
        return json.dumps(r)

    def start(self, cmd):
        """exec_command that returns while the command runs: its session id."""
        r = self.request("tools/call", {"name": "exec_command",
                                        "arguments": {"cmd": cmd, "yield_time_ms": 250}})
        sc = r.get("result", {}).get("structuredContent", {})
        return sc.get("session_id"), json.dumps(r)

    def poll(self, sid):
        r = self.request("tools/call", {"name": "write_stdin",
                                        "arguments": {"session_id": sid, "chars": "",
                                                      "yield_time_ms": 15000}})
        return json.dumps(r)

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()


c = Client({"elicitation": {}})
out1 = c.run(f"curl -sS http://yes.test:{port}/yes-1; curl -sS http://yes.test:{port}/yes-2; "
             f"curl -sS http://no.test:{port}/no-1")
n1 = len(asked)

out2 = c.run(f"curl -sS http://yes.test:{port}/yes-3; curl -sS http://no.test:{port}/no-2")

# A session that outlives its call: what it meets while write_stdin waits
# is asked through that call, and that call's result names its refusals.
n2 = len(asked)
sid, started = c.start(f"sleep 1; curl -sS http://late-no.test:{port}/late-no; "
                       f"curl -sS http://late-yes.test:{port}/late-yes; sleep 0.5")
polled = c.poll(sid) if sid else ""
c.close()
ok("an unlisted domain is asked once per host",
   n1 == 2 and any("yes.test" in a for a in asked) and any("no.test" in a for a in asked),
   json.dumps(asked)[:600])
ok("approved: reached in the call that asked", hit("/yes-1") and hit("/yes-2"), out1[:600])
ok("declined: refused, and the result names it",
   not hit("/no-1") and "network: refused no.test" in out1, out1[:600])
ok("the answers hold for the session: no second question", n2 == n1,
   json.dumps(asked))
ok("approved holds in a later call", hit("/yes-3"), out2[:600])
ok("declined holds in a later call", not hit("/no-2") and "network: refused no.test" in out2,
   out2[:600])

ok("a running session: its call returned before the network was used", sid is not None,
   started[:600])
ok("a running session: a domain first met during write_stdin is asked through it",
   any("late-yes.test" in a for a in asked[n2:]) and hit("/late-yes"), polled[:600])
ok("a running session: write_stdin's result names the host refused while it waited",
   not hit("/late-no") and "network: refused late-no.test" in polled, polled[:600])

before = len(asked)
c = Client({})
out = c.run(f"curl -sS http://quiet.test:{port}/quiet")
c.close()
ok("a client that cannot show a question is not asked, and the host is refused",
   len(asked) == before and not hit("/quiet") and "network: refused quiet.test" in out, out[:600])

sys.exit(1 if failures() else 0)
