import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import {
  type AcceptedChange,
  type Change,
  diffContracts,
  formatChanges,
  judge,
  parseAccepted,
  type Verdict,
} from '../../scripts/contract-diff.js';
import { formatCodeQuality, formatGithub, formatMarkdown, place, type Placed, type Report } from '../../scripts/contract-diff/formats.js';
import { SourceMap } from '../../scripts/contract-diff/source.js';

// The command itself and git are run in test/process/contract-diff.test.ts.
// Every case edits the real contract in memory and compares it with the unedited one.
const contract = parse(readFileSync(new URL('../../openapi/openapi.yaml', import.meta.url), 'utf8'));
const edited = (change: (doc: any) => void): any => {
  const doc = structuredClone(contract);
  change(doc);
  return doc;
};
const schemas = (doc: any) => doc.components.schemas;
const params = (doc: any) => doc.components.parameters;

const at = (changes: Change[], location: string, kind: string): Change => {
  const found = changes.find((c) => c.location === location && c.kind === kind);
  if (!found) throw new Error(`no ${kind} at ${location}; got:\n${formatChanges(changes).join('\n')}`);
  return found;
};
const breaking = (changes: Change[]) => changes.filter((c) => c.breaking);

/** The contract's text with an optional `sort` query parameter on GET /api/v1/tags. */
const addSort = (text: string): string =>
  text.replace(
    /^( {2}\/api\/v1\/tags:\n(?: {4}.*\n)*? {6}parameters:\n)/m,
    '$1        - name: sort\n          in: query\n          schema: { type: string }\n',
  );

