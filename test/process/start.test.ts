import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
// @ts-expect-error: plain JavaScript without types (it runs before any build)
import { root, staleBuild, staleReference } from '../../bin/build-check.js';

/** `npm start` runs the build made at install (npm's prepare step), and only a current one. */
describe('npm start and the build', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-start-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * A tree with one source, its compiled file `age` seconds older (negative: newer) and the bundle
   * `bundleAge` seconds older (null: none).
   */
  function tree(age: number | null, bundleAge: number | null = age): string {
    mkdirSync(join(dir, 'src'), { recursive: true });
    mkdirSync(join(dir, 'generated'), { recursive: true });
    writeFileSync(join(dir, 'src', 'main.ts'), 'export {};\n');
    const now = Date.now() / 1000;
    utimesSync(join(dir, 'src', 'main.ts'), now, now);
    if (age !== null) {
      mkdirSync(join(dir, 'dist', 'src'), { recursive: true });
      writeFileSync(join(dir, 'dist', 'src', 'main.js'), 'export {};\n');
      utimesSync(join(dir, 'dist', 'src', 'main.js'), now - age, now - age);
    }
    if (bundleAge !== null) {
      mkdirSync(join(dir, 'dist', 'bundle'), { recursive: true });
      writeFileSync(join(dir, 'dist', 'bundle', 'main.js'), 'export {};\n');
      utimesSync(join(dir, 'dist', 'bundle', 'main.js'), now - bundleAge, now - bundleAge);
    }
    return dir;
  }

  it('a build is current when every source has a compiled file at least as new', () => {
    expect(staleBuild(tree(-10))).to.equal(null);
  });

  it('names the first source that is newer than its compiled file, or whose compiled file is missing', () => {
    expect(staleBuild(tree(10))).to.equal('src/main.ts is newer than dist/src/main.js');
    rmSync(join(dir, 'dist'), { recursive: true });
    expect(staleBuild(tree(null))).to.equal('dist/src/main.js is missing');
  });

  it('names a source newer than the bundle `npm start` and `timetrack` run, or the bundle missing', () => {
    expect(staleBuild(tree(-10, 10))).to.equal('src/main.ts is newer than dist/bundle/main.js');
    rmSync(join(dir, 'dist', 'bundle'), { recursive: true });
    expect(staleBuild(tree(-10, null))).to.equal('dist/bundle/main.js is missing');
  });

  it('the API reference is current when it is at least as new as the contract; else named, as missing or older', () => {
    mkdirSync(join(dir, 'openapi'));
    writeFileSync(join(dir, 'openapi', 'openapi.yaml'), 'openapi: 3.1.0\n');
    expect(staleReference(dir)).to.equal('dist/api-reference.html is missing');
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'api-reference.html'), '<!doctype html>\n');
    const now = Date.now() / 1000;
    utimesSync(join(dir, 'openapi', 'openapi.yaml'), now, now);
    utimesSync(join(dir, 'dist', 'api-reference.html'), now - 10, now - 10);
    expect(staleReference(dir)).to.equal('openapi/openapi.yaml is newer than dist/api-reference.html');
    utimesSync(join(dir, 'dist', 'api-reference.html'), now + 10, now + 10);
    expect(staleReference(dir)).to.equal(null);
  });

  it('the start refuses an out-of-date build with a clear message and exit 78, before loading the server', () => {
    tree(10);
    cpSync(join(root, 'bin'), join(dir, 'bin'), { recursive: true });
    const run = spawnSync(process.execPath, ['--import', join(dir, 'bin', 'require-build.js'), '-e', 'console.log("served")'], {
      encoding: 'utf8',
    });
    expect(run.status).to.equal(78);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.equal(
      'timetrack: the compiled server in dist/ is out of date (src/main.ts is newer than dist/src/main.js). Run `npm install` (or `npm run build`) first.\n',
    );
  });

  it('stopping `npm start` by its process id stops the server: npm runs node itself and forwards SIGTERM', async () => {
    // The working copy's build, as `npm install` left it (built here if the sources changed since).
    if (staleBuild() !== null || staleReference() !== null)
      expect(spawnSync('npm', ['run', '-s', 'build'], { cwd: root, encoding: 'utf8' }).status).to.equal(0);
    // npm start runs the bundle, whose chained source maps made c8 read every line of each module
    // the server loads as covered: in a coverage run this process writes no coverage.
    const { NODE_V8_COVERAGE: _coverage, ...inherited } = process.env;
    const child = spawn('npm', ['start'], {
      cwd: root,
      env: { ...inherited, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'timetrack.db'), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    // The first start's message (the owner's token) is on standard error.
    let said = '';
    child.stderr.on('data', (chunk) => (said += chunk));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 30_000);
        child.stdout.on('data', () => {
          const match = /"msg":"listening","url":"([^"]+)"/.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(match[1] as string);
          }
        });
      });
      expect((await fetch(`${url}/api/v1/openapi.json`)).status).to.equal(200);
      // The API reference the build rendered from the contract (npm run build, as npm install runs it).
      const reference = await fetch(`${url}/api/reference`);
      expect(reference.status).to.equal(200);
      expect(reference.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(reference.headers.get('content-security-policy')).to.match(/^default-src 'none'; script-src 'sha256-/);
      expect(await reference.text()).to.contain('"operationId":"getMe"');
      // A heavy read runs on a reader thread, started under npm start's Node options (V8's heap
      // options among them, which a thread given its own options must not carry).
      const token = /Bearer (tt_[A-Za-z0-9_-]+)/.exec(said)?.[1];
      expect(token).to.be.a('string');
      const entries = await fetch(`${url}/api/v1/entries?from=2026-01-01&to=2026-12-31`, { headers: { Authorization: `Bearer ${token}` } });
      expect(entries.status).to.equal(200);
      expect(((await entries.json()) as { data: unknown[] }).data).to.deep.equal([]);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
      expect(out).to.contain('"msg":"stopped"');
      // Nothing is left answering on the port.
      const after = await fetch(`${url}/api/v1/openapi.json`).then(
        (res) => res.status,
        () => 'refused',
      );
      expect(after).to.equal('refused');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
