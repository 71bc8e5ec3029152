// Strict permission configuration: a table of malformed permission
// configurations (TOML tables and YAML agent specs).  Each must give its
// specific error (file, line, the closest valid spelling) and none may
// start the host: `explain` exits 2, `serve` exits with the message on
// stderr without answering.
// Usage: node malformed.mjs VTHOST
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const VTHOST = process.argv[2];
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'vthost-malformed-')));
const ws = path.join(root, 'ws');
const home = path.join(root, 'home');
fs.mkdirSync(path.join(ws, '.vtcode/agents'), { recursive: true });
fs.mkdirSync(path.join(home, '.config/vtcode'), { recursive: true });
const userCfg = path.join(home, '.config/vtcode/vtcode.toml');
const ENV = { ...process.env, HOME: home, XDG_CONFIG_HOME: '' };
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {
  protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) + '\n';

let failures = 0, count = 0;
const fail = (name, msg) => { failures++; console.log(`FAIL ${name}: ${msg}`); };

function refuses(name, args, wants) {
  count++;
  const e = spawnSync(VTHOST, [...args, 'explain', 'exec_command', '{"cmd":"ls"}'],
    { encoding: 'utf8', env: ENV, cwd: ws, timeout: 30000, input: '' });
  if (/Sanitizer|runtime error/.test(e.stderr)) return fail(name, `sanitizer: ${e.stderr}`);
  if (e.status !== 2) return fail(name, `explain exit ${e.status}, want 2: ${e.stdout} ${e.stderr}`);
  for (const want of wants)
    if (!e.stderr.includes(want)) return fail(name, `stderr lacks [${want}]: ${e.stderr}`);
  const s = spawnSync(VTHOST, [...args, 'serve'], { encoding: 'utf8', env: ENV, cwd: ws, timeout: 30000, input: INIT });
  if (s.status === 0 || s.stdout.includes('"result"'))
    return fail(name, `serve started (exit ${s.status}): ${s.stdout}`);
  if (!s.stderr.includes(wants[0])) return fail(name, `serve stderr lacks [${wants[0]}]: ${s.stderr}`);
}

