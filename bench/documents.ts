/*
 * The invoice documents' figures (issue 35), part of `npm run bench`: how long renderDocument
 * takes for a one-page PDF (the two-line invoice), the 500-line PDF, and each XML (XRechnung
 * UBL and CII, Peppol) of the one-page and the 500-line invoice, on one thread as the worker
 * will run them. Each is rendered BENCH_DOCUMENT_RUNS times (default 60; 20 for the 500-line
 * PDF) after 20 warm-up renders; p50 and p99 in milliseconds, and the size in bytes. No I/O.
 *
 * Then the server's side (the invoice page's downloads, made on the document threads): a real
 * server on 127.0.0.1 over a temp SQLite file (DOCUMENT_THREADS default 1), an issued invoice of
 * 500 entry lines; GET /api/v1/entries/{id} (a point read, autocannon, 4 connections,
 * BENCH_DOCUMENT_SECONDS = 10 s) alone, then while 4 connections download that invoice's PDF
 * through /app/invoices/{id}/document.pdf in a loop: the point read's p50 and p99 in both, the
 * PDFs made and refused (503 when a download waits past DOCUMENT_QUEUE_MS). BENCH_DOCUMENT_SERVER=0
 * skips it.
 *
 *   npx tsx bench/documents.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { parseConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { issuerPatchOfText } from '../src/modules/invoices/service.js';
import { OPERATOR } from '../src/principal.js';
import { startServer } from '../src/server.js';
import { renderDocument, type DocumentFormat } from '../src/modules/invoices/documents/index.js';
import type { InvoiceDocument } from '../src/modules/invoices/document.js';
import { matrix } from '../test/einvoice/fixtures.js';
import { signIn } from './settings.js';

const runs = Number(process.env.BENCH_DOCUMENT_RUNS ?? 60);
/** Renders before measuring: the JIT compiles pdfkit's and fontkit's paths over the first ones, as a worker's first documents would. */
const WARM_UP = 20;
const invoices = matrix();

interface Case {
  name: string;
  doc: InvoiceDocument;
  format: DocumentFormat;
  target: number;
  runs: number;
}

