// The definition oracle: code_search's declaration recognisers against a
// structural outline made by ast-grep (tree-sitter grammars, pinned in
// package-lock.json) on a corpus per language: the repository's fixtures
// and oracle/corpus, plus real files Debian ships when they are present
// (the Python standard library, /usr/include, Node's bundled JS).
//   node oracle.mjs CS_OUTLINE [--min PERCENT] [--verbose]
// For each language it prints how many of the oracle's named declarations
// code_search also reports at the same file, line and name, and how many
// definitions code_search reports that the outline does not name.  Exits 1
// when the agreement over all languages is below --min (default 95), or
// below 80% for any one language.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const outline = args[0];
const min = args.includes('--min') ? Number(args[args.indexOf('--min') + 1]) : 95;
const verbose = args.includes('--verbose');
const astGrep = path.join(here, 'node_modules', '.bin', 'ast-grep');
if (!outline) { console.error('usage: oracle.mjs CS_OUTLINE [--min PERCENT]'); process.exit(2); }
if (!fs.existsSync(astGrep)) {
  console.log(`SKIP: ${astGrep} is missing (run npm ci in ${here})`);
  process.exit(77);
}

// The name node of each declaration form: [name kinds, parent kind, field
// of the parent (or null: a direct child), extra rule].
const top = (k) => ({ inside: { kind: k } });
const LANGS = {
  python: { ext: ['py'], rules: [
    [['identifier'], 'function_definition', 'name'],
    [['identifier'], 'class_definition', 'name'],
    [['identifier'], 'assignment', 'left', { inside: { kind: 'assignment', field: 'left', inside: { kind: 'expression_statement', inside: { kind: 'module' } } } }],
  ] },
  javascript: { ext: ['js', 'mjs', 'cjs', 'jsx'], rules: [
    [['identifier'], 'function_declaration', 'name'],
    [['identifier'], 'generator_function_declaration', 'name'],
    [['identifier'], 'class_declaration', 'name'],
    [['property_identifier'], 'method_definition', 'name'],
    [['identifier'], 'variable_declarator', 'name', { inside: { kind: 'variable_declarator', field: 'name', inside: { any: [{ kind: 'lexical_declaration' }, { kind: 'variable_declaration' }], inside: { any: [{ kind: 'program' }, { kind: 'export_statement', inside: { kind: 'program' } }] } } } }],
  ] },
  typescript: { ext: ['ts', 'mts', 'cts'], rules: null },
  tsx: { ext: ['tsx'], rules: null },
  go: { ext: ['go'], rules: [
    [['identifier'], 'function_declaration', 'name'],
    [['field_identifier'], 'method_declaration', 'name'],
    [['type_identifier'], 'type_spec', 'name'],
    [['type_identifier'], 'type_alias', 'name'],
    [['identifier'], 'const_spec', 'name', { inside: { kind: 'const_spec', field: 'name', inside: { kind: 'const_declaration', inside: { kind: 'source_file' } } } }],
    [['identifier'], 'var_spec', 'name', { inside: { kind: 'var_spec', field: 'name', inside: { kind: 'var_declaration', inside: { kind: 'source_file' } } } }],
  ] },
  rust: { ext: ['rs'], rules: [
    [['identifier'], 'function_item', 'name'],
    [['identifier'], 'function_signature_item', 'name'],
    [['type_identifier'], 'struct_item', 'name'],
    [['type_identifier'], 'enum_item', 'name'],
    [['type_identifier'], 'union_item', 'name'],
    [['type_identifier'], 'trait_item', 'name'],
    [['type_identifier'], 'type_item', 'name'],
    [['identifier'], 'mod_item', 'name'],
    [['identifier'], 'const_item', 'name'],
    [['identifier'], 'static_item', 'name'],
    [['identifier'], 'macro_definition', 'name'],
  ] },
  java: { ext: ['java'], rules: [
    [['identifier'], 'class_declaration', 'name'],
    [['identifier'], 'interface_declaration', 'name'],
    [['identifier'], 'enum_declaration', 'name'],
    [['identifier'], 'record_declaration', 'name'],
    [['identifier'], 'method_declaration', 'name'],
    [['identifier'], 'constructor_declaration', 'name'],
  ] },
  c: { ext: ['c', 'h'], rules: [
    [['identifier'], 'function_declarator', 'declarator', { inside: { kind: 'function_declarator', field: 'declarator', not: { inside: { kind: 'parameter_declaration', stopBy: 'end' } } } }],
    [['type_identifier'], 'struct_specifier', 'name', { inside: { kind: 'struct_specifier', field: 'name', has: { field: 'body', kind: 'field_declaration_list' } } }],
    [['type_identifier'], 'enum_specifier', 'name', { inside: { kind: 'enum_specifier', field: 'name', has: { field: 'body', kind: 'enumerator_list' } } }],
    [['identifier'], 'enumerator', 'name'],
    [['type_identifier'], 'type_definition', 'declarator'],
    [['identifier'], 'preproc_def', 'name'],
    [['identifier'], 'preproc_function_def', 'name'],
  ] },
  cpp: { ext: ['cpp', 'cc', 'hpp', 'cxx'], rules: null },
  bash: { ext: ['sh', 'bash'], rules: [
    [['word'], 'function_definition', 'name'],
    [['variable_name'], 'variable_assignment', 'name', { inside: { kind: 'variable_assignment', field: 'name', not: { inside: { kind: 'function_definition', stopBy: 'end' } } } }],
  ] },
  csharp: { ext: ['cs'], rules: [
    [['identifier'], 'class_declaration', 'name'],
    [['identifier'], 'struct_declaration', 'name'],
    [['identifier'], 'interface_declaration', 'name'],
    [['identifier'], 'enum_declaration', 'name'],
    [['identifier'], 'record_declaration', 'name'],
    [['identifier'], 'method_declaration', 'name'],
    [['identifier'], 'constructor_declaration', 'name'],
    [['identifier'], 'property_declaration', 'name'],
    [['identifier'], 'delegate_declaration', 'name'],
    [['identifier'], 'enum_member_declaration', 'name'],
  ] },
  kotlin: { ext: ['kt', 'kts'], rules: [
    [['simple_identifier', 'identifier'], 'function_declaration', null],
    [['type_identifier', 'identifier'], 'class_declaration', null],
    [['type_identifier', 'identifier'], 'object_declaration', null],
    [['type_identifier', 'identifier'], 'type_alias', null],
  ] },
  swift: { ext: ['swift'], rules: [
    [['simple_identifier'], 'function_declaration', 'name'],
    [['type_identifier'], 'class_declaration', 'name'],
    [['type_identifier'], 'protocol_declaration', 'name'],
    [['type_identifier'], 'typealias_declaration', 'name'],
  ] },
  scala: { ext: ['scala', 'sc'], rules: [
    [['identifier'], 'function_definition', 'name'],
    [['identifier'], 'function_declaration', 'name'],
    [['identifier'], 'class_definition', 'name'],
    [['identifier'], 'object_definition', 'name'],
    [['identifier'], 'trait_definition', 'name'],
    [['type_identifier'], 'type_definition', 'name'],
    [['identifier'], 'val_definition', 'pattern'],
    [['identifier'], 'var_definition', 'pattern'],
  ] },
  ruby: { ext: ['rb'], rules: [
    [['identifier', 'constant', 'setter'], 'method', 'name'],
    [['identifier', 'constant'], 'singleton_method', 'name'],
    [['constant'], 'class', 'name'],
    [['constant'], 'module', 'name'],
    [['constant'], 'assignment', 'left'],
  ] },
  php: { ext: ['php'], rules: [
    [['name'], 'function_definition', 'name'],
    [['name'], 'method_declaration', 'name'],
    [['name'], 'class_declaration', 'name'],
    [['name'], 'interface_declaration', 'name'],
    [['name'], 'trait_declaration', 'name'],
    [['name'], 'enum_declaration', 'name'],
    [['name'], 'enum_case', 'name'],
    [['name'], 'const_element', null],
  ] },
  lua: { ext: ['lua'], rules: [
    [['identifier'], 'function_declaration', 'name'],
  ] },
  json: { ext: ['json'], rules: [
    [['string_content'], 'string', null, { inside: { kind: 'string', inside: { kind: 'pair', field: 'key' } } }],
  ] },
  yaml: { ext: ['yaml', 'yml'], rules: [
    [['string_scalar'], 'plain_scalar', null, { inside: { kind: 'plain_scalar', inside: { kind: 'flow_node', field: 'key', inside: { kind: 'block_mapping_pair' } } } }],
  ] },
};
LANGS.typescript.rules = [
  ...LANGS.javascript.rules,
  [['type_identifier'], 'interface_declaration', 'name'],
  [['type_identifier'], 'type_alias_declaration', 'name'],
  [['identifier'], 'enum_declaration', 'name'],
  [['type_identifier'], 'class_declaration', 'name'],
  [['type_identifier'], 'abstract_class_declaration', 'name'],
  [['identifier'], 'internal_module', 'name'],
];
LANGS.tsx.rules = LANGS.typescript.rules;
LANGS.cpp.rules = [
  ...LANGS.c.rules,
  [['identifier', 'field_identifier'], 'function_declarator', 'declarator', { inside: { kind: 'function_declarator', field: 'declarator', not: { inside: { kind: 'parameter_declaration', stopBy: 'end' } } } }],
  [['type_identifier'], 'class_specifier', 'name', { inside: { kind: 'class_specifier', field: 'name', has: { field: 'body', kind: 'field_declaration_list' } } }],
  [['namespace_identifier'], 'namespace_definition', 'name'],
  [['type_identifier'], 'alias_declaration', 'name'],
];

