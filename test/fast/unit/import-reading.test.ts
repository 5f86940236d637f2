import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { csvRecords, delimiterOf } from '../../../src/modules/imports/csv.js';
import { orderEvidence, parseDay, parseDuration, parseTimeOfDay, ZoneClock } from '../../../src/modules/imports/dates.js';
import { detectFormat, type Format, FORMAT_NAMES, readHeader, rowReader, type SourceRow } from '../../../src/modules/imports/formats.js';
import { tagsOf } from '../../../src/modules/imports/rows.js';
import { numberOf, parseMoneyCell } from '../../../src/modules/imports/money.js';
import { DomainError } from '../../../src/errors.js';

const FIXTURES = new URL('../../fixtures/import/', import.meta.url).pathname;

async function records(path: string) {
  const out: Array<{ line: number; cells: string[] }> = [];
  for await (const r of csvRecords(path)) out.push(r);
  return out;
}

const message = async (fn: () => Promise<unknown>): Promise<string> => {
  try {
    await fn();
  } catch (error) {
    return (error as Error).message;
  }
  return 'no error';
};

describe('import: reading files', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-import-unit-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a BOM, CRLF, quoted commas, quotes and newlines, and names the line where each row starts', async () => {
    const rows = await records(join(FIXTURES, 'toggl.csv'));
    expect(rows.map((r) => r.line)).to.deep.equal([1, 2, 3, 5]);
    expect(rows[0]?.cells[0]).to.equal('User'); // the BOM is gone
    expect(rows[1]?.cells[5]).to.equal('Header, with "quotes"');
    expect(rows[2]?.cells[5]).to.equal('Two\r\nlines');
    expect(rows[3]?.cells[0]).to.equal('Grace Hopper');
  });

  it('takes the delimiter from the header line: semicolons, or commas', async () => {
    expect(delimiterOf('a;b;"c,d"')).to.equal(';');
    expect(delimiterOf('a,b,"c;d;e"')).to.equal(',');
    const rows = await records(join(FIXTURES, 'toggl-semicolon-dmy.csv'));
    expect(rows[1]?.cells[13]).to.equal('80,00');
  });

  it('refuses a file that is not UTF-8, saying how to save it again', async () => {
    const text = await message(() => records(join(FIXTURES, 'latin1.csv')));
    expect(text).to.match(/not UTF-8 text\. Save it again as UTF-8/);
  });

  it('skips empty lines and still counts them in line numbers', async () => {
    const path = join(dir, 'blank.csv');
    writeFileSync(path, 'a,b\n\n1,2\n\n\n3,4\n');
    expect((await records(path)).map((r) => r.line)).to.deep.equal([1, 3, 6]);
  });

  it('streams a file larger than its read chunks without losing a row', async () => {
    const path = join(dir, 'big.csv');
    const lines = ['n,text'];
    for (let i = 0; i < 20_000; i++) lines.push(`${i},"row ${i}, with a comma"`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    const rows = await records(path);
    expect(rows).to.have.length(20_001);
    expect(rows[20_000]).to.deep.equal({ line: 20_001, cells: ['19999', 'row 19999, with a comma'] });
  });
});

describe('import: a row of every format', () => {
  it('has every field of a source row, each a string, read or blank', () => {
    // Every field, as the compiler checks a SourceRow: a field no format reads would be missing from the reader's rows.
    const every: SourceRow = {
      email: '',
      name: '',
      client: '',
      project: '',
      task: '',
      description: '',
      tags: '',
      billable: '',
      startDate: '',
      startTime: '',
      endDate: '',
      endTime: '',
      startIso: '',
      endIso: '',
      hours: '',
      rate: '',
      amount: '',
      currency: '',
      record: '',
      sourceId: '',
      timeZone: '',
      archived: '',
      color: '',
      estimateSec: '',
      budgetAmount: '',
      data: '',
      invoice: '',
    };
    for (const format of Object.keys(FORMAT_NAMES) as Format[]) {
      const row = rowReader(format, readHeader(['Email', 'Description'])).read(['ada@example.com', ' Work ']);
      expect(Object.keys(row).sort(), format).to.deep.equal(Object.keys(every).sort());
      expect(
        Object.values(row).every((v) => typeof v === 'string'),
        format,
      ).to.equal(true);
    }
  });
});

