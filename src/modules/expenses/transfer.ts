import { createHash } from 'node:crypto';
import { DomainError } from '../../errors.js';
import { type Key, type Vars, words } from '../../i18n/index.js';
import { parseCalendarDay } from '../../kernel/time.js';
import { recordVersionRefusal } from '../../kernel/input.js';
import type { ExpenseRow, ExpensesRepository } from './repository.js';
import { MAX_RECEIPT_BYTES, sniffReceipt } from './receipts.js';

/*
 * Expenses and their receipts in a whole-workspace export and back (issue 57 item 1): each expense
 * a record (`expense`, its author by email, its project by name, its invoice by the exported id),
 * its receipt's bytes in the `receipt` rows after it (base64 in parts, since a line of the file
 * holds at most 100,000 characters), checked by their size and SHA-256. An import gives the
 * expense a new id, maps its author, project and invoice, and writes the receipt's bytes as they were.
 */

/** Bytes of a receipt per `receipt` row: 48,000 bytes are 64,000 characters of base64. */
export const RECEIPT_PART_BYTES = 48_000;

/** What a receipt record says of its file (its bytes follow in `receipt` rows). */
export interface ReceiptRecord {
  fileName: string;
  mediaType: string;
  size: number;
  sha256: string;
  parts: number;
  createdAt: number;
}

/** An expense record (`expense`; its member in the email and member columns, its project in client and project, its invoice in invoice). */
export interface ExpenseRecord {
  v: 1;
  day: string;
  description: string;
  amountCents: number;
  currency: string;
  taxCategory: string | null;
  taxRate: number | null;
  billable: boolean;
  createdAt: number;
  updatedAt: number;
  receipt: ReceiptRecord | null;
}

/** A part of a receipt's bytes (`receipt`, the expense's exported id in the id column). */
export interface ReceiptPartRecord {
  v: 1;
  part: number;
  bytes: string;
}

const MEDIA_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp'];

/** A record refused: the message names what; its words for people by key (`integrations.imports.records.*`, the Import page). */
const fail = (message: string, key: Key, vars?: Vars): never => {
  throw new DomainError('invalid', message, { words: words(key, vars) });
};
const text = (value: unknown, what: string, max: number): string =>
  typeof value === 'string' && value.length <= max
    ? value
    : fail(`${what} must be a text of at most ${max} characters`, 'integrations.imports.records.text', { what, max });
const whole = (value: unknown, what: string, min = 0, max = Number.MAX_SAFE_INTEGER): number =>
  Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
    ? (value as number)
    : fail(`${what} must be a whole number from ${min} to ${max}`, 'integrations.imports.records.whole', { what, min, max });

/** An expense record checked (version 1; the import refuses the row, naming what, otherwise). */
export function checkExpenseRecord(data: Record<string, unknown>): ExpenseRecord {
  if (data.v !== 1) throw recordVersionRefusal('expense', data.v);
  const day = text(data.day, 'day', 10);
  parseCalendarDay(day, 'day');
  const taxCategory = data.taxCategory === null ? null : text(data.taxCategory, 'taxCategory', 2);
  if (taxCategory !== null && !['S', 'Z'].includes(taxCategory))
    fail('taxCategory must be S, Z or null', 'integrations.imports.records.expenseTaxCategory');
  const taxRate =
    data.taxRate === null
      ? null
      : typeof data.taxRate === 'number' && data.taxRate >= 0 && data.taxRate <= 100
        ? data.taxRate
        : fail('taxRate must be a number from 0 to 100 or null', 'integrations.imports.records.expenseTaxRate');
  if (typeof data.billable !== 'boolean')
    fail('billable must be true or false', 'integrations.imports.records.trueFalse', { what: 'billable' });
  const currency = text(data.currency, 'currency', 3);
  if (!/^[A-Z]{3}$/.test(currency)) fail('currency must be an ISO 4217 code such as EUR', 'integrations.imports.records.currency');
  let receipt: ReceiptRecord | null = null;
  if (data.receipt !== null) {
    const r = (
      typeof data.receipt === 'object' && data.receipt !== null
        ? data.receipt
        : fail('receipt must be an object or null', 'integrations.imports.records.receipt')
    ) as Record<string, unknown>;
    const size = whole(r.size, 'receipt.size', 1, MAX_RECEIPT_BYTES);
    const mediaType = text(r.mediaType, 'receipt.mediaType', 40);
    if (!MEDIA_TYPES.includes(mediaType))
      fail(`receipt.mediaType must be one of ${MEDIA_TYPES.join(', ')}`, 'integrations.imports.records.oneOfThese', {
        what: 'receipt.mediaType',
        values: MEDIA_TYPES.join(', '),
      });
    const sha256 = text(r.sha256, 'receipt.sha256', 64);
    if (!/^[0-9a-f]{64}$/.test(sha256)) fail('receipt.sha256 must be 64 hexadecimal digits', 'integrations.imports.records.sha256');
    receipt = {
      fileName: text(r.fileName, 'receipt.fileName', 100),
      mediaType,
      size,
      sha256,
      parts: whole(r.parts, 'receipt.parts', Math.ceil(size / RECEIPT_PART_BYTES), Math.ceil(size / RECEIPT_PART_BYTES)),
      createdAt: whole(r.createdAt, 'receipt.createdAt'),
    };
  }
  return {
    v: 1,
    day,
    description: text(data.description, 'description', 500),
    amountCents: whole(data.amountCents, 'amountCents', 1),
    currency,
    taxCategory,
    taxRate,
    billable: data.billable as boolean,
    createdAt: whole(data.createdAt, 'createdAt'),
    updatedAt: whole(data.updatedAt, 'updatedAt'),
    receipt,
  };
}

