import { DomainError } from '../../errors.js';
import { fromCents, toCents } from '../../kernel/money.js';
import type { InvoiceDocument, InvoiceDocumentLine, TaxBreakdownRow } from './document.js';
import { DOCUMENT_FORMATS, type DocumentFormat, documentRefusal, type MissingValue, plainPdf, whereText } from './documents/index.js';
import type { InvoicePorts } from './ports.js';
import type { InvoiceRow, InvoicesRepository } from './repository.js';
import { settingsOf } from './settings.js';
import { type MissingTaxSetting, missingTaxRefusal, missingTaxSentences, projectTax } from './tax.js';
import { view } from './views.js';

/*
 * Issuing runs every check first (decisions 14, issue 56 items 1 and 8): before a number is
 * taken, the draft is made as it would be issued (its tax completed from the settings, its VAT
 * breakdown made again from its lines, a number and dates in place) and its PDF, the document
 * every issued invoice has (Factur-X, or plain for a seller without BT-29/30/31), is checked as
 * its download will be: every value it would lack, the VAT mixes EN 16931 forbids. A draft's
 * page shows the same (`whenIssued`), so it says exactly what issuing will say. The e-invoice
 * formats are listed with what they will lack; they never hold up issuing (their values may be
 * filled after it), and are refused with the reason for a plain PDF's invoice.
 */

/** The paths of the tax values a missing tax setting stands for: named once, by the setting. */
const TAX_PATH = /^(lines\[\d+\]\.taxRate|taxBreakdown|taxBreakdown\[\d+\]\.exemptionReason)$/;

/** What issuing a draft now would give and lack. */
export interface IssueReadiness {
  /** The lines and the breakdown it is issued with: the breakdown made from the lines, always. */
  lines: InvoiceDocumentLine[];
  taxBreakdown: TaxBreakdownRow[];
  /** Tax settings still missing (issuing refuses naming them; their lines stay without rate here). */
  tax: MissingTaxSetting[];
  /** The invoice as it would be issued (a number and dates in place): what the checks see. Never rendered. */
  issued: InvoiceDocument;
  /** The PDF's values it would lack (tax values a missing setting stands for left out). */
  missing: MissingValue[];
  /** A refusal of the PDF that is no missing value (a VAT mix EN 16931 forbids), in people's words; or null. */
  problem: string | null;
  /** Whether its PDF is plain (no XML: the seller has no BT-29/BT-30/BT-31). */
  plain: boolean;
  /** Every document it will have once issued (the PDF first), with what each will lack then. */
  documents: DocumentWhenIssued[];
}

/** A document a draft will have once issued: what it will lack then (empty: it will be ready). */
export interface DocumentWhenIssued {
  format: DocumentFormat;
  missing: MissingValue[];
  problem: string | null;
}

/** The refusal of a VAT mix (BR-O-11) as a person reads it. */
export const MIX_PROBLEM =
  'It mixes “not subject to VAT” (O) with other VAT categories, and EN 16931 (BR-O-11) allows O only alone: void it and make two invoices.';

/**
 * Issuing refused before any number is taken (409): each value its PDF would lack, by name, BT
 * number and where to set it, and each tax setting still missing. The page lists `missing` with
 * its links (in people's words), the command line with its commands.
 */
export class NotReadyToIssue extends DomainError {
  /** The tax settings still missing, in people's words (empty when none). */
  readonly taxPeople: string;
  constructor(
    readonly invoice: InvoiceDocument,
    readonly missing: MissingValue[],
    readonly tax: MissingTaxSetting[],
    readonly problem: string | null,
  ) {
    const { text, people } = missingTaxSentences(invoice.workspaceId, tax);
    const values = missing.map((m) => `${m.label} (${m.bt}: ${m.path}, ${whereText[m.where]})`).join('; ');
    const lacks = missing.length > 0 ? `its PDF would lack ${values}.` : '';
    super(
      'conflict',
      [
        `Invoice ${invoice.id} cannot be issued yet, and no number was taken:`,
        tax.length > 0 ? `its tax is not set. ${text}` : '',
        lacks && tax.length > 0 ? `And ${lacks}` : lacks,
        problem ?? '',
        'Set them, then issue it again.',
      ]
        .filter(Boolean)
        .join(' '),
      {
        field: 'issue',
        people: [
          'This invoice cannot be issued yet; no number was taken.',
          tax.length > 0 ? people : '',
          missing.length > 0 ? `Its PDF would lack: ${missing.map((m) => `${m.label} (${m.bt})`).join('; ')}.` : '',
          problem ?? '',
          'Set them, then issue it again.',
        ]
          .filter(Boolean)
          .join(' '),
      },
    );
    this.taxPeople = tax.length > 0 ? people : '';
  }
}

