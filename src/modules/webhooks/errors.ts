import { DomainError, type DomainErrorCode, notFound } from '../../errors.js';
import { type Key, translator, type Vars, words } from '../../i18n/index.js';

/** A refusal a member reads on the settings pages: in their language there (by key), in English to the API and the command line. */
const said = (code: DomainErrorCode, key: Key, vars?: Vars, field?: string) =>
  new DomainError(code, translator('en')(key, vars), { words: words(key, vars), ...(field === undefined ? {} : { field }) });

/** The refusals of the webhooks module, worded once. */
export const webhookErrors = {
  /** The operator names the id; a member learns nothing of a subscription that is not theirs. */
  notFound: (id: string, toOperator: boolean) => notFound(toOperator ? `Webhook ${id}` : 'That subscription'),
  deliveryNotFound: (id: string) => notFound(`Delivery ${id}`),
  memberNotFound: (workspaceId: string, userId: string) => notFound(`Member ${userId} of workspace ${workspaceId}`),
  whoseSubscription: () => new DomainError('invalid', 'name the workspace and the member the subscription is for.'),
  disabled: () => said('invalid', 'integrations.webhooks.refused.disabled'),
  stillQueued: () => said('conflict', 'integrations.webhooks.refused.stillQueued'),
  succeeded: () => said('conflict', 'integrations.webhooks.refused.succeeded'),
  withheld: () => said('conflict', 'integrations.webhooks.refused.withheld'),
  notWaiting: () => said('conflict', 'integrations.webhooks.refused.notWaiting'),
  inFlight: () => said('conflict', 'integrations.webhooks.refused.inFlight'),
  pingTooSoon: (wait: number) => said('rate_limited', 'integrations.webhooks.refused.pingTooSoon', { count: wait }),
  /** No event chosen, or one this version does not know. */
  events: (unknown: string[], known: readonly string[]) =>
    unknown.length > 0
      ? said('invalid', 'integrations.webhooks.refused.eventsUnknown', { unknown: unknown.join(', '), events: known.join(', ') }, 'events')
      : said('invalid', 'integrations.webhooks.refused.eventsNone', { events: known.join(', ') }, 'events'),
  /** A member's target refused for the target rules (the log keeps how its name resolved; the operator is told it). */
  targetNotAllowed: (allowPrivateTargets: boolean) =>
    said(
      'invalid',
      allowPrivateTargets ? 'integrations.webhooks.refused.unresolvable' : 'integrations.webhooks.refused.notAllowed',
      {},
      'url',
    ),
};
