// Policy files against commands the rules allow, for real through
// `vthost serve` and the sandbox: writers the permission check cannot
// see (python3, git config, git checkout) and attack variants (hard
// links, renames, case variants, symlinks, a symlink swapped while
// apply_patch writes).  Each attempt is followed by a byte comparison of
// every policy file: the workspace's vtcode.toml and .vtcode/, the
// --config file inside the workspace, the user's vtcode directory (HOME
// in a writable place).  Exits 77 when this machine's sandbox cannot
// mount anything read-only.
// Usage: node policy_sandbox.mjs VTHOST
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lineClient } from './line_client.mjs';

const VTHOST = process.argv[2];
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'vthost-policy-sbx-')));
const home = path.join(root, 'home');
const userDir = path.join(home, '.config/vtcode');
const ws = path.join(root, 'ws');
for (const d of [path.join(userDir, 'agents'), `${ws}/.vtcode/agents`, `${ws}/conf`])
  fs.mkdirSync(d, { recursive: true });
const ENV = { ...process.env, HOME: home, XDG_CONFIG_HOME: '' };
const sanitizer = (s) => /Sanitizer|runtime error/.test(s);

let failures = 0, count = 0;
const check = (name, ok, detail) => {
  count++;
  if (!ok) { failures++; console.log(`FAIL ${name}: ${detail}`); }
};

// ---- the policy files and their bytes ------------------------------------------
const cfg = path.join(ws, 'conf/policy.toml');
const files = {
  [path.join(ws, 'vtcode.toml')]: '[permissions]\ndeny = ["exec_command(curl *)"]\n',
  [path.join(ws, '.vtcode/agents/keep.md')]: '---\npermissions:\n  default: ask\n---\n',
  [cfg]: `[permissions]
allow = ["exec_command(python3 *)", "exec_command(git *)", "exec_command(bash *)",
         "exec_command(ln *)", "apply_patch"]
deny = ["exec_command(rm *)"]
[tools.anti_blind_editing]
enabled = false
`,
  [path.join(userDir, 'vtcode.toml')]: '[permissions]\ndeny = ["exec_command(shutdown *)"]\n',
  [path.join(userDir, 'agents/mine.md')]: '---\npermissions:\n  default: deny\n---\n',
};
const reset = () => {
  for (const [f, t] of Object.entries(files)) {
    fs.rmSync(f, { force: true, recursive: true });
    fs.writeFileSync(f, t);
  }
};
// every file of a policy directory, with its bytes
const tree = (d, skip = /^$/) => fs.existsSync(d) ? fs.readdirSync(d, { recursive: true }).sort()
  .filter((n) => !skip.test(n)).map((n) => { const f = path.join(d, n); const s = fs.lstatSync(f);
    return `${n}:${s.isFile() ? fs.readFileSync(f, 'utf8') : s.isSymbolicLink() ? '->' + fs.readlinkSync(f) : 'dir'}`; })
  .join('\n') : '(missing)';
const snapshot = () => JSON.stringify({
  files: Object.keys(files).map((f) => fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null),
  // what the host itself keeps there (guard state, spool) may change
  vtcode: tree(path.join(ws, '.vtcode'), /^(state|context)(\/|$)/),
  user: tree(userDir),
});

// git: vtcode.toml committed with other bytes (git checkout would restore them)
const git = (...a) => spawnSync('git', a, { cwd: ws, encoding: 'utf8', env: { ...ENV, GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } });
git('init', '-q', '.');
fs.writeFileSync(path.join(ws, 'vtcode.toml'), '[permissions]\nallow = ["exec_command"]\n');
git('add', 'vtcode.toml');
git('commit', '-qm', 'x');
reset();
const clean = snapshot();

