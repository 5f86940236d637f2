import { words } from '../../i18n/index.js';
import { toIso } from '../../kernel/time.js';
import type { InvoiceDocument } from './document.js';
import { invoiceErrors as errors } from './errors.js';

/*
 * What an e-invoice fill may do to one value of an invoice (decisions 14, issue 56 item 3): add it
 * where the invoice has none; correct it where a fill set it and no document carrying it was
 * handed out since (downloaded or sent by mail); nothing else. A value the invoice was made with
 * (the business profile's, the client's) stays; so do the lines' tax (they make the amounts) and
 * every value of a void invoice. Pure: the invoice as stored, and when its documents were last
 * handed out.
 */

/** Why a value that is set cannot change on this invoice. */
export type FixedBecause =
  /** The invoice was made with it (the business profile's or the client's): set it there for the next invoices. */
  | 'made-with'
  /** A fill set it and a document carrying it was downloaded or sent since: void the invoice and issue a new one. */
  | 'handed-out'
  /** It makes the amounts (a line's tax, the breakdown). */
  | 'amounts'
  /** It made the due date the invoice was issued with (the issuer's payment terms in days). */
  | 'due-date'
  /** The invoice is void. */
  | 'void';

/** One value as a fill sees it: `empty` (a fill adds it), `correctable` (a fill set it and may set it again), `fixed`. */
export interface FillSlot {
  path: string;
  state: 'empty' | 'correctable' | 'fixed';
  /** The value the invoice holds (null: none). */
  value: unknown;
  /** Why a set value cannot change (state `fixed`). */
  because?: FixedBecause;
  /** When the fill that set it was made (a filled value). */
  filledAt?: string;
  /** When a document of the invoice was last handed out, after the fill (state `fixed`, because `handed-out`). */
  handedOutAt?: string;
}

type Fill = InvoiceDocument['einvoiceFills'][number];

/** The value at a fill path of the invoice (null where there is none; only own keys: `issuer.constructor` is none). */
function valueAt(invoice: InvoiceDocument, path: string): unknown {
  const own = (holder: unknown, key: string): unknown =>
    typeof holder === 'object' && holder !== null && Object.hasOwn(holder, key) ? ((holder as Record<string, unknown>)[key] ?? null) : null;
  const party = /^(issuer|recipient)\.(\w+)$/.exec(path);
  if (party) return own(invoice[party[1] as 'issuer' | 'recipient'], party[2] as string);
  const line = /^lines\[(\d+)\]\.(taxCategory|taxRate)$/.exec(path);
  if (line) return own(invoice.lines[Number(line[1])], line[2] as string);
  const row = /^taxBreakdown\[(\d+)\]\.(exemptionReason|exemptionReasonCode)$/.exec(path);
  if (row) return own(invoice.taxBreakdown?.[Number(row[1])], row[2] as string);
  if (path === 'taxBreakdown') return invoice.taxBreakdown ?? null;
  if (path === 'paymentTerms') return invoice.paymentTerms ?? null;
  return null;
}

/** The fill that set `path` last (the one whose value the invoice holds), if any. */
const lastFillOf = (fills: Fill[], path: string): Fill | undefined => fills.findLast((fill) => Object.hasOwn(fill.fields, path));

/** An electronic address and its scheme are asked, filled and corrected together: the other of the pair. */
export function partnerOf(path: string): string | null {
  const match = /^(issuer|recipient)\.electronicAddress(Scheme)?$/.exec(path);
  if (!match) return null;
  return `${match[1]}.electronicAddress${match[2] ? '' : 'Scheme'}`;
}

/**
 * What a fill may do at `path` of the invoice now. `lastHandedOutAt` (ms): when a document of it
 * was last downloaded or sent (null: never); a fill made at or before then went out with it.
 */
