import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { OPERATOR } from '../../../src/principal.js';
import { addMemberWithToken, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/** The Reports page's downloads over real HTTP: CSV, XLSX and PDF of the same reports, the page's refusals, a browser that leaves. */
describe('web app: report exports', () => {
  let server: TestServer;
  afterEach(() => server.close());

  const signIn = async (userId: string) => {
    const client = new SettingsClient(server);
    await client.setUp(userId, PASSWORD);
    return client;
  };
  const cookie = (client: SettingsClient) => [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const download = async (client: SettingsClient, path: string) => {
    const response = await fetch(`${server.url}${path}`, { redirect: 'manual', headers: { cookie: cookie(client) } });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  };
  const entry = (token: string | undefined, start: string, end: string, description: string, extra: Record<string, unknown> = {}) =>
    server.request('POST', '/api/v1/entries', { ...(token ? { token } : {}), json: { start, end, description, ...extra } }).then((r) => {
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return r.body.data;
    });
  const csvLines = (bytes: Buffer) => {
    expect([...bytes.subarray(0, 3)], bytes.toString('utf8').replace(/\s+/g, ' ').slice(0, 3000)).to.deep.equal([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    expect(text.endsWith('\r\n')).to.equal(true);
    return text.slice(0, -2).split('\r\n');
  };
  const RANGE = 'from=2026-11-23&to=2026-11-29';

  /** The team of the Reports page's tests: Berlin, the owner's billable work with a tag, a colleague (time, not money), a loner. */
  async function team() {
    server = await startTestServer({ now: Date.parse('2026-11-25T13:00:00Z') });
    const colleague = addMemberWithToken(server.services, server.workspaceId, {
      name: 'Bea Colleague',
      canViewOthersTime: true,
      canViewOthersMoney: false,
    });
    const loner = addMemberWithToken(server.services, server.workspaceId, { name: 'Cas Own' });
    for (const id of [server.ownerId, colleague.userId, loner.userId])
      server.services.accounts.setPreferences(OPERATOR, id, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    const client = (await server.request('POST', '/api/v1/clients', { json: { name: 'Harbour Ltd' } })).body.data;
    const site = (
      await server.request('POST', '/api/v1/projects', {
        json: { name: 'Harbour site', clientId: client.id, hourlyRate: 90, billable: true },
      })
    ).body.data;
    const brand = (await server.request('POST', '/api/v1/projects', { json: { name: 'Brand', hourlyRate: 60, billable: true } })).body.data;
    const design = (await server.request('POST', '/api/v1/tags', { json: { name: 'design' } })).body.data;
    await entry(undefined, '2026-11-23T09:00:00+01:00', '2026-11-23T10:30:00+01:00', 'Planning, "phase 1"', {
      projectId: site.id,
      billable: true,
      tagIds: [design.id],
    });
    // After midnight in Berlin, still the 23rd in UTC: the member's zone files it under the 24th.
    await entry(undefined, '2026-11-24T00:30:00+01:00', '2026-11-24T01:15:00+01:00', 'Late fix', { projectId: brand.id, billable: true });
    await entry(undefined, '2026-11-24T13:00:00+01:00', '2026-11-24T14:00:00+01:00', 'No project', {});
    await entry(colleague.token, '2026-11-24T09:00:00+01:00', '2026-11-24T12:00:00+01:00', 'Colleague work', {
      projectId: site.id,
      billable: true,
    });
    await entry(loner.token, '2026-11-25T09:00:00+01:00', '2026-11-25T09:20:00+01:00', 'Own only', { projectId: brand.id });
    return { colleague, loner, client, site, brand, design };
  }

  it('downloads the entries as CSV: RFC 4180 with a BOM and a header, times in the member zone, every column, as an attachment', async () => {
    await team();
    const owner = await signIn(server.ownerId);
    const answer = await download(owner, `/app/reports/export?format=csv&kind=detailed&${RANGE}&member=everyone`);
    expect(answer.status, answer.bytes.toString().slice(0, 300)).to.equal(200);
    expect(answer.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(answer.headers.get('content-disposition')).to.equal('attachment; filename="timetrack-entries-2026-11-23-to-2026-11-29.csv"');
    const lines = csvLines(answer.bytes);
    expect(lines[0]).to.equal('Date,Start,End,Hours,Member,Client,Project,Task,Tags,Description,Billable,Rate,Amount');
    const owners = server.services.accounts.userNames([server.ownerId])[0]?.name as string;
    expect(lines.slice(1)).to.deep.equal([
      `2026-11-23,2026-11-23 09:00:00,2026-11-23 10:30:00,1.50,${owners},Harbour Ltd,Harbour site,,design,"Planning, ""phase 1""",yes,90.00,135.00`,
      `2026-11-24,2026-11-24 00:30:00,2026-11-24 01:15:00,0.75,${owners},,Brand,,,Late fix,yes,60.00,45.00`,
      '2026-11-24,2026-11-24 09:00:00,2026-11-24 12:00:00,3.00,Bea Colleague,Harbour Ltd,Harbour site,,,Colleague work,yes,90.00,270.00',
      `2026-11-24,2026-11-24 13:00:00,2026-11-24 14:00:00,1.00,${owners},,,,,No project,no,,0.00`,
      '2026-11-25,2026-11-25 09:00:00,2026-11-25 09:20:00,0.33,Cas Own,,Brand,,,Own only,yes,60.00,20.00',
    ]);
  });

  it('downloads the summary with every group and sub-group (not only the ten largest the page draws), and the timesheet by week and day', async () => {
    const { brand } = await team();
    const owner = await signIn(server.ownerId);
    // Twelve tags on twelve entries of Brand: the page draws ten sub-groups and sums the rest.
    for (let i = 0; i < 12; i++) {
      const tag = (await server.request('POST', '/api/v1/tags', { json: { name: `t${String(i).padStart(2, '0')}` } })).body.data;
      await entry(
        undefined,
        `2026-11-26T${String(8 + (i % 10)).padStart(2, '0')}:00:00+01:00`,
        `2026-11-26T${String(8 + (i % 10)).padStart(2, '0')}:0${1 + (i % 5)}:00+01:00`,
        `tagged ${i}`,
        {
          projectId: brand.id,
          tagIds: [tag.id],
        },
      );
    }
    const page = await owner.get(`/app/reports?${RANGE}&groupBy=project&subGroupBy=tag`);
    const flat = page.text.replace(/\s+/g, ' ');
    expect(flat, flat.slice(flat.indexOf('more') - 300, flat.indexOf('more') + 100)).to.include('3 more tags');
    const summary = csvLines(
      (await download(owner, `/app/reports/export?format=csv&kind=summary&${RANGE}&groupBy=project&subGroupBy=tag`)).bytes,
    );
    expect(summary[0]).to.equal('Project,Tag,Hours,Billable hours,Entries,Amount');
    expect(summary.filter((l) => l.startsWith('Brand,t')).length).to.equal(12);
    expect(summary).to.include('Brand,t11,0.03,0.03,1,2.00');
    expect(summary).to.include('Brand,(no tag),0.75,0.75,1,45.00');
    // One level: no group's sub-total and no total among the rows, so the Hours column sums to the hours.
    expect(summary.filter((l) => l.startsWith('Brand,,') || l.startsWith('Total,'))).to.deep.equal([]);
    const column = (lines: string[], i: number) => lines.slice(1).reduce((sum, l) => sum + Number(l.split(',')[i]), 0);
    expect(column(summary, 2).toFixed(2)).to.equal('3.80');
    expect(column(summary, 4)).to.equal(15);
    expect(column(summary, 5).toFixed(2)).to.equal('213.00');

    const weekly = csvLines((await download(owner, `/app/reports/export?format=csv&kind=weekly&${RANGE}&groupBy=project`)).bytes);
    expect(weekly).to.deep.equal([
      'Week of,Project,Mon,Tue,Wed,Thu,Fri,Sat,Sun,Total,Amount',
      '2026-11-23,Brand,0.00,0.75,0.00,0.55,0.00,0.00,0.00,1.30,78.00',
      '2026-11-23,Harbour site,1.50,0.00,0.00,0.00,0.00,0.00,0.00,1.50,135.00',
      '2026-11-23,(no project),0.00,1.00,0.00,0.00,0.00,0.00,0.00,1.00,0.00',
    ]);
    // The same one level in the workbook: the project rows, no Total row.
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(
      (await download(owner, `/app/reports/export?format=xlsx&kind=summary&${RANGE}&groupBy=project&subGroupBy=tag`))
        .bytes as unknown as ArrayBuffer,
    );
    const names: string[] = [];
    (book.getWorksheet('Summary') as ExcelJS.Worksheet).eachRow(
      (row, n) => n > 1 && names.push(`${row.getCell(1).value},${row.getCell(2).value}`),
    );
    expect(names).to.have.length(summary.length - 1);
    expect(names.filter((n) => n.startsWith('Total') || n.endsWith(','))).to.deep.equal([]);
  });

  it('the timesheet of a range that starts and ends within weeks: the PDF’s weeks start on the member’s first day as the page’s, the days outside empty; the spreadsheet leaves them empty', async () => {
    await team();
    const owner = await signIn(server.ownerId);
    // Tuesday 24 to Wednesday 2 December: two weeks, five days of the first and three of the second.
    const range = 'from=2026-11-24&to=2026-12-02';
    const pdf = await download(owner, `/app/reports/export?format=pdf&kind=weekly&${range}&groupBy=project`);
    expect(pdf.status).to.equal(200);
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-export-'));
    try {
      const file = join(dir, 'timesheet.pdf');
      writeFileSync(file, pdf.bytes);
      const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).replace(/[ \t]+/g, ' ');
      // Whole weeks from Monday (the member's first day), as the timesheet page: the days outside the range are headed, empty.
      for (const day of ['Mon 23 Nov', 'Tue 24 Nov', 'Sun 29 Nov', 'Mon 30 Nov', 'Wed 2 Dec', 'Thu 3 Dec', 'Sun 6 Dec'])
        expect(text, day).to.include(day);
      expect(text).to.include('Week of Mon 23 Nov 2026');
      expect(text).to.include('Week of Mon 30 Nov 2026');
      expect(text).not.to.include('Week of Tue 24 Nov');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const weekly = csvLines((await download(owner, `/app/reports/export?format=csv&kind=weekly&${range}&groupBy=project`)).bytes);
    expect(weekly).to.deep.equal([
      'Week of,Project,Mon,Tue,Wed,Thu,Fri,Sat,Sun,Total,Amount',
      '2026-11-23,Brand,,0.75,0.00,0.00,0.00,0.00,0.00,0.75,45.00',
      '2026-11-23,(no project),,1.00,0.00,0.00,0.00,0.00,0.00,1.00,0.00',
    ]);
  });

  it('writes text a spreadsheet would run as a formula after a quote in CSV, and as a string cell in XLSX, with typed cells and a frozen header', async () => {
    await team();
    const owner = await signIn(server.ownerId);
    const nasty = ['=HYPERLINK("http://example.invalid/x","click")', '+1', '-2', '@SUM(A1:A2)', '\tTabbed', '\rReturned'];
    for (const [i, description] of nasty.entries())
      await entry(undefined, `2026-11-27T0${i}:00:00+01:00`, `2026-11-27T0${i}:30:00+01:00`, description);
    const csv = (await download(owner, `/app/reports/export?format=csv&kind=detailed&${RANGE}`)).bytes.subarray(3).toString('utf8');
    expect(csv).to.include(`,"'=HYPERLINK(""http://example.invalid/x"",""click"")",`);
    for (const text of ["'+1", "'-2", "'@SUM(A1:A2)", "'\tTabbed"]) expect(csv).to.include(`,${text},`);
    expect(csv, JSON.stringify(csv.slice(-400))).to.include(`,"'\rReturned",`);

    const xlsx = await download(owner, `/app/reports/export?format=xlsx&kind=detailed&${RANGE}`);
    expect(xlsx.status).to.equal(200);
    expect(xlsx.headers.get('content-type')).to.equal('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(xlsx.headers.get('content-disposition')).to.equal('attachment; filename="timetrack-entries-2026-11-23-to-2026-11-29.xlsx"');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.bytes as unknown as ArrayBuffer);
    const sheet = book.getWorksheet('Entries') as ExcelJS.Worksheet;
    expect(sheet.views[0]).to.include({ state: 'frozen', ySplit: 1 });
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header).to.deep.equal([
      'Date',
      'Start',
      'End',
      'Hours',
      'Member',
      'Client',
      'Project',
      'Task',
      'Tags',
      'Description',
      'Billable',
      'Rate',
      'Amount',
    ]);
    const descriptions = new Map<string, ExcelJS.Cell>();
    // XML reads a carriage return in text as a line feed.
    const key = (text: string) => text.replace(/\r/g, '\n');
    sheet.eachRow((row, n) => n > 1 && descriptions.set(key(String(row.getCell(10).value)), row.getCell(10)));
    for (const text of nasty) {
      const cell = descriptions.get(key(text));
      expect(cell, text).to.not.equal(undefined);
      expect(cell?.type, text).to.equal(ExcelJS.ValueType.String);
      expect(cell?.formula, text).to.equal(undefined);
    }
    // The first entry: dates as dates (its local wall time), hours as a duration, money in the currency's format.
    const first = sheet.getRow(2);
    expect(first.getCell(1).type).to.equal(ExcelJS.ValueType.Date);
    expect((first.getCell(2).value as Date).toISOString()).to.equal('2026-11-23T09:00:00.000Z');
    // Hours: the number 1.5 / 24 (days) under a duration format, which exceljs reads back as a time after Excel's day 0.
    expect(first.getCell(4).numFmt).to.equal('[h]:mm:ss');
    expect((first.getCell(4).value as Date).toISOString()).to.equal('1899-12-30T01:30:00.000Z');
    expect(first.getCell(11).value).to.equal(true);
    expect(first.getCell(13).value).to.equal(135);
    expect(first.getCell(13).numFmt).to.equal('#,##0.00 "EUR"');
  });

  it('downloads the timesheet as a PDF to sign: the period, the member, days and projects, totals, signature lines for one client’s, its fonts embedded', async () => {
    const { client } = await team();
    const owner = await signIn(server.ownerId);
    const pdf = await download(owner, `/app/reports/export?format=pdf&kind=weekly&${RANGE}&groupBy=project`);
    expect(pdf.status).to.equal(200);
    expect(pdf.headers.get('content-type')).to.equal('application/pdf');
    expect(pdf.headers.get('content-disposition')).to.equal('attachment; filename="timetrack-timesheet-2026-11-23-to-2026-11-29.pdf"');
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-export-'));
    try {
      const file = join(dir, 'timesheet.pdf');
      writeFileSync(file, pdf.bytes);
      const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).replace(/[ \t]+/g, ' ');
      for (const part of [
        'Timesheet',
        'Mon 23 Nov 2026 – Sun 29 Nov 2026',
        'Europe/Berlin',
        'Week of Mon 23 Nov 2026',
        'Harbour site',
        'Brand',
        'Mon 23 Nov',
        'Tue 24 Nov',
      ])
        expect(text, part).to.include(part);
      expect(text).to.include('Total time 3:15 (3.25 hours) · 3 entries · Amount €180.00');
      expect(text).not.to.include('Colleague work');
      // Not for one client (an internal report): no client signs it (issue 58).
      for (const part of ['Submitted by', 'Approved by (client)', 'Signature']) expect(text, part).not.to.include(part);
      // For one client: the lines where the member and the client sign.
      const signed = await download(owner, `/app/reports/export?format=pdf&kind=weekly&${RANGE}&groupBy=project&clientIds=${client.id}`);
      expect(signed.status).to.equal(200);
      writeFileSync(join(dir, 'signed.pdf'), signed.bytes);
      const signedText = execFileSync('pdftotext', ['-layout', join(dir, 'signed.pdf'), '-'], { encoding: 'utf8' }).replace(/[ \t]+/g, ' ');
      for (const part of ['Client Harbour Ltd', 'Submitted by', 'Approved by (client)', 'Signature'])
        expect(signedText, part).to.include(part);
      expect(signedText).to.include('Total time 1:30 (1.50 hours) · 1 entry · Amount €135.00');
      const fonts = execFileSync('pdffonts', [file], { encoding: 'utf8' });
      const faces = fonts.split('\n').slice(2).filter(Boolean);
      expect(faces.length).to.be.greaterThan(0);
      for (const face of faces) expect(face, face).to.match(/DejaVuSansCondensed\S* +CID TrueType +Identity-H +yes +yes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses as the page does, before any byte of a file: unknown format or kind 400 naming the values, a stranger 400; colleagues without their worth: hours only', async () => {
    const { colleague, loner } = await team();
    const member = await signIn(colleague.userId);
    // Colleagues' time without its worth: the files of the page, without a money column (the API refuses them: 403).
    for (const [target, count] of [
      ['everyone', 5],
      [server.ownerId, 3],
    ] as const) {
      const hours = csvLines((await download(member, `/app/reports/export?format=csv&kind=detailed&${RANGE}&member=${target}`)).bytes);
      expect(hours[0]).to.equal('Date,Start,End,Hours,Member,Client,Project,Task,Tags,Description,Billable');
      expect(hours).to.have.length(count + 1);
      const summary = csvLines((await download(member, `/app/reports/export?format=csv&kind=summary&${RANGE}&member=${target}`)).bytes);
      expect(summary[0]).to.equal('Project,Hours,Billable hours,Entries');
    }
    const owner = await signIn(server.ownerId);
    const badFormat = await download(owner, `/app/reports/export?format=docx&kind=detailed&${RANGE}`);
    expect(badFormat.status).to.equal(400);
    expect(badFormat.bytes.toString('utf8')).to.include('format: &quot;docx&quot; is not one of csv, xlsx or pdf.');
    const badKind = await download(owner, `/app/reports/export?format=csv&kind=everything&${RANGE}`);
    expect(badKind.status).to.equal(400);
    expect(badKind.bytes.toString('utf8')).to.include('kind: &quot;everything&quot; is not one of detailed, summary or weekly.');
    const noFormat = await download(owner, `/app/reports/export?${RANGE}`);
    expect(noFormat.status).to.equal(400);
    expect(noFormat.bytes.toString('utf8')).to.include('format: &quot;&quot; is not one of csv, xlsx or pdf.');
    const stranger = await download(owner, `/app/reports/export?format=csv&kind=detailed&${RANGE}&member=usr_nobody`);
    expect(stranger.status).to.equal(400);
    expect(stranger.bytes.toString('utf8')).to.include('member: there is no such member in this workspace.');
    const tooLong = await download(owner, `/app/reports/export?format=csv&kind=detailed&from=2025-01-01&to=2026-11-29`);
    expect(tooLong.status).to.equal(400);
    expect(tooLong.bytes.toString('utf8')).to.include('at most 366 days after from');
    // A member without colleagues' time: their own, whatever the address asks, with their own worth.
    const own = await signIn(loner.userId);
    const lines = csvLines((await download(own, `/app/reports/export?format=csv&kind=detailed&${RANGE}&member=everyone`)).bytes);
    expect(lines).to.deep.equal([
      'Date,Start,End,Hours,Member,Client,Project,Task,Tags,Description,Billable,Rate,Amount',
      '2026-11-25,2026-11-25 09:00:00,2026-11-25 09:20:00,0.33,Cas Own,,Brand,,,Own only,yes,60.00,20.00',
    ]);
  });

  it("carries a member's own worth in their own export (the API's rule: reports spanning money they may not see are refused)", async () => {
    const { colleague } = await team();
    const member = await signIn(colleague.userId);
    const own = csvLines((await download(member, `/app/reports/export?format=csv&kind=summary&${RANGE}`)).bytes);
    expect(own).to.deep.equal(['Project,Hours,Billable hours,Entries,Amount', 'Harbour site,3.00,3.00,1,270.00']);
  });

  it('stops reading when the browser goes away mid-download: the reader thread is free for the next report at once', async () => {
    server = await startTestServer({ now: Date.parse('2026-11-25T13:00:00Z'), env: { READ_QUEUE_MS: '3000' } });
    // 8,000 entries with long descriptions: a CSV of ~8 MB, far more than the thread may send
    // ahead and the loopback socket's buffers hold unread.
    const project = (await server.request('POST', '/api/v1/projects', { json: { name: 'Bulk' } })).body.data;
    const actor = server.services.tokens.authenticate(server.ownerToken)!.actor;
    const start = Date.parse('2026-11-02T00:00:00Z');
    const filler = 'x'.repeat(990);
    for (let i = 0; i < 8000; i++)
      server.services.entries.create(actor, {
        start: new Date(start + i * 60_000).toISOString(),
        end: new Date(start + i * 60_000 + 30_000).toISOString(),
        description: `${i} ${filler}`,
        projectId: project.id,
      });
    const owner = await signIn(server.ownerId);
    const url = new URL(`${server.url}/app/reports/export?format=csv&kind=detailed&from=2026-11-01&to=2026-11-30`);
    // Read the first bytes, then go away without reading the rest.
    const first = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(url, { headers: { cookie: cookie(owner) } }, (res) => {
        res.once('data', (chunk: Buffer) => {
          resolve(chunk.byteLength);
          res.pause();
          setTimeout(() => req.destroy(), 200);
        });
      });
      req.on('error', (error) => (/socket hang up|aborted/.test(error.message) ? undefined : reject(error)));
      req.end();
    });
    expect(first).to.be.greaterThan(0);
    await waitFor(() => server.logLines.some((l) => l.includes('an export was cancelled')), 5000);
    // The one reader thread answers the next report at once (an export still holding it would keep it 10 minutes).
    const report = await owner.get(`/app/reports?from=2026-11-01&to=2026-11-30`);
    expect(report.status).to.equal(200);
  });
});

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
