import { pingSentence, WEBHOOK_EVENTS } from '../modules/webhooks/service.js';
import { OPERATOR } from '../principal.js';
import { required, memberOf } from './args.js';
import { type Command, command, ReportedFailure, str } from './command.js';

/** `--events a,b`; `all` stands for every event. */
const eventsOf = (raw: string): string[] =>
  raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
    .flatMap((e) => (e === 'all' ? WEBHOOK_EVENTS : [e]));

/** `webhook …` commands: subscriptions are managed here (the settings screen of a self-hoster). */
export const webhookCommands: Record<string, Command> = {
  'webhook create': command(
    'webhook create --workspace W --user U --url URL --events a,b|all',
    'Subscribe a member to events. The signing secret is printed once and cannot be shown again.',
    { workspace: str, user: str, url: str, events: str },
    0,
    (v, _p, s) =>
      s.webhooks.create(OPERATOR, {
        ...memberOf(v),
        url: required(v, 'url'),
        events: eventsOf(required(v, 'events')),
      }),
    'Store the secret now: it is shown only this once.',
    [
      `Events (comma-separated): ${WEBHOOK_EVENTS.join(', ')}; --events all subscribes to every one of them.`,
      'The URL must be https and must not resolve to a private or special-use address.',
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows plain http and private addresses (local development only);',
      'the command line reads it too: set it where timetrack runs as well as for the server.',
    ].join('\n'),
  ),
  'webhook list': command(
    'webhook list --workspace W',
    "List a workspace's subscriptions (never their secrets).",
    { workspace: str },
    0,
    (v, _p, s) => {
      const workspaceId = required(v, 'workspace');
      s.accounts.requireWorkspace(workspaceId);
      return { webhooks: s.webhooks.list(OPERATOR, workspaceId) };
    },
  ),
  'webhook deliveries': command(
    'webhook deliveries ID',
    'The delivery log of a subscription (30 days), newest first.',
    {},
    1,
    (_v, p, s) => ({
      deliveries: s.webhooks.deliveries(OPERATOR, p[0] as string),
    }),
  ),
  'webhook enable': command('webhook enable ID', 'Re-enable a subscription and clear its failure count.', {}, 1, (_v, p, s) =>
    s.webhooks.enable(OPERATOR, p[0] as string),
  ),
  'webhook redeliver': command(
    'webhook redeliver ID --delivery D',
    'Send a delivery that did not succeed again: a new attempt of the same delivery id, signed afresh (the server sends it).',
    { delivery: str },
    1,
    (v, p, s) => s.webhooks.redeliver(OPERATOR, p[0] as string, required(v, 'delivery')),
  ),
  'webhook ping': command(
    'webhook ping ID',
    'Send a signed test ping (event `ping`) now and print what the receiver answered (exit 1 when it failed); the delivery log shows it as a ping, never counted toward auto-disable.',
    {},
    1,
    async (_v, p, s) => {
      const sent = await s.webhooks.ping(OPERATOR, p[0] as string);
      const result = { id: p[0] as string, deliveryId: sent.deliveryId, ...sent.outcome };
      if (sent.outcome.status !== 'success')
        throw new ReportedFailure(result, `the ping failed. ${pingSentence(sent.outcome)}${sent.advice ? ` ${sent.advice}` : ''}`);
      return result;
    },
  ),
  'webhook delete': command('webhook delete ID', 'Delete a subscription and its delivery log.', {}, 1, (_v, p, s) =>
    s.webhooks.delete(OPERATOR, p[0] as string),
  ),
};
