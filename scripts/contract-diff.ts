/*
 * Compares the contract (openapi/openapi.yaml) with its version at a git revision and classifies
 * every change as breaking or not for clients: for callers of the paths, and for receivers of the
 * `webhooks` (the server sends those, so a receiver is a client too).
 *
 *   npm run contract:diff [BASE [HEAD]]    prints the changes; exits 0
 *   npm run contract:check [BASE [HEAD]]   the same, and exits 1 on a breaking change unless
 *                                          info.version's major was raised or the change is
 *                                          listed in openapi/accepted-changes.json (location +
 *                                          kind + reason)
 *
 * Options (after `--` with npm run):
 *   --format text|markdown|github|codequality|changelog
 *       text: one line per change (the default). markdown: a table (location, line, kind,
 *       before -> after, breaking, accepted and why), for a pull request's job summary.
 *       github: the text, then a GitHub workflow annotation on the line of the contract where
 *       each change is. codequality: GitLab's code-quality report (JSON). changelog: a
 *       CHANGELOG.md section for HEAD's version.
 *   --base-branch REF   the branch whose merge base is the default BASE (default: main; in CI
 *                       `origin/main`)
 *   --write FILE        changelog: put the section into FILE (replacing that version's section)
 *   --unreleased        changelog: the heading says the version is not released yet
 *   --source-url URL    markdown: link each line number to URL + the contract's path (a blob URL)
 *
 * BASE defaults to the merge base of HEAD and the base branch when that differs from HEAD, else
 * the last tag, else HEAD~1; `none` is no contract at all (a first release). HEAD defaults to the
 * working tree's file, so uncommitted edits count. A breaking removal passes a raised major only
 * when the last release tag before BASE already marked the thing deprecated (gate.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatChangelog, writeSection } from './contract-diff/changelog.js';
import {
  formatChanges,
  formatCodeQuality,
  formatGithub,
  formatMarkdown,
  place,
  type Report,
  summaryLines,
} from './contract-diff/formats.js';
import { type AcceptedChange, judge, parseAccepted, type Release, versionOf } from './contract-diff/gate.js';
import { SourceMap } from './contract-diff/source.js';

export { type Change, diffContracts } from './contract-diff/diff.js';
export { type AcceptedChange, judge, parseAccepted, type Verdict } from './contract-diff/gate.js';
export { formatChanges } from './contract-diff/formats.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const contractFile = 'openapi/openapi.yaml';
const acceptedFile = 'openapi/accepted-changes.json';
const FORMATS = ['text', 'markdown', 'github', 'codequality', 'changelog'] as const;
type Format = (typeof FORMATS)[number];

const USAGE =
  'usage: contract-diff [BASE [HEAD]] [--check] [--format text|markdown|github|codequality|changelog] [--base-branch REF] [--write FILE] [--unreleased] [--source-url URL]';

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 }).trim();
  } catch {
    return undefined;
  }
}

/** The merge base with the base branch when it is not HEAD itself, else the last tag, else HEAD~1. */
function defaultBase(branch: string): { base: string; why: string } | undefined {
  const head = git(['rev-parse', 'HEAD']);
  const mergeBase = git(['merge-base', 'HEAD', branch]);
  if (mergeBase && mergeBase !== head) return { base: mergeBase, why: `merge base with ${branch}` };
  const tag = git(['describe', '--tags', '--abbrev=0']);
  if (tag) return { base: tag, why: 'last tag' };
  if (git(['rev-parse', '--verify', '--quiet', 'HEAD~1^{commit}'])) return { base: 'HEAD~1', why: 'no tag; the previous commit' };
  return undefined;
}

interface Options {
  check: boolean;
  format: Format;
  baseBranch: string;
  write?: string;
  unreleased: boolean;
  sourceUrl?: string;
  positional: string[];
}

