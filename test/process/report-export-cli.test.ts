import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { systemClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { OPERATOR } from '../../src/principal.js';
import { createServices } from '../../src/services.js';
import { BIN } from '../helpers/entry.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function timetrack(databasePath: string, ...argv: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...BIN, ...argv],
      { env: { ...process.env, DATABASE_PATH: databasePath, TZ: 'UTC' } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `timetrack report export`: the Reports page's downloads as the operator acting for a member, through the same code. */
describe('timetrack report export (processes)', function () {
  this.timeout(120_000);
  let dir: string;
  let databasePath: string;
  let ids: { workspaceId: string; ownerId: string; memberId: string };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-report-cli-'));
    databasePath = join(dir, 'timetrack.db');
    const database = openDatabase(databasePath);
    const services = createServices(database, { clock: systemClock, secretKey: randomBytes(32) });
    const { accounts, tokens, catalog, entries } = services;
    const workspaceId = accounts.createWorkspace(OPERATOR, { name: 'Studio', currency: 'EUR' }).id;
    const ownerId = accounts.createUser(OPERATOR, { name: 'Ada', email: 'ada@example.org' }).id;
    const memberId = accounts.createUser(OPERATOR, { name: 'Bo', email: 'bo@example.org' }).id;
    accounts.addMember(OPERATOR, { workspaceId, userId: ownerId, canViewOthersTime: true, canViewOthersMoney: true, isOwner: true });
    accounts.addMember(OPERATOR, { workspaceId, userId: memberId, canViewOthersTime: true, canViewOthersMoney: false });
    accounts.setPreferences(OPERATOR, ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    const token = tokens.create(OPERATOR, { workspaceId, userId: ownerId, name: 't', scopes: ['entries:write', 'catalog:write'] }).token;
    const owner = tokens.authenticate(token)!.actor;
    const projectId = catalog.projects.create(owner, { name: 'Relaunch', billable: true, hourlyRate: 95 }).id;
    for (const day of ['04', '05'])
      entries.create(owner, { projectId, start: `2024-03-${day}T09:00:00Z`, end: `2024-03-${day}T11:30:00Z`, description: `=Day ${day}` });
    database.close();
    ids = { workspaceId, ownerId, memberId };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the CSV and the XLSX the page downloads, in the member zone, and prints what it wrote', async () => {
    const out = join(dir, 'entries.csv');
    const run = await timetrack(
      databasePath,
      'report',
      'export',
      '--workspace',
      ids.workspaceId,
      '--user',
      ids.ownerId,
      '--kind',
      'detailed',
      '--format',
      'csv',
      '--from',
      '2024-03-01',
      '--to',
      '2024-03-31',
      '--out',
      out,
      '--json',
    );
    expect(run.code, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout)).to.deep.equal({
      file: out,
      kind: 'detailed',
      format: 'csv',
      rows: 2,
      bytes: readFileSync(out).byteLength,
    });
    expect(readFileSync(out, 'utf8').split('\r\n')).to.deep.equal([
      '\ufeffDate,Start,End,Hours,Member,Client,Project,Task,Tags,Description,Billable,Rate,Amount',
      "2024-03-04,2024-03-04 10:00:00,2024-03-04 12:30:00,2.50,Ada,,Relaunch,,,'=Day 04,yes,95.00,237.50",
      "2024-03-05,2024-03-05 10:00:00,2024-03-05 12:30:00,2.50,Ada,,Relaunch,,,'=Day 05,yes,95.00,237.50",
      '',
    ]);
    const xlsx = join(dir, 'summary.xlsx');
    const summary = await timetrack(
      databasePath,
      'report',
      'export',
      '--workspace',
      ids.workspaceId,
      '--user',
      ids.ownerId,
      '--kind',
      'summary',
      '--format',
      'xlsx',
      '--from',
      '2024-03-01',
      '--to',
      '2024-03-31',
      '--out',
      xlsx,
    );
    expect(summary.code, summary.stderr).to.equal(0);
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(xlsx);
    const sheet = book.getWorksheet('Summary') as ExcelJS.Worksheet;
    expect((sheet.getRow(2).values as unknown[]).slice(1, 2)).to.deep.equal(['Relaunch']);
    expect(sheet.getRow(2).getCell(5).value).to.equal(475);
  });

  it('refuses as the page does and leaves no file: a colleague report without money visibility, a bad format or kind named', async () => {
    const out = join(dir, 'refused.csv');
    const refused = await timetrack(
      databasePath,
      'report',
      'export',
      '--workspace',
      ids.workspaceId,
      '--user',
      ids.memberId,
      '--member',
      'everyone',
      '--kind',
      'detailed',
      '--format',
      'csv',
      '--from',
      '2024-03-01',
      '--to',
      '2024-03-31',
      '--out',
      out,
    );
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include("other members' time");
    const bad = await timetrack(
      databasePath,
      'report',
      'export',
      '--workspace',
      ids.workspaceId,
      '--user',
      ids.ownerId,
      '--kind',
      'detailed',
      '--format',
      'docx',
      '--from',
      '2024-03-01',
      '--to',
      '2024-03-31',
      '--out',
      out,
    );
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.include('format: "docx" is not one of csv, xlsx or pdf.');
    const kind = await timetrack(
      databasePath,
      'report',
      'export',
      '--workspace',
      ids.workspaceId,
      '--user',
      ids.ownerId,
      '--kind',
      'all',
      '--format',
      'csv',
      '--from',
      '2024-03-01',
      '--to',
      '2024-03-31',
      '--out',
      out,
    );
    expect(kind.code).to.equal(2);
    expect(kind.stderr).to.include('kind: "all" is not one of detailed, summary or weekly.');
    expect(existsSync(out)).to.equal(false);
    expect(readdirSync(dir).filter((f) => f.includes('partial'))).to.deep.equal([]);
  });
});
