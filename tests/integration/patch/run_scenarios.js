#!/usr/bin/env node
// Runs every scenario under scenarios/: copies before/ into a fresh
// workspace, applies `patch` (or the raw arguments in input.json) with
// `vthost call apply_patch -`, then checks the tree against after/ (or,
// with an `error` file, that the call failed with that text and left the
// tree byte-for-byte as before/).  response.json, when present, must be a
// subset of the response.  `env` holds VAR=value lines for the call.
// Usage: node run_scenarios.js VTHOST [NAME...]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const [vthost, ...only] = process.argv.slice(2);
if (!vthost) { console.error('usage: run_scenarios.js VTHOST [NAME...]'); process.exit(2); }
const here = __dirname;
const profile = path.join(here, 'patch-only.ini');
const scenDir = path.join(here, 'scenarios');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vthost-patch-scen.'));

// The tree as a sorted list: type, exec bit of files, link targets, and
// the file bytes (compared separately).  The host's own .vtcode/ (the
// guard's counter, spools) is not the patch's business.
function tree(root) {
  const out = new Map();
  if (!fs.existsSync(root)) return out;
  (function walk(rel) {
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      if (!rel && name === '.vtcode') continue;
      const r = rel ? rel + '/' + name : name;
      const p = path.join(root, r);
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out.set(r, { kind: 'l -> ' + fs.readlinkSync(p) });
      else if (st.isDirectory()) { out.set(r, { kind: 'd' }); walk(r); }
      else out.set(r, { kind: 'f ' + ((st.mode & 0o100) ? 'x' : '-'), data: fs.readFileSync(p) });
    }
  })('');
  return out;
}

function compareTrees(want, got) {
  const problems = [];
  for (const [k, v] of want) {
    const g = got.get(k);
    if (!g) problems.push(`missing ${k}`);
    else if (g.kind !== v.kind) problems.push(`${k}: ${g.kind} instead of ${v.kind}`);
    else if (v.data && !v.data.equals(g.data))
      problems.push(`${k}: content ${JSON.stringify(g.data.toString('latin1'))} instead of ` +
                    JSON.stringify(v.data.toString('latin1')));
  }
  for (const k of got.keys()) if (!want.has(k)) problems.push(`unexpected ${k}`);
  return problems;
}

function copyTree(from, to) {
  fs.mkdirSync(to, { recursive: true });
  if (fs.existsSync(from)) fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
}

function subset(w, g, at) {
  if (Array.isArray(w)) {
    if (!Array.isArray(g) || g.length !== w.length)
      return `${at}: array length ${g && g.length} != ${w.length}`;
    for (let i = 0; i < w.length; i++) { const e = subset(w[i], g[i], `${at}[${i}]`); if (e) return e; }
    return null;
  }
  if (w && typeof w === 'object') {
    if (!g || typeof g !== 'object') return `${at}: not an object`;
    for (const k of Object.keys(w)) { const e = subset(w[k], g[k], `${at}.${k}`); if (e) return e; }
    return null;
  }
  return w === g ? null : `${at}: ${JSON.stringify(g)} != ${JSON.stringify(w)}`;
}

const names = only.length ? only
  : fs.readdirSync(scenDir).filter(n => fs.statSync(path.join(scenDir, n)).isDirectory()).sort();
let pass = 0, fail = 0;
for (const name of names) {
  const s = path.join(scenDir, name);
  const ws = path.join(work, name);
  copyTree(path.join(s, 'before'), ws);
  const args = fs.existsSync(path.join(s, 'input.json'))
    ? fs.readFileSync(path.join(s, 'input.json'))
    : JSON.stringify({ input: fs.readFileSync(path.join(s, 'patch'), 'utf8') });
  const env = { ...process.env };
  if (fs.existsSync(path.join(s, 'env')))
    for (const l of fs.readFileSync(path.join(s, 'env'), 'utf8').split('\n'))
      if (l.includes('=')) env[l.slice(0, l.indexOf('='))] = l.slice(l.indexOf('=') + 1);
  const r = spawnSync(vthost, ['--workspace', ws, '--profile', profile, '--yes',
                               'call', 'apply_patch', '-'], { input: args, env });
  const problems = [];
  let resp = null;
  try { resp = JSON.parse(r.stdout.toString()); } catch (e) { problems.push('response is not JSON: ' + r.stdout); }
  const stderr = r.stderr.toString();
  if (/Sanitizer|runtime error:/.test(stderr)) problems.push('sanitizer report:\n' + stderr);
  const errFile = path.join(s, 'error');
  if (fs.existsSync(errFile)) {
    const want = fs.readFileSync(errFile, 'utf8').replace(/\n$/, '');
    if (r.status === 0) problems.push('expected a failure, exit code was 0');
    const got = resp && typeof resp.error === 'string' ? resp.error : '';
    if (!got.includes(want)) problems.push(`error text differs\n    want: ${want}\n    got:  ${got}`);
    for (const p of compareTrees(tree(path.join(s, 'before')), tree(ws)))
      problems.push('tree changed although the patch failed: ' + p);
  } else {
    if (r.status !== 0) problems.push(`exit code ${r.status}: ${r.stdout}${stderr}`);
    for (const p of compareTrees(tree(path.join(s, 'after')), tree(ws)))
      problems.push('tree differs from after/: ' + p);
  }
  const respFile = path.join(s, 'response.json');
  if (resp && fs.existsSync(respFile)) {
    const e = subset(JSON.parse(fs.readFileSync(respFile, 'utf8')), resp, '$');
    if (e) problems.push('response differs: ' + e);
  }
  if (problems.length) {
    fail++;
    console.log(`FAIL ${name}`);
    for (const p of problems) console.log('  ' + p);
  } else {
    pass++;
  }
}
// Argument checks and the text rendering, beside the scenarios.
function check(name, argv, input, expectStatus, expectText) {
  if (only.length) return;
  const ws = path.join(work, 'check-' + name);
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\n');
  const r = spawnSync(vthost, ['--workspace', ws, '--profile', profile, '--yes', ...argv],
                      { input, maxBuffer: 1 << 26 });
  const out = r.stdout.toString() + r.stderr.toString();
  if (r.status === expectStatus && out.includes(expectText)) { pass++; return; }
  fail++;
  console.log(`FAIL ${name}\n  exit ${r.status} (want ${expectStatus}), output lacks ${JSON.stringify(expectText)}:\n  ${out.slice(0, 600)}`);
}
const big = '*** Begin Patch\n*** Add File: big.txt\n' + '+0123456789abcdef\n'.repeat(58252) + '*** End Patch\n';
check('too_large', ['call', 'apply_patch', '-'], JSON.stringify({ input: big }), 2,
      `Patch too large: ${Buffer.byteLength(big)} bytes; the limit is 1048576 bytes (1 MiB)`);
