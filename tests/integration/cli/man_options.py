"""The man page against the command line: every command the overview
lists has an entry under COMMANDS, every option any command's help lists
has one under OPTIONS, and an option entry that says which commands it
is "For" names each command whose help lists it.  --config is described
as the layer it is (added over the others, not instead of them).

usage: man_options.py VTHOST docs/vthost.1
"""
import re
import subprocess
import sys

vthost, manpage = sys.argv[1], sys.argv[2]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def help_of(*args):
    return subprocess.run([vthost, "help", *args], capture_output=True, text=True,
                          check=True).stdout


def section(text, name):
    m = re.search(r"^\.SH " + name + r"\n(.*?)(?=^\.SH )", text, re.S | re.M)
    return m.group(1) if m else ""


def entries(sec):
    """Each .TP entry as (tag line, body), groff escapes made plain."""
    out = []
    for part in re.split(r"^\.TP\n", sec, flags=re.M)[1:]:
        tag, _, body = part.partition("\n")
        out.append((plain(tag), plain(body)))
    return out


def plain(s):
    s = re.sub(r"\\f[BIRP]", "", s).replace("\\-", "-")
    s = re.sub(r"^\.(?:BR|IR|RB|BI|IB|TQ|B|I)\s+", "", s, flags=re.M)
    return s.replace('"', "")


man = open(manpage, encoding="utf-8").read()
section_text = help_of().split("Options")[0]
commands = re.findall(r"^  ([a-z]+)\b", section_text, re.M)
if len(commands) < 5:
    fail("could not read the commands from vthost help: %r" % section_text)
cmd_entries = entries(section(man, "COMMANDS"))
opt_entries = entries(section(man, "OPTIONS"))

for c in commands:
    if not any(re.match(r"%s\b" % c, tag) for tag, _ in cmd_entries):
        fail("COMMANDS has no entry for '%s'" % c)

for c in commands:
    opts = re.findall(r"^\s+(?:-\w, )?--([a-z-]+)", help_of(c).partition("Options:")[2].split("\n\n")[0], re.M)
    for o in opts:
        if opts.count(o) > 1:
            fail("help %s lists --%s twice" % (c, o))
        found = [body for tag, body in opt_entries if re.search(r"--%s\b" % o, tag)]
        if not found:
            fail("OPTIONS has no entry for --%s (an option of '%s')" % (o, c))
            continue
        body = " ".join(found[0].split())
        # "For call and explain: ..." names the commands the option is for
        if body.startswith("For") and not re.search(r"\b%s\b" % c, body):
            fail("--%s applies to '%s' but its entry names only other commands: %s"
                 % (o, c, body[:80]))

config = " ".join(b for t, b in opt_entries if "--config" in t)
if "instead of" in config or "layer" not in config:
    fail("--config must be described as a layer over the user's and the workspace's "
         "vtcode.toml, not instead of them: %r" % config[:200])

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok: %d commands and their options are in %s" % (len(commands), manpage))
