import { type InvoiceStatus, issuerPatchOfText } from '../modules/invoices/service.js';
import { OPERATOR } from '../principal.js';
import { required, UsageError } from './args.js';
import { type Command, command, str } from './command.js';

const sets = { set: { type: 'string', multiple: true } } as const;
const STATUSES: readonly string[] = ['draft', 'sent', 'paid', 'void'] satisfies InvoiceStatus[];

/** The repeated `--set field=value` options, in order; a field named twice is a usage error. */
function assignments(values: Record<string, unknown>): Array<[string, string]> {
  const raw = (values.set ?? []) as string[];
  if (raw.length === 0) throw new UsageError('give at least one --set field=value');
  const seen = new Set<string>();
  return raw.map((item) => {
    const at = item.indexOf('=');
    const field = item.slice(0, at).trim();
    if (at < 0 || field === '') throw new UsageError(`--set takes field=value (got ${JSON.stringify(item)})`);
    if (seen.has(field)) throw new UsageError(`--set ${field} is given twice`);
    seen.add(field);
    return [field, item.slice(at + 1)];
  });
}

/** `invoice …` and `workspace profile` commands. */
export const invoiceCommands: Record<string, Command> = {
  'workspace profile': command(
    'workspace profile ID --set field=value … (addressLines separated by |; a blank value clears the field)',
    "Set the workspace's business profile, copied onto new invoices as the issuer.",
    sets,
    1,
    (v, p, s) => s.invoices.setBusinessProfile(OPERATOR, p[0] as string, issuerPatchOfText(assignments(v))),
  ),
  'invoice create': command(
    'invoice create --workspace W --user U --client C --from YYYY-MM-DD --to YYYY-MM-DD',
    "Invoice a client's billable, completed, un-invoiced entries starting in the range (UTC days, inclusive).",
    { workspace: str, user: str, client: str, from: str, to: str },
    0,
    (v, _p, s) =>
      s.invoices.create(OPERATOR, {
        workspaceId: required(v, 'workspace'),
        userId: required(v, 'user'),
        clientId: required(v, 'client'),
        from: required(v, 'from'),
        to: required(v, 'to'),
      }),
  ),
  'invoice status': command(
    'invoice status ID --to sent|paid|void --user U',
    'Move an invoice: draft -> sent -> paid, draft or sent -> void (void releases its entries).',
    { to: str, user: str },
    1,
    (v, p, s) => {
      const to = required(v, 'to');
      if (!STATUSES.includes(to)) throw new UsageError(`--to must be one of ${STATUSES.join(', ')} (got ${JSON.stringify(to)})`);
      return s.invoices.changeStatus(OPERATOR, p[0] as string, to as InvoiceStatus, required(v, 'user'));
    },
  ),
  'invoice fill': command(
    'invoice fill ID --user U --set path=value … (issuer.<field>, recipient.<field>, lines[N].taxCategory, lines[N].taxRate, paymentTerms, taxBreakdown=lines, taxBreakdown[N].exemptionReason, taxBreakdown[N].exemptionReasonCode)',
    'Add e-invoice values that are still null or absent; never changes an amount or a value already set.',
    { user: str, ...sets },
    1,
    (v, p, s) => s.invoices.fill(OPERATOR, p[0] as string, required(v, 'user'), assignments(v)),
  ),
  'invoice show': command('invoice show ID', 'Print an invoice as webhook payloads carry it.', {}, 1, (_v, p, s) => ({
    invoice: s.invoices.get(OPERATOR, p[0] as string),
  })),
};
