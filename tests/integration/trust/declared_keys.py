#!/usr/bin/env python3
"""Keys a plugin declares are what an untrusted workspace may tighten.

The host holds no plugin's defaults: the exec plugin declares its sandbox
limits and the proxy's lists, and a third-party plugin the host knows
nothing of (tests/plugins/config_fixture) declares keys of its own; an
untrusted workspace's vtcode.toml gets the same treatment for both.

- exec: max_processes raised above the plugin's default (1024) is ignored
  and named; lowered, it is kept (8 reaches the plugin, which refuses it
  by name); "no limit" for cpu_time_seconds is ignored; a raised
  sandbox.network.max_connections beside a kept denied list is named.
- config_fixture: max_widgets above its default 10 is ignored and named,
  below it is kept (the plugin reads 3); a string key only takes its one
  allowed value; a key declared trusted-only (`command`) never arrives;
  a list declared subset only loses entries; a trusted workspace sets all.
- config_rival declares max_widgets with another default and sandbox.mode
  as loose: the key is then left to trusted layers, the host's rule for
  sandbox.mode stands, and both are logged.

Usage: declared_keys.py VTHOST FIXTURE_DIR RIVAL_DIR
"""
import json
import os
import subprocess
import sys

from trustlib import check, finish, scratch

VTHOST, FIXTURE, RIVAL = sys.argv[1:4]
root, ws, home, ENV = scratch("vthost-declared-")
ws_cfg = os.path.join(ws, "vtcode.toml")
user_dir = os.path.join(home, ".config", "vtcode")
os.makedirs(user_dir)
user_cfg = os.path.join(user_dir, "vtcode.toml")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def run(*args, dirs=()):
    pd = [a for d in dirs for a in ("--plugin-dir", d)]
    return subprocess.run([VTHOST, "--workspace", ws, *pd, *args], capture_output=True,
                          text=True, env=ENV, cwd=ws, stdin=subprocess.DEVNULL, timeout=120)


def ignored(tool, dirs=()):
    """(the keys explain names as ignored, stderr)."""
    args = '{"cmd": "true"}' if tool == "exec_command" else "{}"
    r = run("explain", tool, args, dirs=dirs)
    try:
        return json.loads(r.stdout).get("ignored_config", ""), r.stderr
    except ValueError:
        return "(no answer: " + r.stdout + r.stderr + ")", r.stderr


def names(text, key):
    """Whether the ignored list names `key` or a table holding it (a table
    nothing of which is kept is named whole)."""
    listed = [k.strip() for k in text.split(",")]
    parts = key.split(".")
    return any(".".join(parts[:i]) in listed for i in range(1, len(parts) + 1))


def seen(dirs=(FIXTURE,)):
    """The [config_fixture] table the plugin reads."""
    r = run("--yes", "call", "config_fixture_show", "{}", dirs=dirs)
    try:
        return json.loads(r.stdout)["config_fixture"]
    except (ValueError, KeyError, TypeError):
        return {"raw": r.stdout + r.stderr}


# ---- the exec plugin's keys, declared by the plugin ------------------------
write(ws_cfg, "[sandbox]\nmax_processes = 2000\n")
ig, err = ignored("exec_command")
check("exec: max_processes above the plugin's default is ignored and named",
      names(ig, "sandbox.max_processes"), ig + err)

write(ws_cfg, "[sandbox]\nmax_processes = 8\n")
r = run("explain", "exec_command", '{"cmd": "true"}')
check("exec: a lowered max_processes reaches the plugin (8 is refused by name)",
      r.returncode != 0 and "sandbox.max_processes" in r.stderr, r.stdout + r.stderr)

write(ws_cfg, "[sandbox]\nmax_processes = 512\ncpu_time_seconds = 0\nmax_memory_mb = 100\n")
ig, err = ignored("exec_command")
check("exec: max_processes lowered to 512 is kept", not names(ig, "sandbox.max_processes")
      and "(no answer" not in ig, ig + err)
check("exec: max_memory_mb lowered is kept", not names(ig, "sandbox.max_memory_mb"), ig)
check("exec: cpu_time_seconds = 0 (no limit) is ignored and named",
      names(ig, "sandbox.cpu_time_seconds"), ig)

