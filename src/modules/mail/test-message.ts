import type { Clock } from '../../clock.js';
import { newTimeId } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { isOperator, type Principal } from '../../principal.js';
import { addressProblem } from './address.js';
import { mailErrors as errors } from './errors.js';
import type { Outcome } from './outcome.js';
import type { MailSettings } from './settings.js';
import { renderHtml, renderText, testMail } from './templates.js';
import type { Relay } from './transport.js';

/** `timetrack mail test ADDRESS` (the operator's): a test message now, not queued, and what the relay answered. */
export function testMessage({
  settings,
  relay,
  clock,
  domain,
  logger,
}: {
  settings: MailSettings | null;
  relay: Relay | null;
  clock: Clock;
  domain: string;
  logger: Logger;
}) {
  return async function test(principal: Principal, address: string): Promise<{ to: string; relay: string } & Outcome> {
    if (!isOperator(principal)) throw errors.operatorOnly('send a test message');
    if (!settings || !relay) throw errors.off();
    const to = address.trim();
    const problem = addressProblem(to);
    if (problem) throw errors.undeliverable(to, problem, 'address');
    const message = testMail({ language: 'en', timeZone: 'UTC' }, { relay: settings.relay, at: clock.now() });
    const id = newTimeId('mail', clock.now());
    const outcome = await relay({
      from: settings.from,
      to: { address: to, name: null },
      subject: message.subject,
      text: renderText(message),
      html: renderHtml(message, 'en'),
      attachments: [],
      messageId: `<${id}@${domain}>`,
      date: new Date(clock.now()),
    });
    logger.info('test mail', {
      status: outcome.status,
      ...(outcome.status === 'sent' ? { response: outcome.response } : { error: outcome.error }),
    });
    return { to, relay: settings.relay, ...outcome };
  };
}
