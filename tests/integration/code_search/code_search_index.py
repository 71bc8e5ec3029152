#!/usr/bin/env python3
"""code_search's content index must never change a result.

Every case edits the workspace after the index was made (or damages the
index file itself) and then compares the search's results with the same
search run with the index off (VTHOST_CODE_SEARCH_INDEX=off): they must be
byte for byte the same, and the edited file must be found.

Usage: code_search_index.py VTHOST
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

VTHOST = sys.argv[1]
FAILS = []
# The index leaves out files whose times are within 2 s of the search.
SETTLE = 3.2
# The index file's header: magic, total, checksum, entries, root length,
# string bytes, bitmap words, the writer's build.
HEADER = 56


def call(ws, env, args, index=True):
    e = dict(env)
    e["VTHOST_CODE_SEARCH_INDEX"] = "on" if index else "off"
    p = subprocess.run(
        [VTHOST, "--workspace", ws, "--profile", "advanced", "call", "code_search",
         json.dumps(args)], env=e, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise SystemExit(f"vthost failed ({p.returncode}): {p.stderr[:400]}")
    return p.stdout


def paths(out):
    return sorted({r["path"] for r in json.loads(out)["results"]})


def same(name, ws, env, args, want=None):
    """The search with the index equals the search without; want: the
    paths that must be among the results."""
    on, off = call(ws, env, args, True), call(ws, env, args, False)
    ok = on == off and all(p in paths(on) for p in (want or []))
    print(("ok: " if ok else "FAIL: ") + name)
    if not ok:
        print("  with index:   ", paths(on))
        print("  without index:", paths(off))
        FAILS.append(name)
    return on


def index_file(cache):
    d = os.path.join(cache, "vthost")
    names = [n for n in os.listdir(d) if n.startswith("code_search-") and n.endswith(".idx")]
    assert len(names) == 1, names
    return os.path.join(d, names[0])


def checksum(data):
    """cs_index_checksum: four lanes of 64-bit words."""
    m, lanes, n, i = (1 << 64) - 1, [1, 2, 3, 4], len(data), 0

    def mix(l, w):
        l = ((l ^ w) * 0x9E3779B97F4A7C15) & m
        return l ^ (l >> 29)
    while i + 32 <= n:
        for k in range(4):
            lanes[k] = mix(lanes[k], struct.unpack_from("<Q", data, i + 8 * k)[0])
        i += 32
    while i + 8 <= n:
        lanes[0] = mix(lanes[0], struct.unpack_from("<Q", data, i)[0])
        i += 8
    return (lanes[0] ^ (lanes[1] * 3) ^ (lanes[2] * 5) ^ (lanes[3] * 7) ^ n) & m


def forge_empty(path):
    """Rewrite the index so that it claims no file holds any trigram,
    with a valid checksum: what anyone who can write the cache can do."""
    data = bytearray(open(path, "rb").read())
    total, _s, nent, rootlen, strbytes, words = struct.unpack_from("<QQIIQQ", data, 8)
    assert total == len(data)
    start = len(data) - words * 8
    data[start:] = bytes(words * 8)
    struct.pack_into("<Q", data, 16, checksum(bytes(data[HEADER:])))
    tmp = path + ".forge"
    open(tmp, "wb").write(data)
    os.rename(tmp, path)


def forge_no_names(path, build_flip):
    """Rewrite the index so that every file declares nothing, with a valid
    checksum, and its build field changed by build_flip: what an index
    written by a build with other declaration rules may say."""
    data = bytearray(open(path, "rb").read())
    _t, _s, nent, rootlen, _sb, words, build = struct.unpack_from("<QQIIQQQ", data, 8)
    recs = HEADER + (rootlen + 7) // 8 * 8
    start = len(data) - words * 8
    for i in range(nent):
        dlog2, _z, doff = struct.unpack_from("<IIQ", data, recs + 96 * i + 80)
        if dlog2:
            at = start + doff * 8
            data[at:at + (1 << dlog2) // 8] = bytes((1 << dlog2) // 8)
    struct.pack_into("<Q", data, 48, build ^ build_flip)
    struct.pack_into("<Q", data, 16, checksum(bytes(data[HEADER:])))
    tmp = path + ".forge"
    open(tmp, "wb").write(data)
    os.rename(tmp, path)


def write(ws, rel, text):
    p = os.path.join(ws, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def setup(ws):
    for i in range(40):
        write(ws, f"src/f{i:02}.c", f"int plain_{i};\nstatic int other_{i} = {i};\n")
    write(ws, "src/same.c", "int xxxxxxxxxxx;\n")
    write(ws, "src/ren.c", "int yyyyyyyyyyy;\n")
    write(ws, "src/gone.c", "int needle_word;\n")
    write(ws, "src/locked.c", "int zzzzzzzzzzz;\n")
    write(ws, "dirA/x.c", "int qqqqqqqqqqq;\n")
    write(ws, "dirB/x.c", "int needle_word;\n")
    write(ws, "bin/blob.dat", "needle_word\0binary\n")
    # A word used before it is declared, in path order: once the first
    # files hold max_results usages, only definitions can still be
    # returned, and files that declare no such name are left out.
    for i in range(6):
        write(ws, f"src/a_use{i}.c", f"void u{i}(void) {{ common_w(); common_w(); }}\n")
    write(ws, "src/z_decl.c", "int COMMON_W;\n")
    write(ws, "src/z_late.c", LATE_USE)
    write(ws, "src/z_moved.c", "int common_w;\n")
    old = time.time() - 3600
    for d, _dirs, files in os.walk(ws):
        for f in files:
            os.utime(os.path.join(d, f), (old, old))


LATE_USE = "void g(void) { common_w(); }\n"
LATE_DECL = "int common_w; /* a declaration */\n"[: len(LATE_USE) - 1] + "\n"

QUERIES = [
    {"query": "needle_word"},
    {"query": "needle_word", "result_types": ["text"]},
    {"query": "NEEDLE_WORD"},
    {"query": "Needle_word"},
    {"query": "ne"},
    {"query": "n"},
    {"query": "x.c"},
    {"query": "dirA/x"},
    {"query": "naïve_word"},
    {"query": "NAÏVE_WORD"},
    {"query": "plain_3"},
    {"query": "needle_word", "result_types": ["definition"]},
    {"query": "common_w", "max_results": 2},
    {"query": "COMMON_W", "max_results": 2},
    {"query": "common_w", "result_types": ["definition", "usage"], "max_results": 2},
    {"query": "common_w", "result_types": ["definition"]},
    {"query": "common", "result_types": ["definition"]},
]


def all_queries(name, ws, env):
    for q in QUERIES:
        same(f"{name}: {json.dumps(q, ensure_ascii=False)}", ws, env, q)


def edits(ws, env, cache):
    # The same size, within the same second, the old times put back: only
    # ctime tells.
    p = os.path.join(ws, "src/same.c")
    st = os.stat(p)
    with open(p, "r+") as f:
        f.write("int needle_word;\n")
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(p).st_size == st.st_size
    same("same-size edit, times put back", ws, env, {"query": "needle_word"}, ["src/same.c"])
    # A use turned into a declaration, the same way: the names recorded
    # for the file no longer hold.
    p = os.path.join(ws, "src/z_late.c")
    st = os.stat(p)
    assert len(LATE_DECL) == len(LATE_USE)
    with open(p, "r+") as f:
        f.write(LATE_DECL)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    # Definitions alone first: such a search always leaves files out by
    # their names, and the first search that reads the edited file drops
    # its entry (its ctime is too new to enter).
    for q in ({"query": "common_w", "result_types": ["definition"]},
              {"query": "common_w", "max_results": 2}):
        same(f"declaration by a same-size edit, times put back: {json.dumps(q)}", ws, env, q,
             ["src/z_late.c"])
    # A declaring file renamed over one that declares nothing.
    os.rename(os.path.join(ws, "src/z_moved.c"), os.path.join(ws, "src/a_use5.c"))
    same("declaring file renamed over a using one", ws, env,
         {"query": "common_w", "result_types": ["definition"]}, ["src/a_use5.c"])
    # Replaced by rename, with the old size and times.
    p = os.path.join(ws, "src/ren.c")
    st = os.stat(p)
    write(ws, "src/ren.new", "int needle_word;\n")
    os.utime(os.path.join(ws, "src/ren.new"), ns=(st.st_atime_ns, st.st_mtime_ns))
    os.rename(os.path.join(ws, "src/ren.new"), p)
    same("replaced by rename", ws, env, {"query": "needle_word"}, ["src/ren.c"])
    write(ws, "src/new.c", "int needle_word;\n")
    same("new file", ws, env, {"query": "needle_word"}, ["src/new.c"])
    os.unlink(os.path.join(ws, "src/gone.c"))
    out = same("deleted file", ws, env, {"query": "needle_word"})
    if "src/gone.c" in paths(out):
        FAILS.append("deleted file still found")
    p = os.path.join(ws, "src/locked.c")
    with open(p, "w") as f:
        f.write("int needle_word;\n")
    os.chmod(p, 0)
    same("unreadable file", ws, env, {"query": "needle_word"})
    os.chmod(p, 0o644)
    # Swap two directories: dirA/x.c is now the other file, whose size
    # and times equal those recorded for dirA/x.c.
    os.rename(os.path.join(ws, "dirA"), os.path.join(ws, "dirT"))
    os.rename(os.path.join(ws, "dirB"), os.path.join(ws, "dirA"))
    os.rename(os.path.join(ws, "dirT"), os.path.join(ws, "dirB"))
    same("directories swapped", ws, env, {"query": "needle_word"}, ["dirA/x.c"])
    all_queries("after the edits", ws, env)


def damaged(ws, env, cache):
    path = index_file(cache)
    good = open(path, "rb").read()
    words = struct.unpack_from("<Q", good, 40)[0]
    cases = {
        "truncated": good[: len(good) // 2],
        "empty": b"",
        "a flipped byte": good[:-9] + bytes([good[-9] ^ 0x40]) + good[-8:],
        "bitmaps zeroed, checksum not": good[: len(good) - words * 8] + bytes(words * 8),
        "foreign format": b"NOTANIDX" + good[8:],
        "another build": good[:48] + bytes([good[48] ^ 1]) + good[49:],
        "another root": good[:HEADER] + b"X" + good[HEADER + 1:],
        "header only": good[:HEADER],
    }
    for name, data in cases.items():
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, 0o600)
        same(f"index {name}", ws, env, {"query": "needle_word"})
        same(f"index {name}, text", ws, env, {"query": "plain_3", "result_types": ["text"]})
        with open(path, "wb") as f:
            f.write(good)
    # An index of another build whose rules found no declarations: not
    # used, so no definition is hidden.
    forge_no_names(path, 1)
    same("index of another build that declares nothing", ws, env,
         {"query": "needle_word", "result_types": ["definition"]}, ["dirA/x.c"])
    with open(path, "wb") as f:
        f.write(good)


def forged(ws, env, cache):
    # A forged index hides what it vouches for only while a file's
    # identity is unchanged: an edit after the forgery is always found.
    call(ws, env, {"query": "needle_word"})
    forge_empty(index_file(cache))
    hidden = paths(call(ws, env, {"query": "needle_word"}))
    print(f"note: a forged index in the cache hides unchanged files: {hidden} found")
    write(ws, "src/f07.c", "int plain_7;\nint needle_word;\n")
    out = call(ws, env, {"query": "needle_word"})
    ok = "src/f07.c" in paths(out)
    print(("ok: " if ok else "FAIL: ") + "forged index: a file edited since is found")
    if not ok:
        FAILS.append("forged index hid an edited file")


def sandboxed_cannot_forge(ws, env, cache):
    """A command run in the sandbox cannot write the index: the cache
    directory is among the host's own data that the sandbox masks."""
    path = index_file(cache)
    before = open(path, "rb").read()
    cmd = f"printf forged > '{path}'; cp /dev/null '{path}'; mv '{path}' '{path}.x'; true"
    p = subprocess.run([VTHOST, "--workspace", ws, "--approval", "sandboxed", "call",
                        "exec_command", json.dumps({"cmd": cmd})],
                       env=env, capture_output=True, text=True, timeout=120)
    try:
        mode = json.loads(p.stdout).get("sandbox")
    except ValueError:
        mode = None
    if mode not in ("workspace-write", "read-only"):
        print(f"skip: commands do not run in a sandbox here ({mode}): {p.stdout[:200]}")
        return
    ok = os.path.exists(path) and open(path, "rb").read() == before and \
        not os.path.exists(path + ".x")
    print(("ok: " if ok else "FAIL: ") + "a sandboxed command cannot write the index")
    if not ok:
        print("  ", p.stdout[:400], p.stderr[:400])
        FAILS.append("sandboxed command wrote the index")


