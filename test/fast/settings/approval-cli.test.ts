import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { bootstrapIfEmpty, type BootstrapResult } from '../../../src/bootstrap.js';
import { openExistingDatabase } from '../../../src/cli/database.js';
import { runCli } from '../../../src/cli/main.js';
import { ManualClock } from '../../../src/clock.js';
import { openDatabase } from '../../../src/db/database.js';
import { type Actor, OPERATOR } from '../../../src/principal.js';
import { createServices } from '../../../src/services.js';

/** `timetrack workspace set --approval --locked-before` and `timetrack approval list|show|approve|reject|reopen`, in-process (decisions §13). */
describe('timetrack CLI: approval and lock', () => {
  let dir: string;
  let databasePath: string;
  let boot: BootstrapResult;
  const clock = new ManualClock(Date.parse('2026-11-02T09:00:00.000Z'));
  const secretKey = randomBytes(32);

  const cli = async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      openDatabase: () => openExistingDatabase(databasePath, (path) => openDatabase(path)),
      createServices: (database) => createServices(database, { clock, secretKey }),
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    const json = argv.includes('--json');
    return {
      code,
      out: json && stdout !== '' ? JSON.parse(stdout) : stdout,
      err: json && stderr !== '' ? JSON.parse(stderr) : stderr,
    };
  };
  const withServices = <T>(body: (services: ReturnType<typeof createServices>) => T | Promise<T>) => {
    const database = openDatabase(databasePath);
    return Promise.resolve(body(createServices(database, { clock, secretKey }))).finally(() => database.close());
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-cli-approval-'));
    databasePath = join(dir, 'timetrack.db');
    boot = await withServices((s) => bootstrapIfEmpty(s.write, s.accounts, s.tokens) as BootstrapResult);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Ada, a member with an entry in the week of 26 October, who submits it. */
  const submitted = () =>
    withServices((s) => {
      const { id } = s.accounts.createUser(OPERATOR, { name: 'Ada', email: 'ada@example.org' });
      s.accounts.addMember(OPERATOR, { workspaceId: boot.workspaceId, userId: id });
      const token = s.tokens.create(OPERATOR, { workspaceId: boot.workspaceId, userId: id, name: 't', scopes: ['entries:write'] });
      const ada = s.tokens.authenticate(token.token)?.actor as Actor;
      const entry = s.entries.create(ada, { start: '2026-10-27T09:00:00Z', end: '2026-10-27T11:30:00Z' });
      return { ...s.approvals.submit(ada, { day: '2026-10-27' }), entryId: entry.id, ada };
    });

  it('workspace set turns approval on and sets the lock date (none clears it); approval settings prints them; bad values are refused', async () => {
    const W = boot.workspaceId;
    expect(await cli('workspace', 'set', W, '--approval', 'weekly', '--locked-before', '2026-10-01', '--json')).to.deep.equal({
      code: 0,
      out: { id: W },
      err: '',
    });
    const shown = (await cli('approval', 'settings', '--workspace', W, '--json')).out;
    expect(shown.approval).to.deep.equal({
      approval: 'weekly',
      lockedBefore: '2026-10-01',
      lockZone: 'UTC',
      lockedBeforeAt: '2026-10-01T00:00:00.000Z',
      approvers: [],
    });
    await cli('workspace', 'set', W, '--locked-before', 'none', '--name', 'Acme', '--json');
    const after = (await cli('approval', 'settings', '--workspace', W, '--json')).out;
    expect([after.approval.approval, after.approval.lockedBefore]).to.deep.equal(['weekly', null]);
    expect((await cli('workspace', 'show', W, '--json')).out.workspace.name).to.equal('Acme');
    const bad = await cli('workspace', 'set', W, '--approval', 'daily', '--json');
    expect([bad.code, bad.err.error]).to.deep.equal([
      1,
      { code: 'invalid', message: 'approval must be weekly, monthly or off (got "daily").' },
    ]);
    const day = await cli('workspace', 'set', W, '--locked-before', '2026-02-30', '--json');
    expect([day.code, day.err.error.code, day.err.error.message]).to.deep.equal([
      1,
      'invalid',
      'lockedBefore: "2026-02-30" is not a calendar day (YYYY-MM-DD, a date that exists).',
    ]);
    expect((await cli('workspace', 'set', W, '--json')).code).to.equal(2);
  });

  it('approval list, show, reject, approve and reopen act as the operator; --json prints one object; refusals exit 1', async () => {
    const W = boot.workspaceId;
    await cli('workspace', 'set', W, '--approval', 'weekly', '--json');
    const week = await submitted();
    const listed = await cli('approval', 'list', '--workspace', W, '--state', 'submitted', '--json');
    expect(listed.code).to.equal(0);
    expect(listed.out.periods).to.have.length(1);
    expect(listed.out.periods[0]).to.deep.include({
      id: week.id,
      userName: 'Ada',
      kind: 'weekly',
      startDay: '2026-10-26',
      endDay: '2026-11-01',
      state: 'submitted',
    });
    expect(listed.out.periods[0].totals).to.deep.equal({ entries: 1, durationSec: 9000, billableSec: 0, amount: 0 });
    expect((await cli('approval', 'list', '--workspace', W)).out).to.match(
      new RegExp(`^${week.id}  Ada  week 2026-10-26\\.\\.2026-11-01 \\(UTC\\)  submitted  2\\.50 h\\n$`),
    );

    const noNote = await cli('approval', 'reject', week.id, '--json');
    expect([noNote.code, noNote.err.error.message]).to.deep.equal([2, '--note is required']);
    const rejected = await cli('approval', 'reject', week.id, '--note', 'Friday is missing.', '--json');
    expect(rejected.out.period).to.deep.include({ state: 'rejected', note: 'Friday is missing.', decidedBy: null });
    const twice = await cli('approval', 'approve', week.id, '--json');
    expect([twice.code, twice.err.error.code]).to.deep.equal([1, 'conflict']);
    await withServices((s) => s.approvals.submit(week.ada, { day: '2026-10-27' }));
    expect((await cli('approval', 'approve', week.id, '--note', 'ok', '--json')).out.period.state).to.equal('approved');
    expect((await cli('approval', 'reopen', week.id, '--json')).out.period.state).to.equal('open');
    const shown = await cli('approval', 'show', week.id, '--json');
    expect(shown.out.period.id).to.equal(week.id);
    expect(shown.out.audit.map((a: { action: string; by: unknown; note: string | null }) => [a.action, a.by, a.note])).to.deep.equal([
      ['submitted', { userId: week.userId, name: 'Ada' }, null],
      ['rejected', null, 'Friday is missing.'],
      ['submitted', { userId: week.userId, name: 'Ada' }, null],
      ['approved', null, 'ok'],
      ['reopened', null, null],
    ]);
    const unknown = await cli('approval', 'show', 'apr_nothere', '--json');
    expect([unknown.code, unknown.err.error]).to.deep.equal([1, { code: 'not_found', message: 'Period apr_nothere was not found.' }]);
    const state = await cli('approval', 'list', '--workspace', W, '--state', 'waiting', '--json');
    expect(state.code).to.equal(2);
  });
});