describe('contract diff (scripts/contract-diff.ts)', () => {
  it('reports nothing for the contract against itself', () => {
    expect(diffContracts(contract, structuredClone(contract))).to.deep.equal([]);
  });

  it('ignores descriptions, examples and x- extensions', () => {
    const after = edited((doc) => {
      params(doc).Limit.description = 'Page size.';
      schemas(doc).Tag.properties.name['x-accepts'] = 'a name';
      schemas(doc).Tag.properties.name.examples = ['Urgent'];
    });
    expect(diffContracts(contract, after)).to.deep.equal([]);
  });

  describe('requests: tighter is breaking', () => {
    it("lowering limit's maximum from 500 to 100 (no generated type changes)", () => {
      const changes = diffContracts(
        contract,
        edited((doc) => (params(doc).Limit.schema.maximum = 100)),
      );
      expect(at(changes, 'GET /api/v1/entries query.limit', 'maximum-decreased')).to.include({ breaking: true, detail: '500 -> 100' });
      expect(at(changes, 'GET /api/v1/reports/detailed query.limit', 'maximum-decreased').breaking).to.equal(true);
      expect(changes).to.have.length(2);
    });

    it('raising it is not', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => (params(doc).Limit.schema.maximum = 1000)),
      );
      expect(at(changes, 'GET /api/v1/entries query.limit', 'maximum-increased').breaking).to.equal(false);
    });

    it('adding maxLength to query parameters (commit 83bd246 replayed on the current contract)', () => {
      const before = edited((doc) => {
        for (const name of ['ProjectIds', 'ClientIds', 'TaskIds', 'TagIds', 'UserIds']) delete params(doc)[name].schema.items.maxLength;
        delete params(doc).WorkspaceId.schema.maxLength;
      });
      const changes = diffContracts(before, contract);
      expect(at(changes, 'GET /api/v1/entries query.projectIds[]', 'maxLength-added')).to.include({ breaking: true, detail: '100' });
      expect(at(changes, 'GET /api/v1/reports/summary query.userIds[]', 'maxLength-added').breaking).to.equal(true);
      expect(at(changes, 'GET /api/v1/me query.workspaceId', 'maxLength-added').breaking).to.equal(true);
      expect(changes.every((c) => c.breaking && c.kind === 'maxLength-added')).to.equal(true);
    });

    it('adding maxLength to an inline query parameter', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => {
          const from = doc.paths['/api/v1/reports/weekly'].get.parameters.find((p: any) => p.name === 'from');
          from.schema.maxLength = 10;
        }),
      );
      expect(at(changes, 'GET /api/v1/reports/weekly query.from', 'maxLength-added').breaking).to.equal(true);
      expect(changes).to.have.length(1);
    });

    it('adding a required body property', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => {
          schemas(doc).EntryCreate.properties.note = { type: 'string' };
          schemas(doc).EntryCreate.required.push('note');
        }),
      );
      expect(at(changes, 'POST /api/v1/entries request body.note', 'required-property-added').breaking).to.equal(true);
      expect(changes).to.have.length(1);
    });

    it('making an optional body property required', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => schemas(doc).EntryCreate.required.push('billable')),
      );
      expect(at(changes, 'POST /api/v1/entries request body.billable', 'property-became-required').breaking).to.equal(true);
    });

    it('removing an enum value: breaking where clients send it, not where they read it', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => (schemas(doc).EntrySource.enum = schemas(doc).EntrySource.enum.filter((v: string) => v !== 'import'))),
      );
      expect(at(changes, 'POST /api/v1/entries request body.source', 'enum-value-removed')).to.include({
        breaking: true,
        detail: '"import"',
      });
      expect(at(changes, 'GET /api/v1/entries/{id} response 200 body.data.source', 'enum-value-removed').breaking).to.equal(false);
      expect(at(changes, 'webhook entry.created payload.data.entry.source', 'enum-value-removed').breaking).to.equal(false);
    });

    it('a new required query parameter, a narrower type, a new pattern', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => {
          doc.paths['/api/v1/clients'].get.parameters.push({ name: 'sort', in: 'query', required: true, schema: { type: 'string' } });
          schemas(doc).EntryCreate.properties.projectId.type = 'string';
          schemas(doc).Description.pattern = '\\S';
        }),
      );
      expect(at(changes, 'GET /api/v1/clients query.sort', 'required-parameter-added').breaking).to.equal(true);
      expect(at(changes, 'POST /api/v1/entries request body.projectId', 'type-narrowed')).to.include({
        breaking: true,
        detail: 'null|string -> string',
      });
      expect(at(changes, 'POST /api/v1/entries request body.description', 'pattern-added').breaking).to.equal(true);
    });

    it('removing a property of a closed request object', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => delete schemas(doc).TagCreate.properties.workspaceId),
      );
      expect(at(changes, 'POST /api/v1/tags request body.workspaceId', 'property-removed').breaking).to.equal(true);
    });
  });

  describe('responses and webhook payloads: looser is breaking', () => {
    it('adding an enum value to a response', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => schemas(doc).Runaway.properties.action.enum.push('paused')),
      );
      expect(at(changes, 'GET /api/v1/entries/{id} response 200 body.data.runaway.action', 'enum-value-added')).to.include({
        breaking: true,
        detail: '"paused"',
      });
      expect(at(changes, 'GET /api/v1/entries response 200 body.data[].runaway.action', 'enum-value-added').breaking).to.equal(true);
    });

    it('adding an enum value to a webhook payload', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => schemas(doc).InvoiceStatus.enum.push('overdue')),
      );
      expect(at(changes, 'webhook invoice.created payload.data.invoice.status', 'enum-value-added').breaking).to.equal(true);
      expect(at(changes, 'webhook invoice.status_changed payload.data.to', 'enum-value-added').breaking).to.equal(true);
    });

    it('removing a response property', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => {
          delete schemas(doc).EntryFields.properties.importId;
          schemas(doc).EntryFields.required = schemas(doc).EntryFields.required.filter((n: string) => n !== 'importId');
        }),
      );
      expect(at(changes, 'GET /api/v1/entries/{id} response 200 body.data.importId', 'property-removed').breaking).to.equal(true);
      expect(at(changes, 'webhook entry.started payload.data.entry.importId', 'property-removed').breaking).to.equal(true);
    });

    it('making a webhook payload field optional', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => (schemas(doc).EntryDeletedEventData.required = ['kind', 'id'])),
      );
      expect(at(changes, 'webhook entry.deleted payload.data.authorId', 'property-became-optional').breaking).to.equal(true);
      expect(changes).to.have.length(1);
    });

    it('a wider response type, a higher response maximum, an optional response header', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => {
          schemas(doc).Tag.properties.name = { type: ['string', 'null'] };
          schemas(doc).Problem.properties.status.maximum = 999;
          doc.components.headers['RateLimit-Limit'].required = false;
        }),
      );
      expect(at(changes, 'GET /api/v1/tags/{id} response 200 body.data.name', 'type-widened').breaking).to.equal(true);
      expect(at(changes, 'GET /api/v1/me response 400 body(application/problem+json).status', 'maximum-increased').breaking).to.equal(true);
      expect(at(changes, 'GET /api/v1/me response 200 header.RateLimit-Limit', 'header-became-optional').breaking).to.equal(true);
    });

    it('a tighter response is not breaking', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => (schemas(doc).Problem.properties.status.maximum = 499)),
      );
      expect(changes.length).to.be.greaterThan(0);
      expect(breaking(changes)).to.deep.equal([]);
    });
  });

  describe('paths, operations and statuses', () => {
    it('removing a path', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => delete doc.paths['/api/v1/tags/{id}']),
      );
      expect(at(changes, '/api/v1/tags/{id}', 'path-removed').breaking).to.equal(true);
      expect(changes).to.have.length(1);
    });

    it('removing an operation, a success status and a webhook', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => {
          delete doc.paths['/api/v1/tags/{id}'].delete;
          delete doc.paths['/api/v1/me'].get.responses['200'];
          delete doc.webhooks['entry.deleted'];
        }),
      );
      expect(at(changes, 'DELETE /api/v1/tags/{id}', 'operation-removed').breaking).to.equal(true);
      expect(at(changes, 'GET /api/v1/me response 200', 'response-removed').breaking).to.equal(true);
      expect(at(changes, 'webhook entry.deleted', 'webhook-removed').breaking).to.equal(true);
    });

    it('renaming a path parameter is no change', () => {
      const after = edited((doc) => {
        doc.paths['/api/v1/tags/{tagId}'] = doc.paths['/api/v1/tags/{id}'];
        delete doc.paths['/api/v1/tags/{id}'];
      });
      expect(breaking(diffContracts(contract, after))).to.deep.equal([]);
    });
  });

  describe('additions', () => {
    it('a new optional query parameter is not breaking', () => {
      const changes = diffContracts(
        contract,
        edited((doc) =>
          doc.paths['/api/v1/entries'].get.parameters.push({ name: 'sort', in: 'query', required: false, schema: { type: 'string' } }),
        ),
      );
      expect(at(changes, 'GET /api/v1/entries query.sort', 'parameter-added').breaking).to.equal(false);
      expect(changes).to.have.length(1);
    });

    it('a new response property of an open object is not breaking (a webhook envelope, the contract document)', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => {
          schemas(doc).WebhookEnvelope.properties.apiVersion = { type: 'string' };
          doc.paths['/api/v1/openapi.json'].get.responses['200'].content['application/json'].schema.properties.servers = { type: 'array' };
        }),
      );
      expect(at(changes, 'webhook entry.started payload.apiVersion', 'property-added').breaking).to.equal(false);
      expect(at(changes, 'GET /api/v1/openapi.json response 200 body.servers', 'property-added').breaking).to.equal(false);
      expect(breaking(changes)).to.deep.equal([]);
    });

    it('a new response property of a closed object is breaking (it promises "no others")', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => (schemas(doc).Tag.properties.color = { type: 'string' })),
      );
      expect(at(changes, 'GET /api/v1/tags/{id} response 200 body.data.color', 'property-added-to-closed-object').breaking).to.equal(true);
    });

    it('a new path, an optional body property and a new webhook are not breaking', () => {
      const changes = diffContracts(
        contract,
        edited((doc) => {
          doc.paths['/api/v1/things'] = { get: { responses: { '200': { description: 'ok' } } } };
          schemas(doc).TagCreate.properties.color = { type: 'string' };
          doc.webhooks['tag.created'] = structuredClone(doc.webhooks['entry.deleted']);
        }),
      );
      expect(changes.map((c) => `${c.kind} ${c.location}`)).to.have.members([
        'path-added /api/v1/things',
        'property-added POST /api/v1/tags request body.color',
        'webhook-added webhook tag.created',
      ]);
      expect(breaking(changes)).to.deep.equal([]);
    });

    it('a base without the contract: everything added, nothing breaking', () => {
      const changes = diffContracts({}, contract);
      expect(changes.length).to.be.greaterThan(20);
      expect(breaking(changes)).to.deep.equal([]);
    });
  });

  describe('the gate', () => {
    const lowered = edited((doc) => (params(doc).Limit.schema.maximum = 100));

    it('fails on a breaking change', () => {
      const verdict = judge(contract, lowered, []);
      expect(verdict.blocking.map((c) => c.location)).to.deep.equal([
        'GET /api/v1/entries query.limit',
        'GET /api/v1/reports/detailed query.limit',
      ]);
    });

    it('passes when the change is listed in the accepted changes (a * matches any text)', () => {
      const accepted = parseAccepted(
        JSON.stringify({
          accepted: [{ location: 'GET /api/v1/* query.limit', kind: 'maximum-decreased', reason: 'No client pages past 100.' }],
        }),
      );
      const verdict = judge(contract, lowered, accepted);
      expect(verdict.blocking).to.deep.equal([]);
      expect(verdict.unused).to.deep.equal([]);
      expect(formatChanges(verdict.changes)[0]).to.equal(
        'BREAKING      GET /api/v1/entries query.limit  maximum-decreased: 500 -> 100  (accepted: No client pages past 100.)',
      );
    });

    it('an entry of another kind or location does not pass it, and is reported unused', () => {
      const accepted = [{ location: 'GET /api/v1/entries query.limit', kind: 'maximum-removed', reason: 'x' }];
      const verdict = judge(contract, lowered, accepted);
      expect(verdict.blocking).to.have.length(2);
      expect(verdict.unused).to.deep.equal(accepted);
    });

    it("passes when info.version's major is raised", () => {
      const verdict = judge(
        contract,
        edited((doc) => {
          params(doc).Limit.schema.maximum = 100;
          doc.info.version = '2.0.0';
        }),
      );
      expect(verdict.majorRaised).to.equal(true);
      expect(verdict.blocking).to.deep.equal([]);
      expect(
        judge(
          contract,
          edited((doc) => (doc.info.version = '1.1.0')),
        ).majorRaised,
      ).to.equal(false);
    });

    it('refuses accepted entries without a reason; the repository file parses', () => {
      expect(() => parseAccepted(JSON.stringify({ accepted: [{ location: 'x', kind: 'y' }] }))).to.throw(/reason/);
      const file = readFileSync(new URL('../../openapi/accepted-changes.json', import.meta.url), 'utf8');
      expect(parseAccepted(file)).to.be.an('array');
    });
  });

  describe('removals under a new major version: only what the last release deprecated', () => {
    const v = (doc: any, version: string) => ((doc.info.version = version), doc);
    const deprecatedTag = (doc: any) =>
      Object.assign(doc.paths['/api/v1/tags/{id}'].get, { deprecated: true, 'x-deprecated-at': '2026-12-01', 'x-sunset': '2027-06-01' });
    const released = edited((doc) => (v(doc, '1.1.0'), deprecatedTag(doc)));
    const removed = edited((doc) => {
      v(doc, '2.0.0');
      delete doc.paths['/api/v1/tags/{id}'].get;
      delete doc.paths['/api/v1/tags/{id}'].delete;
    });

    it('passes the removal of what the release (an older minor) deprecated; blocks the rest, saying why', () => {
      const verdict = judge(released, removed, [], { release: { name: 'v1.1.0', document: released } });
      expect(verdict.majorRaised).to.equal(true);
      const get = at(verdict.changes, 'GET /api/v1/tags/{id}', 'operation-removed') as any;
      expect([get.status, get.wasDeprecated]).to.deep.equal(['major', true]);
      const del = at(verdict.changes, 'DELETE /api/v1/tags/{id}', 'operation-removed') as any;
      expect(del.status).to.equal('blocking');
      expect(del.note).to.equal(
        'removed under a new major version, but not deprecated in the last release v1.1.0: deprecate it first (deprecated: true with x-deprecated-at and x-sunset) in a minor release, or accept the removal with a reason',
      );
      expect(verdict.blocking.map((c) => `${c.kind} ${c.location}`)).to.deep.equal(['operation-removed DELETE /api/v1/tags/{id}']);
    });

    it('deprecated only on the branch, or in no release at all: blocking; an accepted reason passes it', () => {
      const base = edited((doc) => (v(doc, '1.1.0'), deprecatedTag(doc)));
      const unreleased = judge(base, removed, [], { release: { name: 'v1.0.0', document: contract } });
      expect(at(unreleased.changes, 'GET /api/v1/tags/{id}', 'operation-removed')).to.include({ status: 'blocking' });
      const none = judge(base, removed);
      expect(at(none.changes, 'GET /api/v1/tags/{id}', 'operation-removed')).to.include({ status: 'blocking' });
      expect((at(none.changes, 'GET /api/v1/tags/{id}', 'operation-removed') as any).note).to.contain(
        'not deprecated in the last release (there is no release tag)',
      );
      // The release's minor must be older than the new version's.
      const same = judge(base, v(structuredClone(removed), '1.1.0'), [], { release: { name: 'v1.1.0', document: released } });
      expect(same.majorRaised).to.equal(false);
      const accepted = judge(base, removed, [
        { location: '* /api/v1/tags/{id}', kind: 'operation-removed', reason: 'Announced in 1.1.0.' },
      ]);
      expect(accepted.blocking).to.deep.equal([]);
      // Other breaking changes are allowed by the major, as before.
      const narrower = judge(
        contract,
        edited((doc) => (v(doc, '2.0.0'), (params(doc).Limit.schema.maximum = 100))),
      );
      expect(narrower.blocking).to.deep.equal([]);
      expect(at(narrower.changes, 'GET /api/v1/entries query.limit', 'maximum-decreased')).to.include({ status: 'major' });
    });

    it('a parameter and a property count too (deprecated: true on them)', () => {
      const before = edited((doc) => {
        v(doc, '1.1.0');
        Object.assign(params(doc).Limit, { deprecated: true, 'x-deprecated-at': '2026-12-01', 'x-sunset': '2027-06-01' });
        schemas(doc).WebhookEnvelope.properties.id.deprecated = true;
      });
      const after = edited((doc) => {
        v(doc, '2.0.0');
        for (const item of Object.values(doc.paths) as any[])
          for (const op of Object.values(item) as any[])
            if (Array.isArray(op?.parameters)) op.parameters = op.parameters.filter((p: any) => p.$ref !== '#/components/parameters/Limit');
        delete schemas(doc).WebhookEnvelope.properties.id;
        schemas(doc).WebhookEnvelope.required = schemas(doc).WebhookEnvelope.required.filter((n: string) => n !== 'id');
      });
      const verdict = judge(before, after, [], { release: { name: 'v1.1.0', document: before } });
      expect(verdict.changes.filter((c) => c.breaking).every((c) => c.status === 'major')).to.equal(true);
      expect(at(verdict.changes, 'GET /api/v1/entries query.limit', 'parameter-removed')).to.include({
        status: 'major',
        wasDeprecated: true,
      });
      expect(at(verdict.changes, 'webhook entry.started payload.id', 'property-removed')).to.include({
        status: 'major',
        wasDeprecated: true,
      });
    });
  });

  describe('where each change is (its line in the YAML) and how it is shown', () => {
    const text = readFileSync(new URL('../../openapi/openapi.yaml', import.meta.url), 'utf8');
    const lineOf = (source: string, pattern: RegExp, from = 1) =>
      source.split('\n').findIndex((l, i) => i + 1 >= from && pattern.test(l)) + 1;
    /** The verdict of `before` -> `after` (YAML texts), each change placed. */
    // The unedited contract is every case's base: read (and mapped to its lines) once.
    const maps = new Map<string, SourceMap>();
    const sourceMap = (source: string): SourceMap => {
      const map = maps.get(source) ?? new SourceMap(source);
      if (source === text) maps.set(source, map);
      return map;
    };
    const placed = (before: string, after: string, accepted: AcceptedChange[] = []) => {
      const a = sourceMap(before);
      const b = sourceMap(after);
      const verdict = judge(a.toJS(), b.toJS(), accepted);
      return { verdict, changes: place(verdict, b, a) };
    };
    const report = (changes: Placed[], verdict: Verdict): Report => ({
      file: 'openapi/openapi.yaml',
      acceptedFile: 'openapi/accepted-changes.json',
      base: { label: 'abc1234', why: 'merge base with main', version: '1.0.0' },
      head: { label: 'working tree', version: '1.0.0' },
      verdict,
      changes,
    });
    const narrowed = text.replace(/^( {8})maximum: 500$/m, '$1maximum: 100');
    const withoutTag = (() => {
      const lines = text.split('\n');
      const start = lineOf(text, /^ {4}TagCreate:$/);
      const field = lineOf(text, /^ {8}workspaceId:$/, start);
      lines.splice(field - 1, 3); // workspaceId, its type and maxLength
      return lines.join('\n');
    })();

    it('a change to a shared component: the line of the keyword that changed, once per operation that uses it', () => {
      const { changes } = placed(text, narrowed);
      const line = lineOf(narrowed, /^ {8}maximum: 100$/);
      expect(line).to.be.greaterThan(1000);
      expect(changes.map((c) => [c.location, c.line, c.exact])).to.deep.equal([
        ['GET /api/v1/entries query.limit', line, true],
        ['GET /api/v1/reports/detailed query.limit', line, true],
      ]);
    });

    it("a removed property: the line of the properties it was one of, and the old file's line of it", () => {
      const { changes } = placed(text, withoutTag);
      const change = changes.find((c) => c.location === 'POST /api/v1/tags request body.workspaceId')!;
      expect(change.kind).to.equal('property-removed');
      expect(change.line).to.equal(lineOf(withoutTag, /^ {6}properties:$/, lineOf(withoutTag, /^ {4}TagCreate:$/)));
      expect(change.exact).to.equal(false);
      expect(change.beforeLine).to.equal(lineOf(text, /^ {8}workspaceId:$/, lineOf(text, /^ {4}TagCreate:$/)));
    });

    it('a removed enum value is at its enum (exact); a removed keyword at the schema that lost it (not exact)', () => {
      const after = text.replace('enum: [web, desktop, mobile, extension, api, import]', 'enum: [web, desktop, mobile, extension, api]');
      const { changes } = placed(text, after);
      const removed = changes.find((c) => c.location === 'POST /api/v1/entries request body.source')!;
      expect([removed.kind, removed.line, removed.exact]).to.deep.equal([
        'enum-value-removed',
        lineOf(after, /^ {6}enum: \[web, desktop/),
        true,
      ]);
      const noMaximum = placed(text, text.replace(/^ {8}maximum: 500\n/m, ''));
      const change = noMaximum.changes[0]!;
      expect([change.kind, change.exact, change.beforeLine]).to.deep.equal(['maximum-removed', false, lineOf(text, /^ {8}maximum: 500$/)]);
    });

    it('an added property, parameter and path: the line of its key', () => {
      const doc = parse(text);
      doc.components.schemas.TagCreate.properties.color = { type: 'string' };
      doc.paths['/api/v1/tags'].get.parameters.push({ name: 'sort', in: 'query', schema: { type: 'string' } });
      doc.paths['/api/v1/things'] = { get: { responses: { '200': { description: 'ok' } } } };
      const after = stringify(doc);
      const { changes } = placed(text, after);
      const line = (location: string) => changes.find((c) => c.location === location)?.line;
      expect(line('POST /api/v1/tags request body.color')).to.equal(lineOf(after, /^ {8}color:$/, lineOf(after, /^ {4}TagCreate:$/)));
      expect(line('GET /api/v1/tags query.sort')).to.equal(lineOf(after, /^ {8}- name: sort$/));
      expect(line('/api/v1/things')).to.equal(lineOf(after, /^ {2}\/api\/v1\/things:$/));
    });

    it('markdown: the table escapes | and says which lines belong to a removed thing', () => {
      const after = withoutTag.replace(/^( {8}maximum: 500)$/m, '$1\n        pattern: "^a|b$"');
      const { verdict, changes } = placed(text, after, [
        { location: 'POST /api/v1/tags *', kind: 'property-removed', reason: 'No client | sends it.' },
      ]);
      const markdown = formatMarkdown(report(changes, verdict));
      expect(markdown).to.contain('`*` The line of what now holds a removed thing (its parent); the change says where it was.');
      expect(markdown).to.contain('| `GET /api/v1/entries` `query.limit` | `pattern-added` | "^a\\|b$" | **yes** | **no** |');
      expect(markdown).to.match(
        /\| \d+\* \| `POST \/api\/v1\/tags` `request body.workspaceId` \| `property-removed` \| clients sending it are refused \(closed object\) \| \*\*yes\*\* \| yes: No client \\\| sends it. \|/,
      );
    });

    it('github: workflow commands escaped (%, newline, and : , in properties); past ten a level is summed up', () => {
      const { verdict, changes } = placed(text, narrowed, [
        { location: '* query.limit', kind: 'maximum-decreased', reason: '100% reviewed:\nsee #12, ok' },
      ]);
      const lines = formatGithub(report(changes, verdict));
      const line = lineOf(narrowed, /^ {8}maximum: 100$/);
      expect(lines).to.deep.equal([
        `::warning file=openapi/openapi.yaml,line=${line},title=Breaking change%2C accepted (2)::query.limit: maximum-decreased (500 -> 100) in 2 operations (GET /api/v1/entries, GET /api/v1/reports/detailed); accepted: 100%25 reviewed:%0Asee #12, ok`,
      ]);
      // Twelve lines with additions: nine annotations and one for the other three.
      const doc = parse(text);
      for (let i = 0; i < 12; i++) doc.paths[`/api/v1/new${i}`] = { get: { responses: { '200': { description: 'ok' } } } };
      const many = placed(text, stringify(doc));
      const notices = formatGithub(report(many.changes, many.verdict));
      expect(notices).to.have.length(10);
      expect(notices[9]).to.match(
        /^::notice file=openapi\/openapi.yaml,line=\d+,title=Contract change \(more\)::3 more on lines \d+, \d+, \d+: see the job summary's table\.$/,
      );
    });

    it("codequality: GitLab's report, one issue per change, with a stable fingerprint", () => {
      const { verdict, changes } = placed(text, addSort(narrowed));
      const issues = JSON.parse(formatCodeQuality(report(changes, verdict)));
      const line = lineOf(addSort(narrowed), /^ {8}maximum: 100$/);
      expect(issues).to.have.length(3);
      expect(issues[0]).to.deep.equal({
        description: 'GET /api/v1/entries query.limit: maximum-decreased (500 -> 100); not accepted in openapi/accepted-changes.json',
        check_name: 'maximum-decreased',
        fingerprint: issues[0].fingerprint,
        severity: 'critical',
        location: { path: 'openapi/openapi.yaml', lines: { begin: line } },
      });
      expect(issues[0].fingerprint).to.match(/^[0-9a-f]{64}$/);
      expect(new Set(issues.map((i: any) => i.fingerprint)).size).to.equal(3);
      expect(issues[2]).to.include({ check_name: 'parameter-added', severity: 'info' });
      expect(JSON.parse(formatCodeQuality(report(changes, verdict)))[0].fingerprint).to.equal(issues[0].fingerprint);
    });
  });
});