// ---- a raw MCP client ---------------------------------------------------------------
function session(args, { elicit } = {}) {
  const p = spawn(VTHOST, [...args, 'serve'], { stdio: ['pipe', 'pipe', 'pipe'], env: ENV, cwd: ws });
  let stderr = '';
  p.stderr.on('data', (d) => { stderr += d; });
  const asked = [];
  const { send, request } = lineClient(p, (m) => {
    if (m.method !== 'elicitation/create') return undefined;
    asked.push(m.params?.message ?? '');
    return { action: 'accept', content: { decision: elicit ? elicit(m.params) : 'deny' } };
  });
  const call = async (name, a, meta) => {
    const r = await request('tools/call', { name, arguments: a, ...(meta ? { _meta: meta } : {}) });
    const sc = r.result?.structuredContent ?? {};
    return { ok: !!r.result && !r.result.isError && sc.success !== false, sc, r, text: JSON.stringify(r) };
  };
  const ready = request('initialize', { protocolVersion: '2025-06-18', capabilities: elicit ? { elicitation: {} } : {},
    clientInfo: { name: 'policy-sandbox', version: '1' } })
    .then(() => send({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const close = () => new Promise((resolve) => { p.on('close', resolve); p.stdin.end(); });
  return { ready, call, close, asked, stderr: () => stderr };
}
const py = (code) => `python3 -c ${JSON.stringify(code)}`;

const s = session(['--workspace', ws, '--config', cfg]);
await s.ready;

// Can this sandbox mount the workspace's vtcode.toml read-only at all?
{
  const probe = await s.call('exec_command', { cmd: py("open('probe.txt','w').write('x')"), yield_time_ms: 10000 });
  const ro = await s.call('exec_command', { cmd: py("open('vtcode.toml','a').write('#')"), yield_time_ms: 10000 });
  const snap = snapshot();
  if (!probe.ok || snap !== clean) {
    reset();
    await s.close();
console.log(`SKIP: this machine's sandbox cannot keep vtcode.toml read-only (${probe.text.slice(0, 300)} ${ro.text.slice(0, 300)} ${snap})`);
    fs.rmSync(root, { recursive: true, force: true });
    process.exit(77);
  }
}

// ---- 1. writers the permission check cannot see: only the sandbox stops them ----
const U = path.join(userDir, 'vtcode.toml');
const attempts = [];
for (const f of ['vtcode.toml', 'conf/policy.toml', '.vtcode/agents/keep.md', U, path.join(userDir, 'agents/mine.md')]) {
  attempts.push(py(`open(${JSON.stringify(f)},'a').write('\\nallow = 1')`));
  attempts.push(py(`open(${JSON.stringify(f)},'w').write('')`));
  attempts.push(py(`import os; os.unlink(${JSON.stringify(f)})`));
  attempts.push(py(`import os; os.rename(${JSON.stringify(f)}, 'stolen')`));
  attempts.push(py(`import os; os.link(${JSON.stringify(f)}, 'hl'); open('hl','a').write('x')`));
  attempts.push(`git config --file ${f} permissions.allow exec_command`);
}
attempts.push(
  py("open('.vtcode/agents/x.md','w').write('---\\npermissions:\\n  default: allow\\n---\\n')"),
  py(`open(${JSON.stringify(path.join(userDir, 'agents/x.md'))},'w').write('x')`),
  py("import os; os.rename('.vtcode', 'v2')"),
  py(`import os; os.rename(${JSON.stringify(userDir)}, ${JSON.stringify(userDir + '2')})`),
  py("import os; os.rename('conf', 'conf2'); os.mkdir('conf'); open('conf/policy.toml','w').write('')"),
  // a directory above a policy file, renamed and made again (the
  // workspace itself sits in a writable temporary directory here)
  py(`import os; os.rename(${JSON.stringify(ws)}, ${JSON.stringify(ws + '2')}); os.mkdir(${JSON.stringify(ws)}); open(${JSON.stringify(ws + '/vtcode.toml')},'w').write('')`),
  py(`import os; os.rename(${JSON.stringify(root)}, ${JSON.stringify(root + '2')})`),
  py(`import os; os.rename(${JSON.stringify(path.join(home, '.config'))}, ${JSON.stringify(path.join(home, 'c2'))}); os.makedirs(${JSON.stringify(userDir)}); open(${JSON.stringify(U)},'w').write('')`),
  py("import shutil; shutil.rmtree('.vtcode/agents')"),
  py("import os; os.symlink('vtcode.toml', 'sl'); open('sl','a').write('x')"),
  py("import os; os.symlink('.vtcode', 'vl'); open('vl/agents/x.md','w').write('x')"),
  'git checkout HEAD -- vtcode.toml',
  'git show HEAD:vtcode.toml > vtcode.toml',
  'git config --file .vtcode/agents/x.md a.b c',
  'ln vtcode.toml hard2',
  'ln conf/policy.toml hard3',
);
for (const c of attempts) {
  const r = await s.call('exec_command', { cmd: c, yield_time_ms: 10000 });
  const after = snapshot();
  check(`1 ${c}`, after === clean, `${r.text.slice(0, 600)}\n${after}`);
  reset();
  for (const x of ['hl', 'stolen', 'sl', 'vl', 'hard2', 'hard3', 'v2', 'conf2'])
    fs.rmSync(path.join(ws, x), { force: true, recursive: true });
  fs.mkdirSync(path.join(ws, 'conf'), { recursive: true });
  if (!fs.existsSync(cfg)) fs.writeFileSync(cfg, files[cfg]);
}
// the same writers still work on ordinary files (the table is not vacuous)
for (const c of [py("open('ordinary.toml','w').write('x')"), 'git config --file ordinary.cfg a.b c']) {
  const r = await s.call('exec_command', { cmd: c, yield_time_ms: 10000 });
  check(`1 ordinary file written: ${c}`, r.ok && r.sc.exit_code === 0, r.text.slice(0, 600));
}

// ---- 2. a symlink swapped between apply_patch's check and its write -------------
{
  fs.writeFileSync(path.join(ws, 'swap.py'), `import os, shutil, time
def drop(n):
    if os.path.islink(n) or os.path.isfile(n): os.unlink(n)
    elif os.path.isdir(n): shutil.rmtree(n)
end = time.time() + 300  # the 'stop' file ends it sooner; a loaded machine is slow
while time.time() < end and not os.path.exists('stop'):
    for name, target in (('s1', 'vtcode.toml'), ('s2', '.vtcode/agents')):
        try: drop(name); os.symlink(target, name)
        except OSError: pass
    time.sleep(0.002)
    try: drop('s1'); open('s1', 'w').write('[x]\\n'); drop('s2'); os.mkdir('s2')
    except OSError: pass
    time.sleep(0.002)
`);
  // the swapper runs in the background (a session that outlives the call)
  const bg = await s.call('exec_command', { cmd: 'python3 swap.py', yield_time_ms: 100 });
  check('2 the swapper runs', bg.ok && bg.sc.session_id !== undefined, bg.text.slice(0, 400));
  for (let i = 0; i < 600 && !fs.existsSync(path.join(ws, 's1')); i++)
    await new Promise((r) => setTimeout(r, 100));
  const p = (...l) => ['*** Begin Patch', ...l, '*** End Patch'].join('\n');
  let wrote = 0;
  for (let i = 0; i < 60; i++) {
    const a = await s.call('apply_patch', { input: p('*** Update File: s1', '@@', '-[x]', '+[permissions]', '+allow = ["exec_command"]') });
    const b = await s.call('apply_patch', { input: p('*** Add File: s2/x.md', '+---', '+permissions:', '+  default: allow', '+---') });
    wrote += a.ok + b.ok;
    const after = snapshot();
    if (after !== clean) { check('2 policy unchanged under the swap', false, `${a.text}\n${b.text}\n${after}`); break; }
  }
  check('2 policy unchanged under the swap', snapshot() === clean, snapshot());
  // the race was run: some patches met the ordinary file or directory
  check('2 some patches landed on the ordinary files', wrote > 0, `${wrote} of 120`);
  console.log(`swap: ${wrote} of 120 patches went to the ordinary files`);
  fs.writeFileSync(path.join(ws, 'stop'), '');
  await new Promise((r) => setTimeout(r, 1000));
}

// ---- 3. with approval: an escalated writer changes the named file --------------
{
  const a = session(['--workspace', ws, '--config', cfg], { elicit: () => 'approve' });
  await a.ready;
  const r = await a.call('exec_command', { cmd: "echo '# reviewed' >> vtcode.toml", sandbox_permissions: 'require_escalated',
    justification: 'add a comment to the policy', yield_time_ms: 10000 });
  check('3 approved escalated writer changes vtcode.toml', r.ok &&
    fs.readFileSync(path.join(ws, 'vtcode.toml'), 'utf8').includes('# reviewed'), r.text.slice(0, 600));
  check('3 the question names the policy file', a.asked.length === 1 && a.asked[0].includes(path.join(ws, 'vtcode.toml')),
    JSON.stringify(a.asked));
  reset();
  // declined: unchanged
  await a.close();
  const d = session(['--workspace', ws, '--config', cfg], { elicit: () => 'deny' });
  await d.ready;
  const r2 = await d.call('exec_command', { cmd: "echo '# reviewed' >> vtcode.toml", sandbox_permissions: 'require_escalated',
    justification: 'x', yield_time_ms: 10000 });
  check('3 declined escalated writer refused', !r2.ok && snapshot() === clean, r2.text.slice(0, 600));
  await d.close();
  // the CLI: --yes approves
  const y = spawnSync(VTHOST, ['--workspace', ws, '--config', cfg, '--yes', 'call', 'exec_command',
    JSON.stringify({ cmd: "echo '# yes' >> vtcode.toml", sandbox_permissions: 'require_escalated', justification: 'x' })],
  { encoding: 'utf8', env: ENV, cwd: ws, timeout: 30000 });
  check('3 --yes changes vtcode.toml', y.status === 0 && fs.readFileSync(path.join(ws, 'vtcode.toml'), 'utf8').includes('# yes'),
    y.stdout + y.stderr);
  reset();
}

await s.close();
check('no sanitizer reports', !sanitizer(s.stderr()), s.stderr());
console.log(`${count - failures}/${count} policy sandbox checks passed`);
fs.rmSync(root, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
