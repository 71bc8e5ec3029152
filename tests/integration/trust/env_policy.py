#!/usr/bin/env python3
"""Commands do not get vthost's credentials.

`exec_command env` must not show GITHUB_TOKEN=marker, other *_TOKEN,
*_KEY, *SECRET*, *PASSWORD*, *CREDENTIAL* variables, nor the variables
the providers' configuration names (api_key_env, env_http_headers, env);
[sandbox.env] include / exclude / set change that from a trusted layer
only; a wrong type names the key.

Usage: env_policy.py VTHOST
"""
import json
import os
import shutil
import subprocess
import sys

from trustlib import check, finish, scratch


VTHOST = sys.argv[1]
root, ws, home, ENV = scratch("vthost-env-")
ENV.update(GITHUB_TOKEN="marker-gh", MY_API_KEY="marker-key",
           DB_PASSWORD="marker-pw", AWS_SECRET_ACCESS_KEY="marker-aws",
           GOOGLE_APPLICATION_CREDENTIALS="marker-cred",
           DOCS_TENANT="marker-tenant", DOCS_BEARER="marker-bearer", PROVIDER_PASS="marker-env",
           PLAIN_SETTING="plain-ok")



def env_of(*args):
    r = subprocess.run([VTHOST, "--workspace", ws, *args, "--yes", "call", "exec_command",
                        json.dumps({"cmd": "env"})], capture_output=True, text=True, env=ENV,
                       cwd=ws, timeout=120)
    try:
        out = json.loads(r.stdout).get("output", "")
    except json.JSONDecodeError:
        out = ""
    return out, r


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


# ---- the default ----------------------------------------------------------
out, r = env_of()
check("default: the command runs", "PLAIN_SETTING=plain-ok" in out, r.stdout + r.stderr)
for name in ["GITHUB_TOKEN", "MY_API_KEY", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY",
             "GOOGLE_APPLICATION_CREDENTIALS"]:
    check(f"default: {name} is not passed", f"{name}=" not in out, out)
check("default: no marker value reaches the command",
      not any(f"={v}" in out for v in ["marker-gh", "marker-key", "marker-pw", "marker-aws",
                                        "marker-cred"]), out)

# ---- the providers' variables (a trusted --config) ------------------------
cfg = os.path.join(root, "user.toml")
write(cfg, """[mcp]
[[mcp.providers]]
name = "docs"
endpoint = "http://127.0.0.1:9/mcp"
enabled = false
api_key_env = "DOCS_BEARER"
env_http_headers = { X-Tenant = "DOCS_TENANT" }
[[mcp.providers]]
name = "local"
command = "true"
enabled = false
env = { PROVIDER_PASS = "x" }
""")
out, r = env_of("--config", cfg)
check("providers: the command runs", "PLAIN_SETTING=plain-ok" in out, r.stdout + r.stderr)
for name in ["DOCS_BEARER", "DOCS_TENANT", "PROVIDER_PASS"]:
    check(f"providers: {name} (named by a provider) is not passed", f"{name}=" not in out, out)

# ---- [sandbox.env] from a trusted layer -----------------------------------
write(cfg, """[sandbox.env]
include = ["GITHUB_TOKEN"]
exclude = ["PLAIN_*"]
set = { VTHOST_ENV_SET = "set-value", PAGER = "less" }
""")
out, r = env_of("--config", cfg)
check("include: GITHUB_TOKEN is passed when included", "GITHUB_TOKEN=marker-gh" in out,
      r.stdout + r.stderr)
check("include: the others stay out", "MY_API_KEY=" not in out, out)
check("exclude: PLAIN_SETTING is dropped", "PLAIN_SETTING=" not in out, out)
check("set: VTHOST_ENV_SET is set", "VTHOST_ENV_SET=set-value" in out, out)
lines = out.split("\n")
check("set: it wins over vthost's own settings", "PAGER=less" in lines and "PAGER=cat" not in lines,
      out)

# ---- an untrusted workspace cannot widen it -------------------------------
write(os.path.join(ws, "vtcode.toml"), '[sandbox.env]\ninclude = ["*"]\nset = { LD_PRELOAD = "/x.so" }\n')
out, r = env_of()
check("untrusted workspace: the command runs", "PLAIN_SETTING=plain-ok" in out, r.stdout + r.stderr)
check("untrusted workspace: include is ignored", "GITHUB_TOKEN=" not in out, out)
check("untrusted workspace: set is ignored", "LD_PRELOAD=" not in out, out)
os.unlink(os.path.join(ws, "vtcode.toml"))

# ---- a wrong type ---------------------------------------------------------
write(cfg, '[sandbox.env]\ninclude = "GITHUB_TOKEN"\n')
out, r = env_of("--config", cfg)
check("a wrong type: refused, naming the key", r.returncode != 0 and "sandbox.env.include" in r.stderr,
      r.stdout + r.stderr)

finish("environment policy", root)
