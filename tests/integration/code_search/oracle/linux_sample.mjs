// The definition oracle on a sample of real kernel headers: C function
// definitions of /usr/include/linux (static inline helpers written every
// way the kernel writes them: __inline__, __attribute__, macros, return
// types on their own line, struct parameters), named by ast-grep's C
// grammar, must each be reported by code_search as a definition at the
// same file, line and name.
//   node linux_sample.mjs CS_OUTLINE [--count N|all] [--verbose]
// The sample is N definitions (default 40) spread evenly over all of them,
// sorted by file and line, so it is the same on every machine with the
// same headers.  Prints "agree K/N" and every one that differs; exits 1
// unless all agree, 77 (skipped) without ast-grep or the headers.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const outline = args[0];
const countArg = args.includes('--count') ? args[args.indexOf('--count') + 1] : '40';
const verbose = args.includes('--verbose');
const astGrep = path.join(here, 'node_modules', '.bin', 'ast-grep');
const dir = '/usr/include/linux';
if (!outline) { console.error('usage: linux_sample.mjs CS_OUTLINE [--count N]'); process.exit(2); }
if (!fs.existsSync(astGrep)) { console.log(`SKIP: ${astGrep} is missing (npm ci in ${here})`); process.exit(77); }
if (!fs.existsSync(dir)) { console.log(`SKIP: ${dir} is missing (linux-libc-dev)`); process.exit(77); }

// The name of every function definition: the identifier a function
// declarator declares, the declarator of a definition (through pointer
// declarators), never one in a parameter list or in the body.
const rule = {
  id: 'def', language: 'c',
  rule: {
    kind: 'identifier',
    inside: { kind: 'function_declarator', field: 'declarator',
              inside: { kind: 'function_definition', stopBy: { kind: 'compound_statement' } } },
    not: { any: [{ inside: { kind: 'parameter_declaration', stopBy: 'end' } },
                 { inside: { kind: 'compound_statement', stopBy: 'end' } }] },
  },
};
const r = spawnSync(astGrep, ['scan', '--inline-rules', JSON.stringify(rule), '--json=stream', dir],
                    { encoding: 'utf8', maxBuffer: 1 << 28 });
if (r.status !== 0 && !r.stdout) { console.error(`ast-grep failed: ${r.stderr}`); process.exit(1); }
const defs = r.stdout.split('\n').filter(Boolean).map(JSON.parse)
  .map((m) => ({ file: m.file, line: m.range.start.line + 1, name: m.text }))
  .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
const count = countArg === 'all' ? defs.length : Number(countArg);
if (!(count > 0) || defs.length < count) { console.log(`FAIL: only ${defs.length} definitions in ${dir}`); process.exit(1); }
const sample = [];
for (let i = 0; i < count; i++) sample.push(defs[Math.floor((i * defs.length) / count)]);

const files = [...new Set(sample.map((d) => d.file))];
const o = spawnSync(outline, files, { encoding: 'utf8', maxBuffer: 1 << 28 });
if (o.status !== 0) { console.error(o.stderr); process.exit(1); }
const ours = new Set();
const byPlace = new Map();
for (const line of o.stdout.split('\n')) {
  if (!line) continue;
  const [f, l, kind, name] = line.split('\t');
  ours.add(`${f}\t${l}\t${name}`);
  byPlace.set(`${f}\t${l}`, `${kind} ${name}`);
}
let agree = 0;
for (const d of sample) {
  const ok = ours.has(`${d.file}\t${d.line}\t${d.name}`);
  if (ok) agree++;
  if (!ok || verbose)
    console.log(`${ok ? 'ok  ' : 'DIFF'} ${d.file}:${d.line} ${d.name}` +
                (ok ? '' : ` (code_search: ${byPlace.get(`${d.file}\t${d.line}`) ?? 'nothing on that line'})`));
}
console.log(`linux sample: agree ${agree}/${count} (of ${defs.length} definitions in ${files.length} of ${dir}'s headers)`);
process.exit(agree === count ? 0 : 1);