function ruleYaml(lang, rules) {
  const any = rules.map(([kinds, parent, field, extra]) => {
    const base = extra ? JSON.parse(JSON.stringify(extra)) : { inside: field ? { kind: parent, field } : { kind: parent } };
    // drop placeholders
    const clean = (o) => { for (const k of Object.keys(o)) { if (o[k] === null) delete o[k]; else if (typeof o[k] === 'object') clean(o[k]); } return o; };
    return { any: kinds.map((k) => ({ kind: k, ...clean(JSON.parse(JSON.stringify(base))) })) };
  });
  return JSON.stringify({ id: 'decl', language: lang, rule: { any } });
}

function corpusFiles() {
  const dirs = [path.join(here, 'corpus'), path.join(here, '..', '..', '..', 'unit', 'code_search', 'fixtures')];
  const files = [];
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p); else if (e.isFile()) files.push(p);
    }
  };
  dirs.forEach(walk);
  // Real files Debian ships, when present: a fixed selection.
  const pick = (dir, re, n) => {
    if (!fs.existsSync(dir)) return;
    const names = fs.readdirSync(dir).filter((f) => re.test(f)).sort().slice(0, n);
    for (const f of names) {
      const p = path.join(dir, f);
      if (fs.statSync(p).isFile() && fs.statSync(p).size < 200000) files.push(p);
    }
  };
  const py = fs.existsSync('/usr/lib') ? fs.readdirSync('/usr/lib').filter((d) => /^python3\.\d+$/.test(d)).sort() : [];
  if (py.length) pick(path.join('/usr/lib', py[py.length - 1]), /^[a-h]\w*\.py$/, 40);
  // C headers of libc6-dev and of the -dev packages setup.sh installs.
  for (const h of ['aio.h', 'dirent.h', 'fcntl.h', 'glob.h', 'iconv.h', 'locale.h', 'mqueue.h',
                   'pthread.h', 'regex.h', 'sched.h', 'search.h', 'signal.h', 'spawn.h',
                   'stdio.h', 'stdlib.h', 'string.h', 'termios.h', 'time.h', 'unistd.h',
                   'wchar.h', 'cjson/cJSON.h', 'yaml.h', 'pcre2.h', 'cmocka.h', 'utf8proc.h',
                   'seccomp.h', 'ini.h', 'ffi.h', 'zlib.h', 'linux/cec-funcs.h', 'linux/cec.h'])
    if (fs.existsSync(path.join('/usr/include', h))) files.push(path.join('/usr/include', h));
  return files;
}

