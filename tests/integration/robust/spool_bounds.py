#!/usr/bin/env python3
"""The output spool's bounds and path safety, through `vthost call`:
per-call cap (spool_truncated, the preview's end is the real end),
directory cap (oldest finished files deleted), age cleanup at start,
symbolic links on the spool path refused (a marker directory outside
must stay untouched), a failed spool write (disk full, simulated with
RLIMIT_FSIZE on the host process: a tmpfs mount would need root) keeping
the real head and end in the preview, and `vthost spool list|clean`
(files in use are kept).

usage: spool_bounds.py VTHOST_BIN"""
import fcntl, json, os, resource, shutil, signal, subprocess, sys, tempfile, time
from mcp_client import trusted_config


BIN = sys.argv[1]
SPOOL = ".vtcode/context/tool_outputs"
fails = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)


def workspace(extra=""):
    ws = tempfile.mkdtemp(prefix="vthost-spool-")
    with open(os.path.join(ws, "vtcode.toml"), "w") as f:
        f.write('[permissions]\nallow = ["exec_command"]\n' + extra)
    return ws


def call(ws, args, preexec=None):
    p = subprocess.run([BIN, "--workspace", ws, *trusted_config(ws), "call", "exec_command", json.dumps(args)],
                       capture_output=True, text=True, preexec_fn=preexec, timeout=120)
    try:
        return json.loads(p.stdout)
    except ValueError:
        raise SystemExit(f"FAIL: no JSON from vthost call (exit {p.returncode}): {p.stderr[-2000:]}")


def spool_files(ws):
    d = os.path.join(ws, SPOOL)
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def spool_size(ws):
    d = os.path.join(ws, SPOOL)
    return sum(os.path.getsize(os.path.join(d, f)) for f in spool_files(ws))


# ---- per-call cap ----
ws = workspace("[tools.spool]\nmax_call_mib = 1\n")
r = call(ws, {"cmd": "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo THE-END",
              "max_output_tokens": 100, "yield_time_ms": 30000})
check(r.get("spool_truncated") is True, "per-call cap: spool_truncated")
path = os.path.join(ws, r.get("spool_path", "-"))
check(os.path.isfile(path) and os.path.getsize(path) == 1024 * 1024,
      f"per-call cap: the file stops at 1 MiB ({os.path.getsize(path) if os.path.isfile(path) else None})")
check(r.get("output", "").rstrip().endswith("THE-END"), "per-call cap: the preview ends with the real end")
check(r.get("exit_code") == 0, "per-call cap: the command ran to its end")
shutil.rmtree(ws)

# ---- directory cap ----
ws = workspace("[tools.spool]\nmax_dir_mib = 2\n")
names = []
for i in range(5):
    r = call(ws, {"cmd": f"head -c 900000 /dev/zero | tr '\\0' {i}", "max_output_tokens": 100})
    names.append(os.path.basename(r.get("spool_path", "")))
    time.sleep(0.05)
left = spool_files(ws)
check(spool_size(ws) <= 2 * 1024 * 1024, f"directory cap: {spool_size(ws)} bytes left (cap 2 MiB)")
check(names[-1] in left and names[-2] in left and names[0] not in left,
      "directory cap: the oldest files went, the newest stayed")
shutil.rmtree(ws)

# ---- age cleanup at start ----
ws = workspace("[tools.spool]\nmax_age_days = 2\n")
os.makedirs(os.path.join(ws, SPOOL))
old, new = os.path.join(ws, SPOOL, "old.txt"), os.path.join(ws, SPOOL, "new.txt")
for f in (old, new):
    open(f, "w").write("x")
t = time.time() - 3 * 86400
os.utime(old, (t, t))
# the spool views of `serve --http` sessions (c-ID/): their old files go
# too, an empty view unchanged for as long goes, a link is never followed
view = os.path.join(ws, SPOOL, "c-0123456789abcdef")
empty = os.path.join(ws, SPOOL, "c-00000000000000aa")
os.makedirs(view)
os.makedirs(empty)
vold, vnew = os.path.join(view, "old.txt"), os.path.join(view, "new.txt")
for f in (vold, vnew):
    open(f, "w").write("x")
