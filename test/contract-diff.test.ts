import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { type Change, diffContracts, formatChanges, judge, parseAccepted } from '../scripts/contract-diff.js';

// Every case edits the real contract in memory and compares it with the unedited one.
const contract = parse(readFileSync(new URL('../openapi/openapi.yaml', import.meta.url), 'utf8'));
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
      const file = readFileSync(new URL('../openapi/accepted-changes.json', import.meta.url), 'utf8');
      expect(parseAccepted(file)).to.be.an('array');
    });
  });

  describe('the command line, in a scratch git repository', () => {
    const repoRoot = fileURLToPath(new URL('..', import.meta.url));
    let dir: string;
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
    const run = (...args: string[]) => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/contract-diff.ts', ...args], { cwd: dir, encoding: 'utf8' });
      return { status: result.status, out: result.stdout + result.stderr };
    };
    const writeContract = (doc: unknown) => writeFileSync(join(dir, 'openapi/openapi.yaml'), JSON.stringify(doc, null, 1));

    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'contract-diff-'));
      mkdirSync(join(dir, 'scripts'));
      mkdirSync(join(dir, 'openapi'));
      copyFileSync(join(repoRoot, 'scripts/contract-diff.ts'), join(dir, 'scripts/contract-diff.ts'));
      symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
      writeFileSync(join(dir, 'package.json'), '{"type": "module"}');
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-qm', 'no contract yet');
      writeContract(contract);
      git('add', '-A');
      git('commit', '-qm', 'the contract');
      git('checkout', '-qb', 'feature');
      git('commit', '-q', '--allow-empty', '-m', 'a feature');
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('compares with the merge base with main and fails on a breaking change', () => {
      writeContract(edited((doc) => (params(doc).Limit.schema.maximum = 100)));
      const { status, out } = run('--check');
      expect(status).to.equal(1);
      expect(out).to.match(/^openapi\/openapi.yaml at [0-9a-f]{7} \(merge base with main; version 1.0.0\)/);
      expect(out).to.include('BREAKING      GET /api/v1/entries query.limit  maximum-decreased: 500 -> 100\n');
      expect(out).to.include('contract:check failed: 2 breaking change(s)');
      expect(run().status).to.equal(0); // contract:diff only reports
    });

    it('passes once the change is accepted', () => {
      const accepted = {
        accepted: [{ location: '* query.limit', kind: 'maximum-decreased', reason: 'Reviewed: no client pages past 100.' }],
      };
      writeFileSync(join(dir, 'openapi/accepted-changes.json'), JSON.stringify(accepted));
      const { status, out } = run('--check');
      expect(out).to.include('2 changes, 2 breaking (2 accepted in openapi/accepted-changes.json).');
      expect(status).to.equal(0);
      rmSync(join(dir, 'openapi/accepted-changes.json'));
    });

    it('reads a base without the contract as empty: all added, nothing breaking', () => {
      const { status, out } = run('--check', 'main~1');
      expect(out).to.include('no contract there');
      expect(out).to.match(/ 0 breaking /);
      expect(status).to.equal(0);
    });

    it('refuses an unknown revision', () => {
      expect(run('--check', 'no-such-rev').status).to.equal(2);
    });
  });

  it('flags the real commit 83bd246 (six query parameters got a maxLength) from git history', function () {
    let before: unknown;
    let after: unknown;
    try {
      const show = (rev: string) =>
        parse(execFileSync('git', ['show', `${rev}:openapi/openapi.yaml`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      before = show('83bd246^');
      after = show('83bd246');
    } catch {
      this.skip(); // a shallow clone
    }
    const changes = diffContracts(before, after);
    const parameters = new Set(changes.map((c) => c.location.split(' ').pop()));
    expect([...parameters].sort()).to.deep.equal([
      'query.clientIds[]',
      'query.projectIds[]',
      'query.tagIds[]',
      'query.taskIds[]',
      'query.userIds[]',
      'query.workspaceId',
    ]);
    expect(changes.every((c) => c.breaking && c.kind === 'maxLength-added')).to.equal(true);
  });
});
