import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { expect } from 'chai';
import { PACKAGE_ROOT } from '../../../src/paths.js';
import { poolModule, threadModule, threadOptions, threadsFromBuild } from '../../../src/threads/boot.js';
import { BUILD_CURRENT, COVERAGE_RUN } from '../../helpers/entry.js';

describe('thread boot: which module a thread starts on', () => {
  const root = pathToFileURL(`${PACKAGE_ROOT}/`).href;
  const caller = `${root}src/threads/readers/pool.ts`;
  after(() => threadsFromBuild(BUILD_CURRENT ? PACKAGE_ROOT : null, COVERAGE_RUN ? 'files' : 'bundle'));

  it('under tsx, the sources through ./tsx-boot.mjs, the module and tsx named in workerData', () => {
    threadsFromBuild(null);
    const started = threadModule(caller, '../reader-thread', { x: 1 });
    expect(started.filename).to.equal(`${root}src/threads/tsx-boot.mjs`);
    expect(started.workerData).to.include({ x: 1, threadModule: `${root}src/threads/reader-thread.ts` });
    expect((started.workerData as { tsxApi: string }).tsxApi).to.match(/^file:\/\/.*tsx.*\.mjs$/);
  });

  it("with threads from the build, the thread's own file of the bundle in dist/bundle/, its workerData untouched", () => {
    threadsFromBuild(PACKAGE_ROOT);
    const started = threadModule(caller, '../reader-thread', { x: 1 });
    expect(started.filename).to.equal(`${root}dist/bundle/reader-thread.js`);
    expect(started.workerData).to.deep.equal({ x: 1 });
    // The process's node options, without tsx's loader (this process runs under it).
    expect(process.execArgv.some((arg) => /tsx/.test(arg))).to.equal(true);
    expect(started.execArgv).to.deep.equal(process.execArgv.filter((arg) => !/^--(import|require|loader)=?tsx(\/esm)?$/.test(arg)));
    expect(started.execArgv?.some((arg) => /tsx/.test(arg))).to.equal(false);
    expect(threadModule(`${root}src/threads/checkpointer.ts`, './checkpointer-thread').filename).to.equal(
      `${root}dist/bundle/checkpointer-thread.js`,
    );
  });

  it('the bundle has a file of its own for every thread module, where a bundled caller looks (a current build only)', function () {
    if (!BUILD_CURRENT) this.skip();
    const threads = readdirSync(join(PACKAGE_ROOT, 'src', 'threads')).filter((name) => name.endsWith('-thread.ts'));
    expect(threads).to.include.members([
      'reader-thread.ts',
      'document-thread.ts',
      'sender-thread.ts',
      'checkpointer-thread.ts',
      'import-thread.ts',
    ]);
    const missing = threads
      .map((name) => join(PACKAGE_ROOT, 'dist', 'bundle', name.replace(/\.ts$/, '.js')))
      .filter((file) => !existsSync(file));
    expect(missing).to.deep.equal([]);
  });

  it("a coverage run's choice: tsc's compiled module beside the caller's in dist/src/, without tsx's loader", () => {
    threadsFromBuild(PACKAGE_ROOT, 'files');
    const started = threadModule(caller, '../reader-thread', { x: 1 });
    expect(started.filename).to.equal(`${root}dist/src/threads/reader-thread.js`);
    expect(started.workerData).to.deep.equal({ x: 1 });
    expect(started.execArgv?.some((arg) => /tsx/.test(arg))).to.equal(false);
    expect(threadModule(`${root}src/threads/checkpointer.ts`, './checkpointer-thread').filename).to.equal(
      `${root}dist/src/threads/checkpointer-thread.js`,
    );
  });

  it('a pool’s threads start with require(esm) off, so piscina imports their module (a thread terminated in require(esm) aborts the process)', () => {
    // Node 20.20 has the switch; this package needs Node 20.19 or later.
    expect(process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module')).to.equal(true);
    for (const choice of [null, PACKAGE_ROOT]) {
      threadsFromBuild(choice);
      const started = threadModule(caller, '../reader-thread', { x: 1 });
      const pooled = poolModule(caller, '../reader-thread', { x: 1 });
      expect(pooled.filename).to.equal(started.filename);
      expect(pooled.workerData).to.deep.equal(started.workerData);
      // The options the thread would have had otherwise (its own, or those of the process it inherits), and the switch.
      expect(pooled.execArgv).to.deep.equal([...threadOptions(started.execArgv ?? process.execArgv), '--no-experimental-require-module']);
    }
  });

  it('a pool’s thread keeps only the options Node accepts in a thread: npm start’s V8 heap options would refuse the Worker', async () => {
    const npmStart = ['--max-old-space-size=512', '--max-semi-space-size=4', '--import', './bin/require-build.js', '--enable-source-maps'];
    expect(() => new Worker('0', { eval: true, execArgv: npmStart })).to.throw(
      /invalid execArgv flags: --max-old-space-size=512, --max-semi-space-size=4/,
    );
    const kept = threadOptions([...npmStart, '--import=tsx/esm', '--stack-size=900', '--conditions', 'x']);
    expect(kept).to.deep.equal(['--import', './bin/require-build.js', '--enable-source-maps', '--import=tsx/esm', '--conditions', 'x']);
    // Node starts a thread on them and the switch.
    const thread = new Worker('0', { eval: true, execArgv: [...kept.slice(2), '--no-experimental-require-module'] });
    expect(await new Promise((resolve) => thread.on('exit', resolve))).to.equal(0);
  });

  it('a compiled caller runs its own .js sibling whatever the choice', () => {
    threadsFromBuild(PACKAGE_ROOT);
    expect(threadModule(`${root}dist/src/threads/sender.js`, './sender-thread').filename).to.equal(
      `${root}dist/src/threads/sender-thread.js`,
    );
    threadsFromBuild(null);
    expect(threadModule(`${root}dist/src/threads/sender.js`, './sender-thread').filename).to.equal(
      `${root}dist/src/threads/sender-thread.js`,
    );
  });
});