function parseArgs(argv: string[]): Options | string {
  const options: Options = { check: false, format: 'text', baseBranch: 'main', unreleased: false, positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === '') throw new Error(`${flag} needs a value`);
      return next;
    };
    try {
      if (flag === '--check') options.check = true;
      else if (flag === '--unreleased') options.unreleased = true;
      else if (flag === '--format') {
        const format = value();
        if (!(FORMATS as readonly string[]).includes(format)) return `--format must be one of ${FORMATS.join(', ')} (got ${format})`;
        options.format = format as Format;
      } else if (flag === '--base-branch') options.baseBranch = value();
      else if (flag === '--write') options.write = value();
      else if (flag === '--source-url') options.sourceUrl = value();
      else if (flag.startsWith('--')) return `unknown option ${flag}`;
      else options.positional.push(arg);
    } catch (error) {
      return (error as Error).message;
    }
  }
  if (options.positional.length > 2) return `at most two revisions (BASE and HEAD), got ${options.positional.join(' ')}`;
  if (options.write && options.format !== 'changelog') return '--write goes with --format changelog';
  return options;
}

/** A side of the comparison: the contract's text at a revision (undefined: none there). */
interface Loaded {
  text: string | undefined;
  document: unknown;
  map: SourceMap | undefined;
}

function load(text: string | undefined): Loaded {
  if (text === undefined) return { text, document: {}, map: undefined };
  const map = new SourceMap(text);
  return { text, document: map.toJS(), map };
}

const short = (commit: string) => commit.slice(0, 7);

function readAccepted(text: string | undefined): AcceptedChange[] {
  return text === undefined ? [] : parseAccepted(text);
}

