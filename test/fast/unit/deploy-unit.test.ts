import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { PACKAGE_ROOT } from '../../../src/paths.js';

const read = (path: string) => readFileSync(join(PACKAGE_ROOT, path), 'utf8');

/** `npm start`'s command (`exec env NAME=value … node FLAGS… SCRIPT`): its environment, node's flags and the script. */
function npmStart(): { env: string[]; flags: string[]; script: string } {
  const words = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start.trim().split(/\s+/);
  if (words[0] === 'exec') words.shift();
  const env: string[] = [];
  if (words[0] === 'env') for (words.shift(); /^[A-Z_]+=/.test(words[0] ?? '');) env.push(words.shift() as string);
  expect(words.shift()).to.equal('node');
  const script = words.pop() as string;
  // The build check (a checkout's guard against serving old code) is npm start's alone.
  const flags = words.filter((w, i) => w !== '--import' && words[i - 1] !== '--import');
  return { env, flags, script };
}

/** The node command of an ExecStart line (plain, or inside Litestream's `-exec "…"`). */
const nodeCommand = (line: string) => (/"(\/usr\/bin\/node [^"]+)"/.exec(line)?.[1] ?? line.replace(/^ExecStart=/, '')).split(/\s+/);

/** deploy/ runs the server as `npm start` does (docs/operations.md), without npm between systemd and node. */
describe('deploy/: the systemd unit runs the server as npm start does', () => {
  const start = npmStart();
  const expected = ['/usr/bin/node', ...start.flags, `/opt/timetrack/${start.script}`];

  it('the unit: the same node flags and script, and npm start’s environment (the allocator’s settings)', () => {
    const unit = read('deploy/timetrack.service');
    const exec = unit.split('\n').filter((l) => l.startsWith('ExecStart='));
    expect(exec).to.have.length(1);
    expect(nodeCommand(exec[0] as string)).to.deep.equal(expected);
    // glibc's allocator returns large blocks when freed (docs/operations.md, "Memory"): npm start and the unit alike.
    expect(start.env).to.include('MALLOC_MMAP_THRESHOLD_=131072');
    for (const variable of start.env) expect(unit.split('\n')).to.include(`Environment=${variable}`);
  });

  it('the Litestream drop-in and the docs’ copies of the command: the same node flags and script', () => {
    const dropIn = read('deploy/timetrack.service.d/litestream.conf')
      .split('\n')
      .filter((l) => l.startsWith('ExecStart=/'));
    expect(dropIn).to.have.length(1);
    expect(nodeCommand(dropIn[0] as string)).to.deep.equal(expected);
    const documented = read('docs/operations.md')
      .split('\n')
      .filter((l) => l.includes('litestream replicate -config /etc/timetrack'));
    expect(documented.length).to.be.greaterThan(0);
    for (const line of documented) expect(nodeCommand(line.trim())).to.deep.equal(expected);
    // The first start by hand, in deploy/README.md.
    expect(read('deploy/README.md')).to.contain(`node /opt/timetrack/${start.script}`);
  });
});
