import type { ExportFormat, ExportTable } from './model.js';
import { type ExportSink, type SinkStream, sinkStream } from './output.js';

export * from './model.js';
export { ExportCancelled, type ExportSink } from './output.js';

/** Each format's writer, loaded when first used (exceljs and pdfkit take a while to load, and a CSV needs neither). */
const WRITERS: Record<ExportFormat, () => Promise<(table: ExportTable, out: SinkStream) => Promise<number>>> = {
  csv: async () => (await import('./csv.js')).writeCsv,
  xlsx: async () => (await import('./xlsx.js')).writeXlsx,
  pdf: async () => (await import('./pdf.js')).writePdf,
};

/**
 * Writes a report's export (the reports service's `exportTable`) in a format to a sink, rows
 * as they are read: the Reports page's downloads (on a reader thread) and the command line's
 * file. Throws ExportCancelled when the sink's receiver went away; the rows written otherwise.
 */
export async function writeExport(table: ExportTable, format: ExportFormat, sink: ExportSink): Promise<{ rows: number; bytes: number }> {
  const out = sinkStream(sink);
  const write = await WRITERS[format]();
  const rows = await write(table, out);
  await out.end();
  return { rows, bytes: out.bytes() };
}
