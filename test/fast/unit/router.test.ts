import { expect } from 'chai';
import type { Operation } from 'openapi-backend';
import {
  type ApiRequest,
  type BoundedErrors,
  CompiledRouter,
  ContractBackend,
  infoOf,
  MAX_VALIDATION_ERRORS,
} from '../../../src/http/backend.js';
import { loadContract } from '../../../src/contract.js';

const request = (method: string, path: string, query: ApiRequest['query'] = {}): ApiRequest =>
  ({ method, path, headers: {}, query }) as ApiRequest;

/** The error `fn` throws (any Error), or a failed test. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  return expect.fail('expected an Error, but nothing was thrown');
}

describe('http/backend', () => {
  let api: ContractBackend;
  let router: CompiledRouter;
  before(async () => {
    api = new ContractBackend(loadContract());
    await api.init();
    router = api.router as CompiledRouter;
  });

  /** The operationId matched for method and path, and the request after the match. */
  const match = (method: string, path: string, query: ApiRequest['query'] = {}) => {
    const req = request(method, path, query);
    const operation = router.matchOperation(req, true);
    return { operationId: operation.operationId, params: req.params, query: req.query };
  };

  describe('CompiledRouter.matchOperation', () => {
    it('matches exact paths with no path parameters', () => {
      expect(match('GET', '/api/v1/me')).to.deep.equal({ operationId: 'getMe', params: {}, query: {} });
      expect(match('GET', '/api/v1/entries').operationId).to.equal('listEntries');
      expect(match('POST', '/api/v1/entries').operationId).to.equal('createEntry');
      expect(match('POST', '/api/v1/entries/current/stop').operationId).to.equal('stopTimer');
      expect(match('GET', '/api/v1/openapi.json').operationId).to.equal('getOpenApiDocument');
    });

    it('reads the method in any case', () => {
      expect(match('post', '/api/v1/entries').operationId).to.equal('createEntry');
      expect(match('Get', '/api/v1/me').operationId).to.equal('getMe');
    });

    it('matches templated paths and fills params', () => {
      expect(match('GET', '/api/v1/entries/ent_1')).to.deep.equal({ operationId: 'getEntry', params: { id: 'ent_1' }, query: {} });
      expect(match('PATCH', '/api/v1/projects/p1')).to.deep.equal({ operationId: 'updateProject', params: { id: 'p1' }, query: {} });
      expect(match('DELETE', '/api/v1/tags/t1').operationId).to.equal('deleteTag');
    });

    it('percent-decodes path parameters once', () => {
      expect(match('GET', '/api/v1/entries/ent%20x').params).to.deep.equal({ id: 'ent x' });
      expect(match('GET', '/api/v1/entries/a%2Fb').params).to.deep.equal({ id: 'a/b' });
      expect(match('GET', '/api/v1/entries/%2541').params).to.deep.equal({ id: '%41' });
    });

    it('keeps a parameter that is not valid percent-encoding as sent', () => {
      expect(match('GET', '/api/v1/entries/%E0%A4%A')).to.deep.equal({
        operationId: 'getEntry',
        params: { id: '%E0%A4%A' },
        query: {},
      });
      expect(match('GET', '/api/v1/entries/100%').params).to.deep.equal({ id: '100%' });
    });

    it('matches the most specific path first: /entries/current is getCurrentEntry, not getEntry', () => {
      expect(match('GET', '/api/v1/entries/current')).to.deep.equal({ operationId: 'getCurrentEntry', params: {}, query: {} });
      expect(match('POST', '/api/v1/entries/current').operationId).to.equal('startTimer');
    });

    it('answers HEAD with the GET operation of the path', () => {
      expect(match('HEAD', '/api/v1/me').operationId).to.equal('getMe');
      expect(match('HEAD', '/api/v1/entries/current').operationId).to.equal('getCurrentEntry');
      expect(match('head', '/api/v1/entries/x')).to.deep.equal({ operationId: 'getEntry', params: { id: 'x' }, query: {} });
    });

    it('throws 405 for a known exact path with another method', () => {
      expect(thrown(() => router.matchOperation(request('DELETE', '/api/v1/me'), true)).message).to.equal(
        '405-methodNotAllowed: this method is not registered for the route',
      );
      expect(thrown(() => router.matchOperation(request('GET', '/api/v1/entries/current/stop'), true)).message).to.match(/^405/);
    });

    it('throws 405 for a known templated path with another method', () => {
      expect(thrown(() => router.matchOperation(request('PUT', '/api/v1/entries/x'), true)).message).to.match(/^405/);
      expect(thrown(() => router.matchOperation(request('POST', '/api/v1/clients/c1'), true)).message).to.match(/^405/);
    });

    it('throws 404 for an unknown path', () => {
      expect(thrown(() => router.matchOperation(request('GET', '/api/v1/nope'), true)).message).to.equal(
        '404-notFound: no route matches request',
      );
      expect(thrown(() => router.matchOperation(request('GET', '/api/v1/entries/a/b'), true)).message).to.match(/^404/);
      expect(thrown(() => router.matchOperation(request('GET', '/api/v2/me'), true)).message).to.match(/^404/);
    });

    it('throws 404 for a trailing slash (paths match exactly)', () => {
      expect(thrown(() => router.matchOperation(request('GET', '/api/v1/me/'), true)).message).to.match(/^404/);
      expect(thrown(() => router.matchOperation(request('GET', '/api/v1/entries/'), true)).message).to.match(/^404/);
      expect(thrown(() => router.matchOperation(request('GET', '/api/v1/entries/x/'), true)).message).to.match(/^404/);
    });

    it('returns undefined instead of throwing when not strict', () => {
      expect(router.matchOperation(request('GET', '/api/v1/nope'))).to.equal(undefined);
      expect(router.matchOperation(request('DELETE', '/api/v1/me'))).to.equal(undefined);
    });

    it('splits a comma-separated array query parameter into an array on match', () => {
      expect(match('GET', '/api/v1/entries', { tagIds: 'a,b' }).query).to.deep.equal({ tagIds: ['a', 'b'] });
    });

    it('flattens repeated and comma-separated values of an array query parameter', () => {
      expect(match('GET', '/api/v1/entries', { tagIds: ['a', 'b,c'] }).query).to.deep.equal({ tagIds: ['a', 'b', 'c'] });
    });

    it('makes a single array query value a one-element array', () => {
      expect(match('GET', '/api/v1/entries', { projectIds: 'p1' }).query).to.deep.equal({ projectIds: ['p1'] });
    });

    it('leaves scalar query parameters with commas as they are', () => {
      expect(match('GET', '/api/v1/entries', { from: '2026-11-02', search: 'a,b', tagIds: 'x' }).query).to.deep.equal({
        from: '2026-11-02',
        search: 'a,b',
        tagIds: ['x'],
      });
    });

    it('normalises on the request object itself', () => {
      const req = request('GET', '/api/v1/entries', { clientIds: 'c1,c2' });
      router.matchOperation(req, true);
      expect(req.query.clientIds).to.deep.equal(['c1', 'c2']);
    });
  });

  describe('CompiledRouter with overlapping templated paths (a small contract of its own)', () => {
    const op = (operationId: string) => ({ operationId, responses: { '200': { description: 'ok' } } });
    const definition = {
      openapi: '3.1.0',
      info: { title: 'overlap', version: '1' },
      paths: {
        '/files/{id}': { get: op('getFile') },
        '/files/{id}/{part}': { get: op('getPart') },
        '/files/{id}.json': { get: op('getFileJson') },
        '/files/{id}/raw': { get: op('getRaw') },
      },
    };
    const small = new CompiledRouter({ definition: definition as never });
    const matchSmall = (path: string) => {
      const req = request('GET', path);
      return { operationId: small.matchOperation(req, true).operationId, params: req.params };
    };

    it('tries the template with the most literal characters first, whatever the order in the contract', () => {
      expect(matchSmall('/files/report.json')).to.deep.equal({ operationId: 'getFileJson', params: { id: 'report' } });
      expect(matchSmall('/files/a/raw')).to.deep.equal({ operationId: 'getRaw', params: { id: 'a' } });
    });

    it('falls back to the less specific template', () => {
      expect(matchSmall('/files/report')).to.deep.equal({ operationId: 'getFile', params: { id: 'report' } });
      expect(matchSmall('/files/a/b')).to.deep.equal({ operationId: 'getPart', params: { id: 'a', part: 'b' } });
    });
  });

  describe('infoOf', () => {
    const info = (operationId: string) => infoOf(router.getOperation(operationId) as Operation);

    it('gives the scopes, array query parameters and that listEntries has no body', () => {
      const list = info('listEntries');
      expect(list.operationId).to.equal('listEntries');
      expect(list.method).to.equal('get');
      expect(list.path).to.equal('/api/v1/entries');
      expect(list.authenticated).to.equal(true);
      expect(list.scopes).to.deep.equal(['entries:read']);
      expect([...list.arrayQueryParams].sort()).to.deep.equal(['clientIds', 'projectIds', 'tagIds', 'taskIds']);
      expect(list.hasBody).to.equal(false);
    });

    it('createEntry needs entries:write and has a body', () => {
      expect(info('createEntry').scopes).to.deep.equal(['entries:write']);
      expect(info('createEntry').hasBody).to.equal(true);
    });

    it('getMe is authenticated without a scope', () => {
      expect(info('getMe').authenticated).to.equal(true);
      expect(info('getMe').scopes).to.deep.equal([]);
    });

    it('getOpenApiDocument is not authenticated', () => {
      expect(info('getOpenApiDocument').authenticated).to.equal(false);
      expect(info('getOpenApiDocument').scopes).to.deep.equal([]);
    });

    it('operationInfos has every operation, none of the webhooks', () => {
      const infos = api.operationInfos();
      expect(infos.get('getEntry')!.path).to.equal('/api/v1/entries/{id}');
      expect([...infos.keys()].filter((id) => id.startsWith('webhook'))).to.deep.equal([]);
    });

    it('throws for an operation the router did not compile', () => {
      const error = thrown(() => infoOf({ operationId: 'madeUp', method: 'get', path: '/x' } as Operation));
      expect(error.message).to.equal('operation madeUp was not compiled by the router');
    });
  });

  describe('ContractValidator.validateRequest', () => {
    const START = '2026-11-02T09:00:00Z';
    const END = '2026-11-02T10:00:00Z';

    const validate = (req: ApiRequest) => {
      const operation = router.matchOperation(req, true);
      return api.validator.validateRequest(req, operation);
    };

    it(`keeps at most MAX_VALIDATION_ERRORS (${MAX_VALIDATION_ERRORS}) errors and counts the rest in errors.omitted`, () => {
      const req = { ...request('POST', '/api/v1/entries'), params: {}, body: { start: START, end: END, tagIds: Array(100).fill(1) } };
      const result = validate(req as ApiRequest);
      const errors = result.errors as BoundedErrors;
      expect(MAX_VALIDATION_ERRORS).to.equal(20);
      expect(result.valid).to.equal(false);
      expect(errors).to.have.length(20);
      // maxItems once, then `must be string` for each of the 100 items: 101 errors.
      expect(errors.omitted).to.equal(81);
      expect(errors[0]!.keyword).to.equal('maxItems');
      expect(errors[0]!.instancePath).to.equal('/requestBody/tagIds');
      expect(errors[1]!.instancePath).to.equal('/requestBody/tagIds/0');
      expect(errors[19]!.instancePath).to.equal('/requestBody/tagIds/18');
    });

    it('sets no omitted count when every error is kept', () => {
      const req = { ...request('POST', '/api/v1/entries'), params: {}, body: { start: START, end: END, source: 'fax', foo: 1 } };
      const errors = validate(req as ApiRequest).errors as BoundedErrors;
      expect(errors.map((e) => `${e.instancePath} ${e.keyword}`)).to.deep.equal([
        '/requestBody additionalProperties',
        '/requestBody/source enum',
      ]);
      expect(errors.omitted).to.equal(undefined);
      expect('omitted' in errors).to.equal(false);
    });

    it('a valid request has no errors and its query coerced after the match', () => {
      const req = request('GET', '/api/v1/entries', { from: '2026-11-02', to: '2026-11-03', limit: '5', billable: 'false', tagIds: 'a,b' });
      const result = validate(req);
      expect(result.valid).to.equal(true);
      expect(result.errors).to.equal(null);
      expect(result.coerced!.query).to.deep.equal({ from: '2026-11-02', to: '2026-11-03', limit: 5, billable: false, tagIds: ['a', 'b'] });
    });

    it('validates path parameters the router found', () => {
      const req = request('GET', `/api/v1/entries/${'x'.repeat(101)}`);
      const errors = validate(req).errors as BoundedErrors;
      expect(errors.map((e) => `${e.instancePath} ${e.keyword}`)).to.deep.equal(['/path/id maxLength']);
    });
  });
});
