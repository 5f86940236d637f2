import { headerText } from './address.js';
import { escapeHtml } from '../../kernel/escape.js';
import { type Translate, translator } from '../../i18n/index.js';

/** The languages mail is written in; an account without a choice gets English. */
export const MAIL_LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof MAIL_LANGUAGES)[number];
export const isLanguage = (value: unknown): value is Language => MAIL_LANGUAGES.includes(value as Language);

/** Whom a message is for, and how dates are written to them. */
export interface Recipient {
  address: string;
  name: string | null;
  language: Language;
  timeZone: string;
}

/** A message as written once: its subject and its blocks, from which the plain text and the HTML are both made. */
export interface Composed {
  subject: string;
  blocks: Block[];
}

/** A paragraph, a link (a button in HTML, its address on a line of its own in text), or a small closing note. */
export type Block = { p: string } | { link: { href: string; label: string } } | { note: string };

/** What a template needs for dates: the reader's language and zone. */
interface Reader {
  language: Language;
  timeZone: string;
}

const when = (reader: Reader, at: number): string =>
  new Intl.DateTimeFormat(reader.language === 'de' ? 'de-DE' : 'en-GB', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: reader.timeZone,
    timeZoneName: 'short',
  }).format(at);

const hours = (sec: number): string => String(Math.round((sec / 3600) * 10) / 10);

/**
 * Text a person chose (a workspace's or an inviter's name, a timer's description), as a mail
 * quotes it: on one line, at most `max` characters (issue 44, M5: mail carries only as much of
 * it as it must).
 */
export const chosen = (text: string, max: number): string => {
  const line = headerText(text, 10_000);
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
};

/** The words of a reader's language (src/i18n/messages, section `mail`). */
const sayTo = (reader: Reader): Translate => translator(reader.language);

/** The mail of "Add member": alike for a new account (a setup link) and an existing one (an invitation), decisions §8a. */
export function invitationMail(
  reader: Reader,
  given: { workspaceName: string; inviterName: string; link: string; expiresAt: number },
): Composed {
  const say = sayTo(reader);
  const vars = { workspace: chosen(given.workspaceName, 60), inviter: chosen(given.inviterName, 60), until: when(reader, given.expiresAt) };
  return {
    subject: say('mail.invitation.subject', vars),
    blocks: [
      { p: say('mail.invitation.invited', vars) },
      { p: say('mail.invitation.once', vars) },
      { link: { href: given.link, label: say('mail.invitation.open') } },
      { note: say('mail.invitation.ignore') },
    ],
  };
}

/** "Forgot your password?": a link valid one hour. */
export function resetMail(reader: Reader, input: { link: string; expiresAt: number }): Composed {
  const say = sayTo(reader);
  return {
    subject: say('mail.reset.subject'),
    blocks: [
      { p: say('mail.reset.asked') },
      { p: say('mail.reset.once', { until: when(reader, input.expiresAt) }) },
      { link: { href: input.link, label: say('mail.reset.open') } },
      { note: say('mail.reset.ignore') },
    ],
  };
}

/**
 * An account in no workspace whose address nobody proved signed in (issue 54, N1): before its
 * invitations show, the holder of the address confirms it by choosing a new password through
 * this link (valid one hour). Nothing the account chose is in it.
 */
export function addressConfirmationMail(reader: Reader, input: { link: string; expiresAt: number }): Composed {
  const say = sayTo(reader);
  return {
    subject: say('mail.confirmAddress.subject'),
    blocks: [
      { p: say('mail.confirmAddress.asked') },
      { p: say('mail.confirmAddress.once', { until: when(reader, input.expiresAt) }) },
      { link: { href: input.link, label: say('mail.confirmAddress.open') } },
      { note: say('mail.confirmAddress.ignore') },
    ],
  };
}

/**
 * A member's new sign-in email: it takes effect when this link (sent to the new address) is
 * opened. Nothing the member chose is in it (issue 44, M5: a name was a phishing text mailed to
 * any address): the address nobody proved yet gets the server's own words only.
 */
export function emailChangeMail(reader: Reader, input: { link: string; expiresAt: number }): Composed {
  const say = sayTo(reader);
  return {
    subject: say('mail.emailChange.subject'),
    blocks: [
      { p: say('mail.emailChange.asked') },
      { p: say('mail.emailChange.until', { until: when(reader, input.expiresAt) }) },
      { link: { href: input.link, label: say('mail.emailChange.open') } },
      { note: say('mail.emailChange.ignore') },
    ],
  };
}

