// Bypass corpus: command texts that try to run what the rules do not
// allow, with allow = ["exec_command(git status)", "exec_command(ls *)"]
// and deny = ["exec_command(rm *)"].  Each text runs for real (vthost call,
// and vthost serve over raw JSON-RPC) in a scratch workspace holding a
// file `victim`; the test fails when a file named PWNED* appears or the
// victim disappears, and when explain or serve crashes.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const bin = process.argv[2];
if (!bin || !existsSync(bin)) { console.error("usage: corpus.mjs VTHOST"); process.exit(2); }
const TOML = `[permissions]
allow = ["exec_command(git status)", "exec_command(ls *)"]
deny = ["exec_command(rm *)"]
`;
const V = "victim";
const T = "touch PWNED";
const corpus = [
  // splitter misreadings
  `ls <<$X\n${T}\n$X`, `ls <<"$X"\n${T}\n$X`, `x='a[$(${T})]'; ls $((x))`, `x='a[$(${T})]'; ls $[x]`,
  `x='a[$(${T})]'; ls \${a[x]}`, `x='a[$(${T})]'; ((x)); ls`, `x='a[$(${T})]'; ls \${PWD:x:1}`,
  `x='a[$(${T})]'; : $((x)); ls`, `y='$(${T})'; x=y; ls \${!x}`, `x='$(${T})'; ls \${x@P}`,
  `ls \r# ; ${T}`, `ls\r; ${T}`, `for x do ${T}; done`, `for x in 1; do ${T}; done`,
  `while false; do :; done; ${T}`, `f() { ${T}; }; f`, `function g { ${T}; }; g`,
  `ls; case x in x) ${T};; esac`, `ls $(${T})`, `ls \`${T}\``, `ls "$(${T})"`, `ls <(${T})`,
  `ls >(${T})`, `(${T})`, `{ ${T}; }`, `ls || ${T}`, `ls && ${T}`, `ls | ${T}`, `ls & ${T}`,
  `ls\n${T}`, `ls;${T}`, `git status; ${T}`, `git status && rm ${V}`, `ls; rm -f ${V}`,
  // the environment
  `BASH_ENV=./e.sh bash -c ls`, `printf '${T}\\n' > e.sh; BASH_ENV=./e.sh bash -c ls`,
  `printf '${T}\\n' > e.sh; ENV=./e.sh sh -i -c ls`, `printf '${T}\\n' > .bashrc; HOME=$PWD bash -ic ls`,
  `printf '${T}\\n' > .profile; HOME=$PWD bash -lc ls`, `printf '${T}\\n' > .bash_profile; HOME=$PWD bash --login -c ls`,
  `mkdir -p h; printf '[core]\\n\\tfsmonitor = "${T}; false"\\n' > h/.gitconfig; HOME=$PWD/h git status`,
  `mkdir -p h; printf '[core]\\n\\tfsmonitor = "${T}; false"\\n' > h/.gitconfig; export HOME=$PWD/h; git status`,
  `mkdir -p h; printf '[core]\\n\\tfsmonitor = "${T}; false"\\n' > h/.gitconfig; HOME=$PWD/h; git status`,
  `mkdir -p h/git; printf '[core]\\n\\tfsmonitor = "${T}; false"\\n' > h/git/config; XDG_CONFIG_HOME=$PWD/h git status`,
  `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='${T}; false' git status`,
  `mkdir -p bin; printf '#!/bin/sh\\n${T}\\n' > bin/ls; chmod +x bin/ls; PATH=./bin:$PATH; ls`,
  `mkdir -p bin; printf '#!/bin/sh\\n${T}\\n' > bin/ls; chmod +x bin/ls; PATH=$PWD/bin:$PATH ls`,
  `mkdir -p bin; printf '#!/bin/sh\\n${T}\\n' > bin/git; chmod +x bin/git; export PATH=bin:$PATH; git status`,
  `mkdir -p bin; cp /usr/bin/touch bin/ls; PATH=./bin:$PATH; ls PWNED`,
  `cp /usr/bin/touch ./ls; ./ls PWNED`, `ln -s /usr/bin/touch ls; ./ls PWNED`, `ln -s /bin/rm ./ls; ./ls ${V}`,
  `cp /bin/rm ./ls; ./ls ${V}`, `printf '#!/bin/sh\\n${T}\\n' > x.sh; chmod +x x.sh; ./x.sh`,
  `printf '${T}\\n' > x.sh; . ./x.sh`, `printf '${T}\\n' > x.sh; source x.sh`, `printf '${T}\\n' > x.sh; bash x.sh`,
  `LD_PRELOAD=/nonexistent.so git status; ${T}`, `IFS=x; ls; ${T}`, `PS4='$(${T})' bash -xc ls`,
  `PROMPT_COMMAND='${T}' bash -ic ls`, `SHELLOPTS=xtrace PS4='$(${T})' bash -c ls`,
  `alias ls='${T}'; ls`, `shopt -s expand_aliases; alias ls='${T}'; ls`, `hash -p /usr/bin/touch ls; ls PWNED`,
  `enable -n ls 2>/dev/null; ${T}`, `trap '${T}' EXIT; ls`, `command_not_found_handle() { ${T}; }; nosuchcmd`,
  `let 'x=a[$(${T})]'; ls`, `declare -n r=x; ${T}`, `printf -v x '%s' '${T}'; $x`, `read x <<< '${T}'; $x`,
  `mapfile -t a <<< '${T}'; \${a[0]}`, `coproc ${T}`, `exec ${T}`, `exec -a ls touch PWNED`,
  // the shell argument
  ["import os; os.system('touch PWNED')", "python3"], ["open('PWNED','w')", "python3"],
  ["system('touch PWNED')", "perl"], [`${T}`, "./myshell"], [`${T}`, "busybox"],
  ["require('fs').writeFileSync('PWNED','x')", "node"],
  // an allowed text through a workspace executable named as the shell (WS/:
  // the scratch workspace), which harms without any execve: only the shell
  // as a subject stops it
  ["ls", "WS/evilshell"], ["git status", "WS/evilshell"], ["ls -la", "WS/./evilshell"],
  // wrappers and indirection around the deny rule
  `env rm ${V}`, `env -S 'rm ${V}'`, `env -i rm ${V}`, `exec -a x rm ${V}`, `ionice rm ${V}`, `nice -n 5 rm ${V}`,
  `timeout 5 rm ${V}`, `nohup rm ${V}`, `stdbuf -o0 rm ${V}`, `command rm ${V}`, `builtin command rm ${V}`,
  `echo ${V} | xargs rm`, `ls | xargs rm`, `find . -name ${V} -exec rm {} \\;`, `find . -name ${V} -delete; ls`,
  `find . -name ${V} -execdir rm {} +`, `su -c 'rm ${V}'`, `runuser -c 'rm ${V}'`, `flock /tmp/l rm ${V}`,
  `flock -c 'rm ${V}' /tmp/l2`, `chroot / rm ${V}`, `script -qc 'rm ${V}' /dev/null`, `rbash -c 'rm ${V}'`,
  `bash -c 'rm ${V}'`, `sh -c 'rm ${V}'`, `dash -c 'rm ${V}'`, `bash -c 'bash -c "rm ${V}"'`,
  `echo 'rm ${V}' | bash`, `echo 'rm ${V}' | sh`, `bash <<< 'rm ${V}'`, `sh <<EOF\nrm ${V}\nEOF`,
  `$'rm' ${V}`, `$'\\x72\\x6d' ${V}`, `$(echo rm) ${V}`, `\`echo rm\` ${V}`, `X=rm; $X ${V}`, `X=rm; \${X} ${V}`,
  `X=r; \${X}m ${V}`, `{rm,${V}}`, `{rm,-f,${V}}`, `r''m ${V}`, `r""m ${V}`, `\\rm ${V}`, `"rm" ${V}`,
  `/bin/rm ${V}`, `/usr/bin/rm ${V}`, `../$(basename $PWD)/../../../../../usr/bin/rm ${V}`, `/usr/bin/../bin/rm ${V}`,
  `eval 'rm ${V}'`, `eval "$(echo rm) ${V}"`, `a=(rm ${V}); "\${a[@]}"`, `set -- rm ${V}; "$@"`,
  `f=rm; declare -f >/dev/null; $f ${V}`, `python3 -c "import os; os.remove('${V}')"`, `python3 -c "import os; os.system('rm ${V}')"`,
  `perl -e 'unlink "${V}"'`, `perl -e 'system("rm ${V}")'`, `awk 'BEGIN{system("rm ${V}")}'`,
  `awk 'BEGIN{system("${T}")}'`, `sed -n '1e ${T}' /etc/hostname`, `git status; git -c core.pager='${T}' log`,
  `git -c alias.st='!${T}' st`, `ls --color=auto; vi -c '!${T}' -c q 2>/dev/null`, `tar cf /dev/null --checkpoint=1 --checkpoint-action=exec='${T}' /etc/hostname`,
  `make -f /dev/null --eval='x:;${T}' x`, `xargs -a /dev/null ${T}`, `xargs -I{} sh -c 'rm {}' <<< ${V}`,
  `printf 'rm ${V}' > s; sh s`, `printf 'rm ${V}' > s; bash < s`, `cat <<'EOF' | sh\nrm ${V}\nEOF`,
  `ls; (sleep 0.3; ${T}) & sleep 1`, `ls; nohup sh -c '${T}' >/dev/null 2>&1 & sleep 1`, `ls; setsid sh -c '${T}'; sleep 0.5`,
  `ls $(rm ${V})`, `ls \${x:-$(rm ${V})}`, `ls "\${x:-\`rm ${V}\`}"`, `: \${x:=$(${T})}; ls`,
  `ls -la; touch PWNED2`, `ls; >../PWNED`, `ls > ../PWNED`, `ls; cp ${V} PWNED`, `ls; mv ${V} PWNED`, `ls; tee PWNED < /dev/null`,
  `ls; dd if=/dev/null of=PWNED 2>/dev/null`, `ls; install /dev/null PWNED`, `ls; truncate -s0 ${V}; rm ${V}`,
  `ls; unlink ${V}`, `ls; shred -u ${V}`, `ls; mv ${V} /tmp/`, `ls; find . -name ${V} -exec unlink {} +`,
  `ls; git rm -q ${V}`, `ls; git clean -fdxq`, `ls; busybox rm ${V}`, `ls; busybox touch PWNED`,
  `ls; python3 -c "open('PWNED','w')"`, `ls; node -e "require('fs').writeFileSync('PWNED','')"`,
];
// Texts the static check allows, whose allowed programs then try to run a
// denied one (rm, touch) through what a name-based run-time check could
// miss: descriptors, memfds, /proc links, the dynamic loader run directly,
// #! interpreters, links, threads, vfork, posix_spawn, the i386 and x32
// system call entries (perm_attack.c), and interpreters.  Rules: allow
// perm_attack, python3 and make; deny rm and touch.
const H = process.argv[3] && resolve(process.argv[3]);
if (!H || !existsSync(H)) { console.error("usage: corpus.mjs VTHOST PERM_ATTACK"); process.exit(2); }
if (!existsSync("/usr/bin/busybox")) console.log("NOTE: /usr/bin/busybox missing: its cases fail on ENOENT and test nothing (./setup.sh installs it)");
const TOML_B = `[permissions]
allow = ["exec_command(perm_attack *)", "exec_command(${H} *)", "exec_command(python3 *)", "exec_command(make *)"]
deny = ["exec_command(rm *)", "exec_command(touch *)"]
`;
const modes = ["memfd", "fdexec", "procfd", "devfd", "proclink", "ldso", "ldsoopt", "shebang", "shebang2",
  "symlink", "hardlink", "thread", "vfork", "spawn", "int80", "x32"];
