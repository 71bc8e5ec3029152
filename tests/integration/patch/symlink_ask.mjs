// apply_patch through a symlink that leaves the workspace is refused
// before anyone is asked: with `ask = ["apply_patch"]` and a client that
// answers elicitations with "approve", a patch to link/x (link -> a
// directory outside the workspace) gets a refusal naming the link, no
// elicitation/create request is sent, and the outside files keep their
// bytes.  A plain patch in the same session is asked about once (so the
// prompt path is live).  Usage: node symlink_ask.mjs VTHOST
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lineClient } from '../permission/line_client.mjs';

const VTHOST = process.argv[2];
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'vthost-patchlink-')));
const ws = path.join(root, 'ws');
const home = path.join(root, 'home');
const outside = path.join(root, 'outside');
for (const d of [ws, home, outside]) fs.mkdirSync(d, { recursive: true });
const ENV = { ...process.env, HOME: home, XDG_CONFIG_HOME: '' };
fs.writeFileSync(path.join(outside, 'x'), 'outside bytes\n');
fs.symlinkSync(outside, path.join(ws, 'link'));
fs.symlinkSync(path.join(outside, 'x'), path.join(ws, 'leaf'));
fs.mkdirSync(path.join(ws, 'real'));
fs.symlinkSync('real', path.join(ws, 'inlink'));
fs.writeFileSync(path.join(ws, 'real/y'), 'inside\n');
fs.writeFileSync(path.join(ws, 'plain.txt'), 'one\n');
const cfg = path.join(root, 'rules.toml');
fs.writeFileSync(cfg, '[permissions]\nask = ["apply_patch"]\n');

let failures = 0, count = 0;
const check = (name, ok, detail) => { count++; if (!ok) { failures++; console.log(`FAIL ${name}: ${detail}`); } };

const p = spawn(VTHOST, ['--workspace', ws, '--config', cfg, 'serve'], { stdio: ['pipe', 'pipe', 'pipe'], env: ENV, cwd: ws });
let stderr = '';
p.stderr.on('data', (d) => { stderr += d; });
const asked = [];
const { send, request } = lineClient(p, (m) => {
  if (m.method !== 'elicitation/create') return undefined;
  asked.push(m.params?.message ?? '');
  return { action: 'accept', content: { decision: 'approve' } };
});
const call = async (a) => {
  const r = await request('tools/call', { name: 'apply_patch', arguments: a });
  const sc = r.result?.structuredContent ?? {};
  return { ok: !!r.result && !r.result.isError && sc.success !== false, text: JSON.stringify(r) };
};
const patch = (...ops) => ({ input: ['*** Begin Patch', ...ops, '*** End Patch'].join('\n') });
const snapshot = () => fs.readdirSync(outside).sort().map((f) => `${f}:${fs.readFileSync(path.join(outside, f), 'utf8')}`).join('|');

await request('initialize', { protocolVersion: '2025-06-18', capabilities: { elicitation: {} },
  clientInfo: { name: 'patch-symlink-test', version: '1' } });
send({ jsonrpc: '2.0', method: 'notifications/initialized' });

const before = snapshot();
const escapes = {
  update: patch('*** Update File: link/x', '-outside bytes', '+changed'),
  add: patch('*** Add File: link/new', '+planted'),
  delete: patch('*** Delete File: link/x'),
  'move onto link': patch('*** Update File: plain.txt', '*** Move to: link/moved', '-one', '+one'),
  'leaf symlink': patch('*** Update File: leaf', '-outside bytes', '+changed'),
  'dot path': patch('*** Update File: ./link/./x', '-outside bytes', '+changed'),
};
for (const [name, a] of Object.entries(escapes)) {
  const n = asked.length;
  const r = await call(a);
  check(`${name}: refused`, !r.ok, r.text);
  check(`${name}: says it leaves the workspace`, /symbolic link to .*outside the workspace/.test(r.text), r.text);
  check(`${name}: nobody was asked`, asked.length === n, JSON.stringify(asked.slice(n)));
  check(`${name}: outside bytes unchanged`, snapshot() === before, snapshot());
}
check('plain.txt kept', fs.readFileSync(path.join(ws, 'plain.txt'), 'utf8') === 'one\n', 'moved or changed');

// A link that stays inside is refused early too (the patch never follows
// links), with the hint to patch the real path.
{
  const n = asked.length;
  const r = await call(patch('*** Update File: inlink/y', '-inside', '+changed'));
  check('inside link: refused without asking', !r.ok && asked.length === n, r.text);
  check('inside link: names the real path hint', /symbolic link \(to 'real'\).*patch the path it points to/.test(r.text), r.text);
  check('inside link: file kept', fs.readFileSync(path.join(ws, 'real/y'), 'utf8') === 'inside\n', 'changed');
}

// Control: a plain patch is asked about once, then applied.
{
  const n = asked.length;
  const r = await call(patch('*** Update File: plain.txt', '-one', '+two'));
  check('plain patch: asked once', asked.length === n + 1, JSON.stringify(asked));
  check('plain patch: applied after approval', r.ok && fs.readFileSync(path.join(ws, 'plain.txt'), 'utf8') === 'two\n', r.text);
}

await new Promise((resolve) => { p.on('close', resolve); p.stdin.end(); });
fs.rmSync(root, { recursive: true, force: true });
console.log(`${count - failures}/${count} checks passed`);
if (failures) { console.log(stderr); process.exit(1); }
