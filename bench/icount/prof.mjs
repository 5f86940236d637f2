// node prof.mjs FILE.cpuprofile [top] [pattern...]: self time by function, and inclusive time of functions matching patterns
/* global process */
import { readFileSync } from 'node:fs';
const [file, topArg, ...patterns] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
let total = 0;
const label = (n) =>
  `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*node_modules\//, 'nm/').replace(/.*\/(dist|src)\//, '$1/')}:${n.callFrame.lineNumber}`;
for (const [id, t] of dt) {
  total += t;
  const l = label(byId.get(id));
  self.set(l, (self.get(l) ?? 0) + t);
}
const idle = [...self].filter(([l]) => /^\((idle|program)\)/.test(l)).reduce((s, [, t]) => s + t, 0);
console.log(`total ${(total / 1000).toFixed(0)} ms, idle/program ${(idle / 1000).toFixed(0)} ms`);
for (const [l, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25)))
  console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${l}`);
for (const pat of patterns) {
  const re = new RegExp(pat);
  let inc = 0;
  for (const [id, t] of dt) {
    let cur = id;
    while (cur !== undefined) {
      if (re.test(label(byId.get(cur)))) {
        inc += t;
        break;
      }
      cur = parent.get(cur);
    }
  }
  console.log(`inclusive /${pat}/: ${((100 * inc) / total).toFixed(1)}%`);
}
