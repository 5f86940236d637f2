import http from 'node:http';
import https from 'node:https';
import got from 'got';
import type { events } from '../events/schema.js';
import type { Outcome } from './queue.js';
import type { ResolvedAddress } from './targets.js';

/** The subscription owner's visibility, at send time. */
export interface Owner {
  userId: string;
  canViewOthersTime: boolean;
  canViewOthersMoney: boolean;
}

/** The envelope `data` for the owner's current visibility, or null when the event is withheld. */
export function dataFor(event: typeof events.$inferSelect, owner: Owner): object | null {
  const payload = JSON.parse(event.payload ?? 'null') as Record<string, unknown>;
  if (event.entity === 'invoice') {
    if (!owner.canViewOthersMoney) return null;
    return event.event === 'invoice.status_changed'
      ? { kind: 'invoice-status', invoice: payload.invoice, from: payload.from, to: payload.to }
      : { kind: 'invoice', invoice: payload.invoice };
  }
  const colleague = payload.authorId !== owner.userId;
  if (colleague && !owner.canViewOthersTime) return null;
  if (event.event === 'entry.deleted') return { kind: 'entry-deleted', id: payload.id, authorId: payload.authorId };
  return { kind: 'entry', entry: colleague && !owner.canViewOthersMoney ? { ...payload, hourlyRate: null } : payload };
}

/**
 * One POST of a signed delivery, connected to the checked address (pinned: Host, SNI and the
 * certificate check keep the URL's hostname), never following redirects, never pooling.
 */
export async function post(
  url: URL,
  pinned: ResolvedAddress,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; ca?: string | undefined },
): Promise<Outcome> {
  // A fresh agent per attempt: no pooled socket or TLS session can skip the address check.
  const agent = {
    https: new https.Agent({ keepAlive: false, maxCachedSessions: 0, ...(options.ca ? { ca: options.ca } : {}) }),
    http: new http.Agent({ keepAlive: false }),
  };
  try {
    const stream = got.stream.post(url.href, {
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'timetrack-webhooks/1.0', ...headers },
      dnsLookup: ((_hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) =>
        opts.all
          ? callback(null, [{ address: pinned.address, family: pinned.family }])
          : callback(null, pinned.address, pinned.family)) as never,
      dnsCache: false,
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: options.timeoutMs },
      agent,
    });
    const responseCode = await new Promise<number>((resolve, reject) => {
      stream.on('response', (response: { statusCode: number }) => {
        resolve(response.statusCode);
        // The body is not needed: drop it rather than buffer whatever the receiver sends.
        stream.destroy();
      });
      stream.on('error', reject);
    });
    if (responseCode >= 200 && responseCode < 300) return { status: 'success', responseCode };
    if (responseCode >= 300 && responseCode < 400)
      return { status: 'redirect_not_followed', responseCode, error: `redirect (${responseCode}) not followed` };
    return { status: 'failure', responseCode, error: `HTTP ${responseCode}` };
  } catch (error) {
    const code = (error as { code?: string }).code;
    return {
      status: 'failure',
      responseCode: null,
      error: code === 'ETIMEDOUT' ? `timeout after ${options.timeoutMs} ms` : `${code ?? 'error'}: ${(error as Error).message}`,
    };
  } finally {
    agent.https.destroy();
    agent.http.destroy();
  }
}
