/**
 * A listing as a person reads it on a terminal: a header line and a row per item, each column as
 * wide as its widest value (numbers right-aligned), two spaces between columns, the last one
 * unpadded. `--json` prints the items themselves instead.
 */
export interface Column<T> {
  header: string;
  value: (row: T) => string;
  align?: 'right';
}

export function table<T>(rows: readonly T[], columns: readonly Column<T>[], none: string): string {
  if (rows.length === 0) return `${none}\n`;
  const cells = [columns.map((c) => c.header), ...rows.map((row) => columns.map((c) => c.value(row)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => [...(line[i] as string)].length)));
  const pad = (text: string, i: number) => {
    if (i === columns.length - 1 && columns[i]?.align !== 'right') return text;
    const room = ' '.repeat((widths[i] as number) - [...text].length);
    return columns[i]?.align === 'right' ? room + text : text + room;
  };
  return cells.map((line) => line.map(pad).join('  ')).join('\n') + '\n';
}

/** A yes/no cell. */
export const yesNo = (value: boolean): string => (value ? 'yes' : 'no');
/** An optional value's cell: a dash for none. */
export const orDash = (value: string | number | null | undefined): string => (value === null || value === undefined ? '-' : String(value));
