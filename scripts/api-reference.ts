/*
 * Renders the API reference served at /api/reference: Redocly's `build-docs` over
 * openapi/openapi.yaml (descriptions, parameters, schemas and the examples `npm run examples`
 * wrote), Redoc's bundle inlined so the page loads nothing from elsewhere. Its introduction
 * first links the changelog the server serves beside it (/api/changelog: what changed per
 * version, deprecations and their sunset dates). Part of `npm run
 * build`, which `npm install` runs (npm's prepare step); `npm start` refuses a reference older
 * than the contract (bin/build-check.js).
 *
 *   npm run -s build:reference [-- OUTPUT]     (default dist/api-reference.html)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { CONTRACT_PATH } from '../src/contract.js';
import { API_REFERENCE_FILE, API_REFERENCE_PATH } from '../src/http/api-reference.js';
import { CHANGELOG_PATH } from '../src/http/changelog.js';
import { PACKAGE_ROOT } from '../src/paths.js';

/**
 * The line the reference's introduction starts with. Relative (`changelog` from
 * `/api/reference`), so it also works behind a proxy that serves the API under a prefix.
 */
export const CHANGELOG_LINK =
  `**Changelog:** [what changed in each version](${relativeTo(API_REFERENCE_PATH, CHANGELOG_PATH)}), with every deprecation and its ` +
  'sunset date. An operation or parameter marked deprecated answers with `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers ' +
  'and a `Link` (`rel="deprecation"`) to its entry there.';

function relativeTo(from: string, to: string): string {
  const dir = from.slice(0, from.lastIndexOf('/') + 1);
  if (!to.startsWith(dir)) throw new Error(`${to} is not beside ${from}`);
  return to.slice(dir.length);
}

/** The contract as the reference shows it: its introduction begins with the changelog's link. */
function referenceContract(): unknown {
  const contract = parse(readFileSync(CONTRACT_PATH, 'utf8'));
  contract.info.description = `${CHANGELOG_LINK}\n\n${contract.info.description ?? ''}`;
  return contract;
}

/** Writes the reference to `output`; throws with Redocly's own output when it fails. */
export function buildApiReference(output = API_REFERENCE_FILE): void {
  const redocly = join(PACKAGE_ROOT, 'node_modules', '.bin', 'redocly');
  const scratch = mkdtempSync(join(tmpdir(), 'api-reference-'));
  const contract = join(scratch, 'openapi.json');
  writeFileSync(contract, JSON.stringify(referenceContract()));
  const run = spawnSync(redocly, ['build-docs', contract, '--inlineBundle', '--title', 'timetrack API reference', '--output', output], {
    cwd: PACKAGE_ROOT,
    encoding: 'utf8',
    // No telemetry from the build, and none from the page (Redoc's option follows this).
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  rmSync(scratch, { recursive: true, force: true });
  // Redocly writes its progress (and a notice about Node 20) on stderr: shown only when it fails.
  if (run.status !== 0)
    throw new Error(`redocly build-docs failed (${run.error?.message ?? `exit ${run.status}`}):\n${run.stderr}${run.stdout}`);
  const html = readFileSync(output, 'utf8');
  const local = html.replaceAll(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g, REDOCLY_MARK);
  if (local === html)
    throw new Error(`Redoc's logo URL was not found in ${output}: check what the page loads (test/browser/api-reference.test.ts)`);
  writeFileSync(output, local);
}

/**
 * Redoc's footer ("API docs by" and a link to Redocly) shows a logo from Redocly's CDN; the
 * page fetches nothing from elsewhere (its CSP would refuse it), so the logo is this wordmark.
 */
const REDOCLY_MARK = `data:image/svg+xml,${encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' width='64' height='16'><text x='0' y='13' font-family='sans-serif' font-size='13' fill='#888'>Redocly</text></svg>",
)}`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildApiReference(process.argv[2]);
}
