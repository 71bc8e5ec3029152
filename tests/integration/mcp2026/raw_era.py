#!/usr/bin/env python3
"""`vthost serve` in both MCP eras, raw JSON-RPC over stdio.

server/discover before and after initialize, per-request version checks
(-32022 with the supported list, -32602 for a missing field), the
2025-era handshake untouched, and approvals as input_required: the call
runs only on the retry, exactly once; a replayed, altered, expired or
misapplied requestState is refused and the command does not run.  Each
check looks at the workspace afterwards (count.txt: one line per run).

Usage: raw_era.py VTHOST_BIN
"""
import base64
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

MODERN = "2026-07-28"
V = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"
INFO = "io.modelcontextprotocol/clientInfo"
SUB = "io.modelcontextprotocol/subscriptionId"

BIN = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("VTHOST_BIN", "")
failures = []


def meta(caps=None, version=MODERN):
    return {V: version, CAPS: {"elicitation": {}} if caps is None else caps,
            INFO: {"name": "raw-era-test", "version": "1.0"}}


class Server:
    """One `vthost serve` with a reader thread; messages by id."""

    def __init__(self, ws, config=None, extra=(), workspace=True):
        args = [BIN, *(["--workspace", ws] if workspace else []), *extra]
        if config:
            args += ["--config", config]
        args.append("serve")
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=ws)
        self.q = queue.Queue()
        self.notes = []
        self.next_id = 100
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.q.put(json.loads(line))
        self.q.put(None)

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method, params=None, rid=None):
        if rid is None:
            self.next_id += 1
            rid = self.next_id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.wait(rid)

    def wait(self, rid, timeout=30):
        for m in self.notes:  # read already while waiting for another
            if "id" in m and "method" not in m and m["id"] == rid:
                self.notes.remove(m)
                return m
        end = time.time() + timeout
        while time.time() < end:
            try:
                m = self.q.get(timeout=max(0.01, end - time.time()))
            except queue.Empty:
                break
            if m is None:
                raise AssertionError(f"server closed its output before answering {rid}")
            if "id" in m and "method" not in m and m["id"] == rid:
                return m
            self.notes.append(m)
        raise AssertionError(f"no answer to request {rid} within {timeout} s")

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        err = self.p.stderr.read().decode(errors="replace")
        self.p.stderr.close()
        self.p.stdout.close()
        return err


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)
    return cond


def runs(ws):
    try:
        with open(os.path.join(ws, "count.txt")) as f:
            return len(f.read().splitlines())
    except FileNotFoundError:
        return 0


def complete(res, what):
    r = res.get("result")
    ok = check(r is not None, f"{what}: a result, got {res}")
    if ok:
        check(r.get("resultType") == "complete", f"{what}: resultType complete, got {r.get('resultType')}")
        info = r.get("_meta", {}).get("io.modelcontextprotocol/serverInfo", {})
        check(info.get("name") == "vthost", f"{what}: _meta serverInfo names vthost, got {info}")
    return r or {}


