"""code_search while the files it reads change under it: a big file that
is rewritten and truncated over and over must never bring the server down
(a mapped file cut short raises SIGBUS), a big file is still searched, and
a sparse file of a gigabyte is skipped without reading it.

Usage: code_search_truncate.py VTHOST"""
import os, shutil, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_client import Server  # noqa: E402

BIN = sys.argv[1]
CALLS = 80


def churn(path, data, stop):
    """Rewrite and cut the file as fast as possible until told to stop."""
    while not stop.is_set():
        with open(path, "wb") as f:
            f.write(data)
        os.truncate(path, 0)


def main():
    ws = tempfile.mkdtemp(prefix="vt_cs_trunc_")
    line = b"int churn_value = 1; /* some padding to make the line long */\n"
    data = (line * ((48 << 20) // len(line) + 1))[: 48 << 20]
    with open(os.path.join(ws, "steady.c"), "wb") as f:
        f.write((line * ((12 << 20) // len(line)))[:-len(line)] + b"int needle_at_end = 2;\n")
    with open(os.path.join(ws, "sparse.bin"), "wb") as f:
        f.truncate(1 << 30)
    srv = Server(BIN, ws, ["--profile", "advanced"])
    stop = threading.Event()
    t = threading.Thread(target=churn, args=(os.path.join(ws, "churn.c"), data, stop))
    t.start()
    try:
        start = time.monotonic()
        for i in range(CALLS):
            r = srv.call("code_search", {"query": "zzzq_absent", "result_types": ["text"]})
            if r.get("returned") != 0:
                raise SystemExit(f"FAIL: call {i}: unexpected result {r}")
        print(f"ok: {CALLS} searches while a 48 MiB file was cut short, "
              f"{time.monotonic() - start:.1f} s")
    finally:
        stop.set()
        t.join()
    if srv.p.poll() is not None:
        raise SystemExit(f"FAIL: the server exited with {srv.p.returncode}")
    r = srv.call("code_search", {"query": "needle_at_end", "result_types": ["text"]})
    paths = [h.get("path") for h in r.get("results", [])]
    if paths != ["steady.c"]:
        raise SystemExit(f"FAIL: the end of a 12 MiB file was not searched: {r}")
    print("ok: the end of a 12 MiB file is found")
    srv.close()
    shutil.rmtree(ws)
    print("PASS")


main()
