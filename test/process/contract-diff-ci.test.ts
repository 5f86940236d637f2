import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PACKAGE_ROOT } from '../../src/paths.js';

/**
 * The pull-request workflow (.github/workflows/contract.yml) run here, not on GitHub: its `run`
 * steps, as written, in a clone of a scratch repository (a main branch with the real contract,
 * and pull-request branches off it), with the variables GitHub sets. What a reviewer sees is
 * checked: the job summary's table, the annotations (file, line, level, text) and the exit code
 * (the check's colour).
 */
const workflow = parse(readFileSync(join(PACKAGE_ROOT, '.github/workflows/contract.yml'), 'utf8'));
const job = workflow.jobs.contract;
const contract = readFileSync(join(PACKAGE_ROOT, 'openapi/openapi.yaml'), 'utf8');

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
  GIT_CONFIG_NOSYSTEM: '1',
  // npm asks its registry whether it is current: not from a test.
  npm_config_update_notifier: 'false',
  NO_UPDATE_NOTIFIER: '1',
};

/** 1-based line of the first line of `text` matching `pattern`, from line `after` on. */
const lineOf = (text: string, pattern: RegExp, after = 1): number => {
  const lines = text.split('\n');
  const index = lines.findIndex((line, i) => i + 1 >= after && pattern.test(line));
  if (index < 0) throw new Error(`no line matches ${pattern}`);
  return index + 1;
};

/** The contract with an optional `sort` parameter on GET /api/v1/tags (additive). */
const addSort = (text: string): string => {
  const lines = text.split('\n');
  const tags = lineOf(text, /^ {2}\/api\/v1\/tags:$/);
  const at = lineOf(text, /- \$ref: "#\/components\/parameters\/IfNoneMatch"/, tags);
  const indent = (lines[at - 1] as string).replace(/-.*$/, '');
  lines.splice(at, 0, `${indent}- name: sort`, `${indent}  in: query`, `${indent}  required: false`, `${indent}  schema: { type: string }`);
  return lines.join('\n');
};

/** The contract with the page size limited to 100 (breaking: a client asking for 500 is refused). */
const narrowLimit = (text: string): string => {
  expect(text.match(/^ {8}maximum: 500$/gm)).to.have.length(1);
  return text.replace(/^( {8})maximum: 500$/m, '$1maximum: 100');
};

