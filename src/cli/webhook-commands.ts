import { required } from './args.js';
import { type Command, command, str } from './command.js';

/** `webhook …` commands: subscriptions are managed here (the settings screen of a self-hoster). */
export const webhookCommands: Record<string, Command> = {
  'webhook create': command(
    'webhook create --workspace W --user U --url URL --events a,b',
    'Subscribe a member to events. The signing secret is printed once and cannot be shown again.',
    { workspace: str, user: str, url: str, events: str },
    0,
    (v, _p, s) =>
      s.webhooks.create({
        workspaceId: required(v, 'workspace'),
        userId: required(v, 'user'),
        url: required(v, 'url'),
        events: required(v, 'events')
          .split(',')
          .map((e) => e.trim())
          .filter((e) => e !== ''),
      }),
    'Store the secret now: it is shown only this once.',
  ),
  'webhook list': command(
    'webhook list --workspace W',
    "List a workspace's subscriptions (never their secrets).",
    { workspace: str },
    0,
    (v, _p, s) => ({
      webhooks: s.webhooks.list(required(v, 'workspace')),
    }),
  ),
  'webhook deliveries': command(
    'webhook deliveries ID',
    'The delivery log of a subscription (30 days), newest first.',
    {},
    1,
    (_v, p, s) => ({
      deliveries: s.webhooks.deliveries(p[0] as string),
    }),
  ),
  'webhook enable': command('webhook enable ID', 'Re-enable a subscription and clear its failure count.', {}, 1, (_v, p, s) =>
    s.webhooks.enable(p[0] as string),
  ),
  'webhook delete': command('webhook delete ID', 'Delete a subscription and its delivery log.', {}, 1, (_v, p, s) =>
    s.webhooks.delete(p[0] as string),
  ),
};
