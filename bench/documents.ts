/*
 * The invoice documents' figures (issue 35), part of `npm run bench`: how long renderDocument
 * takes for a one-page PDF (the two-line invoice), the 500-line PDF, and each XML (XRechnung
 * UBL and CII, Peppol) of the one-page and the 500-line invoice, on one thread as the worker
 * will run them. Each is rendered BENCH_DOCUMENT_RUNS times (default 60; 20 for the 500-line
 * PDF) after 20 warm-up renders; p50 and p99 in milliseconds, and the size in bytes. No I/O.
 *
 *   npx tsx bench/documents.ts
 */
import { loadavg } from 'node:os';
import { renderDocument, type DocumentFormat } from '../src/modules/invoices/documents/index.js';
import type { InvoiceDocument } from '../src/modules/invoices/document.js';
import { matrix } from '../test/einvoice/fixtures.js';

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
