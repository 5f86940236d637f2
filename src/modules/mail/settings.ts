import { readFileSync } from 'node:fs';
import { type Mailbox, parseFrom } from './address.js';

/** How the server reaches its SMTP relay (SMTP_URL, MAIL_FROM, SMTP_CA_FILE), parsed once at start. */
export interface MailSettings {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte. */
  secure: boolean;
  /** smtp://: STARTTLS is required (the default) or never tried (`?starttls=never`, a relay on this machine). */
  starttls: 'required' | 'never';
  auth: { user: string; pass: string } | null;
  /** SMTP_CA_FILE's certificates (PEM), trusted beside the system's; null: the system's only. */
  ca: string | null;
  from: Mailbox;
  /** The relay as logs and pages name it: scheme, host and port, never the credentials. */
  relay: string;
}

/**
 * SMTP_URL, MAIL_FROM and SMTP_CA_FILE: null (mail is off) when SMTP_URL is unset. Each problem
 * is pushed with what to set instead; the caller stops the start with them.
 *
 * - `smtp://[user[:password]@]host[:port]` (port 587): STARTTLS is required; the relay's
 *   certificate is checked. `?starttls=never` sends in the clear (a relay on this machine only).
 * - `smtps://[user[:password]@]host[:port]` (port 465): TLS from the start.
 * - User and password are percent-encoded (`%40` for an @ in a user name).
 */
export function parseMailSettings(env: Record<string, string | undefined>, problems: string[]): MailSettings | null {
  const raw = (env.SMTP_URL ?? '').trim();
  const fromRaw = (env.MAIL_FROM ?? '').trim();
  const caFile = (env.SMTP_CA_FILE ?? '').trim();
  if (raw === '') {
    if (fromRaw !== '') problems.push('MAIL_FROM is set but SMTP_URL is not: set SMTP_URL to send mail, or unset MAIL_FROM');
    if (caFile !== '') problems.push('SMTP_CA_FILE is set but SMTP_URL is not: set SMTP_URL to send mail, or unset SMTP_CA_FILE');
    return null;
  }
  const before = problems.length;
  const url = smtpUrl(raw, problems);
  let from: Mailbox | null = null;
  if (fromRaw === '')
    problems.push('MAIL_FROM must be set with SMTP_URL: the address mail is sent from, e.g. "Timetrack <time@example.org>"');
  else {
    const parsed = parseFrom(fromRaw);
    if (typeof parsed === 'string') problems.push(`MAIL_FROM: ${parsed}`);
    else from = parsed;
  }
  let ca: string | null = null;
  if (caFile !== '') {
    try {
      ca = readFileSync(caFile, 'utf8');
      if (!ca.includes('-----BEGIN CERTIFICATE-----')) {
        problems.push(`SMTP_CA_FILE ${JSON.stringify(caFile)} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
        ca = null;
      }
    } catch (error) {
      problems.push(`SMTP_CA_FILE ${JSON.stringify(caFile)} cannot be read: ${(error as Error).message}`);
    }
  }
  if (problems.length > before || url === null || from === null) return null;
  return { ...url, ca, from };
}

/** The relay's part of SMTP_URL, or null with its problems pushed. */
function smtpUrl(raw: string, problems: string[]): Omit<MailSettings, 'ca' | 'from'> | null {
  const say = (what: string) => problems.push(`SMTP_URL ${what} (got ${JSON.stringify(redacted(raw))})`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    say('must be a URL such as smtp://user:password@relay.example.org:587 or smtps://relay.example.org');
    return null;
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    say('must start with smtp:// (STARTTLS) or smtps:// (TLS)');
    return null;
  }
  const secure = url.protocol === 'smtps:';
  if (url.hostname === '') {
    say('must name the relay host');
    return null;
  }
  if (url.pathname !== '' && url.pathname !== '/') {
    say('must have no path: scheme, credentials, host, port and the starttls option only');
    return null;
  }
  if (url.hash !== '') {
    say('must have no #fragment');
    return null;
  }
  let starttls: 'required' | 'never' = 'required';
  for (const [key, value] of url.searchParams) {
    if (key !== 'starttls') {
      say(`has an unknown option ${JSON.stringify(key)}: the only one is starttls=required|never`);
      return null;
    }
    if (value !== 'required' && value !== 'never') {
      say('starttls must be required (the default) or never');
      return null;
    }
    starttls = value;
  }
  if (secure && starttls === 'never') {
    say('cannot be smtps:// with starttls=never: smtps is TLS from the start; use smtp://…?starttls=never for a plain relay');
    return null;
  }
  const port = url.port === '' ? (secure ? 465 : 587) : Number(url.port);
  let auth: MailSettings['auth'] = null;
  try {
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    if (user !== '') auth = { user, pass };
    else if (pass !== '') {
      say('has a password but no user name');
      return null;
    }
  } catch {
    say('has a user name or password that is not valid percent-encoding (write an @ as %40, a : as %3A)');
    return null;
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    host,
    port,
    secure,
    starttls,
    auth,
    relay: `${url.protocol}//${url.host}${starttls === 'never' ? ' (no TLS)' : secure ? ' (TLS)' : ' (STARTTLS)'}`,
  };
}

/** SMTP_URL as an error message may repeat it: the password replaced. */
function redacted(raw: string): string {
  return raw.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}
