import { DomainError, notFound } from '../../errors.js';

/** The refusals of the webhooks module, worded once. */
export const webhookErrors = {
  /** The operator names the id; a member learns nothing of a subscription that is not theirs. */
  notFound: (id: string, toOperator: boolean) => notFound(toOperator ? `Webhook ${id}` : 'That subscription'),
  deliveryNotFound: (id: string) => notFound(`Delivery ${id}`),
  memberNotFound: (workspaceId: string, userId: string) => notFound(`Member ${userId} of workspace ${workspaceId}`),
  whoseSubscription: () => new DomainError('invalid', 'name the workspace and the member the subscription is for.'),
  disabled: () => new DomainError('invalid', 'The subscription is disabled: re-enable it first, then send again.'),
  stillQueued: () => new DomainError('conflict', 'This delivery is still queued: its next attempt is already due.'),
  succeeded: () => new DomainError('conflict', 'This delivery succeeded; only deliveries that did not succeed are sent again.'),
  withheld: () =>
    new DomainError('conflict', 'This delivery was withheld by its owner’s visibility; sent again, it would be withheld again.'),
  notWaiting: () =>
    new DomainError('conflict', 'This delivery is not waiting for a retry: it is final (redeliver it instead, where offered).'),
  inFlight: () => new DomainError('conflict', 'This delivery is being sent right now; reload in a moment to see how it went.'),
  pingTooSoon: (wait: number) =>
    new DomainError('rate_limited', `Send one test ping at a time: try again in ${wait} second${wait === 1 ? '' : 's'}.`),
  events: (what: string, known: readonly string[]) =>
    new DomainError('invalid', `events: ${what}choose from ${known.join(', ')}.`, { field: 'events' }),
};
