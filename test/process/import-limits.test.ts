import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { PACKAGE_ROOT } from '../../src/paths.js';

/**
 * A small file must not exhaust the server (issue 33, M3): one 50 MB line of commas took the
 * import to 1,555 MiB before its worker died, because csv-parse has no record size or column
 * limit. Each import runs here in a process of its own (the service, as the Import page's thread
 * and `timetrack import` run it) that reports its refusal and its peak RSS: the bound asserted is
 * generous (the point is hundreds of MB, not a figure); bench/import.ts measures the real run.
 */
describe('import: a file that would take the memory', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-import-limits-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The import of `path` in a fresh process over a fresh database: its refusal (or report) and its peak RSS in MB. */
  async function importInChild(path: string): Promise<{ message: string; peakMb: number; baseMb: number }> {
    const script = join(dir, 'run.mts');
    writeFileSync(
      script,
      `
import { randomBytes } from 'node:crypto';
import { systemClock } from '${PACKAGE_ROOT}/src/clock.ts';
import { openDatabase } from '${PACKAGE_ROOT}/src/db/database.ts';
import { OPERATOR } from '${PACKAGE_ROOT}/src/principal.ts';
import { createServices } from '${PACKAGE_ROOT}/src/services.ts';
const database = openDatabase(':memory:');
const services = createServices(database, { clock: systemClock, secretKey: randomBytes(32) });
const { id } = services.accounts.createWorkspace(OPERATOR, { name: 'W' });
const baseMb = process.resourceUsage().maxRSS / 1024;
let message = '';
try {
  const outcome = await services.imports.run(OPERATOR, { workspaceId: id, path: process.argv[2], createMembers: true });
  message = JSON.stringify(outcome.report.refused);
} catch (error) {
  message = error.message;
}
process.stdout.write(JSON.stringify({ message, baseMb, peakMb: process.resourceUsage().maxRSS / 1024 }));
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script, path], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, err).to.equal(0);
    return JSON.parse(out) as { message: string; peakMb: number; baseMb: number };
  }

  /** A timetrack file whose second line is `body` repeated `times` times (written in pieces). */
  function file(name: string, piece: string, times: number, after = ''): string {
    const path = join(dir, name);
    const fd = openSync(path, 'w');
    writeSync(fd, 'email,start,end,description\n');
    const block = piece.repeat(65_536);
    for (let left = times; left > 0; left -= 65_536) writeSync(fd, left >= 65_536 ? block : piece.repeat(left));
    writeSync(fd, `\n${after}`);
    closeSync(fd);
    return path;
  }

  it('refuses a 40 MB line of commas at its line, saying what to do, within bounded memory', async () => {
    const { message, peakMb, baseMb } = await importInChild(file('commas.csv', ',', 40 * 1024 * 1024));
    expect(message).to.equal(
      "Line 2 holds more than 100,000 characters, and a row of a tracker's export holds a few hundred: nothing was imported. A quote that is never closed makes the rest of the file one cell: check the quotes from line 2 on, or export the report again.",
    );
    // Generous: without the limits this line took the process past 1,000 MB.
    expect(peakMb - baseMb, `peak ${Math.round(peakMb)} MB from ${Math.round(baseMb)} MB`).to.be.below(150);
  });

  it('refuses a quote never closed at the line where it opens, not at the end of the file', async () => {
    const path = join(dir, 'quote.csv');
    const good = 'a@example.org,2026-03-02T09:00:00Z,2026-03-02T10:00:00Z,fine\n';
    writeFileSync(
      path,
      `email,start,end,description\n${good}${good}a@example.org,2026-03-02T09:00:00Z,2026-03-02T10:00:00Z,"open\n${good.repeat(5000)}`,
    );
    const { message } = await importInChild(path);
    expect(message).to.match(/^Line 4 holds more than 100,000 characters/);
  });

  it('refuses a line of more than 100 cells, saying it is not an export', async () => {
    const { message } = await importInChild(file('cells.csv', 'x,', 150));
    expect(message).to.equal(
      "Line 2 has more than 100 cells, and an export has about 20 columns: nothing was imported. This is not a tracker's detailed report, or its cells are not separated by commas or semicolons: export the report again as CSV.",
    );
  });

  it('still reads rows of 100 cells, and a long description within the limit is refused by its row only', async () => {
    const path = join(dir, 'wide.csv');
    const extra = Array.from({ length: 96 }, (_, i) => `x${i}`);
    writeFileSync(
      path,
      `email,start,end,description,${extra.join(',')}\n` +
        `a@example.org,2026-03-02T09:00:00Z,2026-03-02T10:00:00Z,${'d'.repeat(600)},${extra.join(',')}\n` +
        `a@example.org,2026-03-02T11:00:00Z,2026-03-02T12:00:00Z,short,${extra.join(',')}\n`,
    );
    const { message } = await importInChild(path);
    expect(JSON.parse(message)).to.deep.equal([
      { line: 2, message: "description: 600 characters; an entry's description holds at most 500: shorten it" },
    ]);
  });
});
