#!/usr/bin/env python3
"""A sandboxed command reaches the listed domains through the filtering
proxy, and nothing else by any route.

Stand-in servers on 127.0.0.2 (plain HTTP and TLS) play the registries;
the proxy resolves the test names to them through its test hook.  Each
attempt asks for a path of its own, and the servers record every path
they serve: a path that must not be reached must not be in the record.
  - an allowed name: plain HTTP, CONNECT (TLS, curl https) and SOCKS5;
  - an unlisted name, the server's address literal, curl --noproxy '*',
    a raw socket to the server, DNS inside the sandbox: nothing arrives;
  - denied_domains wins over a wildcard; the result names each refused
    host once;
  - a name that resolves to the host's loopback is refused unless
    "localhost" is listed (the resolved address is checked, not the name);
  - a flood of connections is capped at max_connections;
  - the proxy's end fails the command's network, not the call or the host.

Usage: netproxy_filter.py VTHOST
"""
import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

from np_common import (ADDR, Workspace, failures, hit, ok, py, require_landlock, serve)

V = sys.argv[1]
require_landlock()
if not os.path.exists("/proc/self/ns/net"):
    print("SKIP: no network namespaces")
    sys.exit(77)

tls_dir = tempfile.mkdtemp(prefix="vthost-np-tls-")
atexit.register(shutil.rmtree, tls_dir, ignore_errors=True)
port = serve()
tls_port = serve(tls_dir)
url = f"http://reg.test:{port}"

ws = Workspace(V, 'allowed_domains = ["reg.test", "*.mirror.test", "localhost"]\n'
                  'denied_domains = ["bad.mirror.test"]\nmax_connections = 4',
               ["reg.test", "other.test", "a.mirror.test", "bad.mirror.test"])
r = ws.call(
    f"curl -sS {url}/plain-ok; "
    f"curl -sS --proxy-insecure -k https://reg.test:{tls_port}/connect-ok; "
    f"curl -sS -x socks5h://127.0.0.1:3128 {url}/socks-ok; "
    f"curl -sS http://a.mirror.test:{port}/wildcard-ok; "
    f"curl -sS http://other.test:{port}/unlisted-1; curl -sS http://other.test:{port}/unlisted-2; "
    f"curl -sS http://bad.mirror.test:{port}/denied; "
    f"curl -sS http://{ADDR}:{port}/literal; "
    f"curl -sS -x socks5h://127.0.0.1:3128 http://{ADDR}:{port}/socks-literal; "
    f"curl -sS --max-time 5 --noproxy '*' http://{ADDR}:{port}/noproxy; "
    f"curl -sS --max-time 5 --noproxy '*' --resolve reg.test:{port}:{ADDR} {url}/noproxy-name; "
    + py(f"import socket\ntry:\n socket.create_connection(('{ADDR}', {port}), 5).sendall("
         f"b'GET /raw HTTP/1.0\\r\\n\\r\\n')\nexcept OSError as e: print('raw:', e)") + "; "
    + py("import socket\ntry: print(socket.gethostbyname('reg.test'))\n"
         "except OSError as e: print('dns:', e)"))
out = r.get("output", "")
net = r.get("network", {})
ok("an allowed name by plain HTTP", "hit /plain-ok" in out and hit("/plain-ok"), out)
ok("an allowed name through CONNECT (TLS)", "hit /connect-ok" in out and hit("/connect-ok"), out)
ok("an allowed name through SOCKS5", "hit /socks-ok" in out and hit("/socks-ok"), out)
ok("a *.domain wildcard", "hit /wildcard-ok" in out, out)
for path, what in [("/unlisted", "an unlisted name"), ("/denied", "a denied name (denied wins)"),
                   ("/literal", "the server's address literal"),
                   ("/socks-literal", "the address literal through SOCKS5"),
                   ("/noproxy", "curl --noproxy '*' (direct)"), ("/raw", "a raw socket")]:
    ok(what + " reaches nothing", not hit(path), str([p for _, p in __import__("np_common").hits]))
ok("no DNS inside the sandbox", "dns:" in out, out)
refused = net.get("refused", [])
ok("the result names each refused host once",
   refused.count("network: refused other.test (not in allowed_domains)") == 1 and
   "network: refused bad.mirror.test (in denied_domains)" in refused and
   any(x.startswith(f"network: refused {ADDR} ") for x in refused), str(refused))
ok("the warnings name the refusals",
   "network: refused other.test (not in allowed_domains)" in r.get("warnings", []), str(r))
ok("byte counters", net.get("received_bytes", 0) > 0 and net.get("sent_bytes", 0) > 0, str(net))

# The resolved address is checked: without "localhost", a listed name
# that resolves to the host's loopback is refused.
ws2 = Workspace(V, 'allowed_domains = ["reg.test"]', ["reg.test"])
r = ws2.call(f"curl -sS {url}/loopback-unlisted")
ok("a name resolving to the host's loopback needs \"localhost\" listed",
   not hit("/loopback-unlisted") and
   any("an address of this machine" in x for x in r.get("network", {}).get("refused", [])), str(r))

# The machine's own addresses (vthost's HTTP port listens there) and
# link-local / cloud metadata addresses: refused for a listed name that
# resolves to them, unless the address itself is listed.  The stand-in
# also listens on the machine's own address where it has one.
own = None
try:
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.connect(("192.0.2.255", 9))
    own = probe.getsockname()[0]
    probe.close()
except OSError:
    pass
