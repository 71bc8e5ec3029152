// Generates the benchmark cases in DIR: for each case a base tree
// (base/), the apply_patch text (patch.txt), the vthost call arguments
// (args.json) and the equivalent unified diff for git apply (patch.diff).
//   many_chunks: 1,000 chunks on one 100,000-line file
//   many_files:  one chunk in each of 200 files
'use strict';
const fs = require('fs');
const path = require('path');
const dir = process.argv[2];
if (!dir) { console.error('usage: node gen_cases.js DIR'); process.exit(2); }

function text(n, tag) {
  const lines = [];
  for (let i = 1; i <= n; i++)
    lines.push(`${tag} line ${i}: the quick brown fox jumps over the lazy dog ${i * 7919 % 10007}`);
  return lines;
}

// Change line `at` (0-based) of `lines` with 3 lines of context.
function hunk(lines, at, ctx) {
  const lo = Math.max(0, at - ctx), hi = Math.min(lines.length, at + ctx + 1);
  const before = lines.slice(lo, at), after = lines.slice(at + 1, hi);
  const neu = lines[at].replace('quick', 'QUICK');
  const body = [...before.map(l => ' ' + l), '-' + lines[at], '+' + neu, ...after.map(l => ' ' + l)];
  const n = hi - lo;
  return { body, header: `@@ -${lo + 1},${n} +${lo + 1},${n} @@` };
}

function writeCase(name, files) {
  const c = path.join(dir, name);
  fs.rmSync(c, { recursive: true, force: true });
  fs.mkdirSync(path.join(c, 'base'), { recursive: true });
  const ap = ['*** Begin Patch'], ud = [];
  for (const f of files) {
    const p = path.join(c, 'base', f.path);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, f.lines.join('\n') + '\n');
    ap.push(`*** Update File: ${f.path}`);
    ud.push(`--- a/${f.path}`, `+++ b/${f.path}`);
    for (const at of f.changes) {
      const h = hunk(f.lines, at, 3);
      ap.push('@@', ...h.body);
      ud.push(h.header, ...h.body);
    }
  }
  ap.push('*** End Patch');
  const patchText = ap.join('\n') + '\n';
  fs.writeFileSync(path.join(c, 'patch.txt'), patchText);
  fs.writeFileSync(path.join(c, 'args.json'), JSON.stringify({ input: patchText }));
  fs.writeFileSync(path.join(c, 'patch.diff'), ud.join('\n') + '\n');
}

const big = text(100000, 'big');
const changes = [];
for (let k = 0; k < 1000; k++) changes.push(k * 100 + 50);
writeCase('many_chunks', [{ path: 'big.txt', lines: big, changes }]);

const files = [];
for (let k = 0; k < 200; k++)
  files.push({ path: `src/mod${k % 10}/file${k}.txt`, lines: text(60, `f${k}`), changes: [30] });
writeCase('many_files', files);
