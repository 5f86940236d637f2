import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { PACKAGE_ROOT } from '../../src/paths.js';

const read = (path: string) => readFileSync(join(PACKAGE_ROOT, path), 'utf8');
const documents = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(PACKAGE_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The README is the newcomer's path; what contributors need lives in docs/, linked, and every link resolves. */
describe('the README and docs/', () => {
  it('the README keeps the two commands, the newcomer sections in order, and links the contributors docs', () => {
    const readme = read('README.md');
    expect(readme).to.contain('npm install && npm start');
    expect(readme).to.contain('npm install && npm test');
    const headings = readme.match(/^## .+$/gm);
    expect(headings).to.deep.equal([
      '## Two commands',
      '## A first request',
      '## Tracking time in the browser',
      '## The settings page',
      '## What the API offers',
      '## Importing from another tracker',
      '## The command line: `timetrack`',
      '## Configuration',
      '## Webhooks',
      '## Running it for years',
      '## For contributors',
    ]);
    for (const doc of ['docs/contributing.md', 'docs/design.md', 'docs/benchmarks.md', 'docs/client.md', 'docs/operations.md'])
      expect(readme).to.contain(`](${doc})`);
    expect(readme).to.contain('/api/reference');
    expect(readme.split('\n').length).to.be.below(250);
  });

  it('every relative link of the README, the changelog and docs/*.md names a file that exists', () => {
    const broken: string[] = [];
    for (const document of documents) {
      for (const [, target] of read(document).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const path = join(PACKAGE_ROOT, dirname(document), target!.split('#')[0]!);
        if (!existsSync(path)) broken.push(`${document}: ${target}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });
});

/** Every file a comment or a document names, and every decision it cites, is in the repository (issue 48). */
describe('references in comments and docs', () => {
  const walk = (dir: string): string[] =>
    readdirSync(join(PACKAGE_ROOT, dir), { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? walk(`${dir}/${d.name}`) : /\.(ts|md)$/.test(d.name) ? [`${dir}/${d.name}`] : [],
    );
  const sources = ['src', 'test', 'scripts', 'bench'].flatMap(walk).filter((f) => !f.startsWith('test/fixtures/'));
  const texts = [...documents, ...sources];
  // Files the code writes when it runs (not kept in the repository).
  const written = new Set(['bench/results.json']);

  it('every repository path named in src, test, scripts, bench, the README and docs/ exists', () => {
    const missing: string[] = [];
    const path = /(?<![\w./-])((?:src|test|scripts|bench|docs|openapi|drizzle|generated)\/[\w./-]*\w\.(?:ts|md|yaml|json|sql|sh|js))/g;
    for (const file of texts)
      for (const [, named] of read(file).matchAll(path))
        if (!written.has(named!) && !existsSync(join(PACKAGE_ROOT, named!))) missing.push(`${file}: ${named}`);
    expect(missing).to.deep.equal([]);
  });

  it('every "decisions §N" cited names a section of docs/decisions.md', () => {
    const sections = new Set([...read('docs/decisions.md').matchAll(/^## §(\d+[a-z]?)\./gm)].map((m) => m[1]));
    const unknown: string[] = [];
    for (const file of texts)
      for (const [, cited] of read(file).matchAll(/decisions(?:\.md)? ?§ ?(\d+[a-z]?)/gi))
        if (!sections.has(cited!)) unknown.push(`${file}: §${cited}`);
    expect(unknown).to.deep.equal([]);
    expect(sections.size).to.be.above(10);
  });
});
