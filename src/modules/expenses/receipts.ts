import { expenseErrors as errors } from './errors.js';

/*
 * A receipt's file (decisions §12): at most 10 MB, its type read from its first bytes (never from
 * its name or the type a browser claimed), and only PDF, PNG, JPEG and WebP taken. Pure.
 */

/** The largest receipt: 10 MB. */
export const MAX_RECEIPT_BYTES = 10 * 1_048_576;

export type ReceiptType = 'application/pdf' | 'image/png' | 'image/jpeg' | 'image/webp';

/** The extension a download's name gets for each type. */
export const RECEIPT_EXTENSIONS: Record<ReceiptType, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

const starts = (bytes: Buffer, magic: number[], at = 0) => magic.every((b, i) => bytes[at + i] === b);

/** The type the content shows, or null when it is none of the four. */
export function sniffReceipt(bytes: Buffer): ReceiptType | null {
  if (starts(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf'; // %PDF-
  if (starts(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts(bytes, [0x52, 0x49, 0x46, 0x46]) && starts(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp'; // RIFF....WEBP
  return null;
}

/**
 * A file name safe to keep and to put in a Content-Disposition header: its last path part, no
 * control characters, quotes or backslashes, at most 100 characters, ending in the extension of
 * the type its content showed.
 */
export function receiptName(given: string | undefined, type: ReceiptType): string {
  const extension = RECEIPT_EXTENSIONS[type];
  const last = (given ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = last.replace(/[\u0000-\u001f\u007f"\\;]/g, '').trim();
  const stem = cleaned.replace(/\.[^.]*$/, '').slice(0, 90) || 'receipt';
  return `${stem}.${extension}`;
}

/** A receipt checked: its type by content and a clean name; refused (400 at `receipt`) when too large or of another type. */
export function checkReceipt(file: { name?: string; bytes: Buffer }): { fileName: string; mediaType: ReceiptType; bytes: Buffer } {
  if (file.bytes.length > MAX_RECEIPT_BYTES) throw errors.tooLarge(file.bytes.length, MAX_RECEIPT_BYTES);
  const mediaType = sniffReceipt(file.bytes);
  if (mediaType === null) throw errors.badType();
  return { fileName: receiptName(file.name, mediaType), mediaType, bytes: file.bytes };
}