const py = (code) => `python3 -c "${code}"`;
const corpusB = [
  ...modes.map((m) => `${H} ${m} ${V}`),
  py(`import os; os.execv('/bin/rm', ['x', '${V}'])`),
  py(`import os; os.execvp('rm', ['x', '${V}'])`),
  py(`import os; os.posix_spawn('/bin/rm', ['x', '${V}'], dict(os.environ)); os.wait()`),
  py(`import os; os.system('rm ${V}; touch PWNED')`),
  py(`import subprocess; subprocess.run(['touch', 'PWNED'])`),
  py(`import subprocess; subprocess.run('cd . && rm ${V}', shell=True)`),
  py(`import os; os.execv('/usr/bin/env', ['env', 'rm', '${V}'])`),
  py(`import os; os.execv('/lib64/ld-linux-x86-64.so.2', ['x', '/bin/rm', '${V}'])`),
  py(`import os; os.execv('/lib64/ld-linux-x86-64.so.2', ['x', '--argv0', 'ls', '/usr/bin/touch', 'PWNED'])`),
  py(`import os; fd = os.open('/bin/rm', os.O_RDONLY); os.execv('/proc/self/fd/%d' % fd, ['x', '${V}'])`),
  py(`import os; fd = os.open('/usr/bin/touch', os.O_RDONLY); os.execv('/dev/fd/%d' % fd, ['x', 'PWNED'])`),
  py(`import os; fd = os.open('/bin/rm', os.O_RDONLY); os.execve(fd, ['x', '${V}'], {})`),
  py(`import os; fd = os.memfd_create('ls'); os.write(fd, open('/bin/rm', 'rb').read()); os.execve(fd, ['ls', '${V}'], {})`),
  py(`import os; os.symlink('/usr/bin/touch', 'ls'); os.execv('./ls', ['ls', 'PWNED'])`),
  py(`import os; os.symlink('/proc/self/fd/3', 'ls'); os.dup2(os.open('/bin/rm', os.O_RDONLY), 3, False); os.execv('./ls', ['ls', '${V}'])`),
  py(`import os; os.mkdir('d'); os.symlink('/usr/bin', 'd/l'); os.execv('d/l/../bin/rm', ['x', '${V}'])`),
  py(`import os; open('k', 'w').write('#!/bin/rm -f\\n'); os.chmod('k', 0o755); os.execv('./k', ['k', '${V}'])`),
  py(`import os; open('k', 'w').write('#!/usr/bin/touch\\n'); os.chmod('k', 0o755); os.execv('./k', ['k', 'PWNED'])`),
  py(`import os; open('k', 'w').write('#!/usr/bin/env rm\\n'); os.chmod('k', 0o755); os.execv('./k', ['k', '${V}'])`),
  py(`import os; os.execv('/bin/sh', ['sh', '-c', 'rm ${V}'])`),
  py(`import os; os.execv('/bin/bash', ['-bash', '-c', 'X=rm; \\$X ${V}'])`),
  py(`import os; os.execv('/usr/bin/xargs', ['xargs', '-a', '/dev/null', 'touch', 'PWNED'])`),
  py(`import os, threading; threading.Thread(target=lambda: os.execv('/bin/rm', ['x', '${V}'])).start()`),
  // multi-call binaries (busybox is in setup.sh's test packages)
  py(`import os; os.execv('/usr/bin/busybox', ['busybox', 'rm', '${V}'])`),
  py(`import os; os.execv('/usr/bin/busybox', ['rm', '${V}'])`),
  py(`import os; os.execv('/usr/bin/busybox', ['busybox', 'touch', 'PWNED'])`),
  py(`import os; os.symlink('/usr/bin/busybox', 'ls'); os.execv('./ls', ['rm', '${V}'])`),
  py(`import os; os.execv('/usr/bin/busybox', ['busybox', 'sh', '-c', 'busybox rm ${V}; rm ${V}'])`),
  py(`import os; os.execv('/usr/bin/busybox', ['busybox', 'sh', '-c', 'echo PWNED | busybox xargs busybox touch'])`),
  `${py(`open('M', 'w').write('x:\\n\\trm -f ${V}\\n')`)} && make -f M x`,
  `${py(`open('M', 'w').write('x:\\n\\t@echo \\$(shell touch PWNED)\\n')`)} && make -f M x`,
  `${py(`open('M', 'w').write('SHELL=/usr/bin/touch\\nx:\\n\\tPWNED\\n')`)} && make -f M x`,
  `${py(`open('M', 'w').write('x:\\n\\tfind . -name ${V} -exec rm {} +\\n')`)} && make -f M x`,
];
const big = "ls ${x:-".repeat(3 * 1024 * 1024 / 7) + "}".repeat(3 * 1024 * 1024 / 7);

