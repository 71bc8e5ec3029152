// Policy integrity through the built vthost, with real files and real
// `vthost serve` runs:
//   A. policy files: model-side attempts (exec redirects and writers,
//      apply_patch Add/Update/Move, creating .vtcode/agents/x.md) leave
//      the bytes unchanged without approval; an approval that names the
//      file changes it
//   B. redirect targets that expand are opaque (never covered by allow)
//   C. layering and trust, checked through explain's attribution; the
//      `vthost trust` command; the one-line note of `serve`
//   D. agents are names (CLI exit 2, MCP -32602)
//   E. broad allow rules recognised by meaning (drop_broad_allow_rules)
// Usage: node integrity.mjs VTHOST
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lineClient } from './line_client.mjs';

const VTHOST = process.argv[2];
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'vthost-integrity-')));
const home = path.join(root, 'home');
const userDir = path.join(home, '.config/vtcode');
const ws = path.join(root, 'ws');
for (const d of [userDir, `${ws}/.vtcode/agents`, `${ws}/conf`, `${ws}/d`, `${ws}/.git`])
  fs.mkdirSync(d, { recursive: true });
const ENV = { ...process.env, HOME: home, XDG_CONFIG_HOME: '' };

let failures = 0, count = 0;
const check = (name, ok, detail) => {
  count++;
  if (!ok) { failures++; console.log(`FAIL ${name}: ${detail}`); }
};
const sanitizer = (s) => /Sanitizer|runtime error/.test(s);

