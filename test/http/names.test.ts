import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../src/cli/main.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { createServices } from '../../src/services.js';
import { expectProblem, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Names hold no control characters and no bidirectional controls (issue 33, L6): U+202E makes
 * "invoice\u202Efdp.exe" read as "invoiceexe.pdf", and an escape sequence in a name printed
 * raw retitles or clears the operator's terminal. Refused in names (the API says which field),
 * stripped from uploaded file names and from the command line's output on a terminal.
 */
const RLO = '\u202E';
const ESC = '\u001b';
/** A control character other than a line break, or U+202E: what a terminal must not be sent. */
// eslint-disable-next-line no-control-regex -- the characters looked for
const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u202e]/;

describe('names: control and bidirectional characters', () => {
  describe('over the API', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server.close());

    it('refuses a catalog name with U+202E or a control character: 400 invalid-request naming the field, nothing written', async () => {
      for (const [path, body] of [
        ['/api/v1/clients', { name: `Acme${RLO}fdp.exe` }],
        ['/api/v1/tags', { name: `urgent${ESC}[2J` }],
        ['/api/v1/projects', { name: `Site${RLO}` }],
      ] as const) {
        const res = await server.request('POST', path, { json: body });
        expectProblem(res, 400, 'invalid-request', server.config.problemsBase, path);
        expect(res.body.detail).to.match(/^name must not hold control characters or bidirectional controls \(found U\+(202E|001B)\)/);
      }
      const project = await server.request('POST', '/api/v1/projects', { json: { name: 'Site' } });
      expect(project.status).to.equal(200);
      const task = await server.request('POST', '/api/v1/tasks', { json: { name: `Build\u2066`, projectId: project.body.data.id } });
      expectProblem(task, 400, 'invalid-request', server.config.problemsBase, '/api/v1/tasks');
      expect(task.body.detail).to.include('(found U+2066)');
      const rename = await server.request('PATCH', `/api/v1/projects/${project.body.data.id}`, { json: { name: `Site${RLO}x` } });
      expectProblem(rename, 400, 'invalid-request', server.config.problemsBase, `/api/v1/projects/${project.body.data.id}`);
      expect((await server.request('GET', '/api/v1/clients')).body.data).to.deep.equal([]);
      expect((await server.request('GET', '/api/v1/tags')).body.data).to.deep.equal([]);
      expect((await server.request('GET', `/api/v1/projects/${project.body.data.id}`)).body.data.name).to.equal('Site');
      // Umlauts, CJK and right-to-left scripts are names like any other.
      const fine = await server.request('POST', '/api/v1/clients', { json: { name: 'Müller & Söhne 東京 שלום' } });
      expect(fine.status).to.equal(200);
    });
  });

  describe('accounts, imports and the command line', () => {
    let dir: string;
    let databasePath: string;
    const key = randomBytes(32);
    const cli = async (...argv: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(argv, {
        openDatabase: () => openDatabase(databasePath),
        createServices: (database) => createServices(database, { clock: systemClock, secretKey: key }),
        stdout: (t) => (stdout += t),
        stderr: (t) => (stderr += t),
      });
      return { code, stdout, stderr };
    };
    let workspaceId: string;
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'timetrack-names-'));
      databasePath = join(dir, 'timetrack.db');
      workspaceId = JSON.parse((await cli('workspace', 'create', '--name', 'Acme', '--json')).stdout).id;
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('refuses such an account or workspace name, naming the field', async () => {
      const user = await cli('user', 'create', '--name', `Mallory${RLO}`, '--email', 'm@example.org', '--json');
      expect(user.code).to.equal(1);
      expect(JSON.parse(user.stderr).error).to.deep.equal({
        code: 'invalid',
        message: 'name must not hold control characters or bidirectional controls (found U+202E): type it again without them.',
      });
      const workspace = await cli('workspace', 'set', workspaceId, '--name', `Acme${ESC}]0;x`, '--json');
      expect(workspace.code).to.equal(1);
      expect(JSON.parse(workspace.stderr).error.message).to.match(/^name must not hold .*\(found U\+001B\)/);
    });

    it('refuses an import row whose names hold them, naming line and column; a created member’s name too', async () => {
      const file = join(dir, 'rows.csv');
      writeFileSync(
        file,
        [
          'email,start,end,description,client,project,task,tags,billable,hourlyRate',
          `a@example.org,2026-03-02T09:00:00Z,2026-03-02T10:00:00Z,ok,Acme${RLO}gpj.exe,Site,,,true,`,
          `a@example.org,2026-03-02T11:00:00Z,2026-03-02T12:00:00Z,ok,,Site,,"ok,bad${ESC}[31m",true,`,
          '',
        ].join('\n'),
      );
      const run = await cli('import', file, '--workspace', workspaceId, '--create-members', '--json');
      expect(run.code).to.equal(1);
      expect(JSON.parse(run.stdout).refused).to.deep.equal([
        { line: 2, message: 'client: holds a control character or a bidirectional control (U+202E); remove it from the file' },
        { line: 3, message: 'tags: holds a control character or a bidirectional control (U+001B); remove it from the file' },
      ]);
      const harvest = join(dir, 'harvest.csv');
      writeFileSync(
        harvest,
        'Date,Client,Project,Task,Notes,Hours,Billable?,First Name,Last Name,Billable Rate,Currency\n' +
          `2026-03-02,Acme,Site,,,1,Yes,Eve${RLO},Doe,,EUR\n`,
      );
      const member = await cli('import', harvest, '--workspace', workspaceId, '--time-zone', 'UTC', '--create-members', '--json');
      expect(JSON.parse(member.stdout).refused).to.deep.equal([
        {
          line: 2,
          message: 'First Name/Last Name: holds a control character or a bidirectional control (U+202E); remove it from the file',
        },
      ]);
    });

    it('keeps no control characters of a file name, and prints none on a terminal', async () => {
      const file = join(dir, `ev${ESC}]0;pwned\u0007il${RLO}vsc.csv`);
      writeFileSync(
        file,
        'email,start,end,description,client,project,task,tags,billable,hourlyRate\n' +
          `a@example.org,2026-03-02T09:00:00Z,2026-03-02T10:00:00Z,x,,,,,true,${ESC}[2J\n`,
      );
      const refused = await cli('import', file, '--workspace', workspaceId, '--create-members');
      expect(refused.code).to.equal(1);
      // The cell is quoted back in the refusal: on a terminal without its escape sequence.
      expect(refused.stdout).to.include('line 2: hourlyRate: "[2J" is not a number');
      expect(refused.stdout + refused.stderr).to.not.match(UNPRINTABLE);
      writeFileSync(
        file,
        'email,start,end,description,client,project,task,tags,billable,hourlyRate\n' +
          `a@example.org,2026-03-02T09:00:00Z,2026-03-02T10:00:00Z,x${ESC}[2J,,,,,true,\n`,
      );
      const done = await cli('import', file, '--workspace', workspaceId, '--create-members', '--json');
      expect(done.code, done.stderr).to.equal(0);
      const id = JSON.parse(done.stdout).importId as string;
      const shown = await cli('import', 'show', id, '--json');
      expect(JSON.parse(shown.stdout).fileName).to.equal('ev]0;pwnedilvsc.csv');
      const human = await cli('import', 'show', id);
      expect(human.stdout).to.include('fileName: ev]0;pwnedilvsc.csv\n');
      expect(human.stdout).to.not.match(UNPRINTABLE);
    });
  });
});
