"""Shared by the filtering proxy's tests: stand-in servers on loopback
(plain HTTP and TLS on 127.0.0.2, every request path recorded), the test
hook that maps test names to them for the proxy only, and a one-shot
`vthost call exec_command` in a workspace whose trusted configuration
lists domains."""
import http.server
import json
import os
import ssl
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sandbox"))
from sbx_common import ok, failures, require_landlock, scratch_dir, trusted_config  # noqa: E402,F401

ADDR = "127.0.0.2"
hits = []  # (port, path) of every request a stand-in served


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    files = {}  # path -> (content type, bytes)

    def do_GET(self):
        hits.append((self.server.server_address[1], self.path))
        body = self.files.get(self.path.split("?")[0])
        if body is None:
            ctype, data = "text/plain", ("hit " + self.path + "\n").encode()
        else:
            ctype, data = body
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


def serve(tls_dir=None, addr=ADDR):
    """A stand-in on `addr`; its port.  With tls_dir, TLS with a fresh
    self-signed certificate (cert.pem there)."""
    srv = http.server.ThreadingHTTPServer((addr, 0), Handler)
    srv.daemon_threads = True
    if tls_dir:
        key, cert = os.path.join(tls_dir, "key.pem"), os.path.join(tls_dir, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                        "-out", cert, "-days", "2", "-subj", "/CN=reg.test",
                        "-addext", "subjectAltName=DNS:reg.test"],
                       check=True, capture_output=True)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv.server_address[1]


def hit(path_part):
    return any(path_part in p for _, p in hits)


class Workspace:
    """A workspace with a trusted vtcode.toml listing `network` (the
    [sandbox.network] table's lines) and the hosts file of the test hook."""

    def __init__(self, vthost, network, hosts, permissions='allow = ["exec_command"]',
                 extra_hosts=()):
        self.vthost = vthost
        self.ws = scratch_dir("vthost-netproxy-")
        self.hosts = os.path.join(self.ws + ".hosts")
        with open(self.hosts, "w") as f:
            for name in hosts:
                f.write(f"{ADDR} {name}\n")
            for addr, name in extra_hosts:
                f.write(f"{addr} {name}\n")
        with open(os.path.join(self.ws, "vtcode.toml"), "w") as f:
            f.write("[permissions]\n" + permissions + "\n[sandbox.network]\n" + network + "\n")

    def call(self, cmd, timeout=120, vthost=None, env_extra=None):
        args = {"cmd": cmd, "yield_time_ms": 30000}
        env = dict(os.environ, VTHOST_TEST_NETPROXY_HOSTS=self.hosts, **(env_extra or {}))
        try:
            p = subprocess.run([vthost or self.vthost, "--workspace", self.ws,
                                *trusted_config(self.ws), "--yes", "call", "exec_command",
                                json.dumps(args)],
                               capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return {"output": f"(the call took more than {timeout} s)"}
        try:
            return json.loads(p.stdout)
        except ValueError:
            return {"output": p.stdout + p.stderr}


def py(code):
    """A python3 command line for `code`."""
    return "python3 -c " + "'" + code.replace("'", "'\"'\"'") + "'"
