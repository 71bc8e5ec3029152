// Paired, alternating timing of whole processes: each round runs every
// command once (the order reversed on every other round, so neither side
// always runs on a warmer or colder machine), and the figure that counts
// is the median over rounds of each command's time divided by the
// yardstick's time in the same round.  On a shared, loaded machine that
// ratio is far steadier than a ratio of two means.
//
//   node paired.js SPEC.json
//
// SPEC: {"rounds": N, "yardstick": "name", "prepare": argv | null,
//        "commands": [{"name", "argv": [...], "stdin": path | null,
//                      "cwd": dir | null, "env": {..} | null,
//                      "ok": [exit statuses taken for success, default [0]]}]}
// `prepare` runs (untimed) before every timed command.  Prints one line
// per command: median wall time, and its median ratio to the yardstick.
'use strict';
const fs = require('fs');
const { spawnSync } = require('child_process');

const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const rounds = spec.rounds || 10;

function run(argv, opts) {
    const stdin = opts.stdin ? fs.openSync(opts.stdin, 'r') : 'ignore';
    const env = opts.env ? { ...process.env, ...opts.env } : process.env;
    const t0 = process.hrtime.bigint();
    const r = spawnSync(argv[0], argv.slice(1), {
        stdio: [stdin, 'ignore', 'pipe'], cwd: opts.cwd || undefined, env,
        maxBuffer: 1 << 24,
    });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (typeof stdin === 'number') fs.closeSync(stdin);
    if (!(opts.ok || [0]).includes(r.status)) {
        console.error(`paired: ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
        process.exit(1);
    }
    return ms;
}

const median = v => {
    const s = [...v].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const times = Object.fromEntries(spec.commands.map(c => [c.name, []]));
for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...spec.commands].reverse() : spec.commands;
    for (const c of order) {
        if (spec.prepare) run(spec.prepare, {});
        times[c.name].push(run(c.argv, c));
    }
}
const y = times[spec.yardstick];
for (const c of spec.commands) {
    const t = times[c.name];
    const ratios = t.map((x, i) => x / y[i]);
    console.log(`  ${c.name.padEnd(20)} ${median(t).toFixed(1).padStart(8)} ms` +
                (c.name === spec.yardstick ? '   (yardstick)'
                 : `   ${c.name} / ${spec.yardstick} = ${median(ratios).toFixed(2)}` +
                   ` (median of ${rounds} paired ratios; quartiles ` +
                   `${median(ratios.filter(x => x <= median(ratios))).toFixed(2)}..` +
                   `${median(ratios.filter(x => x >= median(ratios))).toFixed(2)})`));
}