describe('import: dates and times', () => {
  it('learns the day/month order only from a part above 12', () => {
    expect(orderEvidence('13/03/2026')).to.equal('DMY');
    expect(orderEvidence('03/13/2026')).to.equal('MDY');
    expect(orderEvidence('03/04/2026')).to.equal(null);
    expect(orderEvidence('2026-03-04')).to.equal(null);
  });

  it('reads ISO, day-first and month-first days, and refuses impossible ones', () => {
    expect(parseDay('2026-03-04', null)).to.deep.equal({ year: 2026, month: 3, day: 4 });
    expect(parseDay('04.03.2026', 'DMY')).to.deep.equal({ year: 2026, month: 3, day: 4 });
    expect(parseDay('03/04/2026', 'MDY')).to.deep.equal({ year: 2026, month: 3, day: 4 });
    expect(() => parseDay('31/02/2026', 'DMY')).to.throw('not a day of the calendar');
    expect(() => parseDay('03/04/2026', null)).to.throw('reads as day/month or month/day');
    expect(() => parseDay('yesterday', 'DMY')).to.throw('is not a date');
  });

  it('reads 24-hour and 12-hour times, seconds optional', () => {
    expect(parseTimeOfDay('14:05')).to.deep.equal({ hour: 14, minute: 5, second: 0 });
    expect(parseTimeOfDay('09:05:30')).to.deep.equal({ hour: 9, minute: 5, second: 30 });
    expect(parseTimeOfDay('12:30 AM')).to.deep.equal({ hour: 0, minute: 30, second: 0 });
    expect(parseTimeOfDay('12:00 PM')).to.deep.equal({ hour: 12, minute: 0, second: 0 });
    expect(parseTimeOfDay('1:15:10 pm')).to.deep.equal({ hour: 13, minute: 15, second: 10 });
    expect(() => parseTimeOfDay('13:00 PM')).to.throw('hours from 1 to 12');
    expect(() => parseTimeOfDay('25:00')).to.throw('not a time of day');
  });

  it('takes exact seconds from h:mm and rounds decimal hours to the second (1.6833 h is 6,060 s, not 6,059)', () => {
    expect(parseDuration('1:41')).to.equal(6060);
    expect(parseDuration('0:30:15')).to.equal(1815);
    expect(parseDuration('1.6833')).to.equal(6060);
    expect(parseDuration('1,5')).to.equal(5400);
    expect(() => parseDuration('soon')).to.throw('is not a duration');
  });

  it('refuses a local time in the DST gap and takes the earlier instant of the repeated hour', () => {
    const berlin = new ZoneClock('Europe/Berlin');
    expect(() => berlin.instant({ year: 2026, month: 3, day: 29, hour: 2, minute: 30, second: 0 })).to.throw(
      '02:30 does not exist in Europe/Berlin',
    );
    // 02:30 on 25 October 2026 happens twice: first at +02:00 (00:30Z), then at +01:00 (01:30Z).
    expect(new Date(berlin.instant({ year: 2026, month: 10, day: 25, hour: 2, minute: 30, second: 0 })).toISOString()).to.equal(
      '2026-10-25T00:30:00.000Z',
    );
    expect(new Date(berlin.instant({ year: 2026, month: 7, day: 1, hour: 9, minute: 0, second: 0 })).toISOString()).to.equal(
      '2026-07-01T07:00:00.000Z',
    );
    const newYork = new ZoneClock('America/New_York');
    expect(new Date(newYork.instant({ year: 2026, month: 1, day: 15, hour: 9, minute: 0, second: 0 })).toISOString()).to.equal(
      '2026-01-15T14:00:00.000Z',
    );
    expect(() => new ZoneClock('Mars/Olympus')).to.throw('unknown time zone');
  });
});

describe('import: formats', () => {
  const header = (line: string) => readHeader(line.split(','));

  it('recognises each format by its headers, case and spaces aside, and reads a currency in parentheses', () => {
    const toggl = header(' user ,EMAIL,Start date,Start time,End date,End time,Amount (USD)');
    expect(detectFormat(toggl, 'auto')).to.equal('toggl');
    expect(toggl.currency).to.equal('USD');
    expect(detectFormat(header('User,Email,Start Date,Start Time,End Date,End Time,Duration (h),Duration (decimal)'), 'auto')).to.equal(
      'clockify',
    );
    expect(detectFormat(header('Date,Client,Project,Task,Notes,Hours,First Name,Last Name'), 'auto')).to.equal('harvest');
    expect(detectFormat(header('Date,From,To,Duration,User,Customer'), 'auto')).to.equal('kimai');
    expect(detectFormat(header('email,start,end,description'), 'auto')).to.equal('timetrack');
  });

  it('refuses a file that matches no format, naming the columns each one needs', () => {
    try {
      detectFormat(header('Day,Who,What'), 'auto');
      expect.fail('detected');
    } catch (error) {
      expect(error).to.be.instanceOf(DomainError);
      const text = (error as Error).message;
      expect(text).to.contain('(day, who, what)');
      expect(text).to.contain('toggl: User, Email, Start date, Start time, End date, End time');
      expect(text).to.contain('harvest: Date, Hours, First Name, Last Name, Project');
      expect(text).to.contain('timetrack: email, start, end');
    }
  });

  it('refuses a format asked for that the file is not, naming what it lacks', () => {
    expect(() => detectFormat(header('User,Email,Start date,Start time,End date,End time'), 'harvest')).to.throw(
      'This is not a harvest file: it lacks the columns Date, Hours, First Name, Last Name, Project',
    );
  });

  it('splits tags on commas, trims them and keeps each name once', () => {
    expect(tagsOf(' a, b ,,A, c')).to.deep.equal(['a', 'b', 'c']);
    expect(tagsOf('')).to.deep.equal([]);
  });

  it('reads money cells exactly: signs, codes, decimal commas and thousands separators; refuses what is not a number', () => {
    const read = (cell: string) => {
      const d = parseMoneyCell(cell);
      return d === null ? null : numberOf(d);
    };
    expect(['80.05', '€ 80.05', '80.05 EUR', '80,05', '1,234.56', '1.234,56', '1234', '0.1000'].map(read)).to.deep.equal([
      80.05, 80.05, 80.05, 80.05, 1234.56, 1234.56, 1234, 0.1,
    ]);
    expect(parseMoneyCell('0.1000')).to.deep.equal({ units: 1000n, scale: 4 });
    expect(['-5', '\u001b[2J', '12abc', 'eighty', '1,2,3'].map(read)).to.deep.equal([null, null, null, null, null]);
  });
});