const files = corpusFiles();
const byLang = {};
for (const f of files) {
  const ext = path.extname(f).slice(1).toLowerCase();
  for (const [lang, spec] of Object.entries(LANGS))
    if (spec.ext.includes(ext)) (byLang[lang] ??= []).push(f);
}

// code_search's definitions
const ours = new Set();
const ourCount = {};
{
  const r = spawnSync(outline, files, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) { console.error(r.stderr); process.exit(1); }
  for (const line of r.stdout.split('\n')) {
    if (!line) continue;
    const [f, l, , name] = line.split('\t');
    ours.add(`${f}\t${l}\t${name}`);
  }
}

// Files where every declaration the outline names must be found: C
// definitions after inline keywords, attributes and macros, with struct
// parameters (a regression once made all but the first usages).
const STRICT = [path.join(here, 'corpus', 'c', 'inline_defs.h'), '/usr/include/linux/cec-funcs.h'];
let totalO = 0, totalF = 0, bad = [];
console.log('language     files  oracle  found  agree   cs-only');
for (const [lang, list] of Object.entries(byLang).sort()) {
  const rule = ruleYaml(lang, LANGS[lang].rules);
  const r = spawnSync(astGrep, ['scan', '--inline-rules', rule, '--json=stream', ...list],
                      { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0 && !r.stdout) { console.error(`${lang}: ast-grep failed: ${r.stderr}`); bad.push(lang); continue; }
  const oracle = new Set();
  for (const line of r.stdout.split('\n')) {
    if (!line) continue;
    const m = JSON.parse(line);
    if (m.text.includes('\n')) continue;
    oracle.add(`${m.file}\t${m.range.start.line + 1}\t${m.text}`);
  }
  let found = 0;
  const missed = [];
  for (const o of oracle) if (ours.has(o)) found++; else missed.push(o);
  for (const m of missed)
    if (STRICT.includes(m.split('\t')[0])) {
      console.log(`   missed in a strict file: ${m.replace(/\t/g, ':')}`);
      if (!bad.includes(`${lang} (strict files)`)) bad.push(`${lang} (strict files)`);
    }
  for (const f of STRICT)
    if (list.includes(f)) {
      const n = [...oracle].filter((o) => o.startsWith(`${f}\t`)).length;
      const k = [...oracle].filter((o) => o.startsWith(`${f}\t`) && ours.has(o)).length;
      console.log(`   strict ${path.basename(f)}: ${k}/${n}`);
    }
  const fileSet = new Set(list);
  let csOnly = 0;
  const extra = [];
  for (const o of ours) if (fileSet.has(o.split('\t')[0]) && !oracle.has(o)) { csOnly++; extra.push(o); }
  const pct = oracle.size ? (100 * found) / oracle.size : 100;
  totalO += oracle.size; totalF += found;
  console.log(`${lang.padEnd(12)} ${String(list.length).padStart(5)} ${String(oracle.size).padStart(7)} ${String(found).padStart(6)} ${pct.toFixed(1).padStart(6)}% ${String(csOnly).padStart(8)}`);
  if (verbose) {
    for (const m of missed.slice(0, Number(process.env.ORACLE_SHOW || 30))) console.log(`   missed  ${m.replace(/\t/g, ':')}`);
    for (const m of extra.slice(0, 30)) console.log(`   cs-only ${m.replace(/\t/g, ':')}`);
  }
  if (pct < 80) bad.push(lang);
}
const all = totalO ? (100 * totalF) / totalO : 100;
console.log(`all          ${String(files.length).padStart(5)} ${String(totalO).padStart(7)} ${String(totalF).padStart(6)} ${all.toFixed(1).padStart(6)}%`);
if (all < min || bad.length) {
  console.log(`FAIL: agreement ${all.toFixed(1)}% (goal ${min}%)${bad.length ? `; below 80%: ${bad.join(', ')}` : ''}`);
  process.exit(1);
}
console.log('ok');
