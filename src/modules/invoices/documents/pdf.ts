import type { InvoiceDocument } from '../document.js';
export async function pdfOf(_doc: InvoiceDocument, _options: { creditNote: boolean }): Promise<Buffer> {
  return Buffer.from('');
}
