#!/usr/bin/env node
// Anti-blind-editing end to end over MCP: effective apply_patch calls are
// counted (failed and no-op patches are not), the next mutation is
// blocked with the documented response, exec_command stays allowed, and
// only a verification run (judged from the programs it executed) lifts it.
// Usage: node guard_mcp.js VTHOST
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const assert = require('assert');

const vthost = process.argv[2];
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'vthost-guard.'));
fs.writeFileSync(path.join(ws, 'vtcode.toml'), `
[permissions]
allow = ["exec_command", "apply_patch"]

[tools.anti_blind_editing]
enabled = true
max_unverified_mutations = 2
verification_commands = ["true", "re:^test -d "]
`);
const child = spawn(vthost, ['--workspace', ws, '--config', path.join(ws, 'vtcode.toml'), '--profile', path.join(__dirname, 'exec-patch.ini'),
                             'serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
const timer = setTimeout(() => { console.error('timed out'); child.kill(); process.exit(1); }, 60000);
let buf = '';
const waiting = new Map();
child.stdout.on('data', d => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.id !== undefined && waiting.has(msg.id)) { waiting.get(msg.id)(msg); waiting.delete(msg.id); }
  }
});
let nextId = 1;
function rpc(method, params) {
  const id = nextId++;
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  return new Promise(res => waiting.set(id, res));
}
async function call(name, args) {
  const r = await rpc('tools/call', { name, arguments: args });
  assert.ok(r.result, 'no result: ' + JSON.stringify(r));
  return r.result.structuredContent || {};
}
const add = f => call('apply_patch', { input: `*** Begin Patch\n*** Add File: ${f}\n+x\n*** End Patch\n` });
const exec = cmd => call('exec_command', { cmd });

(async () => {
  await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'guard-test', version: '1' } });
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');

  let r = await call('apply_patch', { input: '*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch\n' });
  assert.notStrictEqual(r.success, true, 'a failed patch');
  assert.strictEqual((await add('f1.txt')).success, true);
  r = await call('apply_patch', { input: '*** Begin Patch\n*** Update File: f1.txt\n-x\n+x\n*** End Patch\n' });
  assert.strictEqual(r.diff[0].is_empty, true, 'a no-op patch');
  assert.strictEqual((await add('f2.txt')).success, true, 'second effective mutation still allowed');

  r = await add('f3.txt');
  assert.strictEqual(r.success, false);
  assert.strictEqual(r.blocked, true);
  assert.strictEqual(r.failure_kind, 'anti_blind_editing_verification_required');
  assert.strictEqual(r.pending_mutations, 2);
  assert.match(r.hint, /verification command/);
  assert.ok(!fs.existsSync(path.join(ws, 'f3.txt')), 'blocked patch wrote nothing');

  // Commands stay allowed; what they executed is judged, not their text.
  r = await exec('/bin/false');
  assert.strictEqual(r.exit_code, 1);
  assert.strictEqual((await add('f3.txt')).blocked, true, 'a command that is no verification');
  r = await exec('/bin/true && /usr/bin/id -u');
  assert.strictEqual(r.exit_code, 0);
  assert.strictEqual((await add('f3.txt')).blocked, true, 'every program run must verify');
  // `:` is a special built-in: the shell runs it and executes nothing
  // (plain `true` may now run /usr/bin/true directly: docs/tools.md).
  r = await exec(':');
  assert.strictEqual(r.exit_code, 0);
  assert.strictEqual((await add('f3.txt')).blocked, true, 'a shell builtin executes nothing');
  r = await exec('/usr/bin/test -d . && /bin/true');
  assert.strictEqual(r.exit_code, 0);
  r = await add('f3.txt');
  assert.strictEqual(r.success, true, 'a verification command lifts the block: ' + JSON.stringify(r));
  assert.ok(fs.existsSync(path.join(ws, 'f3.txt')));

  clearTimeout(timer);
  child.stdin.end();
  child.on('exit', code => {
    fs.rmSync(ws, { recursive: true, force: true });
    // A sanitizer or leak report makes the server exit non-zero.
    if (code !== 0) { console.log(`server exited with ${code}\n0 passed, 1 failed`); process.exit(1); }
    console.log('1 passed, 0 failed');
  });
})().catch(e => { console.error(e); child.kill(); fs.rmSync(ws, { recursive: true, force: true }); process.exit(1); });
