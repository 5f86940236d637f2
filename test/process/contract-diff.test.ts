import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { diffContracts, judge } from '../../scripts/contract-diff.js';
import { formatChangelog } from '../../scripts/contract-diff/changelog.js';

const contract = parse(readFileSync(new URL('../../openapi/openapi.yaml', import.meta.url), 'utf8'));
const edited = (change: (doc: any) => void): any => {
  const doc = structuredClone(contract);
  change(doc);
  return doc;
};
const params = (doc: any) => doc.components.parameters;

// The in-memory cases are in test/fast/contract-diff.test.ts; these run the command and git.
describe('contract diff (scripts/contract-diff.ts): the command and the repository', () => {
  describe('the command line, in a scratch git repository', () => {
    const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
    let dir: string;
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
    const run = (...args: string[]) => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/contract-diff.ts', ...args], { cwd: dir, encoding: 'utf8' });
      return { status: result.status, out: result.stdout + result.stderr };
    };
    const writeContract = (doc: unknown) => writeFileSync(join(dir, 'openapi/openapi.yaml'), JSON.stringify(doc, null, 1));

    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'contract-diff-'));
      mkdirSync(join(dir, 'scripts'));
      mkdirSync(join(dir, 'openapi'));
      copyFileSync(join(repoRoot, 'scripts/contract-diff.ts'), join(dir, 'scripts/contract-diff.ts'));
      cpSync(join(repoRoot, 'scripts/contract-diff'), join(dir, 'scripts/contract-diff'), { recursive: true });
      symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
      writeFileSync(join(dir, 'package.json'), '{"type": "module"}');
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-qm', 'no contract yet');
      writeContract(contract);
      git('add', '-A');
      git('commit', '-qm', 'the contract');
      git('checkout', '-qb', 'feature');
      git('commit', '-q', '--allow-empty', '-m', 'a feature');
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('compares with the merge base with main and fails on a breaking change', () => {
      writeContract(edited((doc) => (params(doc).Limit.schema.maximum = 100)));
      const { status, out } = run('--check');
      expect(status).to.equal(1);
      expect(out).to.match(/^openapi\/openapi.yaml at [0-9a-f]{7} \(merge base with main; version 1.0.0\)/);
      expect(out).to.include('BREAKING      GET /api/v1/entries query.limit  maximum-decreased: 500 -> 100\n');
      expect(out).to.include('contract:check failed: 2 breaking change(s)');
      expect(run().status).to.equal(0); // contract:diff only reports
    });

    it('passes once the change is accepted', () => {
      const accepted = {
        accepted: [{ location: '* query.limit', kind: 'maximum-decreased', reason: 'Reviewed: no client pages past 100.' }],
      };
      writeFileSync(join(dir, 'openapi/accepted-changes.json'), JSON.stringify(accepted));
      const { status, out } = run('--check');
      expect(out).to.include('2 changes, 2 breaking (2 accepted in openapi/accepted-changes.json).');
      expect(status).to.equal(0);
      rmSync(join(dir, 'openapi/accepted-changes.json'));
    });

    it('reads a base without the contract as empty: all added, nothing breaking', () => {
      const { status, out } = run('--check', 'main~1');
      expect(out).to.include('no contract there');
      expect(out).to.match(/ 0 breaking /);
      expect(status).to.equal(0);
    });

    it('refuses an unknown revision', () => {
      expect(run('--check', 'no-such-rev').status).to.equal(2);
    });
  });

  describe('releases, the removal rule and the changelog, in a scratch git repository', () => {
    const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
    let dir: string;
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
    const run = (...args: string[]) => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/contract-diff.ts', ...args], { cwd: dir, encoding: 'utf8' });
      return { status: result.status, out: result.stdout + result.stderr };
    };
    const writeContract = (doc: unknown) => writeFileSync(join(dir, 'openapi/openapi.yaml'), stringify(doc));
    const v110 = edited((doc) => {
      doc.info.version = '1.1.0';
      Object.assign(doc.paths['/api/v1/tags/{id}'].get, { deprecated: true, 'x-deprecated-at': '2026-12-01', 'x-sunset': '2027-06-01' });
      doc.paths['/api/v1/tags'].get.parameters.push({ name: 'sort', in: 'query', schema: { type: 'string' } });
    });
    const v200 = (() => {
      const doc = structuredClone(v110);
      doc.info.version = '2.0.0';
      delete doc.paths['/api/v1/tags/{id}'].get;
      delete doc.paths['/api/v1/tags/{id}'].delete;
      return doc;
    })();

    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'contract-release-'));
      mkdirSync(join(dir, 'openapi'));
      cpSync(join(repoRoot, 'scripts/contract-diff.ts'), join(dir, 'scripts/contract-diff.ts'));
      cpSync(join(repoRoot, 'scripts/contract-diff'), join(dir, 'scripts/contract-diff'), { recursive: true });
      symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
      writeFileSync(join(dir, 'package.json'), '{"type": "module"}');
      writeFileSync(join(dir, '.gitignore'), 'node_modules\n');
      writeFileSync(join(dir, 'CHANGELOG.md'), '# Changelog\n\nIntro.\n\n## 1.0.0 (2026-11-25)\n\nThe first.\n');
      git('init', '-q', '-b', 'main');
      writeContract(contract);
      git('add', '-A');
      git('commit', '-qm', '1.0.0');
      git('tag', 'v1.0.0');
      writeContract(v110);
      git('commit', '-qam', '1.1.0: deprecate GET /tags/{id}');
      git('tag', 'v1.1.0');
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('changelog between two tags: the added parameter and the deprecation with its dates', () => {
      const { status, out } = run('--format', 'changelog', 'v1.0.0', 'v1.1.0');
      expect(status).to.equal(0);
      const date = git('log', '-1', '--format=%cs', 'v1.1.0');
      expect(out).to.equal(
        [
          `## 1.1.0 (${date})`,
          '',
          'Generated by `npm run -s contract:diff -- --format changelog v1.0.0 v1.1.0` from the contract (`openapi/openapi.yaml`): ' +
            'the changes for clients from v1.0.0 (version 1.0.0) to v1.1.0 (version 1.1.0). Regenerate it rather than editing it.',
          '',
          '### Added',
          '',
          '- `GET /api/v1/tags`: `query.sort` parameter-added: optional',
          '',
          '### Deprecated',
          '',
          '- `GET /api/v1/tags/{id}` deprecated on 2026-12-01, sunset 2027-06-01 (operation).',
          '',
        ].join('\n'),
      );
    });

    it('a new major removes what 1.1.0 deprecated: passes; what it did not: fails, saying what to do', () => {
      writeContract(v200);
      const { status, out } = run('--check');
      expect(out).to.match(
        /^openapi\/openapi.yaml at v1\.1\.0 = [0-9a-f]{7} \(last tag; version 1\.1\.0\) -> working tree \(version 2\.0\.0\)$/m,
      );
      expect(out).to.contain('BREAKING      GET /api/v1/tags/{id}  operation-removed\n');
      expect(out).to.contain(
        'DELETE /api/v1/tags/{id} operation-removed: removed under a new major version, but not deprecated in the last release v1.1.0: deprecate it first',
      );
      expect(out).to.contain('contract:check failed: 1 breaking change(s) for clients.');
      expect(status).to.equal(1);
    });

    it('changelog into CHANGELOG.md: a new version goes above the newest section, and is replaced when written again', () => {
      writeContract(v200);
      const first = run('--format', 'changelog', 'v1.1.0', '--write', 'CHANGELOG.md');
      expect(first.out).to.equal('CHANGELOG.md: added the section of 2.0.0 (2 changes).\n');
      const written = readFileSync(join(dir, 'CHANGELOG.md'), 'utf8');
      const today = new Date().toISOString().slice(0, 10);
      expect(written.startsWith(`# Changelog\n\nIntro.\n\n## 2.0.0 (${today})\n\nGenerated by \``)).to.equal(true);
      expect(written).to.contain(
        [
          '### Breaking',
          '',
          '- **Breaking** (new major version 2.0.0): `GET /api/v1/tags/{id}`: operation-removed',
          '- **Breaking** (not accepted in `openapi/accepted-changes.json`; removed under a new major version, but not deprecated in the last release v1.1.0: deprecate it first (deprecated: true with x-deprecated-at and x-sunset) in a minor release, or accept the removal with a reason): `DELETE /api/v1/tags/{id}`: operation-removed',
          '',
          '## 1.0.0 (2026-11-25)\n\nThe first.\n',
        ].join('\n'),
      );
      expect(run('--format', 'changelog', 'v1.1.0', '--write', 'CHANGELOG.md').out).to.equal(
        'CHANGELOG.md: replaced the section of 2.0.0 (2 changes).\n',
      );
      expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).to.equal(written);
    });

    it('a first release from no contract, not tagged yet; refuses what it does not know', () => {
      const head = git('rev-parse', '--short=7', 'HEAD');
      const { status, out } = run('--format', 'changelog', 'none', 'HEAD', '--unreleased');
      expect(status).to.equal(0);
      expect(out.split('\n')[0]).to.equal(`## 1.1.0 (unreleased; ${git('log', '-1', '--format=%cs')}, ${head})`);
      expect(out).to.contain('the changes for clients from no contract to HEAD (tag v1.1.0, version 1.1.0).');
      expect(out).to.contain('- `GET /api/v1/tags/{id}`: One tag (deprecated)\n');
      expect(out).not.to.contain('### Breaking');
      const unknown = run('--format', 'yaml');
      expect([unknown.status, unknown.out.split('\n')[0]]).to.deep.equal([
        2,
        'contract: --format must be one of text, markdown, github, codequality, changelog (got yaml)',
      ]);
      expect(run('--write', 'x.md').out).to.contain('contract: --write goes with --format changelog');
      expect(run('--base-branch').status).to.equal(2);
    });
  });

  it("CHANGELOG.md's section of the current version is the generator's, not edited by hand", () => {
    const file = readFileSync(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');
    const version = contract.info.version as string;
    const start = file.search(new RegExp(`^## ${version.replace(/\./g, '\\.')} `, 'm'));
    expect(start, `no section ## ${version} in CHANGELOG.md`).to.be.greaterThan(0);
    const next = file.indexOf('\n## ', start + 1);
    const written = file.slice(start, next < 0 ? undefined : next + 1);
    // Since the last release tag (the first release: since no contract at all).
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    let tag: string | undefined;
    try {
      tag = git('describe', '--tags', '--abbrev=0');
    } catch {
      tag = undefined;
    }
    const base = tag ? parse(git('show', `${tag}:openapi/openapi.yaml`)) : {};
    const generated = formatChangelog({
      verdict: judge(base, contract),
      after: contract,
      version,
      date: 'any',
      fromLabel: 'no contract',
      toLabel: 'HEAD',
      command: 'the command',
      acceptedFile: 'openapi/accepted-changes.json',
    });
    const body = (section: string) => section.slice(section.indexOf('\n### ')).trim();
    expect(
      body(written),
      'CHANGELOG.md is stale: npm run -s contract:diff -- --format changelog none HEAD --unreleased --write CHANGELOG.md',
    ).to.equal(body(generated));
    expect(written).to.match(
      /^## 1\.0\.0 \(unreleased; \d{4}-\d{2}-\d{2}, [0-9a-f]{7}\)\n\nGenerated by `npm run -s contract:diff -- --format changelog none HEAD --unreleased`/,
    );
  });

  it('flags the real commit 83bd246 (six query parameters got a maxLength) from git history', function () {
    let before: unknown;
    let after: unknown;
    try {
      const show = (rev: string) =>
        parse(execFileSync('git', ['show', `${rev}:openapi/openapi.yaml`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      before = show('83bd246^');
      after = show('83bd246');
    } catch {
      this.skip(); // a shallow clone
    }
    const changes = diffContracts(before, after);
    const parameters = new Set(changes.map((c) => c.location.split(' ').pop()));
    expect([...parameters].sort()).to.deep.equal([
      'query.clientIds[]',
      'query.projectIds[]',
      'query.tagIds[]',
      'query.taskIds[]',
      'query.userIds[]',
      'query.workspaceId',
    ]);
    expect(changes.every((c) => c.breaking && c.kind === 'maxLength-added')).to.equal(true);
  });
});