def test_discover_and_versions(ws):
    s = Server(ws)
    d = complete(s.request("server/discover", {"_meta": meta({})}), "discover before initialize")
    check(d.get("supportedVersions") == [MODERN], f"supportedVersions {d.get('supportedVersions')}")
    check(d.get("capabilities", {}).get("tools", {}).get("listChanged") is True, "tools.listChanged")
    check("logging" in d.get("capabilities", {}), "logging: a call's lines when its request asks")
    check(isinstance(d.get("ttlMs"), int) and d["ttlMs"] >= 0, f"discover ttlMs {d.get('ttlMs')}")
    check(d.get("cacheScope") in ("public", "private"), "discover cacheScope")
    check("vthost serves" in d.get("instructions", ""), "discover instructions")

    bad = s.request("tools/list", {"_meta": meta({}, "1900-01-01")})
    e = bad.get("error", {})
    check(e.get("code") == -32022, f"unknown version: -32022, got {bad}")
    sup = e.get("data", {}).get("supported", [])
    check(MODERN in sup and "2025-11-25" in sup, f"supported list names both eras: {sup}")
    check(e.get("data", {}).get("requested") == "1900-01-01", "requested version echoed")

    e = s.request("tools/list", {"_meta": {V: MODERN}}).get("error", {})
    check(e.get("code") == -32602 and CAPS in e.get("message", ""),
          f"missing clientCapabilities: -32602 naming it, got {e}")
    e = s.request("tools/list", {"_meta": {V: 7, CAPS: {}}}).get("error", {})
    check(e.get("code") == -32602, f"a version that is not a string: -32602, got {e}")
    # without _meta it is a 2025-era message, and that era has no
    # server/discover: -32601, which every client's fallback keys on
    e = s.request("server/discover").get("error", {})
    check(e.get("code") == -32601 and V in e.get("message", ""),
          f"discover without _meta: -32601 naming the field, got {e}")
    m = meta({})
    m["io.modelcontextprotocol/logLevel"] = "loud"
    e = s.request("tools/list", {"_meta": m}).get("error", {})
    check(e.get("code") == -32602 and "logLevel" in e.get("message", ""), f"an unknown logLevel: -32602, got {e}")
    e = s.request("ping", {"_meta": meta({})}).get("error", {})
    check(e.get("code") == -32601, f"ping is not a 2026-07-28 method: -32601, got {e}")

    t = complete(s.request("tools/list", {"_meta": meta({})}), "modern tools/list")
    names = [x["name"] for x in t.get("tools", [])]
    check("exec_command" in names, f"modern tools/list lists exec_command: {names}")
    check(t.get("ttlMs") == 0, f"deferred catalog: ttlMs 0 (search_tools may add tools), got {t.get('ttlMs')}")
    check(t.get("cacheScope") == "private", "tools/list cacheScope private")

    # The 2025 era on the same process, then discover again.
    init = s.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "legacy", "version": "1"}})
    r = init.get("result", {})
    check(r.get("protocolVersion") == "2025-11-25", f"initialize negotiates 2025-11-25: {init}")
    check("resultType" not in r, "a 2025-era result carries no resultType")
    s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    check("result" in s.request("ping"), "2025-era ping")
    lt = s.request("tools/list").get("result", {})
    check("ttlMs" not in lt and "resultType" not in lt, "2025-era tools/list unchanged")
    init2 = s.request("initialize", {"protocolVersion": "2030-01-01", "capabilities": {}})
    check(init2.get("result", {}).get("protocolVersion") == "2025-11-25",
          "initialize with an unknown version offers the newest 2025 one")
    complete(s.request("server/discover", {"_meta": meta({})}), "discover after initialize")
    err = s.close()
    check("Sanitizer" not in err, err[:2000])


def approval_call(s, args, extra=None, rid=None, caps=None):
    params = {"name": "exec_command", "arguments": args, "_meta": meta(caps)}
    params.update(extra or {})
    return s.request("tools/call", params, rid)


def first_round(s, ws, args):
    res = approval_call(s, args)
    r = res.get("result", {})
    check(r.get("resultType") == "input_required", f"a call that needs a person: input_required, got {res}")
    reqs = r.get("inputRequests", {})
    check(len(reqs) == 1, f"one input request: {reqs}")
    key, req = next(iter(reqs.items())) if reqs else ("", {})
    check(req.get("method") == "elicitation/create", "the request is elicitation/create")
    check("exec_command" in req.get("params", {}).get("message", ""), "the question names the tool")
    check(req.get("params", {}).get("mode") == "form", "form mode")
    check(isinstance(r.get("requestState"), str) and r["requestState"], "a requestState")
    check(runs(ws) == 0, "the first round did not run the command")
    return key, r.get("requestState", "")


def answer(decision):
    return {"action": "accept", "content": {"decision": decision}}


