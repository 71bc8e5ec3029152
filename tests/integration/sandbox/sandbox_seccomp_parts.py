#!/usr/bin/env python3
"""The seccomp filter in two parts (plugins/exec/sandbox_seccomp.c): the
leader maker of `vthost serve` attaches the base once, each leader it
clones inherits it and attaches only the top after its set-up.  Tried
for real, from inside commands:

1. Every call the filter refuses (each of its refused syscalls, clone
   with each namespace flag, clone3, the TIOCSTI and TIOCLINUX ioctls,
   mknod of a device or a regular file, sockets other than Unix ones
   with the network off, i386's socketcall), on x86-64, x32 and i386
   (int 0x80), and a few it must allow (fork, a FIFO, a Unix socket):
   refused with the same errno, allowed the same, under serve with the
   maker, under VTHOST_NO_LEADER_MAKER=1 (the host clones every leader,
   which attaches the whole filter) and in a one-shot call.  No file an
   escaped call would leave exists afterwards.  With the run-time
   checks on and off (VTHOST_NO_EXEC_CHECKS=1): their listener filter
   knows only x86-64 and kills a 32-bit call, the same in every mode.
   With the network on ([sandbox] network_access), sockets are allowed
   and everything else is refused as before.
2. The maker itself runs under the base filter (`Seccomp: 2`,
   no_new_privs) and a leader it made holds the maker's filter and one
   of its own (the top; with the run-time checks, their listener
   carrying the top): fails where the maker attaches nothing.
3. The maker still does its job under the base: every command above ran.

Exit 77 without Landlock or namespaces, or off x86-64.

    sandbox_seccomp_parts.py path/to/vthost [path/to/seccomp_probe]
"""
import os
import platform
import re
import shutil
import sys

from sbx_common import Served, call_tool, children, failures, ok, require_landlock, scratch_dir

V = os.path.abspath(sys.argv[1])
# the probe is built beside vthost (build/bin) unless named
PROBE = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                        os.path.join(os.path.dirname(V), "seccomp_probe"))
if platform.machine() != "x86_64":
    print("SKIP: the probe speaks x86-64's syscall ABIs")
    sys.exit(77)
require_landlock()
base = scratch_dir("vthost-parts-")
WS = os.path.join(base, "ws")
os.makedirs(WS)
shutil.copy(PROBE, os.path.join(WS, "seccomp_probe"))
CFG = os.path.join(base, "config.toml")
with open(CFG, "w") as f:
    f.write('[permissions]\nallow = ["exec_command"]\n')
# the same with the network on: the parts chosen for it leave sockets be
CFG_NET = os.path.join(base, "config-net.toml")
with open(CFG_NET, "w") as f:
    f.write('[permissions]\nallow = ["exec_command"]\n[sandbox]\nnetwork_access = true\n')
ENV = dict(os.environ, HOME=base)
ENV.pop("VTHOST_NO_LEADER_MAKER", None)

EPERM, ENOSYS = 1, 38
ALLOWED = {"clone-plain", "mknod-fifo", "mknod-fifoat", "socket-unix"}


def probe_cmd(run):
    """The probe in a directory of its own (made here: a command making
    it would count as a change of the workspace)."""
    os.makedirs(os.path.join(WS, run))
    return ("cd %s && ../seccomp_probe; echo filters:; "
            "grep -E '^Seccomp_filters:' /proc/1/status" % run)


def parse(out):
    """{(abi, name): errno} and the leader's count of filters."""
    got, filters = {}, None
    for line in out.splitlines():
        m = re.match(r"^(x86-64|x32|i386) (\S+) (\d+)$", line.strip())
        if m and m.group(2) != "killed":
            got[(m.group(1), m.group(2))] = int(m.group(3))
        m = re.match(r"^Seccomp_filters:\s+(\d+)", line.strip())
        if m:
            filters = int(m.group(1))
    return got, filters, out


