/*
 * Writes the contract's examples from the real server: `npm run examples` starts it on an
 * in-memory database with a fixed clock, makes one scripted session of calls (a client, a
 * project, entries, a timer, reports …), and puts each operation's request body and success
 * answer, each problem type's document and each webhook payload into openapi/openapi.yaml as
 * `example` / `examples`. The examples are what the server says, not what someone remembered;
 * test/fast/contract.test.ts validates every example against its schema, so they cannot rot.
 */
import { OPERATOR } from '../src/principal.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, parseDocument, type YAMLMap } from 'yaml';
import { ManualClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { dataFor } from '../src/modules/webhooks/post.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { startServer } from '../src/server.js';

const contractPath = join(PACKAGE_ROOT, 'openapi', 'openapi.yaml');

interface Call {
  operationId: string;
  method: string;
  path: string;
  body?: unknown;
  token?: string | null;
}

const bodies = new Map<string, unknown>();
const answers = new Map<string, unknown>();
const problems = new Map<string, unknown>();

/** Lists keep two rows in an example. */
const abridge = (answer: unknown): unknown => {
  if (answer && typeof answer === 'object' && 'data' in answer && Array.isArray((answer as { data: unknown[] }).data))
    return { ...answer, data: (answer as { data: unknown[] }).data.slice(0, 2) };
  return answer;
};

async function session(): Promise<void> {
  const clock = new ManualClock(Date.UTC(2026, 10, 2, 10, 0, 30));
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_PATH: ':memory:',
    SCHEDULER_CRON: 'off',
    READER_THREADS: '0',
    TZ: 'UTC',
    BASE_URL: 'https://time.example.org',
    RATE_LIMIT_TOKEN_PER_MIN: '1000',
    RATE_LIMIT_ANONYMOUS_PER_MIN: '3',
    MAX_BODY_BYTES: '2048',
  });
  let banner = '';
  const running = await startServer(config, {
    clock,
    senderInProcess: true,
    logger: createLogger('silent'),
    announce: (t) => (banner += t),
  });
  const owner = /token +(tt_\S+)/.exec(banner)?.[1] as string;
  const call = async ({ operationId, method, path, body, token = owner }: Call): Promise<{ status: number; json: unknown }> => {
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    const json = text ? (JSON.parse(text) as unknown) : null;
    if (res.status >= 200 && res.status < 300) {
      if (body !== undefined && !bodies.has(operationId)) bodies.set(operationId, body);
      if (json !== null && !answers.has(operationId)) answers.set(operationId, abridge(json));
    } else {
      const slug = String((json as { type?: string }).type ?? '')
        .split('/')
        .pop() as string;
      if (!problems.has(slug)) problems.set(slug, json);
    }
    return { status: res.status, json };
  };
  const data = (r: { json: unknown }) => (r.json as { data: Record<string, string> }).data;

  try {
    await call({ operationId: 'getMe', method: 'GET', path: '/api/v1/me' });
    const client = data(
      await call({
        operationId: 'createClient',
        method: 'POST',
        path: '/api/v1/clients',
        body: { name: 'Acme GmbH', city: 'Berlin', country: 'DE' },
      }),
    );
    await call({ operationId: 'updateClient', method: 'PATCH', path: `/api/v1/clients/${client.id}`, body: { postalCode: '10115' } });
    await call({ operationId: 'getClient', method: 'GET', path: `/api/v1/clients/${client.id}` });
    const project = data(
      await call({
        operationId: 'createProject',
        method: 'POST',
        path: '/api/v1/projects',
        body: { name: 'Website relaunch', clientId: client.id, color: '#1f77b4', billable: true, hourlyRate: 95, estimateSec: 360000 },
      }),
    );
    await call({ operationId: 'updateProject', method: 'PATCH', path: `/api/v1/projects/${project.id}`, body: { budgetAmount: 12000 } });
    const task = data(
      await call({
        operationId: 'createTask',
        method: 'POST',
        path: '/api/v1/tasks',
        body: { projectId: project.id, name: 'Design review' },
      }),
    );
    await call({ operationId: 'updateTask', method: 'PATCH', path: `/api/v1/tasks/${task.id}`, body: { estimateSec: 14400 } });
    await call({ operationId: 'getTask', method: 'GET', path: `/api/v1/tasks/${task.id}` });
    const tag = data(await call({ operationId: 'createTag', method: 'POST', path: '/api/v1/tags', body: { name: 'meeting' } }));
    await call({ operationId: 'updateTag', method: 'PATCH', path: `/api/v1/tags/${tag.id}`, body: { name: 'meetings' } });
    await call({ operationId: 'getTag', method: 'GET', path: `/api/v1/tags/${tag.id}` });
    const entry = data(
      await call({
        operationId: 'createEntry',
        method: 'POST',
        path: '/api/v1/entries',
        body: {
          description: 'Review of the new start page',
          projectId: project.id,
          taskId: task.id,
          tagIds: [tag.id],
          start: '2026-11-02T09:00:00+01:00',
          end: '2026-11-02T10:30:00+01:00',
          originId: 'crm-4711',
        },
      }),
    );
    await call({
      operationId: 'updateEntry',
      method: 'PATCH',
      path: `/api/v1/entries/${entry.id}`,
      body: { description: 'Review of the new start page, round 2' },
    });
    await call({ operationId: 'getEntry', method: 'GET', path: `/api/v1/entries/${entry.id}` });
    await call({ operationId: 'getProject', method: 'GET', path: `/api/v1/projects/${project.id}` });
    await call({
      operationId: 'startTimer',
      method: 'POST',
      path: '/api/v1/entries/current',
      body: { description: 'Standup', projectId: project.id, start: '2026-11-02T09:45:00Z' },
    });
    await call({ operationId: 'getCurrentEntry', method: 'GET', path: '/api/v1/entries/current' });
    clock.advance(60_000);
    await call({ operationId: 'stopTimer', method: 'POST', path: '/api/v1/entries/current/stop', body: { end: '2026-11-02T10:00:00Z' } });
    const week = 'from=2026-11-02&to=2026-11-08';
    await call({ operationId: 'listEntries', method: 'GET', path: `/api/v1/entries?${week}&limit=2` });
    await call({ operationId: 'listClients', method: 'GET', path: '/api/v1/clients' });
    await call({ operationId: 'listProjects', method: 'GET', path: '/api/v1/projects' });
    await call({ operationId: 'listTasks', method: 'GET', path: '/api/v1/tasks' });
    await call({ operationId: 'listTags', method: 'GET', path: '/api/v1/tags' });
    await call({ operationId: 'getSummaryReport', method: 'GET', path: `/api/v1/reports/summary?${week}&groupBy=project&subGroupBy=day` });
    await call({ operationId: 'getDetailedReport', method: 'GET', path: `/api/v1/reports/detailed?${week}` });
    await call({ operationId: 'getWeeklyReport', method: 'GET', path: '/api/v1/reports/weekly?from=2026-11-02&groupBy=project' });
    await call({ operationId: 'getLiveness', method: 'GET', path: '/healthz', token: null });
    await call({ operationId: 'getReadiness', method: 'GET', path: '/readyz', token: null });

    // One document of each problem type the server answers.
    await call({ operationId: '', method: 'GET', path: '/api/v1/nowhere' });
    await call({ operationId: '', method: 'GET', path: '/api/v1/entries?from=2026-11-02&to=2026-11-08&limit=5000' });
    await call({ operationId: '', method: 'GET', path: '/api/v1/entries?workspaceId=ws_other&from=2026-11-02&to=2026-11-02' });
    await call({ operationId: '', method: 'GET', path: '/api/v1/entries/ent_unknown' });
    await call({ operationId: '', method: 'POST', path: '/api/v1/tags', body: { name: 'meetings' } });
    await call({ operationId: '', method: 'POST', path: '/api/v1/tags', body: { name: 'x'.repeat(4000) } });
    const readOnly = running.services.tokens.create(OPERATOR, {
      workspaceId: data(await call({ operationId: '', method: 'GET', path: '/api/v1/me' })).workspaceId as string,
      userId: data(await call({ operationId: '', method: 'GET', path: '/api/v1/me' })).userId as string,
      name: 'read only',
      scopes: ['entries:read'],
    }).token;
    await call({ operationId: '', method: 'POST', path: '/api/v1/tags', body: { name: 'x' }, token: readOnly });
    for (let i = 0; i < 4; i++)
      await call({ operationId: '', method: 'GET', path: '/api/v1/me', token: 'tt_AbCdEfGh_not-a-token-at-all-0000000000000000000' });
    // A colleague who sees others' time but not their money.
    const { accounts, tokens, invoices } = running.services;
    const self = data(await call({ operationId: '', method: 'GET', path: '/api/v1/me' }));
    const colleague = accounts.createUser(OPERATOR, { name: 'Grace', email: 'grace@example.org' }).id;
    accounts.addMember(OPERATOR, {
      workspaceId: self.workspaceId as string,
      userId: colleague,
      canViewOthersTime: true,
      canViewOthersMoney: false,
    });
    const colleagueToken = tokens.create(OPERATOR, {
      workspaceId: self.workspaceId as string,
      userId: colleague,
      name: 'colleague',
      scopes: ['entries:read', 'entries:write', 'reports:read'],
    }).token;
    await call({ operationId: '', method: 'GET', path: `/api/v1/reports/summary?${week}`, token: colleagueToken });
    await call({
      operationId: '',
      method: 'PATCH',
      path: `/api/v1/entries/${entry.id}`,
      body: { description: 'x' },
      token: colleagueToken,
    });

    // The webhook payloads: the event log's events as a subscriber with full visibility receives them.
    const me = data(await call({ operationId: '', method: 'GET', path: '/api/v1/me' }));
    const owner_ = { userId: me.userId as string, canViewOthersTime: true, canViewOthersMoney: true, readsInvoices: true };
    await call({ operationId: '', method: 'DELETE', path: `/api/v1/entries/${entry.id}` });
    invoices.setSettings(OPERATOR, me.workspaceId as string, { taxRate: 19 });
    // Who issues: what every issued invoice's PDF needs of the issuer (issuing checks it first).
    invoices.setBusinessProfile(OPERATOR, me.workspaceId as string, {
      legalName: 'Ada Lovelace Design',
      addressLines: ['Torstraße 5'],
      postalCode: '10119',
      city: 'Berlin',
      country: 'DE',
      taxNumber: '30/123/45678',
    });
    const invoice = invoices.create(OPERATOR, {
      workspaceId: me.workspaceId as string,
      userId: me.userId as string,
      clientId: client.id as string,
      from: '2026-11-01',
      to: '2026-11-30',
    });
    invoices.changeStatus(OPERATOR, invoice.id, 'sent', me.userId as string);
    for (const event of running.services.events.tail(OPERATOR, me.workspaceId as string, 0, 1000)) {
      if (!event.event || answers.has(`webhook:${event.event}`)) continue;
      const row = running.database.sqlite.prepare('SELECT * FROM events WHERE seq = ?').get(event.seq) as never;
      const payload = dataFor({ ...(row as object), createdAt: (row as { created_at: number }).created_at } as never, owner_);
      answers.set(`webhook:${event.event}`, {
        id: '5f0c3d1e9a7b2c4d6e8f0a1b',
        event: event.event,
        workspaceId: me.workspaceId,
        createdAt: event.createdAt,
        data: payload,
      });
    }
  } finally {
    await running.close();
  }
}

