// search_tools names each found tool as the calling client will show it,
// over `vthost serve` on stdio, in both eras:
//   node client_names.mjs VTHOST
// Claude Code ("claude-code") and Codex ("codex-mcp-client") show a
// server's tools as mcp__<server>__<name>; any other client, and a client
// that gives no name, gets the names vthost lists and nothing more.  The
// catalog holds a provider tool whose own name has a hyphen (get-sum,
// listed as mcp__slow__get_sum).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const [vthost] = process.argv.slice(2);
if (!vthost) {
  console.error('usage: client_names.mjs VTHOST');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const provider = path.join(here, '..', 'clients', 'slow_provider.mjs');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'vthost-client-names-'));
const ws = path.join(home, 'ws');
fs.mkdirSync(ws);
fs.mkdirSync(path.join(home, '.config', 'vtcode'), { recursive: true });
fs.writeFileSync(path.join(home, '.config', 'vtcode', 'vtcode.toml'),
  `[[mcp.providers]]\nname = "slow"\ncommand = "${process.execPath}"\n` +
  `args = [${JSON.stringify(provider)}]\nenv = { SLOW_START_MS = "0" }\n`);
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'),
  XDG_CACHE_HOME: path.join(home, '.cache'), XDG_STATE_HOME: path.join(home, '.state') };

const NOTE = (who) =>
  `${who} shows this server's tools as mcp__<server>__<name>, <server> being the name it ` +
  'was added under; each client_name is that name if added as `vthost` (as docs/clients.md ' +
  `does). Call a tool by the name ${who} shows; vthost takes the name without the prefix.`;

// One `vthost serve` session: send a message, wait for the answer to an id.
function session() {
  const p = spawn(vthost, ['--workspace', ws, 'serve'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map();
  let stderr = '';
  p.stderr.on('data', (d) => { stderr += d; });
  createInterface({ input: p.stdout }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.id !== undefined && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    }
  });
  let next = 1;
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = next++;
    const timer = setTimeout(() => reject(new Error(`no answer to ${method}; stderr: ${stderr}`)),
      20000);
    waiting.set(id, (m) => { clearTimeout(timer); resolve(m); });
    p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  const notify = (method) => p.stdin.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n');
  const close = () => new Promise((resolve) => { p.on('exit', resolve); p.stdin.end(); });
  return { request, notify, close };
}

// 2025 era: initialize names the client for the session's calls.
async function search2025(clientInfo, query, want) {
  const s = session();
  const init = await s.request('initialize', { protocolVersion: '2025-11-25', capabilities: {},
    ...(clientInfo ? { clientInfo } : {}) });
  assert.ok(init.result, JSON.stringify(init));
  s.notify('notifications/initialized');
  const r = await searchUntilFound(
    () => s.request('tools/call', { name: 'search_tools', arguments: { query, limit: 3 } }), want);
  await s.close();
  return r;
}

// 2026-07-28: each request names its client in _meta.
async function search2026(clientInfo, query, want) {
  const s = session();
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    ...(clientInfo ? { 'io.modelcontextprotocol/clientInfo': clientInfo } : {}) };
  const r = await searchUntilFound(() => s.request('tools/call',
    { name: 'search_tools', arguments: { query, limit: 3 }, _meta }), want);
  await s.close();
  return r;
}

// The provider starts in the background: search again until the tool
// `want` is found (bounded).
async function searchUntilFound(once, want) {
  for (let i = 0; ; i++) {
    const m = await once();
    assert.ok(m.result && !m.result.isError, JSON.stringify(m));
    const sc = m.result.structuredContent;
    if (sc.tools.some((t) => t.name === want) || i >= 40) return m.result;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const found = (res, name) => {
  const t = res.structuredContent.tools.find((x) => x.name === name);
  assert.ok(t, `${name} not found: ${JSON.stringify(res.structuredContent.tools)}`);
  return t;
};

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

for (const [era, search] of [['2025-11-25', search2025], ['2026-07-28', search2026]]) {
  test(`${era}: Claude Code is given each tool as it shows it`, async () => {
    const res = await search({ name: 'claude-code', version: '2.1.332' }, 'sum of two numbers',
      'mcp__slow__get_sum');
    const sc = res.structuredContent;
    assert.equal(found(res, 'mcp__slow__get_sum').client_name, 'mcp__vthost__mcp__slow__get_sum');
    for (const t of sc.tools) assert.equal(t.client_name, `mcp__vthost__${t.name}`);
    assert.equal(sc.client_names, NOTE('Claude Code'));
    // the model reads the text block: the names are in it too
    assert.ok(res.content[0].text.includes('"client_name":"mcp__vthost__mcp__slow__get_sum"'),
      res.content[0].text);
  });

  test(`${era}: Codex is given each tool as it shows it`, async () => {
    const res = await search({ name: 'codex-mcp-client', version: '0.171.0' }, 'run a shell command',
      'exec_command');
    assert.equal(found(res, 'exec_command').client_name, 'mcp__vthost__exec_command');
    assert.equal(res.structuredContent.client_names, NOTE('Codex'));
  });

  for (const info of [{ name: 'other-client', version: '1.0' }, null]) {
    test(`${era}: ${info ? 'another client' : 'a client that gives no name'} gets the listed names only`,
      async () => {
        const res = await search(info, 'sum of two numbers', 'mcp__slow__get_sum');
        const sc = res.structuredContent;
        found(res, 'mcp__slow__get_sum');
        for (const t of sc.tools) assert.equal(t.client_name, undefined, JSON.stringify(t));
        assert.equal(sc.client_names, undefined);
      });
  }
}

let failed = 0;
for (const t of tests) {
  try {
    await t.fn();
    console.log(`ok - ${t.name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL - ${t.name}\n  ${String(e.stack || e).split('\n').slice(0, 6).join('\n  ')}`);
  }
}
fs.rmSync(home, { recursive: true, force: true });
console.log(failed ? `${failed} of ${tests.length} failed` : `all ${tests.length} passed`);
process.exit(failed ? 1 : 0);