// CORPUS_FILTER=regex runs only the matching texts (to check quickly that
// a weakened check makes this test fail); the count then says so.
const only = process.env.CORPUS_FILTER ? new RegExp(process.env.CORPUS_FILTER) : null;
const pick = (texts) => only ? texts.filter((c) => only.test(JSON.stringify(c))) : texts;
let failed = 0;
const fail = (name, why) => { failed++; console.log(`FAIL ${name}: ${why}`); };

// The workspace is not trusted, so its own vtcode.toml rules apply only when
// named explicitly with --config (an explicit --config is trusted).
function workspace(toml = TOML) {
  const ws = mkdtempSync(join(tmpdir(), "vthost-bypass-"));
  writeFileSync(join(ws, "vtcode.toml"), toml);
  writeFileSync(join(ws, V), "precious\n");
  spawnSync("git", ["init", "-q", ws]);
  spawnSync("git", ["-C", ws, "add", V]);
  const myshell = join(ws, "myshell");
  writeFileSync(myshell, "#!/bin/sh\nexec /bin/sh \"$@\"\n");
  chmodSync(myshell, 0o755);
  const evil = join(ws, "evilshell"); // harms without any execve
  writeFileSync(evil, "#!/bin/sh\n: > PWNED\nexec /bin/sh \"$@\"\n");
  chmodSync(evil, 0o755);
  return ws;
}
function pwned(dir, depth = 0) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith("PWNED")) return join(dir, e.name);
    if (e.isDirectory() && depth < 4 && e.name !== ".git") {
      const p = pwned(join(dir, e.name), depth + 1);
      if (p) return p;
    }
  }
  return null;
}
function check(name, ws) {
  const p = pwned(ws);
  if (p) fail(name, `${p} appeared`);
  if (!existsSync(join(ws, V))) fail(name, "the victim was removed");
  const outside = join(dirname(ws), "PWNED");
  if (existsSync(outside)) { fail(name, `${outside} appeared`); rmSync(outside, { force: true }); }
  if (existsSync("/tmp/" + V)) { rmSync("/tmp/" + V, { force: true }); }
}
const argsOf = (c, ws) => Array.isArray(c) ? { cmd: c[0], shell: c[1].replace(/^WS\//, ws + "/"), yield_time_ms: 3000 } : { cmd: c, yield_time_ms: 3000 };
const crashed = (r) => r.signal || r.status === null || r.status > 2 || /Sanitizer|runtime error/.test(r.stderr || "");

// ---- explain and call, one scratch workspace per text ----------------------------
// `mustRun`: the static check allows the text, so a refusal up front would
// make the case test nothing (the run-time check must be what holds).
function explainAndCall(texts, toml, mustRun) {
  for (const c of texts) {
    const name = JSON.stringify(c);
    const ws = workspace(toml);
    const a = JSON.stringify(argsOf(c, ws));
    const ex = spawnSync(bin, ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "explain", "exec_command", a], { encoding: "utf8", timeout: 30000 });
    if (crashed(ex)) fail(`explain ${name}`, `status ${ex.status} signal ${ex.signal} ${ex.stderr}`);
    if (mustRun && !/"decision":\s*"allow"/.test(ex.stdout)) fail(`explain ${name}`, `not allowed up front: ${ex.stdout.slice(0, 300)}`);
    const r = spawnSync(bin, ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "call", "exec_command", a], { encoding: "utf8", timeout: 30000 });
    if (crashed(r)) fail(`call ${name}`, `status ${r.status} signal ${r.signal} ${r.stderr}`);
    // A denied program masked in the session fails at its execve (the
    // shell reports 126 or 127 with "Permission denied"): the text ran.
    if (mustRun && !/"exit_code":(?!127\b)/.test(r.stdout) && !/Permission denied/.test(r.stdout)) fail(`call ${name}`, `did not run: ${(r.stdout + r.stderr).slice(0, 300)}`);
    spawnSync("sleep", ["0.2"]);
    check(`call ${name}`, ws);
    rmSync(ws, { recursive: true, force: true });
  }
}
explainAndCall(pick(corpus), TOML, false);
explainAndCall(pick(corpusB), TOML_B, true);
// ---- the 3 MB nesting: no crash --------------------------------------------------
if (!only) {
  const ws = workspace();
  const f = join(ws, "big.json");
  writeFileSync(f, JSON.stringify({ cmd: big }));
  for (const verb of ["explain", "call"]) {
    const r = spawnSync(bin, ["--workspace", ws, "--config", join(ws, "vtcode.toml"), verb, "exec_command", "-"], { input: JSON.stringify({ cmd: big }), encoding: "utf8", timeout: 60000, maxBuffer: 64 << 20 });
    if (crashed(r)) fail(`${verb} 3 MB nesting`, `status ${r.status} signal ${r.signal}`);
  }
  rmSync(ws, { recursive: true, force: true });
}