function main(argv: string[]): number {
  const options = parseArgs(argv);
  if (typeof options === 'string') {
    console.error(`contract: ${options}\n${USAGE}`);
    return 2;
  }
  const [explicitBase, explicitHead] = options.positional;
  const chosen = explicitBase ? { base: explicitBase, why: 'as given' } : defaultBase(options.baseBranch);
  if (!chosen) {
    console.log(
      `contract: no base revision to compare ${contractFile} with (no ${options.baseBranch}, tag or previous commit); nothing checked.`,
    );
    return 0;
  }

  // The base: a revision, or `none` (no contract: everything is new).
  let baseCommit: string | undefined;
  if (chosen.base !== 'none' || git(['rev-parse', '--verify', '--quiet', 'none^{commit}'])) {
    baseCommit = git(['rev-parse', '--verify', '--quiet', `${chosen.base}^{commit}`]);
    if (!baseCommit) {
      console.error(`contract: unknown revision ${chosen.base}`);
      return 2;
    }
  }
  let headCommit: string | undefined;
  if (explicitHead) {
    headCommit = git(['rev-parse', '--verify', '--quiet', `${explicitHead}^{commit}`]);
    if (!headCommit) {
      console.error(`contract: unknown revision ${explicitHead}`);
      return 2;
    }
  }
  const at = (commit: string, file: string) => git(['show', `${commit}:${file}`]);
  const before = load(baseCommit ? at(baseCommit, contractFile) : undefined);
  const readHead = (file: string) => {
    if (headCommit) return at(headCommit, file);
    try {
      return readFileSync(join(root, file), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  const after = load(readHead(contractFile));
  if (!after.map) {
    console.error(`contract: no ${contractFile} at ${explicitHead ?? 'the working tree'}`);
    return 2;
  }
  const accepted = readAccepted(readHead(acceptedFile));

  // The last release before the base, for removals under a new major version.
  const tag = baseCommit ? git(['describe', '--tags', '--abbrev=0', baseCommit]) : undefined;
  const releaseText = tag ? at(tag, contractFile) : undefined;
  const release: Release | undefined = tag && releaseText ? { name: tag, document: load(releaseText).document } : undefined;
  const verdict = judge(before.document, after.document, accepted, release ? { release } : {});

  const version = (doc: unknown) => versionOf(doc) ?? 'none';
  const baseAt = !baseCommit ? 'none' : baseCommit.startsWith(chosen.base) ? short(baseCommit) : `${chosen.base} = ${short(baseCommit)}`;
  const headLabel = headCommit
    ? headCommit.startsWith(explicitHead ?? '')
      ? short(headCommit)
      : `${explicitHead} = ${short(headCommit)}`
    : 'working tree';
  const report: Report = {
    file: contractFile,
    acceptedFile,
    base: { label: baseAt, why: chosen.why, version: before.text === undefined ? 'none' : version(before.document) },
    head: { label: headLabel, version: version(after.document) },
    verdict,
    changes: place(verdict, after.map, before.map),
    ...(options.sourceUrl ? { sourceUrl: options.sourceUrl } : {}),
  };

  if (options.format === 'markdown') process.stdout.write(formatMarkdown(report));
  else if (options.format === 'codequality') process.stdout.write(formatCodeQuality(report));
  else if (options.format === 'changelog') return changelog(options, report, after.document, { baseCommit, headCommit });
  else {
    const there = before.text === undefined ? (baseCommit ? 'no contract there' : 'no contract') : `version ${report.base.version}`;
    console.log(`${contractFile} at ${baseAt} (${chosen.why}; ${there}) -> ${headLabel} (version ${report.head.version})`);
    for (const line of formatChanges(report.verdict.changes)) console.log(line);
    for (const line of summaryLines(report)) console.log(line);
    if (options.format === 'github') for (const line of formatGithub(report)) console.log(line);
  }
  if (!options.check || verdict.blocking.length === 0) return 0;
  explainFailure(report);
  return 1;
}

function explainFailure(report: Report): void {
  const { blocking } = report.verdict;
  const sample = blocking
    .slice(0, 3)
    .map((c) => ({ location: c.location, kind: c.kind, reason: 'why clients are not broken, or how they were told' }));
  console.log(
    `contract:check failed: ${blocking.length} breaking change(s) for clients. Raise info.version's major, or have each reviewed` +
      ` and listed in ${acceptedFile} ("accepted": [...]) with a reason${blocking.length > 3 ? ' (the first three shown)' : ''}:`,
  );
  console.log(JSON.stringify(sample, null, 2));
}

function changelog(
  options: Options,
  report: Report,
  after: unknown,
  commits: { baseCommit: string | undefined; headCommit: string | undefined },
): number {
  const { baseCommit, headCommit } = commits;
  const date = headCommit ? (git(['log', '-1', '--format=%cs', headCommit]) ?? '') : new Date().toISOString().slice(0, 10);
  const [from = '', to] = options.positional;
  /** `v1.1.0 (version 1.1.0)`, or `HEAD (tag v1.1.0, version 1.1.0)` when the revision is tagged under another name. */
  const label = (revision: string, commit: string, version: string) => {
    const tag = git(['tag', '--points-at', commit])?.split('\n')[0];
    return `${revision} (${tag && tag !== revision ? `tag ${tag}, ` : ''}version ${version})`;
  };
  const fromLabel = baseCommit ? label(from || short(baseCommit), baseCommit, report.base.version) : 'no contract';
  const toLabel = headCommit ? label(to ?? '', headCommit, report.head.version) : `the working tree (version ${report.head.version})`;
  const args = [from || short(baseCommit ?? ''), ...(to ? [to] : []), ...(options.unreleased ? ['--unreleased'] : [])];
  const section = formatChangelog({
    verdict: report.verdict,
    after,
    version: report.head.version,
    date,
    ...(options.unreleased ? { unreleased: headCommit ? short(headCommit) : 'working tree' } : {}),
    fromLabel,
    toLabel,
    command: `npm run -s contract:diff -- --format changelog ${args.join(' ')}`,
    acceptedFile,
  });
  if (!options.write) {
    process.stdout.write(section);
    return 0;
  }
  const file = resolve(process.cwd(), options.write);
  const done = writeSection(file, section, report.head.version);
  console.log(`${options.write}: ${done} the section of ${report.head.version} (${report.changes.length} changes).`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
