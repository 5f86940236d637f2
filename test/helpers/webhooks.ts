import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

/** A CA of the test's own and server certificates it signed (EC keys: quick to make). */
export async function makePki(names: string[]) {
  const ca = await generate([{ name: 'commonName', value: 'timetrack test CA' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const certs: Record<string, { key: string; cert: string }> = {};
  for (const name of names) {
    const pems = await generate([{ name: 'commonName', value: name }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      ca: { key: ca.private, cert: ca.cert },
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: name }] }],
    });
    certs[name] = { key: pems.private, cert: pems.cert };
  }
  return { ca: ca.cert, certs };
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  raw: Buffer;
  json: any;
}

export type Responder = (request: ReceivedRequest, res: ServerResponse) => void;

/** A webhook receiver on 127.0.0.1 that records every request with its raw bytes. */
export async function startReceiver(tls: { key: string; cert: string } | null, host = '127.0.0.1') {
  const requests: ReceivedRequest[] = [];
  let responder: Responder = (_req, res) => res.writeHead(200).end('ok');
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        json = null;
      }
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, json };
      requests.push(request);
      responder(request, res);
    });
  };
  const server: Server | ReturnType<typeof createHttpServer> = tls
    ? createHttpsServer({ key: tls.key, cert: tls.cert }, handle)
    : createHttpServer(handle);
  // TCP connections accepted (a lane keeps one to its target for a batch of deliveries).
  let connections = 0;
  server.on(tls ? 'secureConnection' : 'connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    requests,
    connections: () => connections,
    respond(next: Responder) {
      responder = next;
    },
    async waitFor(count: number, ms = 5000): Promise<void> {
      const until = Date.now() + ms;
      while (requests.length < count) {
        if (Date.now() > until) throw new Error(`receiver got ${requests.length} of ${count} requests`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An independent verification of a delivery, as a receiver would do it: over the raw bytes. */
export function verify(secret: string, request: ReceivedRequest, nowSec: number, toleranceSec = 300): boolean {
  const timestamp = String(request.headers['x-service-timestamp'] ?? '');
  const header = String(request.headers['x-service-signature'] ?? '');
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSec - Number(timestamp)) > toleranceSec) return false;
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(request.raw).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