// ---- serve: the same texts through one MCP server, raw JSON-RPC ------------------
async function serve(texts, toml) {
  const ws = workspace(toml);
  const p = spawn(bin, ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "serve"], { stdio: ["pipe", "pipe", "pipe"] });
  let buf = "", waiters = new Map(), stderr = "";
  p.stderr.on("data", (d) => { stderr += d; if (stderr.length > 1e5) stderr = stderr.slice(-5e4); });
  p.stdout.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i); buf = buf.slice(i + 1);
      let m; try { m = JSON.parse(line); } catch { continue; }
      if (m.id !== undefined && waiters.has(m.id)) { waiters.get(m.id)(m); waiters.delete(m.id); }
    }
  });
  let exited = null;
  p.on("exit", (code, sig) => { exited = { code, sig }; for (const w of waiters.values()) w(null); });
  let id = 0;
  const rpc = (method, params) => new Promise((res) => {
    if (exited) return res(null);
    const n = ++id; waiters.set(n, res);
    p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: n, method, params }) + "\n");
  });
  await rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bypass", version: "1" } });
  p.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  for (const c of texts) {
    const name = c === big ? "3 MB nesting" : JSON.stringify(c);
    const r = await rpc("tools/call", { name: "exec_command", arguments: argsOf(c, ws) });
    if (!r) { fail(`serve ${name}`, `the server exited ${JSON.stringify(exited)} ${stderr.slice(-500)}`); break; }
    await new Promise((res) => setTimeout(res, 150));
    check(`serve ${name}`, ws);
    for (const e of readdirSync(ws)) if (e !== "vtcode.toml" && e !== ".git" && e !== "myshell" && e !== "evilshell") rmSync(join(ws, e), { recursive: true, force: true });
    if (!existsSync(join(ws, V))) writeFileSync(join(ws, V), "precious\n");
  }
  p.stdin.end();
  await new Promise((res) => (exited ? res() : p.on("exit", res)));
  if (/Sanitizer|runtime error/.test(stderr)) fail("serve", `sanitizer report: ${stderr.slice(-2000)}`);
  rmSync(ws, { recursive: true, force: true });
}
await serve(only ? pick(corpus) : [...corpus, big], TOML);
await serve(pick(corpusB), TOML_B);

