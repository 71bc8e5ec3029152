// Auto-review denial counters and the fallback to manual prompts, in one
// long-lived `vthost serve` process (counters live as long as the
// process): a fixture reviewer command answering ALLOW and BLOCK, MCP
// elicitation as the prompt, sampling as the reviewer, per-call agents.
// Speaks newline-delimited JSON-RPC directly; answers the server's
// elicitation/create and sampling/createMessage requests.
// Usage: node counters.mjs VTHOST
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lineClient } from './line_client.mjs';

const VTHOST = process.argv[2];
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'vthost-permc-')));
const ws = path.join(root, 'ws');
fs.mkdirSync(path.join(ws, '.vtcode/agents'), { recursive: true });
// the user's config trusts the workspace, so its auto agent applies
const home = path.join(root, 'home');
fs.mkdirSync(path.join(home, '.config/vtcode'), { recursive: true });
fs.writeFileSync(path.join(home, '.config/vtcode/vtcode.toml'), `[trust]\nworkspaces = ['${ws}']\n`);
const log = path.join(root, 'reviewer.log');
fs.writeFileSync(path.join(ws, 'reviewer.sh'), `#!/bin/sh
input=$(cat)
echo x >> "${log}"
case "$input" in
  *danger*) echo "BLOCK looks destructive" ;;
  *) echo "ALLOW fine" ;;
esac
`, { mode: 0o755 });
fs.writeFileSync(path.join(ws, '.vtcode/agents/auto.md'), '---\npermissions:\n  default: auto\n---\n');
fs.writeFileSync(path.join(ws, '.vtcode/agents/strict.md'), '---\npermissions:\n  default: deny\n---\n');
const withCommand = path.join(root, 'command.toml');
fs.writeFileSync(withCommand, `[permissions.auto]
command = "${ws}/reviewer.sh"
max_consecutive_denials = 2
max_total_denials = 3
`);
const withSampling = path.join(root, 'sampling.toml');
fs.writeFileSync(withSampling, '[permissions.auto]\nmodel = "tiny-reviewer"\nmax_total_denials = 1\n');

let failures = 0, count = 0;
const check = (name, ok, detail) => { count++; if (!ok) { failures++; console.log(`FAIL ${name}: ${detail}`); } };

function session(config, capabilities, handlers) {
  const p = spawn(VTHOST, ['--workspace', ws, '--config', config, '--agent', 'auto', 'serve'],
    { stdio: ['pipe', 'pipe', 'pipe'], detached: true,
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '' } });
  let stderr = '';
  p.stderr.on('data', (d) => { stderr += d; });
  const { send, request } = lineClient(p, (m) => handlers[m.method]?.(m.params));
  const call = async (cmd, meta) => {
    const r = await request('tools/call', { name: 'exec_command', arguments: { cmd }, ...(meta ? { _meta: meta } : {}) });
    const sc = r.result?.structuredContent ?? {};
    return { ok: r.result && !r.result.isError && sc.success !== false, text: JSON.stringify(r) };
  };
  const ready = request('initialize', { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'perm-test', version: '1' } })
    .then(() => send({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const close = () => new Promise((resolve) => { p.on('close', resolve); p.stdin.end(); });
  return { ready, call, close, stderr: () => stderr };
}

const reviews = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').length : 0);
const marker = (n) => path.join(ws, `m_${n}`);

// A: reviewer command, no prompt possible: counters and the fallback
{
  const s = session(withCommand, {}, {});
  await s.ready;
  let r = await s.call('echo danger one');
  check('A1 BLOCK denies', !r.ok && r.text.includes('looks destructive'), r.text);
  r = await s.call(`touch ${marker('a2')}`);
  check('A2 ALLOW runs (resets consecutive)', r.ok && fs.existsSync(marker('a2')), r.text);
  r = await s.call('echo danger two');
  check('A3 BLOCK', !r.ok, r.text);
  r = await s.call('echo danger three');
  check('A4 BLOCK reaches total 3', !r.ok, r.text);
  const before = reviews();
  r = await s.call(`touch ${marker('a5')}`);
  check('A5 limit: falls back to a prompt, none possible: denied',
    !r.ok && r.text.includes('denial limit') && !fs.existsSync(marker('a5')), r.text);
  check('A5 reviewer not asked after the limit', reviews() === before, `${reviews()} vs ${before}`);
  r = await s.call('echo hi', { 'vthost/agent': 'strict' });
  check('A6 per-call agent (_meta vthost/agent)', !r.ok && r.text.includes('strict'), r.text);
  await s.close();
  check('A no sanitizer reports', !/Sanitizer|runtime error/.test(s.stderr()), s.stderr());
}

// B: same limits, the client supports elicitation: the fallback prompts
{
  let asked = 0, answer = 'approve';
  const s = session(withCommand, { elicitation: {} }, {
    'elicitation/create': (p) => { asked++; return { action: 'accept', content: { decision: answer } }; },
  });
  await s.ready;
  for (const n of [1, 2]) await s.call(`echo danger ${n}`); // 2 consecutive: the limit
  check('B1 BLOCKs do not prompt', asked === 0, `asked ${asked}`);
  let r = await s.call(`touch ${marker('b2')}`);
  check('B2 after the limit a person approves', r.ok && asked === 1 && fs.existsSync(marker('b2')), r.text);
  answer = 'deny';
  r = await s.call(`touch ${marker('b3')}`);
  check('B3 ... or refuses', !r.ok && asked === 2 && !fs.existsSync(marker('b3')), r.text);
  await s.close();
}

// C: no command, the client's model reviews through sampling
{
  let sampled = 0, hint = null;
  const s = session(withSampling, { sampling: {} }, {
    'sampling/createMessage': (p) => {
      sampled++;
      hint = JSON.stringify(p.modelPreferences ?? {});
      const text = JSON.stringify(p.messages ?? []);
      return { role: 'assistant', model: 'm', content: { type: 'text', text: text.includes('danger') ? 'BLOCK risky' : 'ALLOW ok' } };
    },
  });
  await s.ready;
  let r = await s.call(`touch ${marker('c1')}`);
  check('C1 sampling ALLOW runs', r.ok && sampled === 1 && fs.existsSync(marker('c1')), r.text);
  check('C1 model hint passed', hint && hint.includes('tiny-reviewer'), hint);
  r = await s.call('echo danger');
  check('C2 sampling BLOCK denies', !r.ok && r.text.includes('risky'), r.text);
  r = await s.call(`touch ${marker('c3')}`);
  check('C3 total limit 1 reached: no more sampling, no prompt: denied',
    !r.ok && sampled === 2 && !fs.existsSync(marker('c3')), r.text);
  await s.close();
}

console.log(`${count - failures}/${count} counter cases passed`);
fs.rmSync(root, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