/** A timer past its workspace's runaway limit: still running (with its Stop link), or stopped by the limit. */
export function runawayMail(
  reader: Reader,
  input: {
    workspaceName: string;
    description: string;
    startAt: number;
    limitSec: number;
    /** When it was stopped (capped or stopped), or null while it runs. */
    stoppedAt: number | null;
    /** The Stop link, while it runs. */
    link: string | null;
  },
): Composed {
  const what = input.description.trim() === '' ? null : chosen(input.description, 80);
  const started = when(reader, input.startAt);
  input = { ...input, workspaceName: chosen(input.workspaceName, 60) };
  if (reader.language === 'de') {
    const timer = what ? `Ihr Timer „${what}“` : 'Ihr Timer';
    if (input.stoppedAt !== null || input.link === null)
      return {
        subject: 'Ihr Timer wurde angehalten',
        blocks: [
          {
            p: `${timer} in „${input.workspaceName}“ lief seit ${started} länger als die Grenze des Arbeitsbereichs (${hours(input.limitSec)} Stunden) und wurde ${input.stoppedAt === null ? '' : `um ${when(reader, input.stoppedAt)} `}angehalten.`,
          },
          { p: 'Prüfen Sie das Ende des Eintrags in Ihrer Woche.' },
        ],
      };
    return {
      subject: 'Ihr Timer läuft noch',
      blocks: [
        {
          p: `${timer} in „${input.workspaceName}“ läuft seit ${started}, länger als die Grenze des Arbeitsbereichs (${hours(input.limitSec)} Stunden).`,
        },
        { p: 'Vergessen anzuhalten? Der Link fragt nach, bevor er etwas anhält.' },
        { link: { href: input.link, label: 'Timer anhalten' } },
      ],
    };
  }
  const timer = what ? `Your timer "${what}"` : 'Your timer';
  if (input.stoppedAt !== null || input.link === null)
    return {
      subject: 'Your timer was stopped',
      blocks: [
        {
          p: `${timer} in "${input.workspaceName}" ran past the workspace's limit of ${hours(input.limitSec)} hours since ${started}, so it was stopped${input.stoppedAt === null ? '' : ` at ${when(reader, input.stoppedAt)}`}.`,
        },
        { p: "Check the entry's end on your week." },
      ],
    };
  return {
    subject: 'Your timer is still running',
    blocks: [
      {
        p: `${timer} in "${input.workspaceName}" has been running since ${started}, past the workspace's limit of ${hours(input.limitSec)} hours.`,
      },
      { p: 'Forgot to stop it? The link asks before it stops anything.' },
      { link: { href: input.link, label: 'Stop the timer' } },
    ],
  };
}

/** A decision on a member's period, as its mail tells it. */
export interface ApprovalDecision {
  workspaceName: string;
  byName: string | null;
  action: 'approved' | 'rejected' | 'reopened';
  kind: 'weekly' | 'monthly';
  startDay: string;
  endDay: string;
  note: string | null;
}

/** A decision on a member's period (decisions §13): approved, rejected with its note, or reopened. */
export function approvalMail(reader: Reader, input: ApprovalDecision): Composed {
  const day = (value: string) =>
    new Intl.DateTimeFormat(reader.language === 'de' ? 'de-DE' : 'en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(Date.parse(`${value}T00:00:00Z`));
  const workspace = chosen(input.workspaceName, 60);
  const by = input.byName === null ? null : chosen(input.byName, 60);
  const note = input.note === null ? null : chosen(input.note, 500);
  if (reader.language === 'de') {
    const period = `${input.kind === 'weekly' ? 'Ihre Woche' : 'Ihr Monat'} vom ${day(input.startDay)} bis ${day(input.endDay)}`;
    const done = { approved: 'freigegeben', rejected: 'abgelehnt', reopened: 'wieder geöffnet' }[input.action];
    return {
      subject: `${input.kind === 'weekly' ? 'Ihre Woche' : 'Ihr Monat'} wurde ${done}`,
      blocks: [
        { p: `${period} in „${workspace}“ wurde${by ? ` von ${by}` : ''} ${done}.` },
        ...(note ? [{ p: `Anmerkung: ${note}` }] : []),
        {
          p:
            input.action === 'approved'
              ? 'Die Zeiten dieses Zeitraums sind jetzt gesperrt.'
              : 'Sie können die Zeiten wieder ändern und den Zeitraum erneut einreichen.',
        },
      ],
    };
  }
  const period = `Your ${input.kind === 'weekly' ? 'week' : 'month'} of ${day(input.startDay)} to ${day(input.endDay)}`;
  return {
    subject: `Your ${input.kind === 'weekly' ? 'week' : 'month'} was ${input.action}`,
    blocks: [
      { p: `${period} in "${workspace}" was ${input.action}${by ? ` by ${by}` : ''}.` },
      ...(note ? [{ p: `Note: ${note}` }] : []),
      {
        p: input.action === 'approved' ? 'Its time is locked now.' : 'You can change its time again and submit it again (the week page).',
      },
    ],
  };
}

/** `timetrack mail test ADDRESS`. */
export function testMail(reader: Reader, input: { relay: string; at: number }): Composed {
  return {
    subject: 'timetrack: test message',
    blocks: [
      { p: `This is a test message from timetrack, sent through ${input.relay} at ${when(reader, input.at)}.` },
      { note: 'If you read this, the server can send mail.' },
    ],
  };
}

/** The plain text of a message: paragraphs apart, each link's label and its address on a line of its own. */
export function renderText(message: Composed): string {
  return `${message.blocks
    .map((block) => ('p' in block ? block.p : 'note' in block ? block.note : `${block.link.label}:\n${block.link.href}`))
    .join('\n\n')}\n`;
}

/** The HTML of a message: the same blocks, escaped, a link as a button with its address beneath (mail clients hide hrefs). */
export function renderHtml(message: Composed, language: Language): string {
  const body = message.blocks
    .map((block) => {
      if ('p' in block) return `<p style="margin:0 0 16px">${escapeHtml(block.p)}</p>`;
      if ('note' in block) return `<p style="margin:24px 0 0;color:#555;font-size:13px">${escapeHtml(block.note)}</p>`;
      const href = escapeHtml(block.link.href);
      return `<p style="margin:0 0 16px"><a href="${href}" style="display:inline-block;padding:10px 16px;background:#1f5fbf;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(block.link.label)}</a></p><p style="margin:0 0 16px;font-size:13px;color:#555;word-break:break-all">${href}</p>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(headerText(message.subject))}</title></head>
<body style="margin:0;padding:24px;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:15px;line-height:1.5;color:#222">
${body}
</body></html>
`;
}