check('both_input_and_patch', ['call', 'apply_patch', '-'], JSON.stringify({ input: 'x', patch: 'y' }), 2,
      "Give the patch in 'input' or in 'patch', not both");
check('no_patch', ['call', 'apply_patch', '{}'], '', 2, "Missing patch: give the patch text in 'input'");
check('unknown_argument', ['call', 'apply_patch', '-'], JSON.stringify({ input: 'x', diff: 'y' }), 2, 'diff');
check('text_rendering', ['call', '--format', 'text', 'apply_patch', '-'],
      JSON.stringify({ input: '*** Begin Patch\n*** Update File: a.txt\n one\n-two\n+TWO\n*** End Patch\n' }), 0,
      'apply_patch: 1 file changed, 1 insertion(+), 1 deletion(-)\n\n--- updated a.txt (+1 -1)\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n');

// max_output_tokens: a response over the budget is spooled whole and
// previewed in `output`, like every tool's; within it, nothing changes.
(function budget() {
  if (only.length) return;
  const ws = path.join(work, 'check-budget');
  fs.mkdirSync(ws, { recursive: true });
  let patch = '*** Begin Patch\n';
  for (let i = 0; i < 40; i++) patch += `*** Add File: f${i}.txt\n+line ${i} of a file with some text\n`;
  patch += '*** End Patch\n';
  const call = (extra) => spawnSync(vthost, ['--workspace', ws, '--profile', profile, '--yes',
                                             'call', 'apply_patch', '-'],
                                    { input: JSON.stringify({ input: patch, ...extra }) });
  const problems = [];
  const r = call({ max_output_tokens: 200 });
  let j = null;
  try { j = JSON.parse(r.stdout.toString()); } catch (e) { problems.push('not JSON: ' + r.stdout); }
  if (j) {
    if (r.status !== 0) problems.push('exit ' + r.status);
    if (j.success !== true || j.truncated !== true) problems.push('success/truncated: ' + JSON.stringify(j).slice(0, 300));
    if ('diff' in j || 'applied' in j) problems.push('structured fields kept beyond the budget');
    if (!(j.original_token_count > 200)) problems.push('original_token_count ' + j.original_token_count);
    if (typeof j.output !== 'string' || j.output.length > 200 * 4 + 120) problems.push('output over the budget: ' + (j.output || '').length);
    if (!j.output.includes('"applied"')) problems.push('output is not the head of the response');
    const full = j.spool_path ? JSON.parse(fs.readFileSync(path.join(ws, j.spool_path), 'utf8')) : null;
    if (!full || full.diff.length !== 40 || full.applied.length !== 40 || full.diff[39].path !== 'f39.txt')
      problems.push('the spool does not hold the complete response');
  }
  for (const f of fs.readdirSync(ws)) if (/^f\d+\.txt$/.test(f)) fs.rmSync(path.join(ws, f));
  const r2 = call({ max_output_tokens: 10000 });
  const j2 = JSON.parse(r2.stdout.toString());
  if (j2.truncated !== undefined || j2.diff.length !== 40 || 'output' in j2) problems.push('within budget it changed: ' + r2.stdout.toString().slice(0, 200));
  if (problems.length) { fail++; console.log('FAIL budget\n  ' + problems.join('\n  ')); } else pass++;
})();

fs.rmSync(work, { recursive: true, force: true });
console.log(`${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
