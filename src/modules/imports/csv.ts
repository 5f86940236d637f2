import { createReadStream } from 'node:fs';
import { type InfoRecord, parse } from 'csv-parse';
import { DomainError } from '../../errors.js';
import { importErrors } from './errors.js';

/** One record of the file: its cells, and the 1-based line where it starts. */
export interface CsvRecord {
  line: number;
  cells: string[];
}

const CHUNK = 256 * 1024;
/**
 * The most characters a record may hold (the cells of a row together). A row of a tracker's
 * export holds a few hundred; the limit keeps one long line, or a quote never closed (it makes
 * the rest of the file one cell), from taking the memory: csv-parse has no limit of its own.
 */
export const MAX_RECORD_CHARS = 100_000;
/**
 * The most cells a record may have: the formats read about 20 columns (Harvest's export has 21).
 * Past it csv-parse no longer splits the record (its last cell takes the rest of the line, within
 * MAX_RECORD_CHARS), so a line of a million commas is not a million cells.
 */
export const MAX_CELLS = 100;

/**
 * The records of a CSV file, streamed (csv-parse; the file is never held whole): UTF-8 with or
 * without a BOM (anything else is refused, saying how to re-save it), comma or semicolon as the
 * header line uses, quoted cells holding newlines and quotes, CRLF or LF. Empty lines are skipped.
 * `onBytes` follows the bytes read (the progress line's estimate).
 */
export async function* csvRecords(path: string, onBytes?: (bytes: number) => void): AsyncGenerator<CsvRecord> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const stream = createReadStream(path, { highWaterMark: CHUNK });
  let parser: ReturnType<typeof parse> | null = null;
  let head = '';
  let overcount = 0;
  const pending: CsvRecord[] = [];
  let failure: unknown = null;
  let done = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  /** Where the last record ended (its line), and the empty lines skipped up to it: where the next one starts. */
  let lastEnd = 0;
  let lastEmpty = 0;
  const startParser = (delimiter: string) => {
    const p = parse({
      delimiter,
      relax_column_count: true,
      skip_empty_lines: true,
      relax_quotes: false,
      max_record_size: MAX_RECORD_CHARS,
      ignore_last_delimiters: MAX_CELLS + 1,
      // Each record as it is made (an error's line needs the last one's end before the error).
      // (Typed as a record of cells: csv-parse's types do not let on_record change the record's type.)
      on_record: (record: string[], info: InfoRecord): string[] => {
        // csv-parse counts a CRLF inside a quoted cell as two lines: its count is corrected by those.
        let breaks = 0;
        for (const cell of record) {
          const { lines, crlf } = lineBreaks(cell);
          breaks += lines;
          overcount += crlf;
        }
        const end = info.lines - overcount;
        const line = end - breaks;
        lastEnd = end;
        lastEmpty = info.empty_lines;
        if (record.length > MAX_CELLS) throw importErrors.tooManyCells(line, MAX_CELLS);
        return { line, cells: record } as unknown as string[];
      },
    });
    p.on('readable', () => {
      let item: CsvRecord | null;
      while ((item = p.read() as CsvRecord | null) !== null) pending.push(item);
      notify();
    });
    p.on('error', (error: Error & { code?: string; empty_lines?: number }) => {
      failure =
        error instanceof DomainError
          ? error
          : error.code === 'CSV_MAX_RECORD_SIZE'
            ? importErrors.recordTooLong(lastEnd + 1 + Math.max(0, (error.empty_lines ?? lastEmpty) - lastEmpty), MAX_RECORD_CHARS)
            : importErrors.unreadable(error.message.replace(/^Invalid Record Length: /, ''));
      stream.destroy();
      notify();
    });
    p.on('end', () => {
      done = true;
      notify();
    });
    return p;
  };

  stream.on('data', (chunk) => {
    const bytes = chunk as Buffer;
    onBytes?.(bytes.length);
    let text: string;
    try {
      text = decoder.decode(bytes, { stream: true });
    } catch {
      failure = importErrors.notUtf8();
      stream.destroy();
      notify();
      return;
    }
    if (!parser) {
      head += text;
      const newline = head.indexOf('\n');
      if (newline < 0 && head.length < CHUNK) return;
      parser = startParser(delimiterOf(head.slice(0, newline < 0 ? head.length : newline)));
      text = head;
      head = '';
    }
    if (!parser.write(text)) stream.pause();
    if (pending.length > 2000) stream.pause();
  });
  stream.on('end', () => {
    try {
      const rest = decoder.decode();
      if (!parser) parser = startParser(delimiterOf(head));
      parser.end(head + rest);
    } catch {
      failure = importErrors.notUtf8();
      notify();
    }
  });
  stream.on('error', (error) => {
    failure = importErrors.unreadable(error.message);
    notify();
  });

  try {
    for (;;) {
      if (failure) throw failure;
      const next = pending.shift();
      if (next) {
        if (pending.length < 500 && stream.isPaused()) stream.resume();
        yield next;
        continue;
      }
      if (done) return;
      if (stream.isPaused()) stream.resume();
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stream.destroy();
  }
}

/** The line breaks in a cell (CRLF, LF or CR each one), and how many of them are CRLF. */
function lineBreaks(cell: string): { lines: number; crlf: number } {
  let lines = 0;
  let crlf = 0;
  if (cell.indexOf('\n') < 0 && cell.indexOf('\r') < 0) return { lines, crlf };
  for (let i = 0; i < cell.length; i++) {
    const ch = cell.charCodeAt(i);
    if (ch === 10) lines++;
    else if (ch === 13) {
      lines++;
      if (cell.charCodeAt(i + 1) === 10) {
        crlf++;
        i++;
      }
    }
  }
  return { lines, crlf };
}

/** Comma or semicolon: whichever the header line holds more of outside quotes (comma when neither). */
export function delimiterOf(header: string): string {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const ch of header) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}
