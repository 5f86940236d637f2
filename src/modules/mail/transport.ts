import { rootCertificates } from 'node:tls';
import { domainToASCII } from 'node:url';
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Mailbox } from './address.js';
import { classify, type Outcome, oneLine } from './outcome.js';
import type { Attachment } from './seal.js';
import type { MailSettings } from './settings.js';
import { OUR_DETAILS } from './views.js';

/** A message as the relay gets it. */
export interface Envelope {
  /** MAIL_FROM's address, with the message's own display name when it has one (an invoice's issuer). */
  from: Mailbox;
  to: Mailbox;
  /** Where a reply goes, when not to From. */
  replyTo?: Mailbox | null;
  subject: string;
  text: string;
  html: string;
  attachments: Attachment[];
  /** `<id@domain>`: the same on every attempt. */
  messageId: string;
  date: Date;
}

/** Each attempt's limits: to connect, for the greeting, and for any one reply. */
export const CONNECT_TIMEOUT_MS = 10_000;
export const SOCKET_TIMEOUT_MS = 30_000;

/**
 * An address as the SMTP envelope carries it: an internationalised domain in punycode
 * (`anna@bücher.example` is `anna@xn--bcher-kva.example`), as the headers already do; nodemailer
 * leaves an explicit envelope as given, and a relay without SMTPUTF8 refuses or misreads it.
 */
export function envelopeAddress(address: string): string {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  return /^[\x20-\x7e]*$/.test(domain) ? address : `${address.slice(0, at + 1)}${domainToASCII(domain) || domain}`;
}

/** One message to the relay, on a connection of its own, and what the relay answered. */
export type Relay = (message: Envelope) => Promise<Outcome>;

/**
 * The SMTP relay of MAIL_SETTINGS through nodemailer: STARTTLS required unless the URL says
 * never, the relay's certificate checked against the system's roots and SMTP_CA_FILE's, no file
 * or URL read into a message, one connection per message (mail is rare here; no pool to hold).
 */
export function createRelay(settings: MailSettings, timeouts = { connectMs: CONNECT_TIMEOUT_MS, socketMs: SOCKET_TIMEOUT_MS }): Relay {
  // nodemailer (some 60 files) loads with the first message: reader threads and most commands build the services and send none.
  let transport: Transporter<SMTPTransport.SentMessageInfo> | null = null;
  const open = async (): Promise<Transporter<SMTPTransport.SentMessageInfo>> =>
    (transport ??= (await import('nodemailer')).default.createTransport({
      host: settings.host,
      port: settings.port,
      secure: settings.secure,
      requireTLS: !settings.secure && settings.starttls === 'required',
      ignoreTLS: settings.starttls === 'never',
      ...(settings.auth ? { auth: { user: settings.auth.user, pass: settings.auth.pass } } : {}),
      tls: { minVersion: 'TLSv1.2', ...(settings.ca ? { ca: [...rootCertificates, settings.ca] } : {}) },
      connectionTimeout: timeouts.connectMs,
      greetingTimeout: timeouts.connectMs,
      socketTimeout: timeouts.socketMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    }));
  return async (message) => {
    const recipient = envelopeAddress(message.to.address);
    try {
      const info = await (
        await open()
      ).sendMail({
        from: { name: message.from.name ?? '', address: message.from.address },
        to: { name: message.to.name ?? '', address: message.to.address },
        ...(message.replyTo ? { replyTo: { name: message.replyTo.name ?? '', address: message.replyTo.address } } : {}),
        // The envelope names exactly the one checked recipient, whatever the headers say.
        envelope: { from: envelopeAddress(message.from.address), to: [recipient] },
        subject: message.subject,
        text: message.text,
        html: message.html,
        attachments: message.attachments.map((a) => ({ filename: a.name, contentType: a.type, content: a.bytes })),
        messageId: message.messageId,
        date: message.date,
        headers: { 'Auto-Submitted': 'auto-generated' },
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      // The relay's acceptance is of the envelope's form of the address (punycode), not the log's.
      if (!info.accepted.includes(recipient))
        return { status: 'permanent', error: 'rejected', detail: oneLine(info.response || OUR_DETAILS.notAccepted) };
      return { status: 'sent', response: oneLine(info.response) };
    } catch (error) {
      return classify(error);
    }
  };
}
