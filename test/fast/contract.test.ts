import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { problemTypes } from '../../generated/problems.js';
import { loadContract } from '../../src/contract.js';

/**
 * The contract as a client reads it: every request body and success answer has an example, every
 * example is valid against its own schema (they cannot rot), every problem type has an example
 * document, and the outbound webhooks ask for no bearer token.
 */
describe('the contract for clients', () => {
  const contract = loadContract() as Record<string, unknown> & {
    paths: Record<string, Record<string, Operation>>;
    webhooks: Record<string, Record<string, Operation>>;
    components: { responses: Record<string, Response> };
  };
  interface Media {
    schema?: unknown;
    example?: unknown;
    examples?: Record<string, { value: unknown }>;
  }
  interface Response {
    $ref?: string;
    content?: Record<string, Media>;
    headers?: Record<string, unknown>;
  }
  interface Operation {
    operationId?: string;
    security?: unknown[];
    requestBody?: { content: Record<string, Media> };
    responses?: Record<string, Response>;
  }
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  ajv.addSchema(contract as object, 'contract');
  const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
  const resolve = (response: Response): [Response, string[]] => {
    if (!response.$ref) return [response, []];
    const name = response.$ref.split('/').pop() as string;
    return [contract.components.responses[name] as Response, ['components', 'responses', name]];
  };

  /** Every media type object that carries examples: its location (a JSON pointer) and itself. */
  function* media(): Generator<[string[], Media, string]> {
    for (const [root, items] of [
      ['paths', contract.paths],
      ['webhooks', contract.webhooks],
    ] as const) {
      for (const [path, item] of Object.entries(items)) {
        for (const [method, operation] of Object.entries(item)) {
          const name = `${method.toUpperCase()} ${path}`;
          for (const [type, m] of Object.entries(operation.requestBody?.content ?? {}))
            yield [[root, path, method, 'requestBody', 'content', type], m, `${name} request body`];
          for (const [status, r] of Object.entries(operation.responses ?? {})) {
            const [response, at] = resolve(r);
            for (const [type, m] of Object.entries(response.content ?? {}))
              yield [[...(at.length > 0 ? at : [root, path, method, 'responses', status]), 'content', type], m, `${name} ${status}`];
          }
        }
      }
    }
  }

  it('every request body and every success answer has an example', () => {
    const missing: string[] = [];
    for (const [at, m, name] of media()) {
      const success = at.includes('requestBody') || /^2/.test(at[at.indexOf('responses') + 1] ?? '') || at[0] === 'components';
      if (success && !at.includes('application/problem+json') && m.example === undefined && m.examples === undefined) missing.push(name);
    }
    expect([...new Set(missing)]).to.deep.equal([]);
  });

  it('every example is valid against the schema beside it', () => {
    const invalid: string[] = [];
    let checked = 0;
    for (const [at, m, name] of media()) {
      if (m.schema === undefined) continue;
      const validate = ajv.getSchema(`contract#/${pointer(...at, 'schema')}`);
      if (!validate) throw new Error(`no schema at ${at.join('/')}`);
      const values = [...(m.example === undefined ? [] : [m.example]), ...Object.values(m.examples ?? {}).map((e) => e.value)];
      for (const value of values) {
        checked++;
        if (!validate(value)) invalid.push(`${name}: ${JSON.stringify(validate.errors)}`);
      }
    }
    expect(invalid).to.deep.equal([]);
    expect(checked).to.be.above(40);
  });

  it('every problem type has an example document with its slug and status', () => {
    const documents = Object.values(contract.components.responses).flatMap((r) => {
      const m = r.content?.['application/problem+json'];
      return m ? [...(m.example ? [m.example] : []), ...Object.values(m.examples ?? {}).map((e) => e.value)] : [];
    }) as Array<{ type: string; status: number }>;
    const seen = new Map(documents.map((d) => [d.type.split('/').pop() as string, d.status]));
    for (const [slug, { status }] of Object.entries(problemTypes)) expect(seen.get(slug), slug).to.equal(status);
  });

  it('the webhooks are outbound: they ask for no bearer token', () => {
    for (const [event, item] of Object.entries(contract.webhooks)) expect(item.post?.security, event).to.deep.equal([]);
  });
});