def tamper(state):
    body, mac = state.split(".", 1)
    raw = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    raw["x"] = raw["x"] + 10_000_000  # a later deadline
    forged = base64.urlsafe_b64encode(json.dumps(raw).encode()).decode().rstrip("=")
    flipped = mac[:-2] + ("A" if mac[-2] != "A" else "B") + mac[-1]
    return forged + "." + mac, body + "." + flipped


def test_approvals(ws):
    s = Server(ws)
    args = {"cmd": "echo run >> count.txt"}
    key, state = first_round(s, ws, args)
    resp = {key: answer("approve")}

    # An answer without the state it belongs to is no approval.
    forged = approval_call(s, args, {"inputResponses": resp}).get("result", {})
    check(forged.get("resultType") == "input_required", f"inputResponses alone approve nothing: {forged}")
    check(runs(ws) == 0, "a forged answer ran nothing")

    for i, st in enumerate(tamper(state)):
        e = approval_call(s, args, {"requestState": st, "inputResponses": resp}).get("error", {})
        check(e.get("code") == -32602 and "altered" in e.get("message", ""),
              f"altered state {i} refused: {e}")
    check(runs(ws) == 0, "an altered state ran nothing")

    e = approval_call(s, {"cmd": "echo other >> count.txt"},
                      {"requestState": state, "inputResponses": resp}).get("error", {})
    check(e.get("code") == -32602 and "another call" in e.get("message", ""),
          f"state on other arguments refused: {e}")
    check(runs(ws) == 0, "a misapplied state ran nothing")

    # Two retries with the same state at once: one runs, one is a replay.
    base = {"name": "exec_command", "arguments": args, "_meta": meta(),
            "requestState": state, "inputResponses": resp}
    s.send({"jsonrpc": "2.0", "id": "r1", "method": "tools/call", "params": base})
    s.send({"jsonrpc": "2.0", "id": "r2", "method": "tools/call", "params": base})
    a, b = s.wait("r1"), s.wait("r2")
    ok = [m for m in (a, b) if "result" in m]
    refused = [m for m in (a, b) if "error" in m]
    check(len(ok) == 1 and len(refused) == 1, f"exactly one of two identical retries ran: {a} {b}")
    if ok:
        r = ok[0]["result"]
        check(r.get("resultType") == "complete" and not r.get("isError"), f"approved call result {r}")
        check(r.get("structuredContent", {}).get("exit_code") == 0, "the approved command exited 0")
    if refused:
        check("used already" in refused[0]["error"].get("message", ""), f"replay named: {refused[0]}")
    check(runs(ws) == 1, f"the approved command ran exactly once, count {runs(ws)}")

    e = approval_call(s, args, {"requestState": state, "inputResponses": resp}).get("error", {})
    check(e.get("code") == -32602 and "used already" in e.get("message", ""), f"later replay refused: {e}")
    check(runs(ws) == 1, "a replay ran nothing")

    # Deny: a tool error result, nothing runs.
    key, state = first_round_again(s, ws, args)
    res = approval_call(s, args, {"requestState": state, "inputResponses": {key: answer("deny")}})
    r = res.get("result", {})
    check(r.get("resultType") == "complete" and r.get("isError") is True, f"denied: isError result {res}")
    check(runs(ws) == 1, "a denied call ran nothing")

    # A retry without the answer is asked again, not run.
    key, state = first_round_again(s, ws, args)
    again = approval_call(s, args, {"requestState": state}).get("result", {})
    check(again.get("resultType") == "input_required" and key in again.get("inputRequests", {}),
          f"a retry without the answer asks again: {again}")
    check(runs(ws) == 1, "an unanswered retry ran nothing")

    # Without elicitation declared the client cannot be asked: refused.
    res = approval_call(s, args, caps={})
    r = res.get("result", {})
    check(r.get("resultType") == "complete" and r.get("isError") is True,
          f"no elicitation capability: refused, not input_required: {res}")
    check(runs(ws) == 1, "a client that cannot be asked ran nothing")
    s.close()