// the corpus is not vacuous: the allowed commands run
{
  const ws = workspace();
  const r = spawnSync(bin, ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "call", "exec_command", JSON.stringify({ cmd: "git status && ls -la" })], { encoding: "utf8" });
  let o = {}; try { o = JSON.parse(r.stdout); } catch { /* below */ }
  if (o.exit_code !== 0 || !/victim/.test(o.output || "")) fail("allowed commands run", r.stdout + r.stderr);
  const d = spawnSync(bin, ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "call", "exec_command", JSON.stringify({ cmd: "X=rm; ls; $X victim" })], { encoding: "utf8" });
  try { o = JSON.parse(d.stdout); } catch { o = {}; }
  if (!Array.isArray(o.denied_execs) || o.denied_execs[0].program !== "rm" || o.denied_execs[0].argv[1] !== V)
    fail("denied_execs lists the refused rm", d.stdout + d.stderr);
  rmSync(ws, { recursive: true, force: true });
}
// ... and so do the programs an allowed program starts, when no rule denies them
{
  const ws = workspace(TOML_B);
  const r = spawnSync(bin, ["--workspace", ws, "--config", join(ws, "vtcode.toml"), "call", "exec_command",
    JSON.stringify({ cmd: `${H} threadok ran && ${py("import os; os.execv('/bin/cp', ['cp', '/dev/null', 'ran2'])")}` })], { encoding: "utf8" });
  if (!existsSync(join(ws, "ran.ok")) || !existsSync(join(ws, "ran2"))) fail("programs under allowed ones run", r.stdout + r.stderr);
  rmSync(ws, { recursive: true, force: true });
}
if (only) console.log(`CORPUS_FILTER: ${pick(corpus).length + pick(corpusB).length} texts of ${corpus.length + corpusB.length}`);
console.log(`${corpus.length + corpusB.length} texts (${corpusB.length} through allowed programs; + the 3 MB nesting) through explain, call and serve: ${failed ? failed + " failures" : "no bypass"}`);
process.exit(failed ? 1 : 0);
