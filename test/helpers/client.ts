import { expect } from 'chai';
import createClient from 'openapi-fetch';
import type { components, paths } from '../../generated/openapi.js';
import { contractChecker } from './contract.js';
import type { TestServer } from './server.js';

/**
 * The typed client a user of the API writes (examples/client.ts: openapi-fetch over the
 * generated types), for tests: paths, parameters, bodies and answers are checked by the compiler
 * against the contract, and every answer is also checked against the contract at run time, as
 * `server.request` does. A contract change that breaks clients breaks these tests at compile time.
 */
export function typedClient(server: Pick<TestServer, 'url' | 'ownerToken'>, token: string | null = server.ownerToken) {
  const checker = contractChecker();
  return createClient<paths>({
    baseUrl: server.url,
    ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
    fetch: async (request: Request) => {
      const response = await fetch(request);
      const text = await response.clone().text();
      const path = new URL(request.url).pathname;
      const violations = checker.violations({
        method: request.method,
        path,
        status: response.status,
        contentType: response.headers.get('content-type'),
        headers: response.headers,
        body: text ? (JSON.parse(text) as unknown) : undefined,
      });
      expect(violations, `contract violations of ${request.method} ${path}`).to.deep.equal([]);
      return response;
    },
  });
}

/** A problem document as the typed client gives it (`error`). */
export type Problem = components['schemas']['Problem'];
/** The stable part of a problem `type`. */
export type ProblemSlug = components['schemas']['ProblemSlug'];

/**
 * `expectProblem` for an answer of the typed client: exact status, no `data`, the problem content
 * type, all five fields, the type slug and, when given, the instance. Returns the problem (typed).
 */
export function expectTypedProblem(
  result: { data?: unknown; error?: Problem; response: Response },
  status: number,
  slug: ProblemSlug,
  problemsBase: string,
  instance?: string,
): Problem {
  const { data, error, response } = result;
  expect(response.status, JSON.stringify(error ?? data)).to.equal(status);
  expect(data).to.equal(undefined);
  expect(response.headers.get('content-type')).to.equal('application/problem+json');
  expect(error).to.be.an('object').that.has.all.keys('type', 'title', 'status', 'detail', 'instance');
  const problem = error as Problem;
  expect(problem.type).to.equal(`${problemsBase}/${slug}`);
  expect(problem.status).to.equal(status);
  expect(problem.title).to.be.a('string').and.not.equal('');
  expect(problem.detail).to.be.a('string').and.not.equal('');
  if (instance !== undefined) expect(problem.instance).to.equal(instance);
  return problem;
}
