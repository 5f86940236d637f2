import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { type ContractDocument, loadContract } from '../../src/contract.js';

/**
 * Checks real responses against openapi/openapi.yaml: the status must be listed for the
 * operation, the content type must match, the body must validate against the schema and every
 * header the contract marks required must be present. A response of an unknown route must be a
 * 404 problem document.
 */
export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  headers: Headers;
  body: unknown;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  pointer: string;
  operation: Record<string, unknown>;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export class ContractChecker {
  private readonly ajv: Ajv2020;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: ContractDocument = loadContract()) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(this.ajv);
    this.ajv.addSchema(document as object, 'contract');
    this.routes = [];
    for (const [template, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
        const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);
        this.routes.push({
          method: method.toUpperCase(),
          template,
          pattern,
          pointer: `#/paths/${escapePointer(template)}/${method}`,
          operation: operation as Record<string, unknown>,
        });
      }
    }
  }

  /** Pointers already followed (every response of a test run resolves the same few hundred). */
  private readonly resolved = new Map<string, { pointer: string; node: Record<string, unknown> }>();

  private resolve(pointer: string): { pointer: string; node: Record<string, unknown> } {
    let found = this.resolved.get(pointer);
    if (!found) this.resolved.set(pointer, (found = this.follow(pointer)));
    return found;
  }

  private follow(pointer: string): { pointer: string; node: Record<string, unknown> } {
    let node: unknown = this.document;
    for (const part of pointer.replace(/^#\//, '').split('/')) {
      node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    const record = node as Record<string, unknown>;
    if (typeof record?.$ref === 'string') return this.follow(record.$ref);
    return { pointer, node: record };
  }

  private readonly byMethod = new Map<string, Route[]>();

  /** The operations of one method (a response is matched against ~40, not all ~110). */
  private routesOf(method: string): Route[] {
    let routes = this.byMethod.get(method);
    if (!routes) this.byMethod.set(method, (routes = this.routes.filter((r) => r.method === method)));
    return routes;
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(`contract${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  /** Returns a list of violations (empty when the response conforms). */
  violations(response: ObservedResponse): string[] {
    const pathOnly = response.path.split('?')[0] as string;
    // HEAD is answered by the GET operation of the path, with its headers and no body.
    const head = response.method === 'HEAD';
    if (head && response.body !== '') return [`HEAD ${pathOnly} -> ${response.status}: a HEAD response has a body`];
    const method = head ? 'GET' : response.method;
    const route = this.routesOf(method).find((r) => r.pattern.test(pathOnly));
    const where = `${response.method} ${pathOnly} -> ${response.status}`;
    if (!route) {
      // Unknown routes: a 404 no-such-route problem document, or a problem page.
      if (response.status !== 404) return [`${where}: no contract operation, yet status is not 404`];
      if (head) return this.checkContentType(where, response, 'application/problem+json');
      return this.checkBody(where, '#/components/schemas/Problem', response, 'application/problem+json');
    }
    const responses = route.operation.responses as Record<string, unknown>;
    if (!(String(response.status) in responses)) {
      return [`${where}: status ${response.status} is not listed for ${String(route.operation.operationId)}`];
    }
    const { pointer, node } = this.resolve(`${route.pointer}/responses/${response.status}`);
    const problems: string[] = [];
    for (const [name, header] of Object.entries((node.headers ?? {}) as Record<string, unknown>)) {
      const resolved = this.resolve(`${pointer}/headers/${escapePointer(name)}`).node;
      if (resolved.required === true && !response.headers.has(name)) problems.push(`${where}: required header ${name} is missing`);
      void header;
    }
    const content = node.content as Record<string, unknown> | undefined;
    if (!content) {
      if (response.body !== undefined && response.body !== '') problems.push(`${where}: the contract lists no body`);
      return problems;
    }
    const mediaTypes = Object.keys(content);
    const actual = (response.contentType ?? '').split(';')[0]?.trim() ?? '';
    const mediaType = mediaTypes.find((m) => m === actual);
    if (!mediaType) return [...problems, `${where}: content type ${actual} is not one of ${mediaTypes.join(', ')}`];
    if (head) return problems;
    return [...problems, ...this.checkBody(where, `${pointer}/content/${escapePointer(mediaType)}/schema`, response, mediaType)];
  }

  /** Violations of a webhook request body against the contract's `webhooks` section. */
  webhookViolations(event: string, body: unknown): string[] {
    const validate = this.validator(`#/webhooks/${escapePointer(event)}/post/requestBody/content/application~1json/schema`);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `webhook ${event}: body${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }

  private checkContentType(where: string, response: ObservedResponse, mediaType: string): string[] {
    const actual = (response.contentType ?? '').split(';')[0]?.trim();
    return actual === mediaType ? [] : [`${where}: content type ${actual} is not ${mediaType}`];
  }

  private checkBody(where: string, schemaPointer: string, response: ObservedResponse, mediaType: string): string[] {
    const wrongType = this.checkContentType(where, response, mediaType);
    if (wrongType.length > 0) return wrongType;
    const target = this.resolve(schemaPointer).pointer;
    const validate = this.validator(target);
    if (validate(response.body)) return [];
    return (validate.errors ?? []).map((e) => `${where}: body${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }
}

let shared: ContractChecker | undefined;
export const contractChecker = (): ContractChecker => (shared ??= new ContractChecker());