// ---- TOML: [permissions] and friends, through --config, the workspace's
// vtcode.toml (trusted or not, a mistake is an error) and the user's ----
let n = 0;
function toml(name, text, wants, where = 'config') {
  const f = where === 'config' ? path.join(root, `c${++n}.toml`)
    : where === 'workspace' ? path.join(ws, 'vtcode.toml') : userCfg;
  fs.writeFileSync(f, text);
  const args = where === 'config' ? ['--workspace', ws, '--config', f] : ['--workspace', ws];
  refuses(`toml ${name}`, args, wants.map((x) => x.replace('FILE', f)));
  if (where !== 'config') fs.rmSync(f);
}
const P = (body) => `[permissions]\n${body}\n`;
toml('misspelt bucket denny', P('denny = ["exec_command(rm *)"]'), ['FILE:2', "unknown key 'denny'", "did you mean 'deny'"]);
toml('wrong case Deny', P('Deny = ["exec_command(rm *)"]'), ['FILE:2', "did you mean 'deny'"]);
toml('misspelt allow', P('alow = ["exec_command(ls *)"]'), ['FILE:2', "did you mean 'allow'"]);
toml('misspelt non_interactive', P('noninteractive = "deny"'), ['FILE:2', "did you mean 'non_interactive'"]);
toml('unknown key', P('future_key = 1'), ['FILE:2', "unknown key 'future_key'"]);
toml('[permission] table', '[permission]\ndeny = ["exec_command(rm *)"]\n', ['FILE:1', 'unknown table [permission]', 'did you mean [permissions]']);
toml('[Permissions] table', '[Permissions]\ndeny = ["exec_command(rm *)"]\n', ['FILE:1', 'did you mean [permissions]']);
toml('[permisions] table', '[permisions]\ndeny = ["exec_command(rm *)"]\n', ['did you mean [permissions]']);
toml('[Trust] table', "[Trust]\nworkspaces = ['/x']\n", ['did you mean [trust]']);
toml('trust misspelt key', "[trust]\nworkspace = ['/x']\n", ['FILE:2', "did you mean 'workspaces'"]);
toml('trust not a list', "[trust]\nworkspaces = '/x'\n", ['FILE:2', 'trust.workspaces must be an array']);
toml('misspelt tool', P('deny = ["exec_comand(rm *)"]'), ['FILE:2', 'unknown tool "exec_comand"', 'did you mean "exec_command"']);
toml('wrong-case alias BASH', P('deny = ["BASH(rm *)"]'), ['FILE:2', 'unknown tool "BASH"', 'did you mean "Bash"']);
toml('wrong-case EDIT', P('deny = ["EDIT(/x/**)"]'), ['FILE:2', 'did you mean "Edit"']);
toml('wrong-case tool', P('deny = ["Exec_Command(rm *)"]'), ['FILE:2', 'did you mean "exec_command"']);
toml('misspelt apply_patch', P('deny = ["apply_pach(/x/**)"]'), ['did you mean "apply_patch"']);
toml('misspelt search_tools', P('ask = ["search_tool"]'), ['did you mean "search_tools"']);
toml('misspelt code_search', P('deny = ["code_serch(/secret/**)"]'), ['did you mean "code_search"']);
toml('bare WebFetch', P('allow = ["WebFetch"]'), ['FILE:2', 'WebFetch(domain:HOST)']);
toml('webfetch case', P('allow = ["webfetch(domain:example.com)"]'), ['FILE:2', 'WebFetch(domain:HOST)']);
toml('two rules, comma', P('deny = ["exec_command(rm *), exec_command(curl *)"]'), ['FILE:2', 'holds more than one rule']);
toml('two rules, space', P('deny = ["exec_command(rm *) exec_command(curl *)"]'), ['FILE:2', 'holds more than one rule']);
toml('two rules, semicolon', P('deny = ["exec_command(rm *);apply_patch"]'), ['FILE:2', 'holds more than one rule']);
toml('two rules, newline', P('deny = ["exec_command(rm *)\\nexec_command(curl *)"]'), ['FILE:2', 'holds more than one rule']);
toml('two tool names', P('deny = ["exec_command, apply_patch"]'), ['FILE:2', 'holds more than one rule']);
toml('rule on a later line', P('deny = [\n  "exec_command(rm *)",\n  "exec_comand(curl *)",\n]'), ['FILE:4', 'did you mean "exec_command"']);
toml('duplicate key', P('deny = ["exec_command(rm *)"]\ndeny = ["exec_command(curl *)"]'), ['FILE:3']);
toml('duplicate table', P('deny = ["exec_command(rm *)"]') + P('ask = []'), ['FILE:3', 'cannot redefine']);
toml('bucket not a list', P('deny = "exec_command(rm *)"'), ['FILE:2', 'permissions.deny must be an array']);
toml('rule not a string', P('deny = [1]'), ['FILE:2', 'must be a rule string']);
toml('unclosed rule', P('deny = ["exec_command(rm *"]'), ['FILE:2', 'missing closing parenthesis']);
toml('non_interactive value', P('non_interactive = "Deny"'), ['FILE:2', 'non_interactive']);
toml('auto as a list', P('auto = ["apply_patch"]'), ['FILE:2', 'permissions.auto must be a table']);
toml('auto misspelt key', '[permissions.auto]\nmax_total_denial = 3\n', ['FILE:2', "did you mean 'max_total_denials'"]);
toml('auto unknown key', '[permissions.auto]\nfuture = true\n', ['FILE:2', "unknown key 'future'"]);
toml('environment misspelt', '[permissions.auto]\nenviroment = {}\n', ['FILE:2', "did you mean 'environment'"]);
toml('environment key misspelt', '[permissions.auto.environment]\ntrusted_domain = []\n', ['FILE:2', "did you mean 'trusted_domains'"]);
toml('auto wrong type', '[permissions.auto]\ndrop_broad_allow_rules = 1\n', ['FILE:2', 'drop_broad_allow_rules']);
toml('workspace file, untrusted', P('denny = ["exec_command(rm *)"]'), ['vtcode.toml:2', "did you mean 'deny'"], 'workspace');
toml("user's file", P('deny = ["exec_comand(rm *)"]'), ['vtcode.toml:2', 'did you mean "exec_command"'], 'user');

// ---- YAML: agent specs' permissions --------------------------------------------
let m = 0;
function agent(name, fm, wants) {
  const a = `bad${++m}`;
  const f = path.join(ws, `.vtcode/agents/${a}.md`);
  fs.writeFileSync(f, `---\n${fm}---\n# agent\n`);
  refuses(`yaml ${name}`, ['--workspace', ws, '--agent', a], wants.map((x) => x.replace('FILE', f)));
}
// the workspace is trusted, so nothing is dismissed for want of trust
fs.writeFileSync(userCfg, `[trust]\nworkspaces = ['${ws}']\n`);
agent('merge key', 'base: &b\n  deny: [exec_command(rm *)]\npermissions:\n  default: ask\n  <<: *b\n', ['FILE:6', 'merge keys']);
agent('alias bucket', 'rules: &r\n  - exec_command(rm *)\npermissions:\n  default: ask\n  deny: *r\n', ['FILE:6', 'aliases']);
agent('alias block', 'p: &p\n  default: allow\npermissions: *p\n', ['FILE:4', 'aliases']);
agent('anchor in block', 'permissions:\n  default: ask\n  deny: &d [exec_command(rm *)]\n', ['FILE:4', 'anchors']);
agent('anchor on block', 'permissions: &p\n  default: ask\n', ['FILE:2', 'anchors']);
agent('duplicate permissions', 'permissions:\n  default: ask\n  deny: [exec_command(rm *)]\npermissions:\n  default: allow\n', ['FILE:5', "duplicate key 'permissions'"]);
agent('duplicate bucket', 'permissions:\n  default: ask\n  deny: [exec_command(rm *)]\n  deny: [exec_command(curl *)]\n', ['FILE:5', "duplicate key 'deny'"]);
agent('misspelt bucket', 'permissions:\n  default: ask\n  denny: [exec_command(rm *)]\n', ['FILE:4', "did you mean 'deny'"]);
agent('wrong-case bucket', 'permissions:\n  default: ask\n  Deny: [exec_command(rm *)]\n', ['FILE:4', "did you mean 'deny'"]);
agent('unknown key', 'permissions:\n  default: ask\n  extra: 1\n', ['FILE:4', "unknown key 'extra'"]);
agent('misspelt block', 'permission:\n  default: ask\n', ['FILE:2', "did you mean 'permissions'"]);
agent('wrong-case block', 'Permissions:\n  default: ask\n', ['FILE:2', "did you mean 'permissions'"]);
agent('misspelt tool', 'permissions:\n  default: ask\n  deny:\n    - exec_comand(rm *)\n', ['FILE:5', 'did you mean "exec_command"']);
agent('wrong-case alias', 'permissions:\n  default: ask\n  deny: [BASH(rm *)]\n', ['FILE:4', 'did you mean "Bash"']);
agent('two rules in one', 'permissions:\n  default: ask\n  deny:\n    - "exec_command(rm *), exec_command(curl *)"\n', ['FILE:5', 'holds more than one rule']);
agent('bad default', 'permissions:\n  default: Allow\n', ['FILE:3', 'must be ask, allow, auto or deny']);
agent('no default', 'permissions:\n  deny: [exec_command(rm *)]\n', ['FILE:2', 'permissions.default is required']);

