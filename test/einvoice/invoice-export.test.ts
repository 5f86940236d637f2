import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { systemClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { type DocumentFormat, renderDocument } from '../../src/modules/invoices/documents/index.js';
import { issuerPatchOfText } from '../../src/modules/invoices/service.js';
import { OPERATOR } from '../../src/principal.js';
import { createServices } from '../../src/services.js';
import { fatal, requireTools, validate } from './tools.js';
import { BIN } from '../helpers/entry.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `timetrack …` as a process of its own (bin/timetrack.js) against the test's database file. */
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

const FORMATS: DocumentFormat[] = ['pdf', 'xrechnung-ubl', 'xrechnung-cii', 'peppol'];
const EXTENSION: Record<DocumentFormat, string> = { pdf: 'pdf', 'xrechnung-ubl': 'xml', 'xrechnung-cii': 'xml', peppol: 'xml' };

/**
 * `timetrack invoice export` as a self-hoster runs it (issue 35): processes on one database file,
 * the files they write checked by the official rules (test/einvoice), the refusals by exit code.
 */
describe('timetrack invoice export (processes)', function () {
  this.timeout(300_000);
  let dir: string;
  let databasePath: string;
  let ids: { workspaceId: string; userId: string; complete: string; bare: string };

  before(() => requireTools());

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-invoice-export-'));
    databasePath = join(dir, 'timetrack.db');
    const database = openDatabase(databasePath);
    const services = createServices(database, { clock: systemClock, secretKey: randomBytes(32) });
    const { accounts, tokens, catalog, entries, invoices } = services;
    const workspaceId = accounts.createWorkspace(OPERATOR, { name: 'Studio' }).id;
    const userId = accounts.createUser(OPERATOR, { name: 'Jörg', email: 'joerg@example.org' }).id;
    accounts.addMember(OPERATOR, { workspaceId, userId, canViewOthersTime: true, canViewOthersMoney: true, isOwner: true });
    const owner = tokens.authenticate(
      tokens.create(OPERATOR, { workspaceId, userId, name: 't', scopes: ['entries:write', 'catalog:write'] }).token,
    )!.actor;
    invoices.setBusinessProfile(
      OPERATOR,
      workspaceId,
      issuerPatchOfText(
        Object.entries({
          legalName: 'Müller & Söhne GmbH',
          addressLines: 'Hauptstraße 5',
          postalCode: '10115',
          city: 'Berlin',
          country: 'DE',
          vatId: 'DE136695976',
          contactName: 'Jörg Weiß',
          phone: '+49 30 1234567',
          email: 'rechnung@mueller-soehne.example',
          electronicAddress: 'DE136695976',
          electronicAddressScheme: '9930',
          iban: 'DE89370400440532013000',
          bic: 'COBADEFFXXX',
          paymentTermsDays: '14',
        }),
      ),
    );
    invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    // A client with every value the e-invoices need (a German public body: its Leitweg-ID), and one with only a name and a country (what its PDF needs: issuing checks it first, issue 56 item 1).
    const complete = catalog.clients.create(owner, {
      name: 'Landesamt',
      legalName: 'Landesamt für Häfen',
      addressLines: ['Kaistraße 7'],
      postalCode: '20457',
      city: 'Hamburg',
      country: 'DE',
      vatId: 'DE129273398',
      reference: '04011000-12345-03',
      electronicAddress: '04011000-12345-03',
      electronicAddressScheme: '0204',
    }).id;
    const bare = catalog.clients.create(owner, { name: 'Kiosk', country: 'DE' }).id;
    for (const clientId of [complete, bare]) {
      const projectId = catalog.projects.create(owner, { name: `Work ${clientId}`, clientId, billable: true, hourlyRate: 95 }).id;
      for (const day of ['04', '05'])
        entries.create(owner, { projectId, start: `2024-03-${day}T09:00:00Z`, end: `2024-03-${day}T11:30:00Z`, description: `Day ${day}` });
    }
    const made = (clientId: string) =>
      invoices.create(OPERATOR, { workspaceId, userId, clientId, from: '2024-03-01', to: '2024-03-31' }).id;
    const [first, second] = [made(complete), made(bare)] as [string, string];
    invoices.changeStatus(OPERATOR, first, 'sent', userId, { date: '2024-04-02' });
    invoices.changeStatus(OPERATOR, second, 'sent', userId, { date: '2024-04-02' });
    database.close();
    ids = { workspaceId, userId, complete: first, bare: second };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const tt = (...argv: string[]) => timetrack(databasePath, ...argv);
  const stored = <T>(fn: (services: ReturnType<typeof createServices>) => T): T => {
    const database = openDatabase(databasePath);
    try {
      return fn(createServices(database, { clock: systemClock, secretKey: randomBytes(32) }));
    } finally {
      database.close();
    }
  };
  const refusedWith = (run: Run, exit: number, code: string) => {
    expect(run, run.stderr).to.deep.include({ code: exit, stdout: '' });
    const { error } = JSON.parse(run.stderr) as { error: { code: string; message: string } };
    expect(error.code).to.equal(code);
    return error.message;
  };

  it('writes every format, and every format of the credit note, as renderDocument makes them; each passes the official rules', async () => {
    const out = join(dir, 'out');
    mkdirSync(out);
    const file = (format: DocumentFormat, creditNote: boolean) => join(out, `${creditNote ? 'credit-' : ''}${format}.${EXTENSION[format]}`);
    const run = async (creditNote: boolean) => {
      // Two at a time: the machine has two cores.
      for (const pair of [FORMATS.slice(0, 2), FORMATS.slice(2)]) {
        const runs = await Promise.all(
          pair.map((format) =>
            tt(
              'invoice',
              'export',
              ids.complete,
              '--format',
              format,
              ...(creditNote ? ['--credit-note'] : []),
              '--out',
              file(format, creditNote),
              '--json',
            ),
          ),
        );
        for (const [i, result] of runs.entries()) {
          const format = pair[i] as DocumentFormat;
          expect(result.code, result.stderr).to.equal(0);
          const printed = JSON.parse(result.stdout);
          expect(printed).to.deep.equal({
            id: ids.complete,
            number: creditNote ? '2024-0003' : '2024-0001',
            format,
            creditNote,
            file: file(format, creditNote),
            bytes: readFileSync(file(format, creditNote)).length,
          });
        }
      }
    };
    await run(false);
    // Voided after issuing: its credit note (2024-0003: the bare client's invoice is 2024-0002).
    stored((s) => s.invoices.changeStatus(OPERATOR, ids.complete, 'void', ids.userId, { date: '2024-04-03' }));
    await run(true);

    // Byte for byte what the documents make of the invoice as stored (one renderDocument call, nothing added).
    const invoice = stored((s) => s.invoices.get(OPERATOR, ids.complete));
    for (const creditNote of [false, true])
      for (const format of FORMATS)
        expect(
          readFileSync(file(format, creditNote)).equals(await renderDocument(invoice, format, { creditNote })),
          `${format} ${creditNote}`,
        ).to.equal(true);
    // No temporary file left beside them.
    expect(readdirSync(out).sort()).to.deep.equal(
      FORMATS.flatMap((f) => [file(f, false), file(f, true)].map((p) => p.slice(out.length + 1))).sort(),
    );

    const files = FORMATS.flatMap((format) => [file(format, false), file(format, true)]);
    const xrechnung = files.filter((f) => /xrechnung/.test(f));
    const [en, xr] = await Promise.all([
      validate(
        files.filter((f) => !xrechnung.includes(f)),
        false,
      ),
      validate(xrechnung, true),
    ]);
    const reports = new Map([...en.files, ...xr.files]);
    for (const f of files) {
      expect(reports.get(f), f).to.not.equal(undefined);
      expect(fatal(reports.get(f)), f).to.deep.equal([]);
    }
    expect(reports.get(file('pdf', false))!.pdf).to.deep.include({
      attachments: ['factur-x.xml'],
      partThree: true,
      conformanceLevel: 'EN 16931',
    });

    // Without --json, a sentence.
    const human = await tt('invoice', 'export', ids.complete, '--format', 'pdf', '--out', join(out, 'again.pdf'));
    expect(human).to.deep.include({
      code: 0,
      stdout: `wrote ${join(out, 'again.pdf')} (${readFileSync(join(out, 'again.pdf')).length} bytes): invoice 2024-0001 as pdf\n`,
    });
  });

  it('refuses, with exit 1 and what to do, a format lacking values (each named with its BT number and where to set it), an unknown format, a credit note that does not exist and a file it cannot write; nothing is written', async () => {
    const files = join(dir, 'files');
    mkdirSync(files);
    const target = join(files, 'invoice.xml');
    writeFileSync(target, 'the file as it was');

    const lacking = refusedWith(
      await tt('invoice', 'export', ids.bare, '--format', 'xrechnung-ubl', '--out', target, '--json'),
      1,
      'invalid',
    );
    const [head, ...items] = lacking.split('\n');
    expect(head).to.equal(
      'Invoice 2024-0002 cannot be exported as xrechnung-ubl: it lacks 4 values the format requires. Nothing was written.',
    );
    const clientId = stored((s) => s.invoices.get(OPERATOR, ids.bare).clientId);
    const onClient = (field: string, path: string, partner?: string) =>
      `set it on the client (the Catalog page's Invoicing details, or PATCH /api/v1/clients/${clientId} with ${field}) for new invoices, or fill it on this invoice: timetrack invoice fill ${ids.bare} --user U ${partner ? `--set '${partner}=…' ` : ''}--set '${path}=…'`;
    expect(items).to.deep.equal([
      `  - Buyer reference (the client's reference; in German public procurement the Leitweg-ID) (BT-10): ${onClient('reference', 'recipient.reference')}`,
      `  - Buyer city (BT-52): ${onClient('city', 'recipient.city')}`,
      `  - Buyer post code (BT-53): ${onClient('postalCode', 'recipient.postalCode')}`,
      // An electronic address is filled with its scheme (issue 56 item 3).
      `  - Buyer electronic address (BT-49): ${onClient('electronicAddress', 'recipient.electronicAddress', 'recipient.electronicAddressScheme')}`,
    ]);

    expect(
      refusedWith(await tt('invoice', 'export', ids.complete, '--format', 'zugferd', '--out', target, '--json'), 1, 'invalid'),
    ).to.equal('--format "zugferd" is not a document format: use one of pdf, xrechnung-ubl, xrechnung-cii, peppol.');
    expect(
      refusedWith(await tt('invoice', 'export', ids.complete, '--format', 'pdf', '--credit-note', '--out', target, '--json'), 1, 'invalid'),
    ).to.equal(
      `Invoice 2024-0001 has no credit note: only an invoice voided after it was issued has one (timetrack invoice status ${ids.complete} --to void --user U makes it). Leave out --credit-note to export the invoice itself.`,
    );
    const missingDir = join(files, 'no-such-dir', 'invoice.pdf');
    expect(
      refusedWith(await tt('invoice', 'export', ids.complete, '--format', 'pdf', '--out', missingDir, '--json'), 1, 'invalid'),
    ).to.equal(
      `Cannot write ${missingDir}: the directory ${join(files, 'no-such-dir')} does not exist. Give --out a file in a directory that exists and that you may write, e.g. --out ./2024-0001.pdf.`,
    );
    expect(refusedWith(await tt('invoice', 'export', ids.complete, '--format', 'peppol', '--out', files, '--json'), 1, 'invalid')).to.equal(
      `Cannot write ${files}: it is a directory (name the file: ${join(files, '2024-0001-peppol.xml')}). Give --out a file in a directory that exists and that you may write, e.g. --out ./2024-0001-peppol.xml.`,
    );
    expect(refusedWith(await tt('invoice', 'export', 'inv_nope', '--format', 'pdf', '--out', target, '--json'), 1, 'not_found')).to.equal(
      'Invoice inv_nope was not found.',
    );
    expect(refusedWith(await tt('invoice', 'export', ids.complete, '--format', 'pdf', '--json'), 2, 'usage')).to.equal('--out is required');
    // Nothing was written: the old file as it was, no temporary file beside it.
    expect(readFileSync(target, 'utf8')).to.equal('the file as it was');
    expect(readdirSync(files)).to.deep.equal(['invoice.xml']);

    // The same file, once the invoice can be made: replaced whole.
    expect((await tt('invoice', 'export', ids.complete, '--format', 'xrechnung-ubl', '--out', target)).code).to.equal(0);
    expect(readFileSync(target, 'utf8')).to.match(/^<\?xml[^>]*>\s*<Invoice /);
    expect(readdirSync(files)).to.deep.equal(['invoice.xml']);
  });
});
