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
  projectArchived: (id: string) =>
    new DomainError('invalid', `Project ${id} is archived: a new expense goes on a project in use (restore it first).`, {
      field: 'projectId',
      people: 'This project is archived: choose a project in use, or restore it first.',
    }),
};
