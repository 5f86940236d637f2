import { DomainError, notFound } from '../../errors.js';
import { words } from '../../i18n/index.js';

/** The refusals of the invoices module, worded once: each says what to do. */
export const invoiceErrors = {
  notFound: (id: string) => notFound(`Invoice ${id}`),
  /** What a member who may not see invoices gets for anything of them: as if there were none. */
  hidden: (workspaceId: string) => notFound(`Invoices of workspace ${workspaceId}`),
  memberNotFound: (workspaceId: string, userId: string) => notFound(`Member ${userId} of workspace ${workspaceId}`),
  clientNotFound: (workspaceId: string, clientId: string) =>
    new DomainError(
      'not_found',
      `Client ${clientId} was not found in workspace ${workspaceId}: invoice one of this workspace's clients (GET /api/v1/clients lists them).`,
      { field: 'clientId', words: words('invoicing.refused.clientNotFound') },
    ),
  ownersOnly: () =>
    new DomainError('forbidden', "Only the workspace's owners change its invoice issuer.", {
      words: words('invoicing.refused.ownersOnly'),
    }),
  ownersAct: (what: string) =>
    new DomainError('forbidden', `Only the workspace's owners ${what}; ask an owner, or have them make you one.`),
  actingMember: () =>
    new DomainError('invalid', 'Name the member who acts (userId, --user): the operator acts for a member of the workspace.'),
  cannotMove: (id: string, from: string, to: string, allowed: string) =>
    new DomainError('conflict', `Invoice ${id} cannot move from ${from} to ${to}: ${allowed}.`, {
      people: `This invoice cannot move from ${from} to ${to}: ${allowed}.`,
    }),
  voidTakesNoFill: (id: string) =>
    new DomainError('conflict', `Invoice ${id} is void; a void invoice takes no fills.`, {
      words: words('invoicing.refused.voidTakesNoFill'),
    }),
  /** A change of a value a fill may not change (decisions 14): at its path, saying what to do instead. */
  fixedFill: (path: string, message: string, people: string) => new DomainError('conflict', message, { field: path, people }),
  fillChangesNothing: (paths: string[]) =>
    new DomainError(
      'invalid',
      `The fill changes nothing: ${paths.join(', ')} already ${paths.length === 1 ? 'holds' : 'hold'} the value given.`,
      {
        field: paths[0] as string,
        words: words('invoicing.refused.fillChangesNothing'),
      },
    ),
  invalid: (message: string) => new DomainError('invalid', message),
  conflict: (message: string) => new DomainError('conflict', message),
};
