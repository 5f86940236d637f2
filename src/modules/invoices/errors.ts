import { DomainError, notFound } from '../../errors.js';

/** The refusals of the invoices module, worded once. */
export const invoiceErrors = {
  notFound: (id: string) => notFound(`Invoice ${id}`),
  memberNotFound: (workspaceId: string, userId: string) => notFound(`Member ${userId} of workspace ${workspaceId}`),
  operatorOnly: () => new DomainError('forbidden', 'Invoices are made with the command line (timetrack invoice).'),
  ownersOnly: () => new DomainError('forbidden', "Only the workspace's owners change its invoice issuer."),
  cannotMove: (id: string, from: string, to: string, allowed: string) =>
    new DomainError('conflict', `Invoice ${id} cannot move from ${from} to ${to}: ${allowed}.`),
  voidTakesNoFill: (id: string) => new DomainError('conflict', `Invoice ${id} is void; a void invoice takes no fills.`),
  invalid: (message: string) => new DomainError('invalid', message),
};
