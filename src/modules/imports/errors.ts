import { DomainError, notFound } from '../../errors.js';

/** The refusals of the import module, worded once: each says what to do. */
export const importErrors = {
  notUtf8: () =>
    new DomainError(
      'invalid',
      'The file is not UTF-8 text. Save it again as UTF-8 (Excel: Save As → "CSV UTF-8"; LibreOffice: Save As → Text CSV, character set Unicode (UTF-8)) and import that file.',
    ),
  unreadable: (detail: string) => new DomainError('invalid', `The file cannot be read as CSV: ${detail}`),
  recordTooLong: (line: number, max: number) =>
    new DomainError(
      'invalid',
      `Line ${line} holds more than ${max.toLocaleString('en')} characters, and a row of a tracker's export holds a few hundred: nothing was imported. A quote that is never closed makes the rest of the file one cell: check the quotes from line ${line} on, or export the report again.`,
    ),
  tooManyCells: (line: number, max: number) =>
    new DomainError(
      'invalid',
      `Line ${line} has more than ${max} cells, and an export has about 20 columns: nothing was imported. This is not a tracker's detailed report, or its cells are not separated by commas or semicolons: export the report again as CSV.`,
    ),
  empty: () => new DomainError('invalid', 'The file is empty: export the detailed report again, with its header line and rows.'),
  headerOnly: () => new DomainError('invalid', 'The file has a header line and no rows: export a range that holds entries.'),
  noFormat: (found: string[], needs: string[]) =>
    new DomainError(
      'invalid',
      `No import format matches the columns of this file (${found.join(', ') || 'none'}). Each format needs these columns: ${needs.join('; ')}.`,
    ),
  formatMismatch: (format: string, missing: string[], found: string[]) =>
    new DomainError(
      'invalid',
      `This is not a ${format} file: it lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (found: ${found.join(', ')}). Use --format auto, or export the ${format} report again.`,
      {
        people: `This is not a ${format} file: it lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (found: ${found.join(', ')}). Choose “Recognise it” as the format, or export the ${format} report again.`,
      },
    ),
  timeZoneNeeded: (format: string) =>
    new DomainError(
      'invalid',
      `A ${format} file holds local times: say in which time zone with --time-zone (an IANA name such as Europe/Berlin).`,
      { people: `A ${format} file holds local times: give the time zone they are in (a name such as Europe/Berlin).` },
    ),
  unknownZone: (zone: string) => new DomainError('invalid', `Unknown time zone "${zone}": use an IANA name such as Europe/Berlin.`),
  dateOrderUnknown: (line: number, cell: string) =>
    new DomainError(
      'invalid',
      `The dates of this file can be read day-first or month-first (line ${line}: "${cell}"), and no day above 12 settles it: say which with --date-format DMY or MDY.`,
      {
        people: `The dates of this file can be read day-first or month-first (line ${line}: “${cell}”), and no day above 12 settles it: choose which under Dates.`,
      },
    ),
  dateOrderMixed: (dmyLine: number, mdyLine: number) =>
    new DomainError(
      'invalid',
      `The file writes its dates in two orders: line ${dmyLine} reads only day-first and line ${mdyLine} only month-first. Export it again with one date format.`,
    ),
  currency: (file: string, workspace: string) =>
    new DomainError(
      'invalid',
      `The file's amounts are in ${file} and the workspace's in ${workspace}: nothing was imported. Export the report in ${workspace}, or import into a workspace that uses ${file}.`,
    ),
  moneyColumn: (cell: string, column: string, field: 'amount' | 'rate', format: string, currency: string) =>
    new DomainError(
      'invalid',
      `The column "${cell}" holds the rows' ${field === 'amount' ? 'amounts' : 'hourly rates'}, but timetrack cannot read its heading: after the name it expects a currency code in parentheses, such as "${column} (${currency})". Nothing was imported: read without it, the rows would take the rates of their task, project or member instead of the file's money. Export the report again from ${format} with its currency, or, if its amounts are in ${currency} (the workspace's currency), rename the column to "${column} (${currency})" and import the file again.`,
    ),
  notFound: (id: string) => notFound(`Import ${id}`),
  range: () =>
    new DomainError('invalid', 'from must be before to: the export covers the entries starting from its first day to the end of its last.'),
  notMember: (user: string, workspaceId: string) =>
    new DomainError(
      'invalid',
      `--user ${user} is no member of workspace ${workspaceId}: name a member by id or email (timetrack member list).`,
    ),
  forbidden: (what: string) => new DomainError('forbidden', what),
  invoiced: (id: string, entries: string[]) =>
    new DomainError(
      'conflict',
      `Import ${id} cannot be undone: ${entries.length} of its entries ${entries.length === 1 ? 'is' : 'are'} invoiced since (${entries.slice(0, 5).join(', ')}${entries.length > 5 ? ' …' : ''}). Void those invoices first.`,
      {
        people: `This import cannot be undone: ${entries.length} of its entries ${entries.length === 1 ? 'is' : 'are'} on an invoice since. An owner voids those invoices on the Invoices page first.`,
      },
    ),
  /** An entry of the import is in a submitted or approved period, or before the lock date (decisions §13): `why` is that refusal. */
  locked: (id: string, why: DomainError) =>
    new DomainError('conflict', `Import ${id} cannot be undone, nothing was deleted: ${why.message}`, {
      people: `This import cannot be undone, nothing was deleted: ${why.people ?? why.message}`,
    }),
  numberedSince: (id: string, numbers: string[]) =>
    new DomainError(
      'conflict',
      `Import ${id} cannot be undone: the workspace has issued ${numbers.length === 1 ? 'a number' : `${numbers.length} numbers`} since (${numbers.slice(0, 5).join(', ')}${numbers.length > 5 ? ' …' : ''}) after the numbers of the invoices it restored, and removing them would give ${numbers.length === 1 ? 'that number' : 'those numbers'} again. Void what is wrong instead.`,
    ),
  notUndoable: (id: string, state: string) =>
    new DomainError('conflict', `Import ${id} is ${state}; only a finished import can be undone.`, {
      people: `This import is ${state}; only a finished import can be undone.`,
    }),
};