/** The checks of issuing, over the settings, profile and client as they are now. */
export function createIssuing({ repo, ports }: { repo: InvoicesRepository; ports: InvoicePorts }) {
  /** The draft as issuing would make it now, and what its PDF would lack. */
  function readiness(row: InvoiceRow): IssueReadiness {
    const current = view(row);
    const client = ports.client(row.workspaceId, row.clientId);
    const taxed = projectTax(
      { lines: current.lines, taxBreakdown: current.taxBreakdown ?? [], language: current.language },
      {
        settings: settingsOf(repo.settings(row.workspaceId)),
        smallBusiness: ports.businessProfile(row.workspaceId)?.smallBusiness === true,
        client: {
          taxCategory: (client.taxCategory as string | null) ?? null,
          exemptionReason: (client.exemptionReason as string | null) ?? null,
          exemptionReasonCode: (client.exemptionReasonCode as string | null) ?? null,
        },
      },
    );
    const net = taxed.lines.reduce((sum, line) => sum + toCents(line.amount), 0);
    // Lines never change their amounts (a fill cannot): the net total is their sum, always.
    if (net !== row.totalCents)
      throw new DomainError(
        'conflict',
        `Invoice ${row.id} cannot be issued: its net total ${fromCents(row.totalCents)} is not the sum of its lines (${fromCents(net)}), and an issued invoice's totals follow from its lines. Void it and make it again.`,
        { people: 'This invoice cannot be issued: its net total is not the sum of its lines. Void it and make it again.' },
      );
    const tax = taxed.taxBreakdown.reduce((sum, r) => sum + toCents(r.taxAmount), 0);
    const issued: InvoiceDocument = {
      ...current,
      status: 'sent',
      lines: taxed.lines,
      taxBreakdown: taxed.taxBreakdown,
      taxTotal: fromCents(tax),
      grossTotal: fromCents(net + tax),
      amountDue: fromCents(net + tax),
      // Stand-ins for what issuing writes: the checks ask that they are there, never what they are.
      number: current.number ?? '(number)',
      issueDate: current.issueDate ?? '(issue date)',
      dueDate: current.dueDate ?? '(due date)',
      paymentTerms: current.paymentTerms ?? '(payment terms)',
    };
    const documents = DOCUMENT_FORMATS.map((format): DocumentWhenIssued => {
      const refused = documentRefusal(issued, format);
      const missing = (refused?.missing ?? []).filter((m) => taxed.missing.length === 0 || !TAX_PATH.test(m.path));
      return { format, missing, problem: refused && refused.missing.length === 0 ? MIX_PROBLEM : null };
    });
    const pdf = documents[0] as DocumentWhenIssued;
    return {
      lines: taxed.lines,
      taxBreakdown: taxed.taxBreakdown,
      tax: taxed.missing,
      issued,
      missing: pdf.missing,
      problem: pdf.problem,
      plain: plainPdf(issued),
      documents,
    };
  }

  return {
    readiness,

    /**
     * The check issuing runs before it takes a number: refuses (409) naming every value the PDF
     * would lack and every tax setting still missing; a tax setting alone keeps its own refusal
     * (decisions 11a). Returns what it is issued with.
     */
    check(row: InvoiceRow): IssueReadiness {
      const ready = readiness(row);
      if (ready.missing.length === 0 && ready.problem === null) {
        const taxOnly = missingTaxRefusal(row.workspaceId, ready.tax);
        if (taxOnly) throw taxOnly;
        return ready;
      }
      throw new NotReadyToIssue(view(row), ready.missing, ready.tax, ready.problem);
    },
  };
}

export type Issuing = ReturnType<typeof createIssuing>;
