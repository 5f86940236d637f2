import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { ExpenseView } from '../modules/expenses/service.js';
import { OPERATOR } from '../principal.js';
import { optionalString, required, UsageError } from './args.js';
import { type Command, command, flag, str } from './command.js';
import { table } from './table.js';

/** `--tax S:19` (a standard rate of its own) or `Z` (zero rated); absent: the invoice's own. */
function taxOf(raw: string | undefined): { taxCategory?: string; taxRate?: string } {
  if (raw === undefined) return {};
  const m = /^(S):(\d+(?:[.,]\d+)?)$|^(Z)$/i.exec(raw.trim());
  if (!m)
    throw new UsageError(`--tax must be S:RATE (a standard rate of its own, such as S:7) or Z (zero rated) (got ${JSON.stringify(raw)})`);
  return m[3] ? { taxCategory: 'Z' } : { taxCategory: 'S', taxRate: (m[2] as string).replace(',', '.') };
}

/** A receipt file read from disk (the service checks its size and type by content). */
function receiptOf(path: string | undefined): { name: string; bytes: Buffer } | null {
  if (path === undefined) return null;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new UsageError(
      `--receipt: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}): give the path of a PDF, PNG, JPEG or WebP file`,
    );
  }
  return { name: basename(path), bytes };
}

const taxCell = (e: ExpenseView) => (e.tax === null ? 'invoice' : e.tax.category === 'Z' ? 'Z' : `S ${e.tax.rate} %`);

/**
 * `expense …` (issue 57 item 1): the operator records a member's expense with an optional
 * receipt, lists a workspace's (a month), and deletes one. The expenses service checks every
 * field and refuses an invoiced expense's deletion, naming its invoice.
 */
export const expenseCommands: Record<string, Command> = {
  'expense add': command(
    'expense add --workspace W --user U --day YYYY-MM-DD --project P --amount A --description T [--tax S:19|Z] [--not-billable] [--receipt FILE]',
    "Record a member's expense for a project, with an optional receipt file; billable as its project is unless --not-billable.",
    { workspace: str, user: str, day: str, project: str, amount: str, description: str, tax: str, 'not-billable': flag, receipt: str },
    0,
    (v, _p, s) => {
      const receipt = receiptOf(optionalString(v, 'receipt'));
      const expense = s.expenses.add(
        OPERATOR,
        {
          workspaceId: required(v, 'workspace'),
          authorId: required(v, 'user'),
          day: required(v, 'day'),
          projectId: required(v, 'project'),
          amount: required(v, 'amount'),
          description: required(v, 'description'),
          ...taxOf(optionalString(v, 'tax')),
          ...(v['not-billable'] === true ? { billable: false } : {}),
        },
        receipt,
      );
      return expense as unknown as Record<string, unknown>;
    },
    undefined,
    [
      '--amount is the net amount in the workspace currency: 12.90 or 12,90 (at most two decimals, above 0).',
      "--tax: S:7 a standard rate of its own, Z zero rated; without it the invoice's own VAT applies.",
      '--receipt: a PDF, PNG, JPEG or WebP file of at most 10 MB (its type is read from its content).',
    ].join('\n'),
  ),
  'expense list': {
    ...command(
      'expense list --workspace W [--month YYYY-MM] [--project P]',
      "List a workspace's expenses by day (with --json each expense in full): of a month, of a project (its id or its name), or both.",
      { workspace: str, month: str, project: str },
      0,
      (v, _p, s) => {
        const month = optionalString(v, 'month');
        const project = optionalString(v, 'project');
        return {
          expenses: s.expenses.list(OPERATOR, {
            workspaceId: required(v, 'workspace'),
            ...(month === undefined ? {} : { month }),
            ...(project === undefined ? {} : { project }),
          }),
        };
      },
    ),
    human: (result) =>
      table(
        result.expenses as ExpenseView[],
        [
          { header: 'ID', value: (e) => e.id },
          { header: 'DAY', value: (e) => e.day },
          { header: 'MEMBER', value: (e) => e.authorName },
          { header: 'PROJECT', value: (e) => e.projectName },
          { header: 'AMOUNT', value: (e) => `${e.amount.toFixed(2)} ${e.currency}`, align: 'right' },
          { header: 'TAX', value: taxCell },
          { header: 'BILLABLE', value: (e) => (e.billable ? 'yes' : 'no') },
          { header: 'INVOICE', value: (e) => e.invoiceId ?? '-' },
          { header: 'RECEIPT', value: (e) => e.receipt?.fileName ?? '-' },
          { header: 'DESCRIPTION', value: (e) => e.description },
        ],
        'No expenses.',
      ),
  },
  'expense delete': command(
    'expense delete ID',
    'Delete an expense and its receipt (refused while it is on an invoice).',
    {},
    1,
    (_v, p, s) => {
      s.expenses.delete(OPERATOR, p[0] as string);
      return { id: p[0], deleted: true };
    },
  ),
};