export function fillSlotOf(invoice: InvoiceDocument, lastHandedOutAt: number | null, path: string): FillSlot {
  const value = valueAt(invoice, path);
  if (invoice.status === 'void') return { path, state: 'fixed', value, because: 'void' };
  if (value === null) return { path, state: 'empty', value };
  const fill = lastFillOf(invoice.einvoiceFills, path);
  if (!fill) return { path, state: 'fixed', value, because: /^(lines\[|taxBreakdown$)/.test(path) ? 'amounts' : 'made-with' };
  if (/^(lines\[|taxBreakdown$)/.test(path)) return { path, state: 'fixed', value, because: 'amounts', filledAt: fill.at };
  if (path === 'issuer.paymentTermsDays' && invoice.dueDate !== null)
    return { path, state: 'fixed', value, because: 'due-date', filledAt: fill.at };
  if (lastHandedOutAt !== null && Date.parse(fill.at) <= lastHandedOutAt)
    return { path, state: 'fixed', value, because: 'handed-out', filledAt: fill.at, handedOutAt: toIso(lastHandedOutAt) };
  return { path, state: 'correctable', value, filledAt: fill.at };
}

/**
 * The slots a fill form of the invoice offers: each path asked (the values its documents lack),
 * each value a fill set, and with an electronic address its scheme (and the other way round), in
 * that order, once each.
 */
export function fillSlotsOf(invoice: InvoiceDocument, lastHandedOutAt: number | null, asked: readonly string[]): FillSlot[] {
  const filled = invoice.einvoiceFills.flatMap((fill) => Object.keys(fill.fields)).filter((path) => path !== 'taxBreakdown');
  const paths: string[] = [];
  for (const path of [...asked, ...filled]) {
    const partner = partnerOf(path);
    // The scheme first: "which kind of address" is what decides how the address is read.
    for (const p of partner === null ? [path] : path.endsWith('Scheme') ? [path, partner] : [partner, path])
      if (!paths.includes(p)) paths.push(p);
  }
  return paths.map((path) => fillSlotOf(invoice, lastHandedOutAt, path));
}

/** The words of a refused change to a value that is set, naming what to do instead (409). */
function fixedRefusal(invoice: InvoiceDocument, slot: FillSlot) {
  const { path } = slot;
  // The value as set, where it is one value (not a whole breakdown).
  const current = typeof slot.value === 'object' && slot.value !== null ? 'a value' : JSON.stringify(slot.value);
  const renew =
    invoice.status === 'draft'
      ? 'void this draft (it uses no number) and create it again'
      : 'void this invoice (its credit note cancels it) and issue a new one';
  // The same advice for people, by key (a page says it in its reader's language).
  const renewKey = invoice.status === 'draft' ? 'invoicing.refused.fixed.renew.draft' : 'invoicing.refused.fixed.renew.issued';
  switch (slot.because) {
    case 'handed-out':
      return errors.fixedFill(
        path,
        `${path} was filled (${current}) and a document carrying it was downloaded or sent since (last at ${slot.handedOutAt}): it can no longer change. To correct it, ${renew} with the right value.`,
        words('invoicing.refused.fixed.handedOut', { renew: renewKey }),
      );
    case 'amounts':
      return errors.fixedFill(
        path,
        `${path} is already set (${current}) and makes the invoice's amounts, which a fill never changes: ${renew}.`,
        words('invoicing.refused.fixed.amounts', { renew: renewKey }),
      );
    case 'due-date':
      return errors.fixedFill(
        path,
        `${path} would contradict the due date ${invoice.dueDate} that ${invoice.number} was issued with: ${renew}.`,
        words('invoicing.refused.fixed.dueDate', { renew: renewKey }),
      );
    case 'void':
      return errors.voidTakesNoFill(invoice.id);
    default: {
      const where = path.startsWith('issuer.') ? 'the business profile' : path.startsWith('recipient.') ? 'the client' : 'the settings';
      const whereKey = path.startsWith('issuer.')
        ? 'invoicing.refused.fixed.where.profile'
        : path.startsWith('recipient.')
          ? 'invoicing.refused.fixed.where.client'
          : 'invoicing.refused.fixed.where.settings';
      return errors.fixedFill(
        path,
        `${path} is already set (${current}): the invoice was made with it, and a fill only adds missing values or corrects its own. Set it in ${where} for the next invoices; for this one, ${renew}.`,
        words('invoicing.refused.fixed.madeWith', { where: whereKey, renew: renewKey }),
      );
    }
  }
}

/** Whether a value typed is the one set (as `--set` and the form write it: lines joined by |). */
function sameValue(value: unknown, raw: string): boolean {
  const typed = raw.trim();
  if (Array.isArray(value))
    return (
      value.join('|') ===
      typed
        .split('|')
        .map((line) => line.trim())
        .filter(Boolean)
        .join('|')
    );
  return (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') && String(value) === typed;
}

/**
 * The paths of a fill whose values are set and may be corrected; refuses (409, at the path) a
 * change to a value that is fixed. A value given equal to the one set is no change (left out).
 */
export function correctionsOf(
  invoice: InvoiceDocument,
  lastHandedOutAt: number | null,
  assignments: ReadonlyArray<[path: string, value: string]>,
): { replace: Set<string>; unchanged: Set<string> } {
  const replace = new Set<string>();
  const unchanged = new Set<string>();
  for (const [path, raw] of assignments) {
    const slot = fillSlotOf(invoice, lastHandedOutAt, path);
    if (slot.state === 'empty') continue;
    if (sameValue(slot.value, raw)) {
      unchanged.add(path);
      continue;
    }
    if (slot.state === 'fixed') throw fixedRefusal(invoice, slot);
    replace.add(path);
  }
  return { replace, unchanged };
}

/**
 * The invoice's fills after one more: the values it corrects leave the fills that set them (a
 * fill left empty goes), so the list stays what the specification says it is (each fill adding
 * values that were null before it) and names who set each value the documents carry, and when.
 */
export function fillsAfter(fills: Fill[], fill: Fill, corrected: ReadonlySet<string>): Fill[] {
  const kept = fills
    .map((f) => ({ ...f, fields: Object.fromEntries(Object.entries(f.fields).filter(([path]) => !corrected.has(path))) }))
    .filter((f) => Object.keys(f.fields).length > 0);
  return [...kept, fill];
}