def status_of(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            return dict(l.split(":", 1) for l in f.read().splitlines() if ":" in l)
    except OSError:
        return {}


def maker_of(serve_pid):
    found = [k for k in children(serve_pid)
             if status_of(k).get("Name", "").strip() == "vthost-maker"]
    return found[0] if len(found) == 1 else None


def under_serve(run, extra_env, cfg):
    s = Served(V, WS, cfg, env=dict(ENV, **extra_env))
    try:
        s.tool("exec_command", {"cmd": "true"})  # the host's own leader
        r = s.tool("exec_command", {"cmd": probe_cmd(run)})
        maker = maker_of(s.p.pid)
        return parse(r.get("output", "")), (status_of(maker) if maker else None)
    finally:
        s.close()


def one_shot(run, extra_env, cfg):
    r = call_tool(V, WS, cfg, "exec_command", {"cmd": probe_cmd(run)}, dict(ENV, **extra_env))
    return parse(r.get("output", "") if isinstance(r, dict) else str(r))


def expected(abi, name, network):
    """The errno the filter gives, or the kernel behind it (a kernel
    without x32 answers an allowed x32 call ENOSYS; a packet socket
    needs a capability the command does not have)."""
    if network and name == "socket-packet":
        return (0, EPERM, ENOSYS) if abi == "x32" else (0, EPERM)
    if name in ALLOWED or (network and name.startswith("socket")):
        return (0, ENOSYS) if abi == "x32" else (0,)
    return (ENOSYS,) if name == "clone3" else (EPERM,)


def check(checks, network=False):
    """Every mode once, with the run-time checks on or off (their own
    listener filter knows only x86-64: a 32-bit call is killed there, in
    every mode alike; without them the sandbox's filter alone answers),
    with the network off or on."""
    env = {} if checks else {"VTHOST_NO_EXEC_CHECKS": "1"}
    cfg = CFG_NET if network else CFG
    sfx = ("" if checks else "-nochecks") + ("-net" if network else "")
    notes = ([] if checks else ["run-time checks off"]) + (["network on"] if network else [])
    say = lambda t: t + (" (%s)" % ", ".join(notes) if notes else "")
    (made, mstat) = under_serve("made" + sfx, env, cfg)
    (cloned, nostat) = under_serve("cloned" + sfx, dict(env, VTHOST_NO_LEADER_MAKER="1"), cfg)
    shot = one_shot("shot" + sfx, env, cfg)

    ok(say("serve has a leader maker"), mstat is not None)
    ok(say("VTHOST_NO_LEADER_MAKER=1: no maker"), nostat is None)
    if mstat:
        ok(say("the maker runs under a seccomp filter (Seccomp: 2, no_new_privs)"),
           mstat.get("Seccomp", "").strip() == "2" and mstat.get("NoNewPrivs", "").strip() == "1",
           "Seccomp %r NoNewPrivs %r" % (mstat.get("Seccomp"), mstat.get("NoNewPrivs")))
    # The maker's leader: the maker's base and one of its own (the top,
    # or with the checks on the checks' listener carrying the top); the
    # host's leader: the whole filter, and the listener with the checks.
    own = int((mstat or {}).get("Seccomp_filters", "0").strip() or 0)
    ok(say("a leader the maker made holds the maker's filter and one of its own"),
       own >= 1 and made[1] == own + 1 and cloned[1] == (2 if checks else 1),
       "maker %s, maker's leader %s, host's leader %s" % (own, made[1], cloned[1]))

    for what, (got, _, out) in (("serve with the maker", made),
                                ("serve without the maker", cloned), ("one-shot", shot)):
        abis = ("x86-64",) if checks else ("x86-64", "x32", "i386")
        ok(say("%s: the probe ran on %s" % (what, ", ".join(abis))),
           all(sum(1 for k in got if k[0] == a) > 40 for a in abis), out[-2000:])
        wrong = ["%s %s: errno %d, want %s" % (a, n, e, expected(a, n, network))
                 for (a, n), e in sorted(got.items()) if e not in expected(a, n, network)]
        ok(say("%s: every refused call refused with its errno, the allowed ones allowed" % what),
           not wrong, "\n".join(wrong[:40]))
    killed = lambda o: re.findall(r"^\S+ killed \d+$", o, re.M)
    ok(say("the same answers with and without the maker, and one-shot"),
       made[0] == cloned[0] == shot[0] and killed(made[2]) == killed(cloned[2]) == killed(shot[2]),
       "\n".join("%s %s: made %s cloned %s shot %s" % (a, n, made[0].get((a, n)),
                                                       cloned[0].get((a, n)), shot[0].get((a, n)))
                 for (a, n) in sorted(set(made[0]) | set(cloned[0]) | set(shot[0]))
                 if not made[0].get((a, n)) == cloned[0].get((a, n)) == shot[0].get((a, n)))[:3000])


try:
    check(True)
    check(False)
    check(True, network=True)
    check(False, network=True)
    left = []
    for root, _, files in os.walk(WS):
        for f in files:
            name = re.sub(r"^(escaped|nodeat|node)-(x86-64|x32|i386)-", "", f)
            if name == f or name in ALLOWED or name + "at" in ALLOWED:
                continue
            if name.startswith("socket") and root.endswith("-net"):
                continue  # allowed with the network on
            left.append(os.path.relpath(os.path.join(root, f), WS))
    ok("no file of an escaped call exists", not left, " ".join(sorted(left)[:40]))
finally:
    shutil.rmtree(base, ignore_errors=True)
sys.exit(1 if failures() else 0)
