#!/usr/bin/env python3
"""requestState across a restart of `vthost serve` (raw JSON-RPC, stdio).

A state is good only in the process that issued it.  After a restart on
the same workspace and data directories, a retry with a state from
before is refused (-32602) with a message saying the server restarted
and to call again without requestState; calling again asks anew, and
that answer runs the command exactly once.  A state already used before
the restart, replayed after it, is refused and runs nothing.  Each check
looks at the workspace afterwards (count.txt: one line per run).

Usage: restart_state.py VTHOST_BIN
"""
import os
import shutil
import sys
import tempfile

from raw_era import BIN, Server, answer, approval_call, check, failures, first_round, runs


def restart_refused(e, what):
    msg = e.get("message", "")
    check(e.get("code") == -32602, f"{what}: -32602, got {e}")
    check("restarted" in msg, f"{what}: the message says the server restarted: {msg!r}")
    check("without requestState" in msg, f"{what}: the message says to call again: {msg!r}")


def test_restart(ws):
    args = {"cmd": "echo run >> count.txt"}
    # A state issued, the server restarted, the retry refused saying so.
    s = Server(ws)
    key, state = first_round(s, ws, args)
    s.close()
    s = Server(ws)
    e = approval_call(s, args, {"requestState": state, "inputResponses": {key: answer("approve")}}).get("error", {})
    restart_refused(e, "a state from before the restart")
    check(runs(ws) == 0, "a state from before the restart ran nothing")
    # Called again, as the message says: asked anew, runs once.
    key2, state2 = first_round(s, ws, args)
    r = approval_call(s, args, {"requestState": state2, "inputResponses": {key2: answer("approve")}})
    check(r.get("result", {}).get("resultType") == "complete", f"asked anew and approved: {r}")
    check(runs(ws) == 1, f"the approved call ran once, count {runs(ws)}")
    s.close()

    # A used state replayed after a restart is refused: it runs nothing.
    s = Server(ws)
    e = approval_call(s, args, {"requestState": state2, "inputResponses": {key2: answer("approve")}}).get("error", {})
    restart_refused(e, "a used state replayed after the restart")
    check(runs(ws) == 1, f"the replay ran nothing, count {runs(ws)}")
    err = s.close()
    check("Sanitizer" not in err, err[:2000])


def main():
    if not BIN or not os.access(BIN, os.X_OK):
        print(f"usage: restart_state.py VTHOST_BIN (got {BIN!r})", file=sys.stderr)
        return 1
    ws = tempfile.mkdtemp(prefix="vthost-restart-")
    try:
        test_restart(ws)
    except Exception as e:
        check(False, f"restart: {type(e).__name__}: {e}")
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