own_port = serve(addr=own) if own and not own.startswith("127.") else None
ws4 = Workspace(V, 'allowed_domains = ["self.test", "meta.test", "ll.test"]', [], extra_hosts=[
    (own or "192.0.2.1", "self.test"), ("169.254.169.254", "meta.test"), ("fe80::1", "ll.test")])
r = ws4.call((f"curl -sS http://self.test:{own_port}/self-address; " if own_port else "") +
             "curl -sS --max-time 5 http://meta.test/latest/meta-data/; "
             "curl -sS --max-time 5 http://ll.test/")
refused = r.get("network", {}).get("refused", [])
if own_port:
    ok("a listed name resolving to the machine's own address is refused",
       not hit("/self-address") and any(x.startswith("network: refused self.test (") and
                                        "an address of this machine" in x for x in refused),
       str(refused))
ok("a listed name resolving to the cloud metadata address is refused",
   any(x.startswith("network: refused meta.test (") and "metadata" in x for x in refused),
   str(refused))
ok("a listed name resolving to a link-local IPv6 address is refused",
   any(x.startswith("network: refused ll.test (") for x in refused), str(refused))

# Permission rules on domains feed the same decision: a deny rule refuses
# a listed domain, an allow rule admits an unlisted one.
ws3 = Workspace(V, 'allowed_domains = ["b.test", "localhost"]', ["b.test", "c.test", "d.test"],
                'allow = ["exec_command", "WebFetch(domain:c.test)"]\n'
                'deny = ["WebFetch(domain:b.test)"]')
r = ws3.call(f"curl -sS http://b.test:{port}/rule-denied; curl -sS http://c.test:{port}/rule-allowed; "
             f"curl -sS http://d.test:{port}/rule-unlisted")
refused = r.get("network", {}).get("refused", [])
ok("a WebFetch(domain:) deny rule refuses a listed domain",
   not hit("/rule-denied") and any(x.startswith("network: refused b.test (matches the deny rule")
                                   for x in refused), str(refused))
ok("a WebFetch(domain:) allow rule admits an unlisted domain", hit("/rule-allowed"), str(r))
ok("a bare allow of exec_command admits no domain", not hit("/rule-unlisted"), str(refused))

# A flood: 20 tunnels held open at once, max_connections 4.
flood = py(
    "import socket, time\nsocks = []\nfor i in range(20):\n"
    " s = socket.create_connection(('127.0.0.1', 3128))\n"
    f" s.sendall(b'CONNECT reg.test:{port} HTTP/1.1\\r\\n\\r\\n')\n socks.append(s)\n"
    "time.sleep(1)\nopen_ = 0\nfor s in socks:\n s.settimeout(2)\n"
    " try:\n  open_ += s.recv(100).startswith(b'HTTP/1.1 200')\n except OSError: pass\n"
    "print('tunnels:', open_)")
r = ws.call(flood)
out = r.get("output", "")
ok("a flood of connections is capped", "tunnels: 4" in out and
   r.get("network", {}).get("connections_refused_at_cap", 0) >= 16, out + str(r.get("network")))

# An untrusted workspace only removes domains: the user's own
# vtcode.toml lists reg.test and a.mirror.test; the workspace's (not
# trusted) keeps only a.mirror.test and tries to add other.test.
ws5 = Workspace(V, 'allowed_domains = ["a.mirror.test", "other.test", "localhost"]',
                ["reg.test", "a.mirror.test", "other.test"])
xdg = ws5.ws + ".config"
os.makedirs(os.path.join(xdg, "vtcode"))
with open(os.path.join(xdg, "vtcode", "vtcode.toml"), "w") as f:
    f.write('[permissions]\nallow = ["exec_command"]\n[sandbox.network]\n'
            'allowed_domains = ["reg.test", "a.mirror.test", "localhost"]\n')
env = dict(os.environ, VTHOST_TEST_NETPROXY_HOSTS=ws5.hosts, XDG_CONFIG_HOME=xdg)
p = subprocess.run([V, "--workspace", ws5.ws, "--yes", "call", "exec_command",
                    json.dumps({"cmd": f"curl -sS http://reg.test:{port}/untrusted-removed; "
                                       f"curl -sS http://a.mirror.test:{port}/untrusted-kept; "
                                       f"curl -sS http://other.test:{port}/untrusted-added",
                                "yield_time_ms": 30000})],
                   capture_output=True, text=True, timeout=120, env=env)
ok("an untrusted workspace removes an allowed domain", not hit("/untrusted-removed"),
   p.stdout + p.stderr)
ok("an untrusted workspace keeps the domains it still lists", hit("/untrusted-kept"),
   p.stdout + p.stderr)
ok("an untrusted workspace cannot add a domain", not hit("/untrusted-added"), p.stdout)

# The proxy's end (its test hook stops it after one connection) fails
# the command's network and nothing else: the next connection is refused
# at once, the command goes on, the call's result comes, and the next
# call gets a proxy of its own.
r = ws.call(f"curl -sS {url}/before-death; curl -sS --max-time 10 {url}/after-death; "
            "echo curl-exit-$?; echo still-running",
            env_extra={"VTHOST_TEST_NETPROXY_DIE_AFTER": "1"})
out = r.get("output", "")
ok("after the proxy's end the command's network fails, the command and the call go on",
   hit("/before-death") and not hit("/after-death") and "curl-exit-7" in out and
   "still-running" in out and r.get("is_exited") is True, out)
r = ws.call(f"curl -sS {url}/next-call")
ok("the next call gets a proxy of its own", hit("/next-call"), str(r))

sys.exit(1 if failures() else 0)
