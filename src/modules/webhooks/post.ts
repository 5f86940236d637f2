import http from 'node:http';
import https from 'node:https';
import type { DeliveryError, EventRecord, Outcome, Owner } from './queue.js';

export type { EventRecord, Owner } from './queue.js';
import type { ResolvedAddress } from './targets.js';

/** The envelope `data` for the owner's current visibility, or null when the event is withheld. */
export function dataFor(event: EventRecord, owner: Owner): object | null {
  const payload = JSON.parse(event.payload ?? 'null') as Record<string, unknown>;
  if (event.entity === 'invoice') {
    // Withheld from whoever does not read invoices: never without money visibility (the spec), the same rule as the pages.
    if (!owner.readsInvoices) return null;
    return event.event === 'invoice.status_changed'
      ? { kind: 'invoice-status', invoice: payload.invoice, from: payload.from, to: payload.to }
      : { kind: 'invoice', invoice: payload.invoice };
  }
  const colleague = payload.authorId !== owner.userId;
  if (colleague && !owner.canViewOthersTime) return null;
  if (event.event === 'entry.deleted') return { kind: 'entry-deleted', id: payload.id, authorId: payload.authorId };
  return { kind: 'entry', entry: colleague && !owner.canViewOthersMoney ? { ...payload, hourlyRate: null } : payload };
}

/** Bytes of a response's body read (and dropped) so its connection can serve the next delivery; beyond, the connection is closed. */
const DRAIN_LIMIT = 64 * 1024;

/**
 * The connection a subscription's lane keeps between its deliveries (issue 60: a new TCP
 * connection per delivery was the largest part of the sender's profile). One keep-alive agent
 * of one socket per target and checked address: every attempt still checks the URL and resolves
 * and checks its address first (targets.ts), and a kept socket is used only when that address is
 * the one it is connected to; any other address gets a new agent, the old one closed. The lane
 * closes it when its batch ends, so no socket outlives a lease.
 */
export function laneConnection(ca?: string) {
  let kept: { key: string; http: http.Agent; https: https.Agent } | null = null;
  const close = () => {
    kept?.http.destroy();
    kept?.https.destroy();
    kept = null;
  };
  return {
    agentFor(url: URL, pinned: ResolvedAddress): { http: http.Agent; https: https.Agent } {
      const key = `${url.protocol}//${url.host} ${pinned.address}`;
      if (kept?.key !== key) {
        close();
        kept = {
          key,
          http: new http.Agent({ keepAlive: true, maxSockets: 1 }),
          https: new https.Agent({ keepAlive: true, maxSockets: 1, maxCachedSessions: 0, ...(ca ? { ca } : {}) }),
        };
      }
      return { http: kept.http, https: kept.https };
    },
    close,
  };
}

export type LaneConnection = ReturnType<typeof laneConnection>;

/**
 * One POST of a signed delivery, connected to the checked address (pinned: Host, SNI and the
 * certificate check keep the URL's hostname), never following redirects. Without a lane's
 * connection (a test ping), a fresh agent and socket; with one, its kept socket to the same
 * checked address, the response's body read up to DRAIN_LIMIT so the socket can be used again.
 */
export async function post(
  url: URL,
  pinned: ResolvedAddress,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; budgetMs?: number; ca?: string | undefined; connection?: LaneConnection },
): Promise<Outcome> {
  // A fresh agent per attempt unless the lane keeps one: no pooled socket or TLS session of another address.
  const agent = options.connection
    ? options.connection.agentFor(url, pinned)
    : {
        https: new https.Agent({ keepAlive: false, maxCachedSessions: 0, ...(options.ca ? { ca: options.ca } : {}) }),
        http: new http.Agent({ keepAlive: false }),
      };
  const keep = options.connection !== undefined;
  try {
    const got = await loadGot();
    const stream = got.stream.post(url.href, {
      body,
      headers,
      dnsLookup: ((_hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) =>
        opts.all
          ? callback(null, [{ address: pinned.address, family: pinned.family }])
          : callback(null, pinned.address, pinned.family)) as never,
      timeout: { request: options.timeoutMs },
      agent,
    });
    const responseCode = await new Promise<number>((resolve, reject) => {
      stream.on('response', (response: { statusCode: number }) => {
        resolve(response.statusCode);
        // The body is not needed: dropped, never buffered; read to its end (up to a limit) when the connection is kept.
        if (!keep) {
          stream.destroy();
          return;
        }
        let read = 0;
        stream.on('data', (chunk: Buffer) => {
          read += chunk.byteLength;
          if (read > DRAIN_LIMIT) stream.destroy();
        });
        stream.resume();
      });
      stream.on('error', reject);
    });
    if (responseCode >= 200 && responseCode < 300) return { status: 'success', responseCode };
    if (responseCode >= 300 && responseCode < 400)
      return {
        status: 'redirect_not_followed',
        responseCode,
        error: 'redirect_not_followed',
        detail: `The receiver answered ${responseCode}; redirects are not followed.`,
      };
    return { status: 'failure', responseCode, error: 'http_status', detail: `The receiver answered ${responseCode}.` };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const error_ = networkError(code);
    const detail =
      error_ === 'timeout'
        ? `No answer within ${options.budgetMs ?? options.timeoutMs} ms.`
        : `${code ?? 'error'}: ${(error as Error).message}`;
    return { status: 'failure', responseCode: null, error: error_, detail };
  } finally {
    if (!keep) {
      agent.https.destroy();
      agent.http.destroy();
    }
  }
}

/** The stable code of a failed connection (the delivery log's `error`), from Node's or got's error code. */
export function networkError(code: string | undefined): DeliveryError {
  if (code === 'ETIMEDOUT') return 'timeout';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'connection_reset';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'unreachable';
  if (
    code !== undefined &&
    (code === 'EPROTO' || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.startsWith('CERT_') || TLS_CODES.has(code))
  )
    return 'tls';
  return 'network';
}

/** OpenSSL's certificate verification codes that do not start with CERT_. */
const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'HOSTNAME_MISMATCH',
]);

/**
 * got, imported on the first attempt: of the services' modules it is the slowest to load (~80 ms),
 * and the command line, which builds the same services, never sends. One instance with what every
 * delivery shares (no redirects followed, no retries: the queue retries; no DNS cache: each attempt
 * resolves and checks its target; any status is an outcome, not an error), so an attempt merges
 * only its own options: 427 / 420 / 365 / 410 against 485 / 487 / 411 / 399 µs of CPU a POST
 * through post() on a kept loopback connection (6,000 POSTs each, four alternated pairs).
 */
let gotModule: Promise<ReturnType<typeof import('got').default.extend>> | undefined;
const loadGot = () =>
  (gotModule ??= import('got').then((m) =>
    m.default.extend({
      headers: { 'content-type': 'application/json', 'user-agent': 'timetrack-webhooks/1.0' },
      dnsCache: false,
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
    }),
  ));