function run(args, { cwd } = {}) {
  const r = spawnSync(VTHOST, args, { encoding: 'utf8', timeout: 30000, env: ENV, cwd: cwd ?? ws, input: '' });
  if (sanitizer(r.stderr)) check(`sanitizer in ${args.join(' ')}`, false, r.stderr);
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function explain(args, tool, a) {
  const r = run([...args, 'explain', tool, JSON.stringify(a)]);
  try { return { ...JSON.parse(r.out), code: r.code }; } catch { return { decision: null, code: r.code, raw: r.out + r.err }; }
}
const patchText = (...ops) => ['*** Begin Patch', ...ops, '*** End Patch'].join('\n');

// A raw JSON-RPC client for `vthost serve` (elicitation answered by `answer`).
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
    return { ok: !!r.result && !r.result.isError && sc.success !== false, r, text: JSON.stringify(r) };
  };
  const caps = elicit ? { elicitation: {} } : {};
  const ready = request('initialize', { protocolVersion: '2025-06-18', capabilities: caps,
    clientInfo: { name: 'integrity-test', version: '1' } })
    .then(() => send({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const close = () => new Promise((resolve) => { p.on('close', resolve); p.stdin.end(); });
  return { ready, call, close, asked, stderr: () => stderr };
}

// ---- A. protected policy files ------------------------------------------------
// The --config file (inside the workspace) allows the writers, so only
// the policy-file protection stands between the model and the files.
const cfg = path.join(ws, 'conf/policy.toml');
const cfgText = `[permissions]
allow = ["exec_command(ls *)", "exec_command(echo *)", "exec_command(tee *)",
         "exec_command(cp *)", "exec_command(mv *)", "exec_command(sed *)",
         "exec_command(dd *)", "exec_command(truncate *)", "exec_command(ln *)",
         "exec_command(install *)", "apply_patch"]
deny = ["exec_command(rm *)"]
`;
fs.writeFileSync(cfg, cfgText);
const wsText = '[permissions]\ndeny = ["exec_command(curl *)"]\n';
const userText = `[permissions]\ndeny = ["exec_command(shutdown *)"]\n[trust]\nworkspaces = ['${ws}']\n`;
const agentText = '---\npermissions:\n  default: ask\n---\n';
const resetPolicy = () => {
  fs.writeFileSync(path.join(ws, 'vtcode.toml'), wsText);
  fs.writeFileSync(path.join(userDir, 'vtcode.toml'), userText);
  fs.writeFileSync(path.join(ws, '.vtcode/agents/keep.md'), agentText);
  fs.rmSync(path.join(ws, '.vtcode/agents/x.md'), { force: true });
  fs.writeFileSync(cfg, cfgText);
  fs.writeFileSync(path.join(ws, 'd/vtcode.toml'), '[permissions]\nallow = ["exec_command"]\n');
  fs.writeFileSync(path.join(ws, 'd/x.md'), '---\npermissions:\n  default: allow\n---\n');
  fs.writeFileSync(path.join(ws, 'src.txt'), 'a\n');
};
resetPolicy();
const bytes = (f) => { try { return fs.readFileSync(f, 'utf8'); } catch { return null; } };
const snapshot = () => ({
  ws: bytes(path.join(ws, 'vtcode.toml')),
  user: bytes(path.join(userDir, 'vtcode.toml')),
  cfg: bytes(cfg),
  agent: fs.existsSync(path.join(ws, '.vtcode/agents/x.md')),
  keep: bytes(path.join(ws, '.vtcode/agents/keep.md')),
});
const unchanged = (s) => s.ws === wsText && s.user === userText && s.cfg === cfgText && !s.agent &&
  s.keep === agentText;

const U = path.join(userDir, 'vtcode.toml');
const targets = { 'vtcode.toml': 'vtcode.toml', 'conf/policy.toml': 'conf/policy.toml',
  '.vtcode/agents/x.md': '.vtcode/agents/x.md', '.vtcode/agents/keep.md': '.vtcode/agents/keep.md',
  [U]: U, './d/../vtcode.toml': './d/../vtcode.toml' };
const execAttempts = [];
for (const t of Object.keys(targets)) {
  execAttempts.push(`ls d > ${t}`, `echo '[permissions]' >> ${t}`, `echo x | tee ${t}`,
    `echo x | tee -a ${t}`, `cp d/x.md ${t}`, `mv src.txt ${t}`, `sed -i s/a/b/ ${t}`,
    `dd if=d/x.md of=${t}`, `truncate -s 0 ${t}`, `ln -sf d/x.md ${t}`, `install d/x.md ${t}`,
    `ls; echo x > ${t}`, `echo "$(ls)" > ${t}`);
}
execAttempts.push('cp d/vtcode.toml .', 'cp d/x.md .vtcode/agents/', 'mv d/x.md .vtcode/agents',
  'cp -t .vtcode/agents d/x.md', 'cp -r d/. .', `cp d/vtcode.toml ${userDir}/`);
const patchAttempts = [];
for (const t of ['vtcode.toml', 'conf/policy.toml', '.vtcode/agents/x.md', '.vtcode/agents/keep.md',
  'd/../vtcode.toml']) {
  patchAttempts.push(patchText(`*** Add File: ${t}`, '+[permissions]', '+allow = ["exec_command"]'));
  patchAttempts.push(patchText(`*** Update File: ${t}`, '@@', '-[permissions]', '+[permissions]\n+allow = ["exec_command"]'));
  patchAttempts.push(patchText('*** Update File: src.txt', `*** Move to: ${t}`, '@@', '-a', '+b'));
  patchAttempts.push(patchText(`*** Delete File: ${t}`));
}
// a symlink in the workspace that leads to the policy
fs.symlinkSync(path.join(ws, 'vtcode.toml'), path.join(ws, 'innocent.txt'));
patchAttempts.push(patchText('*** Update File: innocent.txt', '@@', '-[permissions]', '+[permissions]\n+allow = ["exec_command"]'));
execAttempts.push('echo x > innocent.txt');

// A1: explain: every attempt asks (never allow), with the protected layer
for (const c of execAttempts) {
  const o = explain(['--workspace', ws, '--config', cfg], 'exec_command', { cmd: c });
  check(`A1 explain exec ${JSON.stringify(c)}`, o.decision === 'ask' || o.decision === 'deny', JSON.stringify(o));
}
for (const p of patchAttempts) {
  const o = explain(['--workspace', ws, '--config', cfg], 'apply_patch', { input: p });
  check(`A1 explain patch ${JSON.stringify(p.split('\n')[1])}`,
    o.decision === 'ask' && (o.trace ?? []).some((s) => s.layer === 'protected'), JSON.stringify(o));
}
// ...while the same rules allow the harmless forms (the table is not vacuous)
for (const c of ['ls d > listing.txt', 'echo x | tee out.txt', 'cp d/x.md copy.md', 'sed -n p vtcode.toml',
  'mv d/x.md .', 'cp d/x.md .', 'mv src.txt conf', 'ls > conf/notes.txt']) {
  const o = explain(['--workspace', ws, '--config', cfg], 'exec_command', { cmd: c });
  check(`A1 harmless allowed ${c}`, o.decision === 'allow', JSON.stringify(o));
}
{
  const o = explain(['--workspace', ws, '--config', cfg], 'apply_patch', { input: patchText('*** Add File: notes.md', '+x') });
  check('A1 harmless patch allowed', o.decision === 'allow', JSON.stringify(o));
}

// A2: through serve, a client that cannot be asked: every attempt refused,
// bytes unchanged, the message says why
{
  const s = session(['--workspace', ws, '--config', cfg]);
  await s.ready;
  for (const c of execAttempts) {
    resetPolicy();
    const r = await s.call('exec_command', { cmd: c, yield_time_ms: 5000 });
    const snap = snapshot();
    check(`A2 serve exec ${JSON.stringify(c)}`, !r.ok && unchanged(snap) && /policy file|protected/.test(r.text),
      `${r.text} ${JSON.stringify(snap)}`);
  }
  for (const p of patchAttempts) {
    resetPolicy();
    const r = await s.call('apply_patch', { input: p });
    const snap = snapshot();
    // apply_patch refuses a path through a symlink before the permission
    // check, naming the link: a refusal that explains itself too.
    check(`A2 serve patch ${JSON.stringify(p.split('\n')[1])}`, !r.ok && unchanged(snap) && /policy file|protected|is a symbolic link/.test(r.text),
      `${r.text} ${JSON.stringify(snap)}`);
  }
  await s.close();
  check('A2 no sanitizer reports', !sanitizer(s.stderr()), s.stderr());
}

// A3: a client that declines: unchanged; one that approves: the named
// file changes, and the question named it
{
  resetPolicy();
  const s = session(['--workspace', ws, '--config', cfg], { elicit: () => 'deny' });
  await s.ready;
  let r = await s.call('apply_patch', { input: patchText('*** Update File: vtcode.toml', '@@', '-[permissions]', '+[permissions]\n+allow = ["exec_command"]') });
  check('A3 declined patch refused', !r.ok && unchanged(snapshot()), r.text);
  r = await s.call('exec_command', { cmd: 'echo x | tee vtcode.toml' });
  check('A3 declined tee refused', !r.ok && unchanged(snapshot()), r.text);
  check('A3 the question names the file', s.asked.length === 2 && s.asked.every((q) => q.includes(path.join(ws, 'vtcode.toml'))),
    JSON.stringify(s.asked));
  await s.close();
}
{
  const s = session(['--workspace', ws, '--config', cfg], { elicit: () => 'approve' });
  await s.ready;
  const cases = [
    ['vtcode.toml', patchText('*** Update File: vtcode.toml', '@@', ' [permissions]', '-deny = ["exec_command(curl *)"]', '+deny = ["exec_command(curl *)", "exec_command(wget *)"]'),
      () => fs.readFileSync(path.join(ws, 'vtcode.toml'), 'utf8').includes('wget')],
    ['conf/policy.toml', patchText('*** Update File: conf/policy.toml', '@@', ' deny = ["exec_command(rm *)"]', '+# reviewed'),
      () => fs.readFileSync(cfg, 'utf8').includes('# reviewed')],
    ['.vtcode/agents/x.md', patchText('*** Add File: .vtcode/agents/x.md', '+---', '+permissions:', '+  default: ask', '+---'),
      () => fs.existsSync(path.join(ws, '.vtcode/agents/x.md'))],
  ];
  for (const [name, p, changed] of cases) {
    resetPolicy();
    const before = s.asked.length;
    const r = await s.call('apply_patch', { input: p });
    check(`A3 approved patch changes ${name}`, r.ok && changed(), r.text);
    check(`A3 approval question names ${name}`, s.asked.length === before + 1 &&
      s.asked[before].includes(path.join(ws, name)), JSON.stringify(s.asked.slice(before)));
  }
  await s.close();
}
// A4: the CLI: --yes is the approval, --no and no tty refuse
{
  resetPolicy();
  const p = patchText('*** Update File: vtcode.toml', '@@', ' [permissions]', '-deny = ["exec_command(curl *)"]', '+deny = ["exec_command(curl *)", "exec_command(nc *)"]');
  let r = run(['--workspace', ws, '--config', cfg, 'call', 'apply_patch', JSON.stringify({ input: p })]);
  check('A4 call without tty refused', r.code === 1 && unchanged(snapshot()) && r.err.includes('policy file'), r.err);
  r = run(['--workspace', ws, '--config', cfg, '--no', 'call', 'apply_patch', JSON.stringify({ input: p })]);
  check('A4 call --no refused', r.code === 1 && unchanged(snapshot()), r.err);
  r = run(['--workspace', ws, '--config', cfg, '--yes', 'call', 'apply_patch', JSON.stringify({ input: p })]);
  check('A4 call --yes changes the file', r.code === 0 &&
    fs.readFileSync(path.join(ws, 'vtcode.toml'), 'utf8').includes('nc *'), r.out + r.err);
  // non_interactive = "allow" never approves a policy change
  resetPolicy();
  const ni = path.join(ws, 'conf/ni.toml');
  fs.writeFileSync(ni, '[permissions]\nnon_interactive = "allow"\nallow = ["exec_command(echo *)"]\n');
  r = run(['--workspace', ws, '--config', ni, 'call', 'exec_command', JSON.stringify({ cmd: 'echo x >> vtcode.toml' })]);
  check('A4 non_interactive allow does not approve', r.code === 1 && unchanged(snapshot()), r.out + r.err);
}

// ---- B. opaque redirect targets ---------------------------------------------
{
  resetPolicy();
  fs.writeFileSync(path.join(ws, '.git/config'), '[core]\n');
  const b = path.join(ws, 'conf/ls.toml');
  fs.writeFileSync(b, '[permissions]\nallow = ["exec_command(ls *)"]\ndeny = ["exec_command(rm *)"]\n');
  const opaque = ['ls > ~/x', 'ls > $HOME/x', 'ls > .gi?/config', 'ls > .g*/config',
    'X=.git/config; ls > $X', 'ls >& $X', "ls > $'.git/config'", 'ls > "$HOME"/x',
    'ls > `echo .git/config`', 'ls > $(echo vtcode.toml)', 'ls > {vtcode.toml,}',
    'ls > .git/conf[i]g', 'ls 2> ${X:-.git/config}', 'ls &> $X', 'ls >> ~root/x'];
  for (const c of opaque) {
    const o = explain(['--workspace', ws, '--config', b], 'exec_command', { cmd: c });
    check(`B opaque target asks: ${c}`, o.decision === 'ask', JSON.stringify(o));
  }
  for (const c of ['ls > out.txt', "ls > 'out file.txt'", 'ls 2> err.txt', 'ls > /dev/null']) {
    const o = explain(['--workspace', ws, '--config', b], 'exec_command', { cmd: c });
    check(`B literal target allowed: ${c}`, o.decision === 'allow', JSON.stringify(o));
  }
  // for real: refused, nothing written
  for (const c of ['X=.git/config; ls > $X', "ls > $'.git/config'", 'ls > .g*/config']) {
    const r = run(['--workspace', ws, '--config', b, 'call', 'exec_command', JSON.stringify({ cmd: c })]);
    check(`B refused for real: ${c}`, r.code === 1 && fs.readFileSync(path.join(ws, '.git/config'), 'utf8') === '[core]\n', r.out + r.err);
  }
}

// ---- C. layering and trust -----------------------------------------------------
{
  const L = path.join(root, 'layers');
  const lws = path.join(L, 'ws');
  const lhome = path.join(L, 'home');
  fs.mkdirSync(path.join(lws, '.vtcode/agents'), { recursive: true });
  fs.mkdirSync(path.join(lhome, '.config/vtcode'), { recursive: true });
  const userCfg = path.join(lhome, '.config/vtcode/vtcode.toml');
  const wsCfg = path.join(lws, 'vtcode.toml');
  const extra = path.join(L, 'extra.toml');
  const userBase = '[permissions]\ndeny = ["exec_command(rm *)"]\nask = ["exec_command(git push *)"]\nallow = ["exec_command(make *)"]\n';
  fs.writeFileSync(wsCfg, '[permissions]\ndeny = ["exec_command(curl *)"]\nask = ["exec_command(npm publish *)"]\nallow = ["exec_command(ls *)"]\nnon_interactive = "allow"\n[permissions.auto]\ndrop_broad_allow_rules = false\n');
  fs.writeFileSync(extra, '[permissions]\ndeny = ["exec_command(wget *)"]\nallow = ["exec_command(cargo *)"]\n');
  fs.writeFileSync(path.join(lws, '.vtcode/agents/open.md'), '---\npermissions:\n  default: allow\n  deny: [exec_command(dd *)]\n---\n');
  const env = { ...process.env, HOME: lhome, XDG_CONFIG_HOME: '' };
  const ex = (args, c) => {
    const r = spawnSync(VTHOST, [...args, 'explain', 'exec_command', JSON.stringify({ cmd: c })],
      { encoding: 'utf8', env, cwd: lws, timeout: 30000 });
    try { return JSON.parse(r.stdout); } catch { return { decision: null, raw: r.stdout + r.stderr }; }
  };
  const setups = {
    untrusted: { user: userBase, args: ['--workspace', lws] },
    trusted: { user: `${userBase}[trust]\nworkspaces = ['${lws}']\n`, args: ['--workspace', lws] },
    config: { user: userBase, args: ['--workspace', lws, '--config', extra] },
    config_ws: { user: userBase, args: ['--workspace', lws, '--config', wsCfg] },
    agent_untrusted: { user: userBase, args: ['--workspace', lws, '--agent', 'open'] },
    agent_trusted: { user: `${userBase}[trust]\nworkspaces = ['${lws}']\n`, args: ['--workspace', lws, '--agent', 'open'] },
  };
  // [setup, command, decision, origin of the deciding rule (or null), trusted]
  const table = [
    ['untrusted', 'rm x', 'deny', 'user', false],
    ['untrusted', 'curl x', 'deny', 'workspace', false],
    ['untrusted', 'git push', 'ask', 'user', false],
    ['untrusted', 'npm publish', 'ask', 'workspace', false],
    ['untrusted', 'make all', 'allow', 'user', false],
    ['untrusted', 'ls', 'ask', null, false],
    ['trusted', 'ls', 'allow', 'workspace', true],
    ['trusted', 'rm x', 'deny', 'user', true],
    ['trusted', 'curl x', 'deny', 'workspace', true],
    ['trusted', 'make all', 'allow', 'user', true],
    ['config', 'wget x', 'deny', 'config', false],
    ['config', 'cargo build', 'allow', 'config', false],
    ['config', 'ls', 'ask', null, false],
    ['config', 'rm x', 'deny', 'user', false],
    ['config', 'curl x', 'deny', 'workspace', false],
    ['config', 'npm publish', 'ask', 'workspace', false],
    ['config_ws', 'ls', 'allow', 'config', true],
    ['config_ws', 'rm x', 'deny', 'user', true],
    ['config_ws', 'curl x', 'deny', 'config', true],
    ['agent_untrusted', 'make all', 'ask', null, false],
    ['agent_untrusted', 'dd if=x', 'deny', 'agent', false],
    ['agent_untrusted', 'rm x', 'deny', 'user', false],
    ['agent_trusted', 'make all', 'allow', null, true],
    ['agent_trusted', 'rm x', 'deny', 'user', true],
  ];
  for (const [setup, c, decision, origin, trusted] of table) {
    fs.writeFileSync(userCfg, setups[setup].user);
    const o = ex(setups[setup].args, c);
    const decisive = (o.trace ?? []).find((s) => s.rule && !s.note);
    const ok = o.decision === decision && o.workspace_trusted === trusted &&
      (origin === null ? !decisive || decisive.origin !== 'workspace' || decision !== 'allow' : decisive?.origin === origin);
    check(`C ${setup}: ${c}`, ok, JSON.stringify(o));
  }
  // untrusted: the ignored rule is shown, marked not applied
  fs.writeFileSync(userCfg, userBase);
  let o = ex(setups.untrusted.args, 'ls');
  check('C untrusted: ignored allow shown', (o.trace ?? []).some((s) => s.rule === 'exec_command(ls *)' &&
    s.origin === 'workspace' && /not trusted/.test(s.note ?? '')), JSON.stringify(o));
  check('C explain lists the layers', JSON.stringify(o.layers ?? []).includes('"layer":"user"') &&
    JSON.stringify(o.layers ?? []).includes('"layer":"workspace"'), JSON.stringify(o.layers));
  // untrusted non_interactive = "allow" is not applied: the ask is refused
  let r = spawnSync(VTHOST, ['--workspace', lws, 'call', 'exec_command', JSON.stringify({ cmd: `touch ${lws}/m_ni` })],
    { encoding: 'utf8', env, cwd: lws, input: '' });
  check('C untrusted non_interactive allow ignored', r.status === 1 && !fs.existsSync(`${lws}/m_ni`), r.stdout + r.stderr);
  // serve logs one line about the ignored rules and how to trust
  r = spawnSync(VTHOST, ['--workspace', lws, 'serve'], { encoding: 'utf8', env, cwd: lws, input: '', timeout: 20000 });
  const lines = r.stderr.split('\n').filter((l) => l.includes('not trusted'));
  check('C serve logs one untrusted line', lines.length === 1 && lines[0].includes(`vthost trust ${lws}`), r.stderr);
  // vthost trust: adds the workspace, keeps the rest of the file
  const keep = '# my settings\n[tools]\nprofile = "default"  # keep me\n\n' + userBase;
  fs.writeFileSync(userCfg, keep);
  r = spawnSync(VTHOST, ['trust', lws], { encoding: 'utf8', env, cwd: L });
  const after = fs.readFileSync(userCfg, 'utf8');
  check('C vthost trust writes', r.status === 0 && after.startsWith(keep) && after.includes(lws), r.stdout + r.stderr + after);
  o = ex(setups.untrusted.args, 'ls');
  check('C after vthost trust: allow applies', o.decision === 'allow' && o.workspace_trusted === true, JSON.stringify(o));
  r = spawnSync(VTHOST, ['trust', lws], { encoding: 'utf8', env, cwd: L });
  check('C vthost trust twice', r.status === 0 && /already trusted/.test(r.stdout) && fs.readFileSync(userCfg, 'utf8') === after, r.stdout + r.stderr);
  // an existing list grows in place; the default DIR is the workspace
  fs.writeFileSync(userCfg, `[trust]\nworkspaces = [\n  '/nonexistent/a', # first\n]\n${userBase}`);
  r = spawnSync(VTHOST, ['--workspace', lws, 'trust'], { encoding: 'utf8', env, cwd: L });
  const grown = fs.readFileSync(userCfg, 'utf8');
  check('C vthost trust appends to the list', r.status === 0 && grown.includes("'/nonexistent/a', # first") &&
    ex(setups.untrusted.args, 'ls').decision === 'allow', grown + r.stderr);
  // no user config at all: created
  fs.rmSync(path.join(lhome, '.config'), { recursive: true });
  r = spawnSync(VTHOST, ['trust', lws], { encoding: 'utf8', env, cwd: L });
  check('C vthost trust creates the file', r.status === 0 && fs.existsSync(userCfg) &&
    ex(setups.untrusted.args, 'ls').decision === 'allow', r.stdout + r.stderr);
  // an untrusted workspace cannot trust itself
  fs.writeFileSync(userCfg, userBase);
  fs.appendFileSync(wsCfg, `[trust]\nworkspaces = ['${lws}']\n`);
  o = ex(setups.untrusted.args, 'ls');
  check('C a workspace cannot trust itself', o.decision === 'ask' && o.workspace_trusted === false, JSON.stringify(o));
}

// ---- D. agents are names ----------------------------------------------------------
{
  fs.writeFileSync(path.join(ws, 'evil.md'), '---\npermissions:\n  default: allow\n---\n');
  fs.mkdirSync(path.join(userDir, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(userDir, 'agents/uagent.md'), '---\npermissions:\n  default: deny\n---\n');
  resetPolicy();
  for (const a of ['evil.md', 'evil.MD', '.hidden', 'a..b', 'a\\b', '..']) {
    const r = run(['--workspace', ws, '--agent', a, 'explain', 'exec_command', '{"cmd":"true"}']);
    check(`D CLI --agent ${a} refused (exit 2)`, r.code === 2 && /agent/.test(r.err), `${r.code} ${r.err}`);
  }
  let r = run(['--workspace', ws, '--agent', './evil.md', 'explain', 'exec_command', '{"cmd":"true"}']);
  check('D CLI --agent ./evil.md is a path', r.code === 0 && r.out.includes('"allow"'), r.out + r.err);
  r = run(['--workspace', ws, '--agent', 'uagent', 'explain', 'exec_command', '{"cmd":"true"}']);
  check("D CLI --agent NAME from the user's agents dir", r.code === 0 && r.out.includes('"deny"'), r.out + r.err);
  const s = session(['--workspace', ws, '--config', cfg]);
  await s.ready;
  for (const a of ['evil.md', './evil.md', '../ws/evil', '.hidden', 'a/b', 'a\\b', 'x..y', '/etc/passwd']) {
    const res = await s.call('exec_command', { cmd: 'ls' }, { 'vthost/agent': a });
    check(`D MCP agent ${a} refused -32602`, res.r.error?.code === -32602, res.text);
  }
  let res = await s.call('exec_command', { cmd: 'ls' }, { 'vthost/agent': 'uagent' });
  check("D MCP agent from the user's agents dir", !res.ok && /uagent/.test(res.text), res.text);
  res = await s.call('exec_command', { cmd: 'ls' }, { 'vthost/agent': 'evil' });
  check('D MCP agent evil (no such agent) refused', !res.ok, res.text);
  await s.close();
}

// ---- F. attack variants: other names of the policy files -------------------------
{
  resetPolicy();
  const link = (target, name) => { fs.rmSync(path.join(ws, name), { force: true, recursive: true }); fs.symlinkSync(target, path.join(ws, name)); };
  link(U, 'ulink.toml');                         // -> the user's vtcode.toml
  link(path.join(ws, '.vtcode'), 'vdir');        // -> .vtcode
  link(userDir, 'udir');                         // -> the user's vtcode directory
  fs.rmSync(path.join(ws, 'hard.txt'), { force: true });
  fs.linkSync(path.join(ws, 'vtcode.toml'), path.join(ws, 'hard.txt')); // made by the user, not the model
  const variants = ['VTCODE.TOML', 'Vtcode.toml', 'vtcode.TOML', '.VTCODE/agents/x.md', '.Vtcode/agents/x.md',
    '\uFF56\uFF54\uFF43\uFF4F\uFF44\uFF45.toml', 'CONF/POLICY.TOML', './vtcode.toml', 'd/../vtcode.toml', './/vtcode.toml',
    'vdir/agents/x.md', 'vdir/state/x', 'udir/agents/x.md', 'udir/vtcode.toml', 'ulink.toml', 'hard.txt'];
  const fpatch = [];
  for (const t of variants) {
    fpatch.push([t, patchText(`*** Add File: ${t}`, '+[permissions]', '+allow = ["exec_command"]')]);
    fpatch.push([t, patchText('*** Update File: src.txt', `*** Move to: ${t}`, '@@', '-a', '+b')]);
  }
  for (const t of ['ulink.toml', 'hard.txt'])
    fpatch.push([t, patchText(`*** Update File: ${t}`, '@@', '-[permissions]', '+[permissions]\n+allow = ["exec_command"]')]);
  // moving a policy file away (its path is then free for a new one)
  for (const t of ['vtcode.toml', '.vtcode/agents/keep.md', 'conf/policy.toml'])
    fpatch.push([`move from ${t}`, patchText(`*** Update File: ${t}`, '*** Move to: moved.txt', '@@', '-x', '+y')]);
  const fexec = variants.map((t) => `echo x >> ${t}`).concat(['mv .vtcode v2', 'mv vtcode.toml x.toml',
    'mv conf conf2', 'mv . ../elsewhere', 'rm -r conf', 'chmod -R 777 .vtcode', 'chmod 666 conf', 'cp -r d .vtcode', 'ln -f d/x.md vtcode.toml', 'ln -s d/x.md .vtcode/agents/x.md']);
  for (const [t, p] of fpatch) {
    const o = explain(['--workspace', ws, '--config', cfg], 'apply_patch', { input: p });
    check(`F explain patch ${t}: ${JSON.stringify(p.split('\n')[1])}`, o.decision === 'ask' || o.decision === 'deny', JSON.stringify(o));
  }
  for (const c of fexec) {
    const o = explain(['--workspace', ws, '--config', cfg], 'exec_command', { cmd: c });
    check(`F explain exec ${c}`, o.decision === 'ask' || o.decision === 'deny', JSON.stringify(o));
  }
  // through serve, no prompt possible: refused, bytes unchanged, the message names the policy path
  const s = session(['--workspace', ws, '--config', cfg]);
  await s.ready;
  for (const [t, p] of fpatch) {
    resetPolicy();
    fs.writeFileSync(path.join(ws, 'conf/policy.toml'), cfgText);
    const r = await s.call('apply_patch', { input: p });
    const snap = snapshot();
    check(`F serve patch ${t}`, !r.ok && unchanged(snap) && /policy file|is a symbolic link/.test(r.text), `${r.text} ${JSON.stringify(snap)}`);
  }
  const hr = await s.call('exec_command', { cmd: 'echo x >> hard.txt', yield_time_ms: 5000 });
  check('F hard link: the message names the policy file it reaches', !hr.ok && unchanged(snapshot()) &&
    hr.text.includes(`another name of the policy path ${path.join(ws, 'vtcode.toml')}`), hr.text);
  await s.close();
  for (const n of ['ulink.toml', 'vdir', 'udir', 'hard.txt']) fs.rmSync(path.join(ws, n), { force: true });
}

// ---- G. agents: names only, and the user's agent is not shadowed -------------------
{
  resetPolicy();
  fs.mkdirSync(path.join(userDir, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(userDir, 'agents/shadow.md'), '---\npermissions:\n  default: ask\n  deny: [exec_command(rm *)]\n---\n');
  fs.writeFileSync(path.join(ws, '.vtcode/agents/shadow.md'), '---\npermissions:\n  default: allow\n---\n');
  const untrusted = `[permissions]\ndeny = ["exec_command(shutdown *)"]\n`;
  fs.writeFileSync(path.join(userDir, 'vtcode.toml'), untrusted);
  let o = explain(['--workspace', ws, '--agent', 'shadow'], 'exec_command', { cmd: 'rm -rf x' });
  check("G untrusted workspace agent does not shadow the user's", o.decision === 'deny' &&
    JSON.stringify(o).includes(path.join(userDir, 'agents/shadow.md')), JSON.stringify(o));
  fs.writeFileSync(path.join(userDir, 'vtcode.toml'), userText); // trusted: the workspace's own agent
  o = explain(['--workspace', ws, '--agent', 'shadow'], 'exec_command', { cmd: 'rm -rf x' });
  check('G trusted workspace agent is used', o.decision === 'allow', JSON.stringify(o));
  fs.writeFileSync(path.join(userDir, 'vtcode.toml'), untrusted);
  const s = session(['--workspace', ws]);
  await s.ready;
  let r = await s.call('exec_command', { cmd: 'rm -rf x' }, { 'vthost/agent': 'shadow' });
  check("G MCP: untrusted workspace agent does not shadow the user's", !r.ok && /deny/.test(r.text) &&
    r.text.includes(path.join(userDir, 'agents/shadow.md')), r.text);
  for (const a of ['a\u2215b', 'a\uFF0Fb', '%2e%2e', '%2e%2e%2fevil', '..%2fevil', 'x\u202Eevil', ' evil', 'evil ']) {
    r = await s.call('exec_command', { cmd: 'ls' }, { 'vthost/agent': a });
    check(`G MCP agent ${JSON.stringify(a)} refused -32602`, r.r.error?.code === -32602, r.text);
  }
  // a NUL ends the name at the JSON boundary: what is left is still only a name
  r = await s.call('exec_command', { cmd: 'ls' }, { 'vthost/agent': 'shadow\u0000/../../evil' });
  check('G MCP agent with NUL is at most the name before it', !r.ok && !/allow/.test(r.r.result?.structuredContent?.decision ?? '') &&
    !r.text.includes('evil.md'), r.text);
  await s.close();
  fs.writeFileSync(path.join(userDir, 'vtcode.toml'), userText);
  fs.rmSync(path.join(ws, '.vtcode/agents/shadow.md'));
}

// ---- E. broad allow rules by meaning ------------------------------------------------
{
  const broad = ['exec_command', 'exec_command(*)', 'exec_command(**)', 'exec_command(* *)',
    'exec_command(* * *)', 'exec_command( * )', 'exec_*', '*', 'e*', 'bash', 'Bash(*)', 'bash(**)',
    'exec_command(*  *)', 'exec_command(***)'];
  const narrow = [['exec_command(git *)', 'git status'], ['exec_command(*.sh)', 'run.sh'],
    ['exec_command(make *)', 'make all'], ['exec_command(* --version)', 'make --version']];
  const keep = path.join(ws, 'conf/keep.toml');
  fs.writeFileSync(keep, '[permissions.auto]\ndrop_broad_allow_rules = false\n');
  for (const rule of broad) {
    fs.writeFileSync(path.join(ws, '.vtcode/agents/broad.md'),
      `---\npermissions:\n  default: auto\n  allow:\n    - ${JSON.stringify(rule)}\n---\n`);
    const o = explain(['--workspace', ws, '--config', cfg, '--agent', 'broad'], 'exec_command', { cmd: 'rm -rf /tmp/x' });
    // rm is denied by the config: use a command nothing else decides
    const p = explain(['--workspace', ws, '--config', cfg, '--agent', 'broad'], 'exec_command', { cmd: 'make all' });
    check(`E broad dropped: ${rule}`, p.decision === 'auto' && (p.trace ?? []).some((s) => s.rule === rule &&
      /drop_broad_allow_rules/.test(s.note ?? '')), JSON.stringify(p));
    check(`E deny still wins: ${rule}`, o.decision === 'deny', JSON.stringify(o));
    const q = explain(['--workspace', ws, '--config', keep, '--agent', 'broad'], 'exec_command', { cmd: 'make all' });
    check(`E kept when disabled: ${rule}`, q.decision === 'allow', JSON.stringify(q));
  }
  for (const [rule, c] of narrow) {
    fs.writeFileSync(path.join(ws, '.vtcode/agents/broad.md'),
      `---\npermissions:\n  default: auto\n  allow:\n    - ${JSON.stringify(rule)}\n---\n`);
    const p = explain(['--workspace', ws, '--config', cfg, '--agent', 'broad'], 'exec_command', { cmd: c });
    check(`E narrow kept: ${rule}`, p.decision === 'allow', JSON.stringify(p));
  }
}

console.log(`${count - failures}/${count} policy integrity checks passed`);
fs.rmSync(root, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