write(ws_cfg, '[sandbox.network]\ndenied_domains = ["evil.example"]\nmax_connections = 999\n'
      'allowed_domains = ["pypi.org"]\n')
ig, err = ignored("exec_command")
check("exec: a raised sandbox.network.max_connections beside a kept list is named",
      names(ig, "sandbox.network.max_connections"), ig + err)
check("exec: allowed_domains with none in force is named",
      names(ig, "sandbox.network.allowed_domains"), ig)
check("exec: an added denied domain is kept", not names(ig, "sandbox.network.denied_domains")
      and "(no answer" not in ig, ig)

write(ws_cfg, '[sandbox.network]\ndenied_domains = ["evil.example", {"x" = 1}]\n')
ig, err = ignored("exec_command")
check("exec: a denied list holding a table is ignored and named",
      names(ig, "sandbox.network.denied_domains"), ig + err)

write(user_cfg, "[sandbox]\nmax_processes = 100\n")
write(ws_cfg, "[sandbox]\nmax_processes = 512\n")
ig, err = ignored("exec_command")
check("exec: below the plugin's default but above the user's 100 is ignored",
      names(ig, "sandbox.max_processes"), ig + err)
os.remove(user_cfg)

# ---- a third-party plugin's own keys ----------------------------------------
write(ws_cfg, '[config_fixture]\nmax_widgets = 50\nstyle = "fancy"\ncommand = "touch x"\n')
ig, err = ignored("config_fixture_show", (FIXTURE,))
t = seen()
check("fixture: max_widgets above its default is ignored and named",
      names(ig, "config_fixture.max_widgets") and "max_widgets" not in t, ig + err + json.dumps(t))
check("fixture: a string other than the allowed one is ignored",
      names(ig, "config_fixture.style") and "style" not in t, ig + json.dumps(t))
check("fixture: a trusted-only key never arrives",
      names(ig, "config_fixture.command") and "command" not in t, ig + json.dumps(t))

write(ws_cfg, '[config_fixture]\nmax_widgets = 3\nstyle = "plain"\n')
ig, err = ignored("config_fixture_show", (FIXTURE,))
t = seen()
check("fixture: max_widgets lowered is kept", t.get("max_widgets") == 3 and
      not names(ig, "config_fixture.max_widgets"), ig + err + json.dumps(t))
check("fixture: the allowed string is kept", t.get("style") == "plain", json.dumps(t))

write(user_cfg, '[config_fixture.limits]\nallowed_names = ["a", "b"]\n')
write(ws_cfg, '[config_fixture.limits]\nallowed_names = ["a", "z"]\n')
t = seen()
check("fixture: a subset list only loses entries",
      t.get("limits", {}).get("allowed_names") == ["a"], json.dumps(t))
write(user_cfg, '[config_fixture.limits.allowed_names]\nx = "a"\n')
write(ws_cfg, '[config_fixture.limits]\nallowed_names = ["a"]\n')
t = seen()
check("fixture: a subset list never replaces a table in force",
      t.get("limits", {}).get("allowed_names") == {"x": "a"}, json.dumps(t))
os.remove(user_cfg)

write(ws_cfg, '[config_fixture]\nmax_widgets = 50\ncommand = "touch x"\n')
write(user_cfg, f'[trust]\nworkspaces = ["{ws}"]\n')
t = seen()
check("fixture: a trusted workspace sets what it likes",
      t.get("max_widgets") == 50 and t.get("command") == "touch x", json.dumps(t))
os.remove(user_cfg)

# ---- two declarations of one key --------------------------------------------
write(ws_cfg, '[config_fixture]\nmax_widgets = 3\n[sandbox]\nmode = "danger-full-access"\n')
both = (FIXTURE, RIVAL)
ig, err = ignored("config_fixture_show", both)
t = seen(both)
check("rival: a key declared two ways is left to trusted layers",
      "max_widgets" not in t and names(ig, "config_fixture.max_widgets"), ig + json.dumps(t))
check("rival: the clash is logged naming both plugins",
      "config_fixture and config_rival" in err and "config_fixture.max_widgets" in err, err)
check("rival: a plugin cannot loosen the host's sandbox.mode", names(ig, "sandbox.mode"), ig)
check("rival: the host key's declaration is logged",
      "config_rival declares sandbox.mode" in err, err)

finish("declared-key", root)