def first_round_again(s, ws, args):
    res = approval_call(s, args)
    r = res.get("result", {})
    check(r.get("resultType") == "input_required", f"asked again: {res}")
    reqs = r.get("inputRequests", {})
    return (next(iter(reqs)) if reqs else ""), r.get("requestState", "")


def test_expiry(ws):
    cfg = os.path.join(ws, "vtcode.toml")
    with open(cfg, "w") as f:
        f.write("[mcp]\napproval_timeout_seconds = 1\n")
    s = Server(ws, cfg)
    args = {"cmd": "echo run >> count.txt"}
    key, state = first_round(s, ws, args)
    time.sleep(1.5)
    e = approval_call(s, args, {"requestState": state, "inputResponses": {key: answer("approve")}}).get("error", {})
    check(e.get("code") == -32602 and "expired" in e.get("message", ""), f"expired state refused: {e}")
    check(runs(ws) == 0, "an expired state ran nothing")
    s.close()

    # A state from another server process (another key) is refused too.
    s1 = Server(ws, cfg)
    key, state = first_round(s1, ws, args)
    s1.close()
    s2 = Server(ws, cfg)
    e = approval_call(s2, args, {"requestState": state, "inputResponses": {key: answer("approve")}}).get("error", {})
    check(e.get("code") == -32602, f"a state from another process refused: {e}")
    check(runs(ws) == 0, "another process's state ran nothing")
    s2.close()


def test_roots(start):
    """Without --workspace, a request that declares roots is asked for them
    first; the workspace is then the client's root, for this call too."""
    root = tempfile.mkdtemp(prefix="vthost-era-root-")
    try:
        s = Server(start, workspace=False)
        caps = {"roots": {}, "elicitation": {}}
        d = s.request("server/discover", {"_meta": meta(caps)}).get("result", {})
        check(os.path.realpath(start) in d.get("instructions", ""),
              f"before the roots, the instructions name the working directory: {d}")
        args = {"cmd": "pwd; echo run >> count.txt"}
        r = approval_call(s, args, caps=caps).get("result", {})
        reqs = r.get("inputRequests", {})
        check(r.get("resultType") == "input_required" and list(reqs) == ["vthost-roots"],
              f"roots asked first: {r}")
        check(reqs.get("vthost-roots", {}).get("method") == "roots/list", "roots/list")
        check(runs(start) == 0 and runs(root) == 0, "nothing ran before the roots")
        roots = {"vthost-roots": {"roots": [{"uri": "file://" + root, "name": "project"}]}}
        r = approval_call(s, args, {"requestState": r.get("requestState", ""), "inputResponses": roots},
                          caps=caps).get("result", {})
        reqs = r.get("inputRequests", {})
        check(r.get("resultType") == "input_required" and len(reqs) == 1
              and next(iter(reqs)).startswith("vthost-approval-"), f"then the approval: {r}")
        check(runs(start) == 0 and runs(root) == 0, "nothing ran before the approval")
        key = next(iter(reqs), "")
        r = approval_call(s, args, {"requestState": r.get("requestState", ""),
                                    "inputResponses": {key: answer("approve")}}, caps=caps).get("result", {})
        out = r.get("structuredContent", {}).get("output", "")
        check(r.get("resultType") == "complete" and os.path.realpath(root) in out,
              f"the command ran in the client's root: {r}")
        check(runs(root) == 1 and runs(start) == 0, "once, in the root")
        d = s.request("server/discover", {"_meta": meta(caps)}).get("result", {})
        check(os.path.realpath(root) in d.get("instructions", ""), "the instructions name the root")
        s.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_discover_after_roots_declared(start):
    """Without --workspace, a 2025-era initialize that declares roots makes
    the workspace the client's to give: a discover on the same process
    says so, though an earlier one named the working directory."""
    s = Server(start, workspace=False)
    d = s.request("server/discover", {"_meta": meta({})}).get("result", {})
    check(os.path.realpath(start) in d.get("instructions", ""), f"first the working directory: {d}")
    s.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
                             "clientInfo": {"name": "legacy", "version": "1"}})
    d = s.request("server/discover", {"_meta": meta({})}).get("result", {})
    check("the client's first root" in d.get("instructions", ""),
          f"after roots are declared, the root is to come: {d.get('instructions')}")
    s.close()


