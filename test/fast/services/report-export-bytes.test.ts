import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import JSZip from 'jszip';
import { type ExportFormat, type ExportRequest, writeExport } from '../../../src/modules/reports/export/index.js';
import type { Actor } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

/**
 * The bytes of a report's entries export (CSV and XLSX) of a seeded workspace, against files
 * written by the export as it was before issue 60 (Drizzle's rows mapped into entry row views):
 * the export now reads plain rows, and nothing it writes may change. 1,100 entries over a DST
 * change in Europe/Berlin, so the reads cross a batch (1,000 rows) in the middle of 20 entries of
 * one instant; names and texts with commas, quotes, line breaks, formulas and non-ASCII letters;
 * a member who may not see colleagues' money (withheld) and one who sees only their own time.
 * The XLSX is compared by the SHA-256 of each entry of its zip, all but docProps/core.xml (the
 * time of writing): its worksheet holds the same cells as the CSV.
 * EXPORT_BYTES_WRITE=1 writes the files anew (only for a change of the format that is meant).
 */
const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'export');
const WRITE = process.env.EXPORT_BYTES_WRITE === '1';

describe('report exports: the same bytes out (issue 60)', () => {
  let world: ServiceWorld;
  let withheld: Actor;
  let ownOnly: Actor;
  const ids: Record<string, string> = {};
  before(() => {
    world = memoryServices({ now: Date.UTC(2026, 4, 1, 12) });
    const { services, owner } = world;
    const ana = world.member({ name: 'Ana Müller', canViewOthersTime: true, canViewOthersMoney: true, hourlyRate: 70 });
    const bo = world.member({ name: 'Bo, "the Builder"', canViewOthersTime: true, canViewOthersMoney: false });
    withheld = bo;
    const cy = world.member({ name: 'Çy 🚀', hourlyRate: 55.5 });
    ownOnly = cy;
    const { catalog } = services;
    const acme = catalog.clients.create(owner, { name: 'Acme, Inc.' }).id;
    const zurich = catalog.clients.create(owner, { name: 'Zürich "AG"' }).id;
    const relaunch = catalog.projects.create(owner, { name: 'Relaunch', clientId: acme, billable: true, hourlyRate: 95 }).id;
    const formula = catalog.projects.create(owner, { name: '=cmd|x', clientId: zurich, billable: true, hourlyRate: 33.33 }).id;
    const internal = catalog.projects.create(owner, { name: 'Internal; ops', billable: false }).id;
    const design = catalog.tasks.create(owner, { name: 'Design', projectId: relaunch, hourlyRate: 120 }).id;
    const review = catalog.tasks.create(owner, { name: '+Review', projectId: formula }).id;
    // An entry's tags are listed in the order of their ids (random): named after they are made, in that order, the file is the same each run.
    const [onsite, comma, quoted] = ['t1', 't2', 't3'].map((name) => catalog.tags.create(owner, { name }).id).sort() as [
      string,
      string,
      string,
    ];
    catalog.tags.update(owner, onsite, { name: 'onsite' });
    catalog.tags.update(owner, comma, { name: 'a,b' });
    catalog.tags.update(owner, quoted, { name: '"quoted"' });
    Object.assign(ids, { acme, relaunch, formula, comma });
    const texts = [
      'Kickoff',
      '',
      'Fix: "quotes", commas',
      '=SUM(A1:A9)',
      'Zeile eins\nZeile zwei',
      'naïve café ☕',
      '@mention',
      '-1',
      ' \tindented',
    ];
    const projectOf = [
      { projectId: relaunch, taskId: design },
      { projectId: relaunch },
      { projectId: formula, taskId: review },
      { projectId: internal },
      {},
    ];
    const tagsOf = [[], [onsite], [comma, quoted], [quoted, onsite, comma], []];
    const authors = [owner, ana, bo, cy];
    const bodies: Array<{ actor: Actor; body: Record<string, unknown> }> = [];
    let start = Date.UTC(2026, 2, 20, 5, 0, 7);
    for (let i = 0; i < 1100; i++) {
      // Entries 990 to 1009 share one instant and everything else: the first batch ends among them.
      const tie = i >= 990 && i < 1010;
      if (!tie || i === 990) start += 7 * 60_000 + (i % 7) * 1_000 + (i % 3) * 1;
      const minutes = tie ? 45 : 5 + ((i * 37) % 300);
      const billable = i % 11 === 0 ? { billable: i % 2 === 0 } : {};
      bodies.push({
        actor: tie ? ana : (authors[i % authors.length] as Actor),
        body: {
          start: new Date(start).toISOString(),
          end: new Date(start + minutes * 60_000 + (tie ? 0 : (i % 5) * 999)).toISOString(),
          description: tie ? 'Same instant' : `${texts[i % texts.length]}${i % 4 === 0 ? ` #${i}` : ''}`,
          ...(tie ? { projectId: relaunch } : projectOf[i % projectOf.length]),
          tagIds: tie ? [onsite] : tagsOf[(i >> 1) % tagsOf.length],
          ...(tie ? {} : billable),
        },
      });
    }
    for (const actor of authors) {
      const own = bodies.filter((b) => b.actor === actor).map((b) => b.body);
      services.entries.saveSheet(actor, { add: own as never, shorten: [], remove: [] });
    }
  });
  after(() => world.close());

  async function exported(actor: Actor, format: ExportFormat, extra: Partial<ExportRequest> = {}): Promise<Buffer> {
    const request: ExportRequest = {
      kind: 'detailed',
      format,
      from: '2026-03-20',
      to: '2026-04-05',
      timeZone: 'Europe/Berlin',
      weekStart: 'monday',
      groupBy: 'project',
      subGroupBy: null,
      unseenMoney: 'withhold',
      ...extra,
    };
    const chunks: Buffer[] = [];
    await writeExport(world.services.reports.exportTable(actor, request), format, {
      cancelled: false,
      write: async (chunk) => void chunks.push(Buffer.from(chunk)),
    });
    return Buffer.concat(chunks);
  }

  /** The SHA-256 of each entry of the zip by name (docProps/core.xml, holding the time of writing, left out). */
  async function xlsxParts(bytes: Buffer): Promise<Record<string, string>> {
    const zip = await JSZip.loadAsync(bytes);
    const parts: Record<string, string> = {};
    for (const name of Object.keys(zip.files).sort()) {
      if (name === 'docProps/core.xml' || zip.files[name]?.dir) continue;
      const content = await (zip.files[name] as JSZip.JSZipObject).async('nodebuffer');
      parts[name] = createHash('sha256').update(content).digest('hex');
    }
    return parts;
  }

  const cases: Array<{ name: string; actor: () => Actor; extra?: () => Partial<ExportRequest> }> = [
    { name: 'everyone', actor: () => world.owner },
    // Sees colleagues' time, not their money: the money columns are left out.
    { name: 'money-withheld', actor: () => withheld },
    // Sees only their own time (and its money).
    { name: 'own-only', actor: () => ownOnly },
    { name: 'search-billable', actor: () => world.owner, extra: () => ({ filters: { search: 'zeile', billable: true } }) },
    {
      name: 'client-project-tag',
      actor: () => world.owner,
      extra: () => ({
        userIds: [withheld.userId, ownOnly.userId],
        filters: { clientIds: [ids.acme as string], tagIds: [ids.comma as string] },
      }),
    },
  ];

  for (const c of cases) {
    it(`CSV, ${c.name}: byte-identical to the file the old export wrote`, async () => {
      const bytes = await exported(c.actor(), 'csv', c.extra?.());
      const file = join(DIR, `entries-${c.name}.csv`);
      if (WRITE) {
        mkdirSync(DIR, { recursive: true });
        writeFileSync(file, bytes);
      }
      const expected = readFileSync(file);
      expect(bytes.length, 'bytes').to.equal(expected.length);
      expect(createHash('sha256').update(bytes).digest('hex')).to.equal(createHash('sha256').update(expected).digest('hex'));
      expect(bytes.toString('utf8').split('\r\n').length).to.be.greaterThan(c.name === 'everyone' ? 1100 : 10);
    });

    it(`XLSX, ${c.name}: every part of the zip identical to the old export's`, async () => {
      const parts = await xlsxParts(await exported(c.actor(), 'xlsx', c.extra?.()));
      const file = join(DIR, `entries-${c.name}.xlsx.sha256.json`);
      if (WRITE) writeFileSync(file, `${JSON.stringify(parts, null, 2)}\n`);
      const expected = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      expect(Object.keys(parts)).to.deep.equal(Object.keys(expected));
      for (const name of Object.keys(expected)) expect(parts[name], name).to.equal(expected[name]);
    });
  }
});
