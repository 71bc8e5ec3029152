// End-to-end checks of search_tools through the built `vthost call`.
//   node search_tools.mjs VTHOST CATALOG_FIXTURE_DIR [CODE_SEARCH_SO]
// Every call is its own host process: ranking, limits, detail levels,
// refusals, determinism and what the default profile's catalog holds.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [vthost, fixtureDir, codeSearchSo] = process.argv.slice(2);
if (!vthost || !fixtureDir) {
  console.error('usage: search_tools.mjs VTHOST CATALOG_FIXTURE_DIR [CODE_SEARCH_SO]');
  process.exit(2);
}
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'vthost-search-'));
// Fixture tools declare network effects: allow the one the test calls.
fs.writeFileSync(path.join(ws, 'vtcode.toml'),
  '[permissions]\nallow = ["github_create_issue"]\n');

function run(args, { fixture = true } = {}) {
  // the workspace's rules name a fixture tool: without the fixture the
  // host is started elsewhere (a rule naming a missing tool would warn);
  // with it, --config names the file so its allow rule applies
  const argv = fixture ? ['--workspace', ws, '--config', path.join(ws, 'vtcode.toml')]
    : ['--workspace', os.tmpdir()];
  if (fixture) argv.push('--plugin-dir', fixtureDir);
  const r = spawnSync(vthost, [...argv, ...args], { encoding: 'utf8', timeout: 20000 });
  if (r.error) throw r.error;
  return r;
}

function search(args, opts) {
  const r = run(['call', 'search_tools', JSON.stringify(args)], opts);
  return { ...r, json: r.status === 0 ? JSON.parse(r.stdout) : null };
}

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('GitHub pull request review finds the pull-request tools first', () => {
  const r = search({ query: 'GitHub pull request review' });
  assert.equal(r.status, 0, r.stderr);
  const j = r.json;
  assert.equal(j.query, 'GitHub pull request review');
  assert.equal(j.count, 5);
  const names = j.tools.map((t) => t.name);
  assert.equal(names[0], 'github_review_pull_request');
  for (const n of names.slice(0, 4)) assert.match(n, /_pull_request/);
  for (let i = 1; i < j.tools.length; i++)
    assert.ok(j.tools[i - 1].score >= j.tools[i].score, 'scores descend');
  // only matches within half the best score are expanded (listed)
  const strong = j.tools.filter((t) => t.score >= 0.5 * j.tools[0].score).map((t) => t.name);
  assert.ok(strong.length >= 1 && strong.length <= names.length);
  assert.deepEqual(j.expanded_for_next_segment, strong);
  for (const t of j.tools) assert.equal(t.listed, strong.includes(t.name), t.name);
  assert.equal(typeof j.next_catalog_epoch, 'number');
});

test('weak matches are returned but not expanded', () => {
  const r = search({ query: 'list get create', limit: 25 });
  assert.equal(r.status, 0, r.stderr);
  const best = r.json.tools[0].score;
  const weak = r.json.tools.filter((t) => t.score < 0.5 * best);
  // weak fixture tools (the profile's own tools are listed anyway)
  assert.ok(weak.filter((t) => !t.listed).length > 0, 'the query has weak unlisted matches');
  for (const t of weak) assert.ok(!r.json.expanded_for_next_segment.includes(t.name), t.name);
});

test('tools already listed are found and marked listed', () => {
  const r = search({ query: 'run a shell command in a terminal', limit: 5 });
  assert.equal(r.status, 0, r.stderr);
  const exec = r.json.tools.find((t) => t.name === 'exec_command');
  assert.ok(exec, JSON.stringify(r.json.tools));
  assert.equal(exec.listed, true);
  assert.ok(!r.json.expanded_for_next_segment.includes('exec_command'));
});

