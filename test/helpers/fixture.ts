import { DomainError, type DomainErrorCode } from '../../src/errors.js';
import { type ContractDocument, loadContract } from '../../src/contract.js';
import type { Handlers } from '../../src/operations/types.js';

/**
 * The real contract plus three fixture operations with scopes, array parameters and a body, so
 * the pipeline's order and its problems can be shown before the domain routes exist. The real
 * pipeline serves them; only the handlers are the test's.
 */
const errors = (...statuses: string[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        $ref: `#/components/responses/${
          {
            '400': 'BadRequest',
            '401': 'Unauthorized',
            '403': 'Forbidden',
            '404': 'NotFound',
            '409': 'Conflict',
            '413': 'PayloadTooLarge',
            '429': 'RateLimited',
            '500': 'InternalError',
          }[status]
        }`,
      },
    ]),
  );

const echo = {
  description: 'Echo',
  content: { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data: {} } } } },
};

export function fixtureContract(): ContractDocument {
  const document = loadContract();
  document.paths['/api/v1/fixture/items'] = {
    get: {
      operationId: 'fixtureList',
      security: [{ bearerAuth: ['entries:read'] }],
      parameters: [
        { $ref: '#/components/parameters/WorkspaceId' },
        { name: 'tagIds', in: 'query', schema: { type: 'array', maxItems: 3, items: { type: 'string', minLength: 1 } } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } },
        { name: 'billable', in: 'query', schema: { type: 'boolean' } },
      ],
      responses: { '200': echo, ...errors('400', '401', '403', '429', '500') },
    },
    post: {
      operationId: 'fixtureCreate',
      security: [{ bearerAuth: ['entries:write'] }],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              required: ['name'],
              properties: { name: { type: 'string', maxLength: 5 }, count: { type: 'integer' }, workspaceId: { type: 'string' } },
            },
          },
        },
      },
      responses: { '200': echo, ...errors('400', '401', '403', '413', '429', '500') },
    },
  } as never;
  document.paths['/api/v1/fixture/fail/{mode}'] = {
    get: {
      operationId: 'fixtureFail',
      security: [{ bearerAuth: ['entries:read'] }],
      parameters: [{ name: 'mode', in: 'path', required: true, schema: { type: 'string' } }],
      responses: errors('401', '403', '404', '409', '429', '500'),
    },
  } as never;
  return document;
}

/** Adds the fixture operations' handlers to the real ones. */
export const fixtureHandlers = (real: Handlers): Handlers => {
  const loose = {
    fixtureList: ({ query }: { query: unknown }) => ({ status: 200, body: { data: { query } } }),
    fixtureCreate: ({ body }: { body: unknown }) => ({ status: 200, body: { data: { body } } }),
    fixtureFail: ({ path }: { path: { mode: string } }) => {
      if (path.mode === 'boom') throw new Error('secret internal detail tt_should_not_leak');
      throw new DomainError(path.mode as DomainErrorCode, `fixture ${path.mode}`);
    },
  };
  return { ...real, ...loose } as unknown as Handlers;
};
