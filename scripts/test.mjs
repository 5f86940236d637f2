// `npm test`: every check, then every tier of tests, on the machine's two cores.
//
// The tiers run in three lanes beside one another once the checks pass:
//
//   lane 1: http
//   lane 2: browser -> einvoice
//   lane 3: fast -> process
//
// The browser and the rules' tiers spend much of their time waiting (Chromium's pages, timers,
// the one JVM), the process tier on its children and their sleeps; three lanes fill those waits
// with the http tier's CPU. A fresh clone of afdc373 on the 2-core machine, quiet: two lanes
// (fast -> http beside browser -> einvoice -> process) 446.6 s, three lanes 403.1 s, both green.
// The http tier is the longest (235 s of 359 in a fresh clone of 61cf197, after fast's 71 s in
// the same lane, while the process lane had ended 130 s before): it starts first, alone in its
// lane, and fast goes before process. The suite keeps both cores busy from start to end (sampled
// every 5 s: 1.9-2.0 cores), so the layout only trims the tail; its CPU bounds the rest.
//
// Chromium, Java and poppler are installed in the background while the checks run (on a machine
// that has them this takes no time). Each tier's output is kept and printed whole when the tier
// ends, so two tiers never interleave their lines; a line says when each starts and ends. The
// exit code is 1 when a check or a tier failed. `npm run test:tiers` still runs the tiers one
// after another, and `npm run test:<tier>` one tier.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';

// TEST_LANES (e.g. `fast,http|browser,einvoice|process`) tries another layout; every tier must be named once.
const LANES = process.env.TEST_LANES
  ? process.env.TEST_LANES.split('|').map((lane) => lane.split(','))
  : [['http'], ['browser', 'einvoice'], ['fast', 'process']];
const TIERS = ['fast', 'http', 'process', 'browser', 'einvoice'];
if (LANES.flat().sort().join() !== [...TIERS].sort().join()) {
  console.error(`TEST_LANES must name each of ${TIERS.join(', ')} once`);
  process.exit(2);
}
const started = Date.now();
const seconds = (from) => ((Date.now() - from) / 1000).toFixed(1);
const logs = mkdtempSync(join(tmpdir(), 'timetrack-test-'));

// The http tier's Node processes (mocha, its workers, the servers they start) may grow V8's young
// generation to 64 MB a semi-space (16 by default): its tests allocate quickly (requests, JSON,
// pages) and scavenging took ~6 % of its main thread. Alternated twice: 160.8 -> 152.7 s of CPU,
// each worker ~120 MB more at its peak. Not for the fast and process tiers, which it slowed
// (134.7 -> 147.1 s of CPU together, two pairs). Through NODE_OPTIONS, not mocha's `node-option`:
// a worker thread refuses V8 flags in its execArgv, which it inherits from its process's.
const YOUNG_GENERATION = { http: '--max-semi-space-size=64' };

// The http and process tiers keep their temporary folders (each test server's database, spools,
// backups) in memory when the machine has a tmpfs at /dev/shm with room (2 GiB; a container's
// default 64 MB would not hold them): the same SQLite files and syncs, without a disk's journal
// under every commit. The http tier alone, alternated twice: 146.5 -> 141.4 s of CPU (system time
// 18.5 -> 15.9 s), wall 107.2 -> 102.7 s.
const MEMORY_TMPDIR = (() => {
  try {
    const { bavail, bsize } = statfsSync('/dev/shm');
    return bavail * bsize >= 2 * 1024 ** 3 ? '/dev/shm' : null;
  } catch {
    return null;
  }
})();
const IN_MEMORY = new Set(['http', 'process']);

/** Runs a command with its output in a file of its own; resolves to its exit code and output. */
function run(label, command, args) {
  return new Promise((resolve) => {
    const file = join(logs, `${label}.log`);
    const out = openSync(file, 'w');
    const env = { ...process.env, FORCE_COLOR: '0' };
    if (YOUNG_GENERATION[label]) env.NODE_OPTIONS = [env.NODE_OPTIONS, YOUNG_GENERATION[label]].filter(Boolean).join(' ');
    if (MEMORY_TMPDIR && IN_MEMORY.has(label) && !process.env.TMPDIR) env.TMPDIR = MEMORY_TMPDIR;
    const child = spawn(command, args, { stdio: ['ignore', out, out], env });
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output: readFileSync(file, 'utf8') }));
  });
}

// The test tools: one apt-get after the other (two at once would wait on dpkg's lock).
const tools = run('tools', 'sh', ['-c', 'sh scripts/ensure-chromium.sh; sh scripts/ensure-einvoice-tools.sh']).then(({ output }) => {
  if (output.trim() !== '') process.stdout.write(output);
});

const failed = [];
const check = await run('check', process.execPath, ['scripts/check.mjs']);
process.stdout.write(check.output);
if (check.code !== 0) {
  console.log(`npm test: the checks failed (${seconds(started)} s); no tests were run.`);
  await tools;
  rmSync(logs, { recursive: true, force: true });
  process.exit(1);
}

async function tier(name) {
  const begun = Date.now();
  console.log(`\n▶ test:${name} started (${seconds(started)} s into the run)`);
  const { code, output } = await run(name, 'npm', ['run', '-s', `test:${name}`]);
  console.log(`\n━━ test:${name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds(begun)} s ━━`);
  process.stdout.write(output);
  if (code !== 0) failed.push(name);
  return { name, wall: seconds(begun), code, output };
}

// Every tier but fast waits for the test tools: the browser's Chromium, the rules' Java and
// Saxon, and poppler, which the http tier's report and invoice downloads read PDFs with.
const lanes = await Promise.all(
  LANES.map(async (names) => {
    const done = [];
    for (const name of names) {
      if (name !== 'fast') await tools;
      done.push(await tier(name));
    }
    return done;
  }),
);

// A failed tier's failures again at the end, where a CI log's tail shows them.
for (const { name, code, output } of lanes.flat()) {
  if (code === 0) continue;
  const at = output.search(/^ +\d+ failing/m);
  console.log(`\n━━ test:${name}'s failures ━━\n${at >= 0 ? output.slice(at).trimEnd() : output.split('\n').slice(-40).join('\n')}`);
}
console.log(`\nnpm test: ${seconds(started)} s in all`);
for (const { name, wall, code } of lanes.flat()) console.log(`  ${code === 0 ? 'ok  ' : 'FAIL'}  test:${name} (${wall} s)`);
rmSync(logs, { recursive: true, force: true });
process.exitCode = failed.length === 0 ? 0 : 1;