const cases: Case[] = [
  { name: 'PDF, one page (2 lines)', doc: invoices['standard-19']!, format: 'pdf', target: 100, runs },
  { name: 'PDF, 500 lines (19 pages)', doc: invoices['500-lines']!, format: 'pdf', target: 1000, runs: Math.max(5, Math.round(runs / 3)) },
  ...(['xrechnung-ubl', 'xrechnung-cii', 'peppol'] as const).flatMap((format) => [
    { name: `${format}, 2 lines`, doc: invoices['standard-19']!, format, target: 50, runs },
    { name: `${format}, 500 lines`, doc: invoices['500-lines']!, format, target: 50, runs },
  ]),
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

// Wall time is what a caller waits; the process's CPU time per render (user + system) is what
// the work costs, and moves far less when other processes share the cores.
console.log(`| document | runs | p50 ms | p99 ms | CPU p50 ms | CPU p99 ms | bytes | target (p99) |`);
console.log(`| --- | --- | --- | --- | --- | --- | --- | --- |`);
for (const c of cases) {
  for (let i = 0; i < WARM_UP; i++) await renderDocument(c.doc, c.format);
  const times: number[] = [];
  const cpu: number[] = [];
  let bytes = 0;
  for (let i = 0; i < c.runs; i++) {
    const start = performance.now();
    const used = process.cpuUsage();
    bytes = (await renderDocument(c.doc, c.format)).length;
    const spent = process.cpuUsage(used);
    times.push(performance.now() - start);
    cpu.push((spent.user + spent.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const [p50, p99] = [percentile(times, 50), percentile(times, 99)];
  const met = p99 < c.target ? 'met' : p50 < c.target ? 'p50 met, p99 **not met**' : '**not met**';
  const row = [c.name, c.runs, p50.toFixed(1), p99.toFixed(1), percentile(cpu, 50).toFixed(1), percentile(cpu, 99).toFixed(1)];
  console.log(`| ${row.join(' | ')} | ${bytes.toLocaleString('en')} | < ${c.target} ms: ${met} |`);
}
console.log(
  `load average while measured: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);

const PASSWORD = 'correct horse battery staple';
const seconds = Number(process.env.BENCH_DOCUMENT_SECONDS ?? 10);

/** The point read under autocannon: its latency p50 and p99 (ms) and requests per second. */
async function pointReads(url: string, token: string, entryId: string) {
  const result = await autocannon({
    url: `${url}/api/v1/entries/${entryId}`,
    connections: 4,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`point reads failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { p50: result.latency.p50, p99: result.latency.p99, rps: result.requests.average };
}

async function serverSide(): Promise<void> {
  if (process.env.BENCH_DOCUMENT_SERVER === '0') return;
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-bench-documents-'));
  let banner = '';
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_PATH: join(dir, 'timetrack.db'),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_TOKEN_PER_MIN: '1000000000',
    RATE_LIMIT_WORKSPACE_PER_MIN: '1000000000',
  });
  const running = await startServer(config, { logger: createLogger('warn'), announce: (t) => (banner += t) });
  try {
    const token = /token +(tt_\S+)/.exec(banner)?.[1] as string;
    const workspaceId = /workspace +(ws_\S+)/.exec(banner)?.[1] as string;
    const ownerId = /owner +(usr_\S+)/.exec(banner)?.[1] as string;
    const { services } = running;
    await services.sessions.setPassword(OPERATOR, ownerId, PASSWORD);
    const fixture = invoices['500-lines']!;
    services.invoices.setBusinessProfile(
      OPERATOR,
      workspaceId,
      issuerPatchOfText(
        Object.entries({ legalName: 'Ada Lovelace Design', city: 'Berlin', postalCode: '10119', country: 'DE', vatId: 'DE136695976' }),
      ),
    );
    services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    const owner = services.tokens.authenticate(token)!.actor;
    const clientId = services.catalog.clients.create(owner, { name: 'Acme', legalName: 'Acme GmbH', country: 'DE' } as never).id;
    const projectId = services.catalog.projects.create(owner, { name: 'Relaunch', clientId, billable: true, hourlyRate: 95 }).id;
    // 500 entries of October, each its own line (group by entry), described as the fixture's lines are.
    let entryId = '';
    for (let i = 0; i < 500; i++) {
      const start = Date.parse('2026-10-01T06:00:00Z') + i * 80 * 60_000;
      entryId = services.entries.create(owner, {
        projectId,
        start: new Date(start).toISOString(),
        end: new Date(start + 45 * 60_000).toISOString(),
        description: fixture.lines[i]?.description ?? `Line ${i + 1}`,
        billable: true,
      }).id;
    }
    const id = services.invoices.create(owner, { workspaceId, clientId, from: '2026-10-01', to: '2026-10-31', groupBy: 'entry' }).id;
    services.invoices.issue(owner, id, { date: '2026-11-02' });
    const cookie = await signIn(running.url, 'owner@localhost', PASSWORD);
    const pdfUrl = `${running.url}/app/invoices/${id}/document.pdf?format=pdf`;
    const first = await fetch(pdfUrl, { headers: { cookie } });
    const bytes = (await first.arrayBuffer()).byteLength;
    if (first.status !== 200) throw new Error(`the PDF answered ${first.status}`);

    const alone = await pointReads(running.url, token, entryId);
    let stop = false;
    const made: number[] = [];
    let refused = 0;
    const downloader = async () => {
      while (!stop) {
        const started = performance.now();
        const response = await fetch(pdfUrl, { headers: { cookie } });
        await response.arrayBuffer();
        if (response.status === 200) made.push(performance.now() - started);
        else if (response.status === 503) {
          refused += 1;
          await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000));
        } else throw new Error(`a PDF download answered ${response.status}`);
      }
    };
    const downloads = Array.from({ length: 4 }, downloader);
    const during = await pointReads(running.url, token, entryId);
    stop = true;
    await Promise.all(downloads);
    made.sort((a, b) => a - b);
    const ratio = during.p99 / alone.p99;
    console.log('');
    console.log(
      `Point read (GET /api/v1/entries/{id}, 4 connections, ${seconds} s) alone and while 4 connections download a 500-line PDF (${bytes.toLocaleString('en')} bytes) through the invoice page, DOCUMENT_THREADS=${config.documentThreads}:`,
    );
    console.log('| | point read p50 ms | point read p99 ms | point reads/s | PDFs made | PDF download p50 ms | refused (503) |');
    console.log('| --- | --- | --- | --- | --- | --- | --- |');
    console.log(`| alone | ${alone.p50} | ${alone.p99} | ${Math.round(alone.rps)} | | | |`);
    console.log(
      `| with 4 PDF downloads | ${during.p50} | ${during.p99} | ${Math.round(during.rps)} | ${made.length} | ${made.length ? percentile(made, 50).toFixed(0) : '–'} | ${refused} |`,
    );
    console.log(`p99 with downloads / alone: ${ratio.toFixed(2)}× (target ≤ 2×: ${ratio <= 2 ? 'met' : '**not met**'})`);
  } finally {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await serverSide();
