// Approval presets through `vthost serve` (a client without elicitation,
// which cannot be asked): ask refuses and names the flag that changes it;
// sandboxed runs commands and workspace edits inside the sandbox, while
// deny and ask rules, policy files and escalation still hold; read-only
// runs commands in a read-only sandbox and refuses edits.
// Usage: node presets.mjs VTHOST   (exit 77 without Landlock)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lineClient } from './line_client.mjs';

const VTHOST = process.argv[2];
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'vthost-presets-')));
const ws = path.join(root, 'ws');
const home = path.join(root, 'home');
fs.mkdirSync(ws, { recursive: true });
fs.mkdirSync(home, { recursive: true });
const ENV = { ...process.env, HOME: home, XDG_CONFIG_HOME: '' };
// outside the workspace and outside /tmp (which workspace-write may write)
const outside = fs.mkdtempSync('/var/tmp/vthost-presets-out-');
const probe = spawnSync(VTHOST, ['--workspace', ws, '--approval', 'sandboxed', 'tools'], { encoding: 'utf8', env: ENV });
if (probe.status !== 0 && /Landlock is unavailable/.test(probe.stderr)) {
  console.log(`SKIP: ${probe.stderr.trim()}`);
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
  process.exit(77);
}

let failures = 0, count = 0;
const check = (name, ok, detail) => { count++; if (!ok) { failures++; console.log(`FAIL ${name}: ${detail}`); } };

