// `npm run check`: every check the suite runs before its tests (the contract's generated types,
// its lint and breaking-change gate, formatting and lint, types, the checked-in SQL), on as many
// at once as the machine has cores, the longest first. Each check's output is shown when it
// fails; the exit code is 1 when any failed.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import process from 'node:process';

const CHECKS = [
  'lint:format',
  'typecheck',
  'lint:oxlint',
  'sql:check',
  'generate:check',
  'lint:spectral',
  'lint:contract',
  'contract:check',
];
const started = Date.now();
const failed = [];
let next = 0;

function run(name) {
  return new Promise((resolve) => {
    const begun = Date.now();
    const child = spawn('npm', ['run', '-s', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('close', (code) => {
      const seconds = ((Date.now() - begun) / 1000).toFixed(1);
      if (code === 0) console.log(`  ok    ${name} (${seconds} s)`);
      else {
        failed.push(name);
        console.log(`  FAIL  ${name} (${seconds} s, exit ${code})\n${Buffer.concat(out).toString().trimEnd()}\n`);
      }
      resolve();
    });
  });
}

async function worker() {
  while (next < CHECKS.length) await run(CHECKS[next++]);
}

console.log(`checks (${availableParallelism()} at once):`);
await Promise.all(Array.from({ length: Math.min(availableParallelism(), CHECKS.length) }, worker));
console.log(`checks: ${CHECKS.length - failed.length} of ${CHECKS.length} passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exitCode = failed.length === 0 ? 0 : 1;