await session();

const doc = parseDocument(readFileSync(contractPath, 'utf8'));
const setExample = (node: unknown, value: unknown) => {
  if (isMap(node)) (node as YAMLMap).set('example', doc.createNode(value));
};
const paths = doc.get('paths') as YAMLMap;
for (const pathItem of paths.items) {
  for (const op of (pathItem.value as YAMLMap).items) {
    const operation = op.value as YAMLMap;
    const operationId = operation.get('operationId') as string;
    const body = bodies.get(operationId);
    if (body !== undefined) setExample(operation.getIn(['requestBody', 'content', 'application/json']), body);
    const answer = answers.get(operationId);
    const ok = operation.getIn(['responses', '200']) as YAMLMap | undefined;
    if (answer === undefined || !ok) continue;
    const ref = ok.get('$ref') as string | undefined;
    const target = ref ? (doc.getIn(['components', 'responses', ref.split('/').pop() as string]) as YAMLMap) : ok;
    const media = target.getIn(['content', 'application/json']);
    if (isMap(media) && !media.has('example')) setExample(media, answer);
  }
}
// getOpenApiDocument: the document itself is too long for an example; its first keys stand for it.
setExample(doc.getIn(['paths', '/api/v1/openapi.json', 'get', 'responses', '200', 'content', 'application/json']), {
  openapi: '3.1.0',
  info: { title: 'timetrack API', version: '1.0.0' },
  servers: [{ url: 'https://time.example.org' }],
  paths: {},
});
const webhooks = doc.get('webhooks') as YAMLMap;
for (const hook of webhooks.items) {
  const payload = answers.get(`webhook:${String(hook.key)}`);
  if (payload !== undefined) setExample((hook.value as YAMLMap).getIn(['post', 'requestBody', 'content', 'application/json']), payload);
}
// Problem documents: on each problem response, one example per slug it can carry.
const responses = doc.getIn(['components', 'responses']) as YAMLMap;
for (const item of responses.items) {
  const media = (item.value as YAMLMap).getIn(['content', 'application/problem+json']);
  if (!isMap(media)) continue;
  const description = String((item.value as YAMLMap).get('description') ?? '');
  const status = Number((media.getIn(['example', 'status']) as number | undefined) ?? 0);
  const slugs = [...problems.keys()].filter(
    (slug) =>
      description.includes(`\`${slug}\``) ||
      // A slug no response names (no-such-route): beside the response of its status.
      (!responses.items.some((r) => String((r.value as YAMLMap).get('description') ?? '').includes(`\`${slug}\``)) &&
        (problems.get(slug) as { status?: number }).status === statusOf(String(item.key))),
  );
  void status;
  if (slugs.length === 0) continue;
  media.delete('example');
  media.set('examples', doc.createNode(Object.fromEntries(slugs.map((slug) => [slug, { value: problems.get(slug) }]))));
}
function statusOf(name: string): number {
  return (
    (
      {
        BadRequest: 400,
        Unauthorized: 401,
        Forbidden: 403,
        NotFound: 404,
        Conflict: 409,
        PayloadTooLarge: 413,
        RateLimited: 429,
      } as Record<string, number>
    )[name] ?? 0
  );
}
writeFileSync(contractPath, doc.toString({ lineWidth: 0, flowCollectionPadding: false }));
console.log(`examples: ${bodies.size} request bodies, ${answers.size} answers and payloads, ${problems.size} problem types`);
