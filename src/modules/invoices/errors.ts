import { DomainError, notFound } from '../../errors.js';
import { type Key, type Words, words } from '../../i18n/index.js';

/** What only owners do, each with its words for people (a key per phrase: the phrase itself is English). */
const OWNER_ACTS = {
  'change invoices': 'invoicing.refused.ownersAct.changeInvoices',
  'fill invoices': 'invoicing.refused.ownersAct.fillInvoices',
  'issue invoices': 'invoicing.refused.ownersAct.issueInvoices',
  'make invoices': 'invoicing.refused.ownersAct.makeInvoices',
  'mark invoices paid': 'invoicing.refused.ownersAct.markPaid',
  'record payments': 'invoicing.refused.ownersAct.recordPayments',
  'send invoices': 'invoicing.refused.ownersAct.sendInvoices',
  'void invoices': 'invoicing.refused.ownersAct.voidInvoices',
  'change the invoicing settings': 'invoicing.refused.ownersAct.changeSettings',
  'see the invoicing settings': 'invoicing.refused.ownersAct.seeSettings',
} as const satisfies Record<string, Key>;
export type OwnerAct = keyof typeof OWNER_ACTS;

/** An invoice's status as a refusal names it (lower case, mid-sentence), by key. */
export const STATUS_WORDS = {
  draft: 'invoicing.refused.status.draft',
  sent: 'invoicing.refused.status.sent',
  paid: 'invoicing.refused.status.paid',
  void: 'invoicing.refused.status.void',
} as const satisfies Record<string, Key>;
type Status = keyof typeof STATUS_WORDS;

/** Why an invoice of each status cannot move where it was asked to, and what it may do instead. */
const CANNOT_MOVE = {
  draft: 'invoicing.refused.cannotMove.draft',
  sent: 'invoicing.refused.cannotMove.sent',
  paid: 'invoicing.refused.cannotMove.paid',
  void: 'invoicing.refused.cannotMove.void',
} as const satisfies Record<Status, Key>;

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
  ownersAct: (what: OwnerAct) =>
    new DomainError('forbidden', `Only the workspace's owners ${what}; ask an owner, or have them make you one.`, {
      words: words(OWNER_ACTS[what]),
    }),
  actingMember: () =>
    new DomainError('invalid', 'Name the member who acts (userId, --user): the operator acts for a member of the workspace.'),
  cannotMove: (id: string, from: Status, to: Status, allowed: string) =>
    new DomainError('conflict', `Invoice ${id} cannot move from ${from} to ${to}: ${allowed}.`, {
      words: words(CANNOT_MOVE[from], { to: STATUS_WORDS[to] }),
    }),
  voidTakesNoFill: (id: string) =>
    new DomainError('conflict', `Invoice ${id} is void; a void invoice takes no fills.`, {
      words: words('invoicing.refused.voidTakesNoFill'),
    }),
  /** A change of a value a fill may not change (decisions 14): at its path, saying what to do instead (by key for people). */
  fixedFill: (path: string, message: string, said: Words) => new DomainError('conflict', message, { field: path, words: said }),
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