def test_listen(ws, catalog):
    cfg = os.path.join(ws, "vtcode.toml")
    with open(cfg, "w") as f:
        f.write('[permissions]\nallow = ["search_tools"]\n')
    s = Server(ws, cfg, ["--plugin-dir", catalog] if catalog else [])
    s.send({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen",
            "params": {"_meta": meta({}), "notifications": {"toolsListChanged": True,
                                                            "promptsListChanged": True}}})
    end = time.time() + 10
    ack = None
    while time.time() < end and ack is None:
        m = s.q.get(timeout=10)
        if m and m.get("method") == "notifications/subscriptions/acknowledged":
            ack = m
    check(ack is not None, "subscriptions/listen is acknowledged")
    if ack:
        p = ack["params"]
        check(p.get("_meta", {}).get(SUB) == "sub-1", f"the acknowledgement names the subscription: {p}")
        check(p.get("notifications") == {"toolsListChanged": True},
              f"only what is honoured is acknowledged: {p.get('notifications')}")
    said = s.request("server/discover", {"_meta": meta({})}).get("result", {}).get("instructions", "")
    r = s.request("tools/call", {"name": "search_tools", "arguments": {"query": "GitHub pull request review"},
                                 "_meta": meta({})})
    check(r.get("result", {}).get("resultType") == "complete", f"search_tools ran: {r}")
    listed = [t["name"] for t in s.request("tools/list", {"_meta": meta({})}).get("result", {}).get("tools", [])]
    now = s.request("server/discover", {"_meta": meta({})}).get("result", {}).get("instructions", "")
    found = [n for n in listed if n not in said]
    if catalog:
        check(found and all(n in now for n in found),
              f"discover names the tools the search listed ({found}) after it: {now}")
    changed = [n for n in s.notes if n.get("method") == "notifications/tools/list_changed"]
    if catalog:
        check(changed and changed[0].get("params", {}).get("_meta", {}).get(SUB) == "sub-1",
              f"list_changed on the subscription, before the result: {s.notes}")
    check(all(n.get("params", {}).get("_meta", {}).get(SUB) == "sub-1" for n in changed),
          "no untagged list_changed to a 2026-07-28 client")
    s.notes.clear()
    s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "sub-1"}})
    r = s.request("tools/call", {"name": "search_tools", "arguments": {"query": "GitHub review comments"},
                                 "_meta": meta({})})
    check(not [n for n in s.notes if n.get("method") == "notifications/tools/list_changed"],
          "a cancelled subscription hears nothing more")
    s.close()


def main():
    if not BIN or not os.access(BIN, os.X_OK):
        print(f"usage: raw_era.py VTHOST_BIN (got {BIN!r})", file=sys.stderr)
        return 1
    tests = [("discover and versions", test_discover_and_versions), ("approvals", test_approvals),
             ("expiry", test_expiry), ("roots", test_roots),
             ("discover after roots declared", test_discover_after_roots_declared)]
    for name, fn in tests:
        ws = tempfile.mkdtemp(prefix="vthost-era-")
        try:
            print(f"-- {name}")
            fn(ws)
        except Exception as e:  # the checks so far stand; this one failed
            check(False, f"{name}: {type(e).__name__}: {e}")
        finally:
            shutil.rmtree(ws, ignore_errors=True)
    ws = tempfile.mkdtemp(prefix="vthost-era-")
    try:
        print("-- subscriptions/listen")
        test_listen(ws, os.environ.get("VTHOST_CATALOG_DIR", ""))
    except Exception as e:
        check(False, f"listen: {type(e).__name__}: {e}")
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