def concurrent(ws, env, cache):
    os.unlink(index_file(cache))
    time.sleep(SETTLE)
    args = json.dumps({"query": "needle_word"})
    for rnd in range(3):
        e = dict(env, VTHOST_CODE_SEARCH_INDEX="on")
        procs = [subprocess.Popen([VTHOST, "--workspace", ws, "--profile", "advanced", "call",
                                   "code_search", args], env=e, stdout=subprocess.PIPE, text=True)
                 for _ in range(4)]
        outs = [p.communicate(timeout=120)[0] for p in procs]
        off = call(ws, env, {"query": "needle_word"}, False)
        ok = all(o == off for o in outs)
        print(("ok: " if ok else "FAIL: ") + f"four concurrent searches, round {rnd}")
        if not ok:
            FAILS.append("concurrent")
    all_queries("after concurrent writers", ws, env)


def main():
    top = tempfile.mkdtemp(prefix="cs_index_")
    try:
        ws, cache = os.path.join(top, "ws"), os.path.join(top, "cache")
        os.makedirs(ws)
        env = dict(os.environ, XDG_CACHE_HOME=cache, XDG_STATE_HOME=os.path.join(top, "state"))
        setup(ws)
        time.sleep(SETTLE)
        all_queries("first (index made)", ws, env)
        all_queries("second (index used)", ws, env)
        edits(ws, env, cache)
        time.sleep(SETTLE)
        call(ws, env, {"query": "needle_word"})  # the edits entered
        damaged(ws, env, cache)
        sandboxed_cannot_forge(ws, env, cache)
        forged(ws, env, cache)
        concurrent(ws, env, cache)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    if FAILS:
        print(f"{len(FAILS)} failed")
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