/** A receipt part checked (version 1): its number and its base64. */
export function checkReceiptPart(data: Record<string, unknown>): ReceiptPartRecord {
  if (data.v !== 1) throw recordVersionRefusal('receipt', data.v);
  const bytes = text(data.bytes, 'bytes', Math.ceil(RECEIPT_PART_BYTES / 3) * 4);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(bytes)) fail('bytes must be base64', 'integrations.imports.records.base64');
  return { v: 1, part: whole(data.part, 'part', 0, 1000), bytes };
}

/**
 * A receipt put together from its parts, in order: its bytes when every part came and they are
 * the file the record names (size, SHA-256, a type its content shows), else why not.
 */
export function assembleReceipt(record: ReceiptRecord, parts: string[]): { bytes: Buffer } | { why: string } {
  const check = receiptCheck(record);
  for (const part of parts) check.add(part);
  const why = check.why();
  return why === null ? { bytes: Buffer.concat(parts.map((p) => Buffer.from(p, 'base64'))) } : { why };
}

/**
 * The check of a receipt's parts as they are read, one at a time (the import's check holds no
 * receipt whole): its count of parts, size and SHA-256 against its record, and the type its
 * first bytes show. `why` is null when the parts are the file the record names.
 */
export function receiptCheck(record: ReceiptRecord) {
  const hash = createHash('sha256');
  let parts = 0;
  let size = 0;
  let head = Buffer.alloc(0);
  let sum: string | undefined;
  return {
    /** How many parts were read. */
    parts: (): number => parts,
    add(part: string): void {
      const bytes = Buffer.from(part, 'base64');
      parts += 1;
      size += bytes.length;
      hash.update(bytes);
      if (head.length < 16) head = Buffer.concat([head, bytes.subarray(0, 16 - head.length)]);
    },
    why(): string | null {
      if (parts !== record.parts) return `its receipt has ${parts} of ${record.parts} parts`;
      if (size !== record.size || (sum ??= hash.digest('hex')) !== record.sha256)
        return 'its receipt’s bytes are not the file its record names (size or SHA-256 differ): the file was changed';
      if (sniffReceipt(head) !== record.mediaType) return `its receipt’s content is not ${record.mediaType}`;
      return null;
    },
  };
}

/** The export and restore of a workspace's expenses (part of the expenses service). */
export function createExpenseTransfer({ repo }: { repo: ExpensesRepository }) {
  return {
    /** A workspace's expenses by day, each with its record and its receipt's parts (read one expense at a time). */
    *exportOf(workspaceId: string): Generator<{ row: ExpenseRow; record: ExpenseRecord; parts: string[] }> {
      for (const row of repo.list({ workspaceId })) {
        const file = repo.receipt(row.id);
        const parts: string[] = [];
        if (file)
          for (let at = 0; at < file.bytes.length; at += RECEIPT_PART_BYTES)
            parts.push(file.bytes.subarray(at, at + RECEIPT_PART_BYTES).toString('base64'));
        yield {
          row,
          parts,
          record: {
            v: 1,
            day: row.day,
            description: row.description,
            amountCents: row.amountCents,
            currency: row.currency,
            taxCategory: row.taxCategory,
            taxRate: row.taxRate,
            billable: row.billable,
            createdAt: row.createdAt,
            updatedAt: row.updatedAt,
            receipt: file
              ? {
                  fileName: file.fileName,
                  mediaType: file.mediaType,
                  size: file.bytes.length,
                  sha256: createHash('sha256').update(file.bytes).digest('hex'),
                  parts: parts.length,
                  createdAt: file.createdAt,
                }
              : null,
          },
        };
      }
    },

    /** Inside an import's write: an expense of the file, with a new id, its author, project and invoice mapped; its id. */
    restore(
      workspaceId: string,
      id: string,
      record: ExpenseRecord,
      refs: { authorId: string; projectId: string; invoiceId: string | null },
    ): string {
      repo.insert({
        id,
        workspaceId,
        authorId: refs.authorId,
        day: record.day,
        description: record.description,
        amountCents: record.amountCents,
        currency: record.currency,
        taxCategory: record.taxCategory,
        taxRate: record.taxRate,
        projectId: refs.projectId,
        billable: record.billable,
        invoiceId: refs.invoiceId,
        createdAt: record.createdAt,
        updatedAt: record.updatedAt,
      });
      return id;
    },

    /** Inside an import's write: a restored expense's receipt, its bytes as the file held them. */
    restoreReceipt(workspaceId: string, expenseId: string, record: ReceiptRecord, bytes: Buffer): void {
      repo.saveReceipt({
        expenseId,
        workspaceId,
        fileName: record.fileName,
        mediaType: record.mediaType,
        size: bytes.length,
        bytes,
        createdAt: record.createdAt,
      });
    },

    /** Inside an import's undo: the expenses it restored, with their receipts. */
    deleteRestored(workspaceId: string, ids: string[]): void {
      for (const id of ids) if (repo.byId(workspaceId, id)) repo.delete(id);
    },
  };
}

export type ExpenseTransfer = ReturnType<typeof createExpenseTransfer>;