test('other queries rank the obvious tool first', () => {
  const cases = [
    ['take a screenshot of the web page', 'browser_screenshot'],
    ['run SQL on postgres', 'postgres_query'],
    ['Jira ticket status', 'jira_transition_ticket'],
    ['Kubernetes pods', 'kubernetes_get_pods'],
  ];
  for (const [q, want] of cases) {
    const r = search({ query: q, limit: 3 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.tools[0].name, want, `query ${q}`);
  }
});

test('detail levels shape each entry', () => {
  const keys = (lvl) => {
    const r = search({ query: 'browser', detail_level: lvl, limit: 2 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.json.count, 2);
    return r.json.tools;
  };
  for (const t of keys('name')) assert.deepEqual(Object.keys(t).sort(), ['listed', 'name', 'score']);
  const nd = keys('name_description');
  for (const t of nd) {
    assert.deepEqual(Object.keys(t).sort(), ['description', 'listed', 'name', 'score']);
    assert.ok(t.description.length > 10);
  }
  // The default is name_description.
  const def = search({ query: 'browser', limit: 2 }).json.tools;
  assert.deepEqual(def, nd);
  const full = keys('full');
  for (const t of full) {
    assert.deepEqual(Object.keys(t).sort(), ['description', 'listed', 'name', 'parameters', 'score']);
    assert.equal(t.parameters.type, 'object');
    assert.ok(Object.keys(t.parameters.properties).length >= 1);
  }
  const shot = full.find((t) => t.name === 'browser_screenshot') ??
    search({ query: 'browser_screenshot', detail_level: 'full', limit: 1 }).json.tools[0];
  assert.equal(shot.name, 'browser_screenshot');
  assert.match(shot.parameters.properties.selector.description, /CSS selector/);
});

test('limit bounds: 1..25 accepted, outside refused', () => {
  assert.equal(search({ query: 'github', limit: 1 }).json.count, 1);
  const all = search({ query: 'github', limit: 25 });
  assert.equal(all.json.count, 6); // exactly the six GitHub tools
  const many = search({ query: 'list get create', limit: 25 });
  assert.ok(many.json.count > 5 && many.json.count <= 25);
  for (const bad of [0, 26, -1, 2.5, '3']) {
    const r = search({ query: 'github', limit: bad });
    assert.equal(r.status, 2, `limit ${JSON.stringify(bad)} must be refused`);
    assert.match(r.stdout + r.stderr, /limit/);
  }
  assert.equal(search({ query: 'github', detail_level: 'everything' }).status, 2);
});

test('empty and whitespace-only queries are refused', () => {
  for (const q of ['', '   ', '\t\n ', '\u00a0\u2003']) {
    const r = search({ query: q });
    assert.equal(r.status, 2, `query ${JSON.stringify(q)} must be refused`);
    assert.match(r.stdout + r.stderr, /query/);
  }
  assert.equal(search({}).status, 2);
  assert.equal(search({ query: 42 }).status, 2);
});

test('a query matching nothing returns no tools and expands nothing', () => {
  const r = search({ query: 'xylophone quartet' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.json.count, 0);
  assert.deepEqual(r.json.tools, []);
  assert.deepEqual(r.json.expanded_for_next_segment, []);
});

test('the same catalog and query give the same answer in every run', () => {
  const args = ['call', 'search_tools',
    JSON.stringify({ query: 'create list database issue', limit: 25, detail_level: 'full' })];
  const a = run(args), b = run(args), c = run(args);
  assert.equal(a.status, 0, a.stderr);
  assert.equal(a.stdout, b.stdout);
  assert.equal(a.stdout, c.stdout);
  assert.ok(JSON.parse(a.stdout).count >= 10);
});

test('a found tool is callable and echoes its call', () => {
  const r = run(['call', 'github_create_issue',
    JSON.stringify({ owner: 'o', repo: 'r', title: 't' })]);
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.ok, true);
  assert.equal(j.tool, 'github_create_issue');
  assert.deepEqual(j.args, { owner: 'o', repo: 'r', title: 't' });
});

test('deferred fixture tools are not listed by default', () => {
  const r = run(['tools']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /search_tools/);
  assert.doesNotMatch(r.stdout, /github_review_pull_request/);
});

if (codeSearchSo) {
  test('code_search is never in the default profile\'s catalog', () => {
    assert.ok(fs.existsSync(codeSearchSo), `${codeSearchSo} must be built`);
    for (const fixture of [false, true]) {
      const r = search({ query: 'code search definitions usages text paths workspace',
        limit: 25, detail_level: 'name' }, { fixture });
      assert.equal(r.status, 0, r.stderr);
      assert.ok(!r.json.tools.some((t) => t.name === 'code_search'),
        'code_search found in the default profile');
      const exact = search({ query: 'code_search' }, { fixture });
      assert.ok(!exact.json.tools.some((t) => t.name === 'code_search'));
    }
    const listed = run(['tools'], { fixture: false });
    assert.doesNotMatch(listed.stdout, /code_search/);
  });
}

let passed = 0, failed = 0;
test('max_output_tokens: over the budget the response is spooled and previewed', () => {
  const full = search({ query: 'github', limit: 20, detail_level: 'full' });
  assert.equal(full.status, 0, full.stderr);
  assert.ok(full.json.count > 3);
  assert.equal(full.json.truncated, undefined);
  const r = search({ query: 'github', limit: 20, detail_level: 'full', max_output_tokens: 50 });
  assert.equal(r.status, 0, r.stderr);
  const j = r.json;
  assert.equal(j.truncated, true);
  assert.equal(j.tools, undefined, 'the tool list moved to the spool');
  assert.equal(j.count, full.json.count);
  assert.deepEqual(j.expanded_for_next_segment, full.json.expanded_for_next_segment);
  assert.ok(j.output.length <= 50 * 4 + 100, `preview within the budget: ${j.output.length}`);
  assert.match(j.output, /tokens omitted/);
  assert.ok(j.original_token_count > 50);
  const spooled = JSON.parse(fs.readFileSync(path.join(ws, j.spool_path), 'utf8'));
  assert.deepEqual(spooled.tools, full.json.tools, 'the spool holds the complete response');
  assert.equal(j.original_token_count, Math.ceil(fs.statSync(path.join(ws, j.spool_path)).size / 4));
});

for (const t of tests) {
  try {
    t.fn();
    passed++;
    console.log(`ok - ${t.name}`);
  } catch (e) {
    failed++;
    console.log(`not ok - ${t.name}\n${e.stack ?? e}`);
  }
}
fs.rmSync(ws, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
