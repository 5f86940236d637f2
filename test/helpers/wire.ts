import http from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/*
 * The tests' HTTP client (`send`, the settings client): node:http on a keep-alive agent, saying
 * on the wire what Node's fetch says (its default headers, the path its URL parser writes, its
 * redirects followed unless `manual`, its decoding of a compressed answer). fetch (undici and its
 * web streams) cost ~330 µs of CPU a request against ~80 µs here (client and a bare server in one
 * process, 3,000 requests each, alternated), and the http tier makes tens of thousands of them.
 */

const agent = new http.Agent({ keepAlive: true });

/** The headers Node's fetch adds to every request (a request's own take their place). */
const FETCH_DEFAULTS: Record<string, string> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

export interface WireRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | URLSearchParams;
  /** `follow` (fetch's default) or `manual` (the 3xx answer as it came). */
  redirect?: 'follow' | 'manual';
}

export interface WireResponse {
  status: number;
  headers: Headers;
  /** The body, decoded as fetch decodes it (gzip, deflate, br). */
  bytes: Buffer;
  text: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** One request (and, unless `redirect: 'manual'`, the redirects after it, at most 20, as fetch). */
export async function wire(url: string | URL, init: WireRequest = {}): Promise<WireResponse> {
  let target = new URL(url);
  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body instanceof URLSearchParams ? init.body.toString() : init.body;
  const headers: Record<string, string> = { ...FETCH_DEFAULTS };
  for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = value;
  for (let hop = 0; ; hop++) {
    const response = await once(target, method, headers, body);
    const location = response.headers.get('location');
    if (init.redirect === 'manual' || !REDIRECTS.has(response.status) || location === null) return response;
    if (hop === 20) throw new TypeError('fetch failed: redirect count exceeded');
    target = new URL(location, target);
    // As fetch: a 303, or a 301/302 after a POST, goes on as a GET without the body.
    if (response.status === 303 ? method !== 'HEAD' : [301, 302].includes(response.status) && method === 'POST') {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
  }
}

function once(
  target: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  retried = false,
): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = http.request(
      target,
      { method, agent, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const received = new Headers();
          const raw = response.rawHeaders;
          for (let i = 0; i < raw.length; i += 2) received.append(raw[i]!, raw[i + 1]!);
          try {
            const bytes = decode(Buffer.concat(chunks), received.get('content-encoding'));
            resolve({ status: response.statusCode ?? 0, headers: received, bytes, text: bytes.toString('utf8') });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed as the request went out on it (its keep-alive
      // timeout, 5 s, ran out while a test held the event loop): the server never read it, so it
      // goes again on a new connection, once (Node's documented remedy).
      if (request.reusedSocket && !answered && !retried && (error.code === 'ECONNRESET' || error.code === 'EPIPE'))
        resolve(once(target, method, headers, body, true));
      else reject(error);
    });
    request.end(body);
  });
}

function decode(bytes: Buffer, encoding: string | null): Buffer {
  if (bytes.length === 0 || encoding === null) return bytes;
  let out = bytes;
  // Codings are listed in the order applied; undone from the last.
  for (const coding of encoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') out = gunzipSync(out);
    else if (coding === 'deflate') out = inflateSync(out);
    else if (coding === 'br') out = brotliDecompressSync(out);
    else if (coding !== 'identity') return bytes;
  }
  return out;
}