describe('the pull-request workflow (.github/workflows/contract.yml), run on a scratch repository', function () {
  this.timeout(120_000);
  let dir: string;
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, stdio: 'ignore' });

  /** The workflow's steps after the install, each run as GitHub runs a `shell: bash` step. */
  const runSteps = (branch: string) => {
    const work = join(dir, `work-${branch}`);
    git(dir, 'clone', '-q', join(dir, 'origin'), work);
    git(work, 'checkout', '-q', branch);
    symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(work, 'node_modules'));
    const summary = join(dir, `summary-${branch}.md`);
    writeFileSync(summary, '');
    const steps: { name: string; status: number | null; stdout: string; stderr: string }[] = [];
    for (const step of job.steps.filter((s: any) => typeof s.run === 'string' && !/^npm ci\b/.test(s.run))) {
      const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
        cwd: work,
        encoding: 'utf8',
        env: {
          ...env,
          ...step.env,
          GITHUB_ACTIONS: 'true',
          GITHUB_BASE_REF: 'main',
          GITHUB_HEAD_REF: branch,
          GITHUB_REPOSITORY: 'acme/timetrack',
          GITHUB_SERVER_URL: 'https://github.example',
          GITHUB_STEP_SUMMARY: summary,
        },
      });
      steps.push({ name: step.name, status: result.status, stdout: result.stdout, stderr: result.stderr });
      if (result.status !== 0) break; // the job stops at a failed step
    }
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: work, encoding: 'utf8' }).trim();
    return { steps, summary: readFileSync(summary, 'utf8'), head };
  };
  const annotations = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('::'));

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'contract-ci-'));
    const origin = join(dir, 'origin');
    mkdirSync(join(origin, 'openapi'), { recursive: true });
    cpSync(join(PACKAGE_ROOT, 'scripts/contract-diff.ts'), join(origin, 'scripts/contract-diff.ts'));
    cpSync(join(PACKAGE_ROOT, 'scripts/contract-diff'), join(origin, 'scripts/contract-diff'), { recursive: true });
    const scripts = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).scripts;
    writeFileSync(
      join(origin, 'package.json'),
      JSON.stringify({
        type: 'module',
        scripts: { 'contract:diff': scripts['contract:diff'], 'contract:check': scripts['contract:check'] },
      }),
    );
    writeFileSync(join(origin, '.gitignore'), 'node_modules\n');
    writeFileSync(join(origin, 'openapi/openapi.yaml'), contract);
    writeFileSync(join(origin, 'openapi/accepted-changes.json'), '{"accepted": []}\n');
    git(origin, 'init', '-q', '-b', 'main');
    git(origin, 'add', '-A');
    git(origin, 'commit', '-qm', 'the contract');
    // A pull request with one breaking and one additive change.
    git(origin, 'checkout', '-qb', 'narrow');
    writeFileSync(join(origin, 'openapi/openapi.yaml'), narrowLimit(addSort(contract)));
    git(origin, 'commit', '-qam', 'limit 100, sort tags');
    // One with the additive change only, made after main moved on (the merge base is older than main).
    git(origin, 'checkout', '-q', 'main');
    git(origin, 'checkout', '-qb', 'additive');
    writeFileSync(join(origin, 'openapi/openapi.yaml'), addSort(contract));
    git(origin, 'commit', '-qam', 'sort tags');
    git(origin, 'checkout', '-q', 'main');
    git(origin, 'commit', '-q', '--allow-empty', '-m', 'main moves on');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs on pull requests, checks out the head with its history, installs with npm ci', () => {
    expect(Object.keys(workflow.on)).to.deep.equal(['pull_request']);
    const checkout = job.steps.find((s: any) => String(s.uses).startsWith('actions/checkout@'));
    expect(checkout.with['fetch-depth']).to.equal(0);
    expect(checkout.with.ref).to.equal('${{ github.event.pull_request.head.sha }}');
    expect(job.steps.filter((s: any) => /^npm ci\b/.test(s.run ?? ''))).to.have.length(1);
    // No ${{ }} in a run step: what runs here is what runs there.
    for (const step of job.steps) if (step.run) expect(step.run).not.to.contain('${{');
  });

  it('a breaking change (a lower maximum) fails the check, with a table in the summary and an error annotation on its line', () => {
    const { steps, summary, head } = runSteps('narrow');
    const edited = narrowLimit(addSort(contract));
    const maximum = lineOf(edited, /^ {8}maximum: 100$/);
    const sort = lineOf(edited, /- name: sort$/);
    expect(steps.map((s) => [s.name, s.status])).to.deep.equal([
      ['Contract changes (job summary)', 0],
      ['Breaking-change gate (annotations)', 1],
    ]);

    // The job summary: the verdict, then the breaking table, then the rest.
    expect(summary).to.contain('### Contract changes: `openapi/openapi.yaml`\n');
    expect(summary).to.match(/^[0-9a-f]{7} \(merge base with origin\/main; version 1\.0\.0\) → working tree \(version 1\.0\.0\)$/m);
    expect(summary).to.contain(
      ":x: **2 breaking changes not accepted.** Raise `info.version`'s major, or have each reviewed and listed in `openapi/accepted-changes.json` with a reason.",
    );
    const link = `https://github.example/acme/timetrack/blob/${head}/openapi/openapi.yaml`;
    const rows = summary.split('\n').filter((line) => line.startsWith('| ['));
    expect(rows).to.deep.equal([
      `| [${maximum}](${link}#L${maximum}) | \`GET /api/v1/entries\` \`query.limit\` | \`maximum-decreased\` | 500 → 100 | **yes** | **no** |`,
      `| [${maximum}](${link}#L${maximum}) | \`GET /api/v1/reports/detailed\` \`query.limit\` | \`maximum-decreased\` | 500 → 100 | **yes** | **no** |`,
      `| [${sort}](${link}#L${sort}) | \`GET /api/v1/tags\` \`query.sort\` | \`parameter-added\` | optional | no |  |`,
    ]);

    // The annotations: one error on the changed line (the two operations that share the
    // parameter named together), one notice on the added parameter.
    const gate = steps[1]!;
    expect(annotations(gate.stdout)).to.deep.equal([
      `::error file=openapi/openapi.yaml,line=${maximum},title=Breaking change%2C not accepted (2)::query.limit: maximum-decreased (500 -> 100) in 2 operations (GET /api/v1/entries, GET /api/v1/reports/detailed); not accepted in openapi/accepted-changes.json`,
      `::notice file=openapi/openapi.yaml,line=${sort},title=Contract change::GET /api/v1/tags query.sort: parameter-added (optional)`,
    ]);
    // The log says what to do.
    expect(gate.stdout).to.contain('BREAKING      GET /api/v1/entries query.limit  maximum-decreased: 500 -> 100\n');
    expect(gate.stdout).to.contain('contract:check failed: 2 breaking change(s) for clients.');
  });

  it('an additive change passes, with its table, against the merge base (main has moved on)', () => {
    const { steps, summary } = runSteps('additive');
    const sort = lineOf(addSort(contract), /- name: sort$/);
    expect(steps.map((s) => [s.name, s.status])).to.deep.equal([
      ['Contract changes (job summary)', 0],
      ['Breaking-change gate (annotations)', 0],
    ]);
    expect(summary).to.contain(':white_check_mark: No breaking change.\n\n1 change, 0 breaking.\n');
    expect(summary).to.contain('| Line | Location | Change | Before → after | Breaking | Accepted |\n|---:|---|---|---|---|---|\n');
    expect(summary).to.match(
      new RegExp(
        `^\\| \\[${sort}\\]\\([^)]+#L${sort}\\) \\| \`GET /api/v1/tags\` \`query.sort\` \\| \`parameter-added\` \\| optional \\| no \\|  \\|$`,
        'm',
      ),
    );
    expect(annotations(steps[1]!.stdout)).to.deep.equal([
      `::notice file=openapi/openapi.yaml,line=${sort},title=Contract change::GET /api/v1/tags query.sort: parameter-added (optional)`,
    ]);
  });
});
