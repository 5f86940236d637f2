import type { ContractDocument } from '../contract.js';
import { deprecationAnchor } from './changelog.js';

/**
 * Deprecation made visible to clients. An operation, or a parameter, that the contract marks
 * `deprecated: true` carries beside it when it was deprecated and when it goes:
 *
 *   deprecated: true
 *   x-deprecated-at: "2026-12-01"      (a date, or an RFC 3339 date-time)
 *   x-sunset: "2027-06-01"
 *
 * (the contract lint refuses a deprecated operation or parameter without them). Every answer of a
 * deprecated operation, and of an operation called with a deprecated parameter, then carries
 * `Deprecation: @<unix seconds>` (RFC 9745), `Sunset: <HTTP-date>` (RFC 8594) and a `Link` to
 * the deprecation's entry in the changelog (`rel="deprecation"`). With several deprecated things
 * in one request, the earliest dates apply and each has its link.
 */
export interface Deprecations {
  /** Whether the contract deprecates the operation or any of its parameters (else `headers` is always null). */
  touches(operationId: string): boolean;
  /** The headers for a request of this operation (its query and headers as sent), or null. */
  headers(
    operationId: string,
    request: { query: Record<string, unknown>; headers: Record<string, unknown> },
  ): Record<string, string> | null;
}

interface Notice {
  location: string;
  /** ms since the epoch. */
  since: number;
  sunset: number;
}

interface Deprecated {
  in: string;
  name: string;
  notice: Notice;
}

interface OperationDeprecations {
  /** The operation's own headers, made once (when only it is deprecated). */
  own: Record<string, string> | null;
  notice: Notice | null;
  parameters: Deprecated[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))?$/;

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `x-deprecated-at` or `x-sunset` as ms; throws naming the place and the form it wants. */
function instant(owner: Node, key: 'x-deprecated-at' | 'x-sunset', location: string): number {
  const value = owner[key];
  const ms = typeof value === 'string' && DATE.test(value) ? Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value) : NaN;
  if (Number.isNaN(ms))
    throw new Error(
      `${location} is deprecated: true, so the contract must say when in ${key} (a date such as "2026-12-01", or an RFC 3339 date-time); it has ${JSON.stringify(value)}`,
    );
  return ms;
}

function notice(owner: Node, location: string): Notice {
  const since = instant(owner, 'x-deprecated-at', location);
  const sunset = instant(owner, 'x-sunset', location);
  if (sunset < since)
    throw new Error(`${location}: x-sunset (${String(owner['x-sunset'])}) is before x-deprecated-at (${String(owner['x-deprecated-at'])})`);
  return { location, since, sunset };
}

/** A local `#/…` reference followed. */
function deref(contract: ContractDocument, node: unknown): Node {
  let current = node;
  for (let depth = 0; isNode(current) && typeof current.$ref === 'string' && depth < 32; depth++) {
    const ref: string = current.$ref;
    current = ref
      .replace(/^#\//, '')
      .split('/')
      .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((at, key) => (isNode(at) ? at[key] : undefined), contract);
  }
  return isNode(current) ? current : {};
}

function headersOf(notices: Notice[], changelogUrl: string): Record<string, string> {
  const since = Math.min(...notices.map((n) => n.since));
  const sunset = Math.min(...notices.map((n) => n.sunset));
  return {
    Deprecation: `@${Math.floor(since / 1000)}`,
    Sunset: new Date(sunset).toUTCString(),
    Link: notices.map((n) => `<${changelogUrl}#${deprecationAnchor(n.location)}>; rel="deprecation"; type="text/html"`).join(', '),
  };
}

/** The deprecations of the contract's operations (throws at start for a deprecation without its dates). */
export function compileDeprecations(contract: ContractDocument, changelogUrl: string): Deprecations {
  const byOperation = new Map<string, OperationDeprecations>();
  for (const [path, rawItem] of Object.entries(contract.paths ?? {})) {
    const item = deref(contract, rawItem);
    for (const method of METHODS) {
      const operation = item[method];
      if (!isNode(operation) || typeof operation.operationId !== 'string') continue;
      const location = `${method.toUpperCase()} ${path}`;
      const own = operation.deprecated === true ? notice(operation, location) : null;
      // The operation's parameters override the path's of the same place and name.
      const parameters = new Map<string, Node>();
      for (const list of [item.parameters, operation.parameters]) {
        if (!Array.isArray(list)) continue;
        for (const raw of list) {
          const parameter = deref(contract, raw);
          parameters.set(`${String(parameter.in)}.${String(parameter.name)}`, parameter);
        }
      }
      const deprecated: Deprecated[] = [];
      for (const [key, parameter] of parameters) {
        if (parameter.deprecated !== true) continue;
        deprecated.push({ in: String(parameter.in), name: String(parameter.name), notice: notice(parameter, `${location} ${key}`) });
      }
      if (!own && deprecated.length === 0) continue;
      byOperation.set(operation.operationId, { own: own ? headersOf([own], changelogUrl) : null, notice: own, parameters: deprecated });
    }
  }

  /** A deprecated parameter counts when the request uses it (a path parameter always does). */
  const used = (parameter: Deprecated, request: { query: Record<string, unknown>; headers: Record<string, unknown> }) => {
    if (parameter.in === 'query') return request.query[parameter.name] !== undefined;
    if (parameter.in === 'header') return request.headers[parameter.name.toLowerCase()] !== undefined;
    return parameter.in === 'path';
  };

  return {
    touches: (operationId) => byOperation.has(operationId),
    headers(operationId, request) {
      const found = byOperation.get(operationId);
      if (!found) return null;
      const notices = found.parameters.filter((p) => used(p, request)).map((p) => p.notice);
      if (notices.length === 0) return found.own;
      return headersOf(found.notice ? [found.notice, ...notices] : notices, changelogUrl);
    },
  };
}
