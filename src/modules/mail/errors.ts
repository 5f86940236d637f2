import { DomainError, notFound } from '../../errors.js';

/** The refusals of the mail module, worded once. */
export const mailErrors = {
  notFound: (id: string) => notFound(`Mail message ${id}`),
  ownersOnly: () => new DomainError('forbidden', "Only the workspace's owners see its mail."),
  operatorOnly: (what: string) => new DomainError('forbidden', `Only the operator (the command line) may ${what}.`),
  off: () =>
    new DomainError('invalid', 'Mail is off on this server: set SMTP_URL and MAIL_FROM and restart it (docs/operations.md, "Mail").'),
  notRetryable: (status: string) =>
    new DomainError(
      'conflict',
      status === 'queued'
        ? 'This message is still queued: it is sent at its next attempt.'
        : status === 'sent'
          ? 'This message was sent already; only a message that was given up is sent again.'
          : 'This message was cancelled (its account was deleted): it is not sent again.',
    ),
  contentGone: () => new DomainError('conflict', 'This message can no longer be sent again: its content was dropped.'),
  undeliverable: (address: string, problem: string, field = 'email') =>
    new DomainError('invalid', `${address} cannot receive mail from here: ${problem}.`, { field }),
  badAttachment: (why: string) => new DomainError('invalid', `attachment: ${why}.`, { field: 'attachments' }),
};
