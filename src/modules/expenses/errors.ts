import { DomainError, notFound } from '../../errors.js';

/** The refusals of the expenses module, worded once: for a program or an operator, and for people (`people`). */
export const expenseErrors = {
  notFound: (id: string) => notFound(`Expense ${id}`),
  notAuthor: (id: string) =>
    new DomainError('forbidden', `Expense ${id} is a colleague's: only its author changes or deletes it.`, {
      people: 'This expense is a colleague’s: only its author can change or delete it.',
    }),
  invoiced: (id: string, invoiceId: string) =>
    new DomainError(
      'conflict',
      `Expense ${id} is on invoice ${invoiceId}: an invoiced expense cannot be changed or deleted. Voiding that invoice releases it.`,
      { people: 'This expense is on an invoice: it cannot be changed or deleted. Voiding the invoice releases it.' },
    ),
  invalid: (field: string, message: string, people: string) => new DomainError('invalid', message, { field, people }),
  tooLarge: (size: number, max: number) =>
    new DomainError(
      'invalid',
      `receipt: the file has ${size} bytes; a receipt holds at most ${max} bytes (${max / 1_048_576} MB). Scan it at a lower resolution or as a PDF.`,
      { field: 'receipt', people: `A receipt may be at most ${max / 1_048_576} MB: scan it at a lower resolution, or save it as a PDF.` },
    ),
  badType: () =>
    new DomainError(
      'invalid',
      'receipt: the file is not a PDF, PNG, JPEG or WebP image (its content was checked, not its name): save or scan the receipt in one of those types.',
      { field: 'receipt', people: 'A receipt is taken as a PDF, PNG, JPEG or WebP file: save or scan it as one of those.' },
    ),
  noReceipt: (id: string) => notFound(`The receipt of expense ${id}`),
  workspaceNeeded: () =>
    new DomainError('invalid', 'The operator names the workspace and the member an expense is for (--workspace, --member).', {
      field: 'workspace',
    }),
  notMember: (workspaceId: string, userId: string) => notFound(`Member ${userId} of workspace ${workspaceId}`),
  /** `--project` named no project of the workspace, by id or by name. */
  projectNotNamed: (workspaceId: string, given: string) =>
    new DomainError('not_found', `No project of workspace ${workspaceId} has the id or the name ${JSON.stringify(given)}.`, {
      field: 'project',
    }),
  /** `--project` named several projects (of different clients): each with its client and id. */
  projectAmbiguous: (given: string, named: ReadonlyArray<{ id: string; name: string; clientName: string | null }>) =>
    new DomainError(
      'invalid',
      `${named.length} projects are named ${JSON.stringify(given)}: ${named.map((p) => `${p.name} (${p.clientName ?? 'no client'}) ${p.id}`).join(', ')}. Give the one you mean by its id.`,
      { field: 'project', people: `${named.length} projects are named ${JSON.stringify(given)}: choose the one you mean.` },
    ),
  projectArchived: (id: string) =>
    new DomainError('invalid', `Project ${id} is archived: a new expense goes on a project in use (restore it first).`, {
      field: 'projectId',
      people: 'This project is archived: choose a project in use, or restore it first.',
    }),
};
