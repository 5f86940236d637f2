import { expect } from 'chai';
import { FORMULA_START } from '../../../src/kernel/spreadsheet.js';
import { csvCell } from '../../../src/modules/imports/export.js';
import { unformula } from '../../../src/modules/imports/formats.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * Issue 44 (informational): CSV cells whose first non-space character is `=`, `+`, `-`, `@`, or
 * one of their full-width forms (＝ ＋ － ＠), reached a spreadsheet unneutralised. Every CSV the
 * server writes (a report's, the whole-workspace export) now puts a `'` before them, as before
 * text that begins with a tab or a CR; the timetrack format's import takes it off exactly.
 */
const NASTY = [
  '＝HYPERLINK("http://example.invalid/x","click")',
  '＋1',
  '－2',
  '＠SUM(A1:A2)',
  '  =1+1',
  '\u3000=SUM(A1)',
  ' @home',
  '\t=tab',
];
const HARMLESS = ['plain', 'a - b', ' a=b', 'x@y', '\u3000text'];

describe('CSV: text a spreadsheet would run as a formula, full-width and after spaces too', () => {
  it('the rule: the first non-space character, in ASCII or full width, or a leading tab or CR', () => {
    for (const text of [...NASTY, '=x', '+x', '-x', '@x', '\rx', '\tx'])
      expect(FORMULA_START.test(text), JSON.stringify(text)).to.equal(true);
    for (const text of HARMLESS) expect(FORMULA_START.test(text), JSON.stringify(text)).to.equal(false);
  });

  it('the timetrack format prefixes them with one quote that its import takes off exactly', () => {
    expect(NASTY.map(csvCell)).to.deep.equal([
      `"'＝HYPERLINK(""http://example.invalid/x"",""click"")"`,
      "'＋1",
      "'－2",
      "'＠SUM(A1:A2)",
      "'  =1+1",
      "'\u3000=SUM(A1)",
      "' @home",
      "'\t=tab",
    ]);
    expect(HARMLESS.map(csvCell)).to.deep.equal(HARMLESS);
    for (const text of [...NASTY, ...HARMLESS, "' =x", "'＝x", "''\u3000＋y"]) {
      const written = csvCell(text)
        .replace(/^"(.*)"$/s, '$1')
        .replace(/""/g, '"');
      expect(unformula(written), JSON.stringify(text)).to.equal(text);
    }
  });

  describe('over HTTP', () => {
    // One server for the describe; each test has a fresh workspace and signed-in owner in it.
    let shared: TestServer;
    let server: FreshWorkspace;
    let owner: SettingsClient;
    before(async () => {
      shared = await startTestServer({ now: Date.parse('2026-11-25T13:00:00Z') });
    });
    after(() => shared.close());
    beforeEach(async () => {
      server = freshWorkspace(shared);
      owner = new SettingsClient(server);
      await owner.setUp(server.ownerId, PASSWORD);
      for (const [i, description] of [...NASTY, ...HARMLESS].entries()) {
        const start = `2026-11-24T${String(i).padStart(2, '0')}:00:00Z`;
        const made = await server.request('POST', '/api/v1/entries', {
          json: { start, end: start.replace(':00:00Z', ':30:00Z'), description },
        });
        expect(made.status, JSON.stringify(made.body)).to.equal(200);
      }
    });

    const download = async (path: string) => {
      const response = await fetch(`${server.url}${path}`, {
        redirect: 'manual',
        headers: { cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      expect(response.status, path).to.equal(200);
      return (await response.text()).replace(/^\uFEFF/, '');
    };
    /** A CSV field as written: quoted when it holds a quote, a comma or a line break. */
    const field = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

    it('a report’s CSV and the whole-workspace export write each after a quote, and the harmless ones as they are', async () => {
      const report = await download('/app/reports/export?format=csv&kind=detailed&from=2026-11-24&to=2026-11-24');
      const workspace = await download('/settings/workspace/export.csv?from=2026-11-24&to=2026-11-24');
      for (const [name, csv] of [
        ['report', report],
        ['workspace export', workspace],
      ] as const) {
        for (const text of NASTY) expect(csv, `${name}: ${JSON.stringify(text)}`).to.include(`,${field(`'${text}`)},`);
        for (const text of HARMLESS) expect(csv, `${name}: ${JSON.stringify(text)}`).to.include(`,${field(text)},`);
      }
    });
  });
});