console.log(`${count - failures}/${count} malformed configurations refused`);

// ---- A rule naming a tool that is not installed (a plugin removed, a
// package not installed) is no mistake: the host starts, says so once
// (file, line, the package when known), and the rule matches nothing ----
let loads = 0, loadFailures = 0;
function loadsWithWarning(name, args, wants) {
  loads++;
  const bad = (msg) => { loadFailures++; console.log(`FAIL ${name}: ${msg}`); };
  const e = spawnSync(VTHOST, [...args, 'explain', 'exec_command', '{"cmd":"ls"}'],
    { encoding: 'utf8', env: ENV, cwd: ws, timeout: 30000, input: '' });
  if (e.status !== 0) return bad(`explain exit ${e.status}, want 0: ${e.stderr}`);
  for (const want of wants)
    if (!e.stderr.includes(want)) return bad(`stderr lacks [${want}]: ${e.stderr}`);
  if (e.stderr.split(wants[0]).length !== 2) return bad(`warned more than once: ${e.stderr}`);
  const c = spawnSync(VTHOST, [...args, 'call', 'exec_command', '{"cmd":"echo alive"}'],
    { encoding: 'utf8', env: ENV, cwd: ws, timeout: 30000, input: '' });
  if (!/alive/.test(c.stdout)) return bad(`call did not run (exit ${c.status}): ${c.stdout} ${c.stderr}`);
  const s = spawnSync(VTHOST, [...args, 'serve'], { encoding: 'utf8', env: ENV, cwd: ws, timeout: 30000, input: INIT });
  if (!s.stdout.includes('"result"')) return bad(`serve did not answer initialize (exit ${s.status}): ${s.stderr}`);
  if (!s.stderr.includes(wants[0])) return bad(`serve stderr lacks [${wants[0]}]: ${s.stderr}`);
}
function tomlLoads(name, text, wants) {
  const f = path.join(root, `c${++n}.toml`);
  fs.writeFileSync(f, text);
  loadsWithWarning(`toml ${name}`, ['--workspace', ws, '--config', f], wants.map((x) => x.replace('FILE', f)));
}
tomlLoads('allow of a removed plugin\'s tool', P('allow = ["exec_command(echo *)", "hello"]'),
  ['FILE:2', 'rule "hello" names no installed tool', 'does nothing']);
tomlLoads('deny of a tool far from any', P('allow = ["exec_command(echo *)"]\ndeny = ["qqqqqqqqqq"]'),
  ['FILE:3', 'rule "qqqqqqqqqq" names no installed tool', 'denies nothing until']);
tomlLoads('pattern matching no tool', P('allow = ["exec_command(echo *)"]\ndeny = ["nosuch*"]'),
  ['FILE:3', 'matches no installed tool']);
function agentLoads(name, fm, wants) {
  const a = `ok${++m}`;
  const f = path.join(ws, `.vtcode/agents/${a}.md`);
  fs.writeFileSync(f, `---\n${fm}---\n# agent\n`);
  loadsWithWarning(`yaml ${name}`, ['--workspace', ws, '--agent', a], wants.map((x) => x.replace('FILE', f)));
}
// the example of the permissions spec, word for word
agentLoads('the spec\'s example (deny: - rm)',
  'permissions:\n  default: ask\n  allow:\n    - exec_command\n    - code_search\n  ask:\n    - write_stdin\n' +
  '  auto:\n    - apply_patch\n  deny:\n    - rm\n',
  ['FILE:12', 'rule "rm" names no installed tool', 'write exec_command(rm *)']);
console.log(`${loads - loadFailures}/${loads} configurations naming absent tools load`);
failures += loadFailures;
fs.rmSync(root, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
