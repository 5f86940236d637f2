import { writeCsv } from './csv.js';
import type { ExportFormat, ExportTable } from './model.js';
import { type ExportSink, sinkStream } from './output.js';
import { DomainError } from '../../../errors.js';
import { MAX_PDF_PAGES, pdfPages, writePdf } from './pdf.js';
import { writeXlsx } from './xlsx.js';

export * from './model.js';
export { ExportCancelled, type ExportSink } from './output.js';
export { MAX_PDF_PAGES } from './pdf.js';

/** Each format's writer (exceljs and pdfkit are loaded when first used: they slow a reader thread's start, and a CSV needs neither). */
const WRITERS = { csv: writeCsv, xlsx: writeXlsx, pdf: writePdf } as const;

/**
 * Writes a report's export (the reports service's `exportTable`) in a format to a sink, rows
 * as they are read: the Reports page's downloads (on a reader thread) and the command line's
 * file. Throws ExportCancelled when the sink's receiver went away; the rows written otherwise.
 */
export async function writeExport(table: ExportTable, format: ExportFormat, sink: ExportSink): Promise<{ rows: number; bytes: number }> {
  const out = sinkStream(sink);
  const rows = await WRITERS[format](table, out);
  await out.end();
  return { rows, bytes: out.bytes() };
}

/**
 * Refuses, before the first byte, an export its format cannot hold: a PDF of more than
 * MAX_PDF_PAGES pages (issue 44, M3), naming the pages and what to download instead.
 */
export function checkExport(table: ExportTable, format: ExportFormat): void {
  if (format !== 'pdf') return;
  const pages = pdfPages(table, table.weeks ? 0 : table.rows());
  if (pages > MAX_PDF_PAGES)
    throw new DomainError(
      'invalid',
      `A PDF of this report would have about ${pages} pages, more than the ${MAX_PDF_PAGES} a PDF may have. Download it as CSV or XLSX, or choose a shorter range or one member.`,
    );
}