function session(args) {
  const p = spawn(VTHOST, [...args, 'serve'], { stdio: ['pipe', 'pipe', 'pipe'], env: ENV, cwd: ws });
  let stderr = '';
  p.stderr.on('data', (d) => { stderr += d; });
  const { send, request } = lineClient(p);
  const call = async (name, a) => {
    const r = await request('tools/call', { name, arguments: a });
    const sc = r.result?.structuredContent ?? {};
    return { ok: !!r.result && !r.result.isError && sc.success !== false, sc, text: JSON.stringify(r) };
  };
  const init = request('initialize', { protocolVersion: '2025-06-18', capabilities: {},
    clientInfo: { name: 'presets-test', version: '1' } });
  const ready = init.then(() => send({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const close = () => new Promise((resolve) => { p.on('close', resolve); p.stdin.end(); });
  return { init, ready, call, close, stderr: () => stderr };
}
const patch = (...ops) => ({ input: ['*** Begin Patch', ...ops, '*** End Patch'].join('\n') });
const exists = (f) => fs.existsSync(path.join(ws, f));

const cfg = path.join(root, 'rules.toml');
fs.writeFileSync(cfg, '[permissions]\ndeny = ["exec_command(rm *)"]\nask = ["exec_command(git push *)"]\n' +
  '[sandbox]\nmode = "danger-full-access"\nfallback = "unsandboxed"\n');
fs.writeFileSync(path.join(ws, 'vtcode.toml'), '# policy\n');
fs.writeFileSync(path.join(ws, 'victim.txt'), 'keep\n');

// ask (the default): refused, and the message names the preset and the flag
{
  const s = session(['--workspace', ws, '--config', cfg]);
  const init = await s.init;
  check('ask: instructions name the preset', /Approval preset: ask/.test(init.result?.instructions ?? ''), JSON.stringify(init));
  await s.ready;
  const r = await s.call('exec_command', { cmd: 'touch m_ask' });
  check('ask: refused without a prompt', !r.ok && !exists('m_ask'), r.text);
  check('ask: message names preset and flag', /approval preset ask/.test(r.text) && /--approval sandboxed/.test(r.text) &&
    /approval = \\"sandboxed\\"/.test(r.text), r.text);
  await s.close();
}
// sandboxed
for (const how of [['--approval', 'sandboxed'], ['--config-preset']]) {
  const c2 = path.join(root, 'preset.toml');
  fs.writeFileSync(c2, fs.readFileSync(cfg, 'utf8').replace('[permissions]\n', '[permissions]\napproval = "sandboxed"\n'));
  const args = how[0] === '--approval' ? ['--workspace', ws, '--config', cfg, ...how] : ['--workspace', ws, '--config', c2];
  const tag = how[0] === '--approval' ? 'flag' : 'config';
  const s = session(args);
  const init = await s.init;
  check(`sandboxed(${tag}): instructions`, /Approval preset: sandboxed/.test(init.result?.instructions ?? ''), JSON.stringify(init));
  await s.ready;
  let r = await s.call('exec_command', { cmd: `touch m_sb_${tag} && echo ran` });
  check(`sandboxed(${tag}): command runs unasked`, r.ok && exists(`m_sb_${tag}`), r.text);
  check(`sandboxed(${tag}): inside the workspace-write sandbox`, r.sc.sandbox === 'workspace-write', r.text);
  r = await s.call('exec_command', { cmd: `echo x > ${outside}/escape_${tag}` });
  check(`sandboxed(${tag}): sandbox bounds writes`, !fs.existsSync(`${outside}/escape_${tag}`), r.text);
  r = await s.call('apply_patch', patch(`*** Add File: p_${tag}.txt`, '+x'));
  check(`sandboxed(${tag}): workspace edit runs`, r.ok && exists(`p_${tag}.txt`), r.text);
  r = await s.call('apply_patch', patch('*** Update File: vtcode.toml', '@@', '-# policy', '+[permissions]'));
  check(`sandboxed(${tag}): policy file refused`, !r.ok && fs.readFileSync(path.join(ws, 'vtcode.toml'), 'utf8') === '# policy\n', r.text);
  r = await s.call('exec_command', { cmd: 'echo x >> vtcode.toml' });
  check(`sandboxed(${tag}): policy redirect refused`, !r.ok && fs.readFileSync(path.join(ws, 'vtcode.toml'), 'utf8') === '# policy\n', r.text);
  r = await s.call('exec_command', { cmd: 'rm victim.txt' });
  check(`sandboxed(${tag}): deny holds`, !r.ok && exists('victim.txt'), r.text);
  r = await s.call('exec_command', { cmd: 'git push origin' });
  check(`sandboxed(${tag}): ask holds`, !r.ok && /global ask/.test(r.text), r.text);
  r = await s.call('exec_command', { cmd: `touch m_esc_${tag}`, sandbox_permissions: 'require_escalated', justification: 'x' });
  check(`sandboxed(${tag}): escalation asks`, !r.ok && !exists(`m_esc_${tag}`), r.text);
  await s.close();
  check(`sandboxed(${tag}): no sanitizer reports`, !/Sanitizer|runtime error/.test(s.stderr()), s.stderr());
}
// read-only
{
  const s = session(['--workspace', ws, '--config', cfg, '--approval', 'read-only']);
  const init = await s.init;
  check('read-only: instructions', /Approval preset: read-only/.test(init.result?.instructions ?? ''), JSON.stringify(init));
  await s.ready;
  let r = await s.call('exec_command', { cmd: 'cat victim.txt' });
  check('read-only: reading command runs', r.ok && r.sc.output === 'keep\n' && r.sc.sandbox === 'read-only', r.text);
  r = await s.call('exec_command', { cmd: 'touch m_ro' });
  check('read-only: writes fail in the sandbox', !exists('m_ro'), r.text);
  r = await s.call('apply_patch', patch('*** Add File: ro.txt', '+x'));
  check('read-only: edits ask (refused here)', !r.ok && !exists('ro.txt') && /read-only/.test(r.text), r.text);
  await s.close();
}
// an untrusted workspace cannot pick sandboxed for itself
{
  const w2 = path.join(root, 'w2');
  fs.mkdirSync(w2);
  fs.writeFileSync(path.join(w2, 'vtcode.toml'), '[permissions]\napproval = "sandboxed"\n');
  const r = spawnSync(VTHOST, ['--workspace', w2, 'call', 'exec_command', JSON.stringify({ cmd: 'touch m' })],
    { encoding: 'utf8', env: ENV, cwd: w2, input: '' });
  check('untrusted workspace approval ignored', r.status === 1 && !fs.existsSync(path.join(w2, 'm')), r.stdout + r.stderr);
}
{
  const r = spawnSync(VTHOST, ['--workspace', ws, '--approval', 'yolo', 'tools'], { encoding: 'utf8', env: ENV });
  check('bad preset: exit 2', r.status === 2 && /--approval must be/.test(r.stderr), r.stderr);
}

console.log(`${count - failures}/${count} approval preset checks passed`);
fs.rmSync(root, { recursive: true, force: true });
fs.rmSync(outside, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