outside = tempfile.mkdtemp(prefix="vthost-outside-")
oold = os.path.join(outside, "old.txt")
open(oold, "w").write("x")
os.symlink(outside, os.path.join(ws, SPOOL, "c-00000000000000bb"))
for f in (vold, oold, empty):
    os.utime(f, (t, t))
call(ws, {"cmd": "true"})
check(not os.path.exists(old) and os.path.exists(new), "age cleanup: a 3-day-old file deleted at start, a new one kept")
check(not os.path.exists(vold) and os.path.exists(vnew), "age cleanup: the same in a session's spool view")
check(not os.path.exists(empty), "age cleanup: an empty view unchanged for 3 days removed")
check(os.path.exists(oold), "age cleanup: a view that is a link is not followed")
shutil.rmtree(ws)
shutil.rmtree(outside)

# ---- symbolic links on the spool path ----
for link in [".vtcode", ".vtcode/context", SPOOL]:
    ws = workspace()
    outside = tempfile.mkdtemp(prefix="vthost-outside-")
    marker = os.path.join(outside, "marker")
    open(marker, "w").write("untouched")
    # the link points at a look-alike tree outside the workspace
    os.makedirs(os.path.join(outside, "context", "tool_outputs"))
    if "/" in link:
        os.makedirs(os.path.join(ws, os.path.dirname(link)))
    target = {".vtcode": outside, ".vtcode/context": os.path.join(outside, "context"),
              SPOOL: os.path.join(outside, "context", "tool_outputs")}[link]
    os.symlink(target, os.path.join(ws, link))
    before = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(outside) for f in fs)
    r = call(ws, {"cmd": "seq 1 100000", "max_output_tokens": 100})
    after = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(outside) for f in fs)
    warn = " ".join(r.get("warnings", []))
    check("spool_path" not in r and "symbolic link" in warn,
          f"symlinked {link}: no spool_path, a warning says why ({warn[:80]})")
    check(before == after and open(marker).read() == "untouched",
          f"symlinked {link}: nothing written outside the workspace")
    check(r.get("output", "").startswith("1\n2\n") and r.get("output", "").rstrip().endswith("100000"),
          f"symlinked {link}: the preview keeps the real head and end")
    shutil.rmtree(ws)
    shutil.rmtree(outside)


# ---- a failed spool write (file size limit on the host) ----
def fsize_limit():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024))


ws = workspace()
r = call(ws, {"cmd": "seq 1 300000", "max_output_tokens": 200}, preexec=fsize_limit)
out = r.get("output", "")
check(r.get("spool_incomplete") is True, "disk full: spool_incomplete")
check(out.startswith("1\n2\n3\n") and out.rstrip().endswith("299999\n300000"),
      "disk full: the preview keeps the real head and the real end")
check(any("spool" in w for w in r.get("warnings", [])), "disk full: a warning says the spool is incomplete")
check(r.get("exit_code") == 0, "disk full: the command ran to its end")

# ---- vthost spool list|clean ----
for i in range(3):
    call(ws, {"cmd": "seq 1 100000", "max_output_tokens": 10})
files = spool_files(ws)
held = open(os.path.join(ws, SPOOL, files[0]))
fcntl.flock(held, fcntl.LOCK_SH)  # as a running call's writer holds it
p = subprocess.run([BIN, "--workspace", ws, *trusted_config(ws), "spool", "list"], capture_output=True, text=True)
check(p.returncode == 0 and all(f in p.stdout for f in files) and "(in use)" in p.stdout,
      "spool list: every file, the one in use marked")
p = subprocess.run([BIN, "--workspace", ws, *trusted_config(ws), "spool", "clean"], capture_output=True, text=True)
check(p.returncode == 0 and spool_files(ws) == [files[0]], f"spool clean: all but the file in use deleted ({p.stdout.strip()})")
held.close()
p = subprocess.run([BIN, "--workspace", ws, *trusted_config(ws), "spool", "clean"], capture_output=True, text=True)
check(spool_files(ws) == [], "spool clean: the file once released")
shutil.rmtree(ws)

sys.exit(1 if fails else 0)
