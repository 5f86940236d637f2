import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ConfigError, parseConfig } from '../../../src/config.js';
import { MAIN } from '../../helpers/entry.js';

const problemOf = (env: Record<string, string>): string => {
  try {
    parseConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
};

describe('mail: SMTP_URL, MAIL_FROM and SMTP_CA_FILE', () => {
  const FROM = { MAIL_FROM: 'Timetrack <time@example.org>' };

  it('is off without SMTP_URL; smtp:// requires STARTTLS on port 587, smtps:// is TLS on 465, starttls=never sends in the clear', () => {
    expect(parseConfig({}).mail).to.equal(null);
    expect(parseConfig({ ...FROM, SMTP_URL: 'smtp://relay.example.org' }).mail).to.deep.include({
      host: 'relay.example.org',
      port: 587,
      secure: false,
      starttls: 'required',
      auth: null,
      relay: 'smtp://relay.example.org (STARTTLS)',
      from: { address: 'time@example.org', name: 'Timetrack' },
    });
    expect(parseConfig({ ...FROM, SMTP_URL: 'smtps://ada%40example.org:p%3Ass@relay.example.org' }).mail).to.deep.include({
      port: 465,
      secure: true,
      auth: { user: 'ada@example.org', pass: 'p:ss' },
      relay: 'smtps://relay.example.org (TLS)',
    });
    expect(parseConfig({ ...FROM, SMTP_URL: 'smtp://127.0.0.1:2525?starttls=never' }).mail).to.deep.include({
      port: 2525,
      starttls: 'never',
    });
    expect(parseConfig({ SMTP_URL: 'smtp://relay.example.org', MAIL_FROM: '"Acme, Inc." <time@example.org>' }).mail?.from).to.deep.equal({
      address: 'time@example.org',
      name: 'Acme, Inc.',
    });
  });

  it('refuses what is wrong, saying what to write instead, and never repeats the password', () => {
    expect(problemOf({ ...FROM, SMTP_URL: 'http://relay.example.org' })).to.match(
      /SMTP_URL must start with smtp:\/\/ \(STARTTLS\) or smtps:\/\//,
    );
    expect(problemOf({ ...FROM, SMTP_URL: 'relay.example.org:25' })).to.match(/SMTP_URL must (be a URL|start with smtp)/);
    expect(problemOf({ ...FROM, SMTP_URL: 'smtp://relay.example.org?tls=off' })).to.match(
      /unknown option "tls": the only one is starttls=required\|never/,
    );
    expect(problemOf({ ...FROM, SMTP_URL: 'smtp://relay.example.org?starttls=maybe' })).to.match(
      /starttls must be required \(the default\) or never/,
    );
    expect(problemOf({ ...FROM, SMTP_URL: 'smtps://relay.example.org?starttls=never' })).to.match(
      /cannot be smtps:\/\/ with starttls=never/,
    );
    expect(problemOf({ ...FROM, SMTP_URL: 'smtp://relay.example.org/path' })).to.match(/must have no path/);
    expect(problemOf({ ...FROM, SMTP_URL: 'smtp://relay.example.org:99999' })).to.match(/SMTP_URL must be a URL/);
    const secret = problemOf({ ...FROM, SMTP_URL: 'ftp://ada:hunter2secret@relay.example.org' });
    expect(secret).not.to.include('hunter2secret');
    expect(problemOf({ SMTP_URL: 'smtp://relay.example.org' })).to.match(/MAIL_FROM must be set with SMTP_URL/);
    expect(problemOf({ SMTP_URL: 'smtp://relay.example.org', MAIL_FROM: 'a@example.org, b@example.org' })).to.match(
      /MAIL_FROM: it must name exactly one address/,
    );
    expect(problemOf({ SMTP_URL: 'smtp://relay.example.org', MAIL_FROM: 'Time <time@example.org>\r\nBcc: x@y.org' })).to.match(
      /control characters/,
    );
    expect(problemOf({ MAIL_FROM: 'time@example.org' })).to.match(/MAIL_FROM is set but SMTP_URL is not/);
    expect(problemOf({ ...FROM, SMTP_URL: 'smtp://relay.example.org', SMTP_CA_FILE: '/nonexistent/ca.pem' })).to.match(
      /SMTP_CA_FILE "\/nonexistent\/ca.pem" cannot be read/,
    );
  });

  it('an invalid SMTP_URL stops the start with what is wrong (exit 2)', async () => {
    const run = promisify(execFile);
    const failed = await run(process.execPath, [...MAIN], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_PATH: ':memory:',
        SMTP_URL: 'smtp://relay.example.org?tls=off',
        MAIL_FROM: 'time@example.org',
      },
    }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).to.equal(2);
    expect(failed?.stderr).to.match(/^timetrack: Invalid configuration: SMTP_URL has an unknown option "tls"/);
  });
});
