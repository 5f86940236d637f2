import { OPERATOR } from '../principal.js';
import { optionalInteger, UsageError } from './args.js';
import { type Command, command, ReportedFailure, str } from './command.js';

/** `mail …` commands: the log of sent mail, sending a given-up message again, and a test of the relay. */
export const mailCommands: Record<string, Command> = {
  'mail list': command(
    'mail list [--workspace W] [--before ID] [--limit N]',
    "The log of sent mail (30 days), newest first: a workspace's, or every message (resets and email changes belong to no workspace).",
    { workspace: str, before: str, limit: str },
    0,
    (v, _p, s) => {
      const workspaceId = typeof v.workspace === 'string' ? v.workspace : null;
      const limit = optionalInteger(v, 'limit') ?? 50;
      if (limit < 1 || limit > 500) throw new UsageError('--limit must be from 1 to 500');
      if (workspaceId !== null) s.accounts.requireWorkspace(workspaceId);
      const log = s.mail.log(OPERATOR, { workspaceId, before: typeof v.before === 'string' ? v.before : null, limit });
      return { relay: s.mail.relay, queued: s.mail.queued(), messages: log.messages, next: log.next };
    },
  ),
  'mail retry': command(
    'mail retry ID',
    'Send a message that was given up again (the same Message-ID): now from here when mail is set up where timetrack runs, else by the server within a second.',
    {},
    1,
    async (_v, p, s) => {
      const id = p[0] as string;
      s.mail.retry(OPERATOR, id);
      const outcome = s.mail.relay === null ? null : await s.mail.sendNow(id);
      if (outcome === null) return { id, status: 'queued' };
      const result = { id, ...outcome };
      if (outcome.status !== 'sent') throw new ReportedFailure(result, `the relay did not take it (${outcome.error}): ${outcome.detail}`);
      return result;
    },
  ),
  'mail test': command(
    'mail test ADDRESS',
    'Send a test message to ADDRESS now, through SMTP_URL as MAIL_FROM (not queued), and print what the relay answered (exit 1 when it did not take it).',
    {},
    1,
    async (_v, p, s) => {
      const sent = await s.mail.test(OPERATOR, p[0] as string);
      if (sent.status !== 'sent') throw new ReportedFailure(sent, `the relay did not take it (${sent.error}): ${sent.detail}`);
      return sent;
    },
    undefined,
    [
      'SMTP_URL, MAIL_FROM and SMTP_CA_FILE are read where timetrack runs: set them as for the server.',
      'A temporary refusal (4xx), a connection that is refused or times out, and a TLS failure are printed as the relay or the',
      'connection said them; the server would retry those. A permanent refusal (5xx) is what the server would give up on.',
    ].join('\n'),
  ),
};
