#!/usr/bin/env python3
"""npm and pip inside the sandbox install from a registry stand-in that
they reach by name through the filtering proxy, and nothing else.

The stand-in on 127.0.0.2 serves an npm packument and tarball for
tiny-pkg and a simple index with a wheel for tinypkg; the proxy's test
hook maps reg.test to it.  The sandbox has no DNS and no route out: the
tools get there only through the proxy variables vthost sets.

Usage: netproxy_registries.py VTHOST
"""
import base64
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import zipfile

from np_common import Handler, Workspace, failures, hit, ok, require_landlock, serve

V = sys.argv[1]
require_landlock()
if not shutil.which("npm") or not shutil.which("pip3"):
    print("SKIP: npm or pip3 is missing")
    sys.exit(77)

port = serve()
T = os.getpid()  # this run's scratch names under the sandbox's /tmp
base = f"http://reg.test:{port}"


def tarball():
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, text in [("package/package.json",
                            json.dumps({"name": "tiny-pkg", "version": "1.0.0", "main": "index.js"})),
                           ("package/index.js", "module.exports = 'tiny-pkg from the stand-in';\n")]:
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


tgz = tarball()
integrity = "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()
packument = {"name": "tiny-pkg", "dist-tags": {"latest": "1.0.0"},
             "versions": {"1.0.0": {"name": "tiny-pkg", "version": "1.0.0",
                                    "dist": {"tarball": f"{base}/tiny-pkg/-/tiny-pkg-1.0.0.tgz",
                                             "shasum": hashlib.sha1(tgz).hexdigest(),
                                             "integrity": integrity}}}}
Handler.files["/tiny-pkg"] = ("application/json", json.dumps(packument).encode())
Handler.files["/tiny-pkg/-/tiny-pkg-1.0.0.tgz"] = ("application/octet-stream", tgz)

whl_buf = io.BytesIO()
with zipfile.ZipFile(whl_buf, "w") as z:
    z.writestr("tinypkg/__init__.py", "VALUE = 'tinypkg from the stand-in'\n")
    z.writestr("tinypkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n")
    z.writestr("tinypkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\n"
               "Root-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("tinypkg-1.0.dist-info/RECORD", "")
whl = whl_buf.getvalue()
wname = "tinypkg-1.0-py3-none-any.whl"
Handler.files["/simple/tinypkg/"] = (
    "text/html", f'<html><body><a href="/files/{wname}#sha256={hashlib.sha256(whl).hexdigest()}">'
                 f'{wname}</a></body></html>'.encode())
Handler.files[f"/files/{wname}"] = ("application/octet-stream", whl)

ws = Workspace(V, 'allowed_domains = ["reg.test", "localhost"]', ["reg.test", "registry.npmjs.org",
                                                                  "pypi.org"])
os.makedirs(os.path.join(ws.ws, "app"))
r = ws.call(f"cd app && npm_config_cache=/tmp/np-npm-cache-{T} npm install tiny-pkg "
            f"--registry {base}/ --no-audit --no-fund --loglevel=error --fetch-retries=0 "
            "--fetch-timeout=15000 2>&1; "
            "node -e \"console.log(require('tiny-pkg'))\"; "
            f"npm_config_cache=/tmp/np-npm-cache-{T} npm view tiny-pkg version --fetch-retries=0 "
            "--fetch-timeout=15000 2>&1 | tail -2")
out = r.get("output", "")
ok("npm install reaches the registry stand-in by name",
   "tiny-pkg from the stand-in" in out and hit("/tiny-pkg/-/tiny-pkg-1.0.0.tgz"), out)
ok("npm's default registry is refused by the proxy",
   any(x.startswith("network: refused registry.npmjs.org") for x in
       r.get("network", {}).get("refused", [])), str(r.get("network")) + out)

r = ws.call(f"pip3 download --no-deps --no-cache-dir --disable-pip-version-check "
            f"--retries 0 --timeout 10 --index-url {base}/simple/ --trusted-host reg.test "
            f"-d /tmp/np-pip-{T} tinypkg 2>&1 "
            f"| tail -3; ls /tmp/np-pip-{T}; "
            "pip3 download --no-deps --no-cache-dir --disable-pip-version-check "
            f"--retries 0 --timeout 5 -d /tmp/np-pip2-{T} tinypkg 2>&1 | tail -1")
out = r.get("output", "")
ok("pip download reaches the simple-index stand-in by name",
   wname in out and hit(f"/files/{wname}"), out)
ok("pip's default index is refused by the proxy",
   any(x.startswith("network: refused pypi.org") for x in r.get("network", {}).get("refused", [])),
   str(r.get("network")) + out)

for d in (f"/tmp/np-npm-cache-{T}", f"/tmp/np-pip-{T}", f"/tmp/np-pip2-{T}"):
    shutil.rmtree(d, ignore_errors=True)
sys.exit(1 if failures() else 0)
