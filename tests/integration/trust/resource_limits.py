#!/usr/bin/env python3
"""Sandboxed commands have bounded memory and file size.

With [sandbox] max_memory_mb = 256 and max_file_size_mb = 1 a command
allocating 512 MiB fails and one writing 2 MiB leaves at most 1 MiB; work
under the limits still succeeds.  The defaults are in force without a
configuration; an untrusted workspace can lower a limit, never lift it.

Usage: resource_limits.py VTHOST   (exit 77 without Landlock)
"""
import json
import os
import shutil
import subprocess
import sys

from trustlib import check, finish, scratch


VTHOST = sys.argv[1]
root, ws, home, ENV = scratch("vthost-limits-")



def run(cmd, *args):
    r = subprocess.run([VTHOST, "--workspace", ws, *args, "--yes", "call", "exec_command",
                        json.dumps({"cmd": cmd})], capture_output=True, text=True, env=ENV,
                       cwd=ws, timeout=300)
    try:
        return json.loads(r.stdout), r
    except json.JSONDecodeError:
        return {}, r


def limits(*args):
    res, r = run("cat /proc/self/limits", *args)
    out = {}
    for line in res.get("output", "").splitlines():
        for name in ("Max data size", "Max file size"):
            if line.startswith(name):
                out[name] = line[len(name):].split()[0]
    return out, res, r


res, r = run("true")
if res.get("sandbox") not in ("workspace-write", "read-only"):
    print(f"SKIP: no sandbox here: {r.stdout} {r.stderr}"[:1000])
    shutil.rmtree(root, ignore_errors=True)
    sys.exit(77)

sanitized = b"libasan" in subprocess.run(["readelf", "-d", VTHOST], capture_output=True).stdout \
    or b"__asan_init" in open(VTHOST, "rb").read()

# ---- the defaults ---------------------------------------------------------
lim, res, r = limits()
check("default: file size bounded at 4096 MiB", lim.get("Max file size") == str(4096 << 20),
      res.get("output", "") + r.stderr)
if sanitized:
    check("default: no data limit in a sanitizer build", lim.get("Max data size") == "unlimited",
          res.get("output", ""))
else:
    check("default: data memory bounded at 8192 MiB", lim.get("Max data size") == str(8192 << 20),
          res.get("output", "") + r.stderr)

# ---- configured limits (a trusted --config) -------------------------------
cfg = os.path.join(root, "limits.toml")
with open(cfg, "w") as f:
    f.write("[sandbox]\nmax_memory_mb = 256\nmax_file_size_mb = 1\n")
res, r = run("python3 -c 'b = bytearray(512 << 20); print(\"allocated\")'", "--config", cfg)
check("memory: allocating 512 MiB past 256 fails", res.get("exit_code") not in (0, None) and
      "allocated" not in res.get("output", ""), json.dumps(res) + r.stderr)
check("memory: it fails as out of memory", "MemoryError" in res.get("output", ""), json.dumps(res))
res, r = run("python3 -c 'b = bytearray(64 << 20); print(\"allocated\")'", "--config", cfg)
check("memory: 64 MiB under the limit works", res.get("exit_code") == 0 and
      "allocated" in res.get("output", ""), json.dumps(res) + r.stderr)
res, r = run("head -c 2097152 /dev/zero > big.bin", "--config", cfg)
size = os.path.getsize(os.path.join(ws, "big.bin")) if os.path.exists(os.path.join(ws, "big.bin")) else 0
check("file size: writing 2 MiB past 1 fails", res.get("exit_code") not in (0, None), json.dumps(res))
check("file size: the file stops at 1 MiB", size <= 1 << 20, size)
res, r = run("head -c 524288 /dev/zero > small.bin", "--config", cfg)
check("file size: 512 KiB under the limit works", res.get("exit_code") == 0 and
      os.path.getsize(os.path.join(ws, "small.bin")) == 524288, json.dumps(res))
with open(cfg, "w") as f:
    f.write("[sandbox]\nmax_memory_mb = -1\n")
res, r = run("true", "--config", cfg)
check("a wrong value: refused, naming the key", r.returncode != 0 and
      "sandbox.max_memory_mb" in r.stdout + r.stderr, r.stdout + r.stderr)

# ---- an untrusted workspace -----------------------------------------------
with open(os.path.join(ws, "vtcode.toml"), "w") as f:
    f.write("[sandbox]\nmax_memory_mb = 0\nmax_file_size_mb = 0\n")
lim, res, r = limits()
check("untrusted: 0 (no limit) does not lift the file size bound",
      lim.get("Max file size") == str(4096 << 20), res.get("output", "") + r.stderr)
with open(os.path.join(ws, "vtcode.toml"), "w") as f:
    f.write("[sandbox]\nmax_memory_mb = 128\nmax_file_size_mb = 2\n")
lim, res, r = limits()
check("untrusted: a smaller file size bound applies", lim.get("Max file size") == str(2 << 20),
      res.get("output", "") + r.stderr)
check("untrusted: a smaller memory bound applies", lim.get("Max data size") == str(128 << 20),
      res.get("output", "") + r.stderr)

finish("resource limit", root)
