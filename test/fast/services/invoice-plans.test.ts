import { expect } from 'chai';
import { type DatabaseHandle, openDatabase } from '../../../src/db/database.js';
import { createInvoicesRepository } from '../../../src/modules/invoices/repository.js';

/**
 * The plan SQLite gives the Overdue view's read (issue 57): a workspace's sent invoices due before
 * today, by the index on (workspace, status, due date). Without it SQLite took
 * `invoices_status_due` (status, due date: the sent invoices of every workspace on the server,
 * the reminders' tick's index) and kept the workspace's; before the view had its own statement,
 * it read every invoice of the workspace, paid and void ones too, through `invoices_workspace`.
 */
describe('the invoices repository: the plan of the Overdue view', () => {
  let database: DatabaseHandle;
  afterEach(() => database?.close());

  /** The SQL the repository prepares while `run` runs. */
  function prepared(run: () => void): string[] {
    const seen: string[] = [];
    const prepare = database.sqlite.prepare.bind(database.sqlite);
    database.sqlite.prepare = ((source: string) => {
      seen.push(source);
      return prepare(source);
    }) as typeof database.sqlite.prepare;
    try {
      run();
    } finally {
      database.sqlite.prepare = prepare;
    }
    return seen;
  }

  it('reads one workspace’s sent invoices due before a day by (workspace_id, status, due_date), in due-date order', () => {
    database = openDatabase(':memory:');
    const repo = createInvoicesRepository(database.db);
    const [source, ...more] = prepared(() => repo.sentDueBefore('ws_1', '2026-12-02'));
    expect(more).to.deep.equal([]);
    expect(source).to.match(
      / from "invoices" where \("invoices"\."workspace_id" = \? and "invoices"\."status" = \? and "invoices"\."due_date" < \?\)/,
    );
    const plan = (
      database.sqlite.prepare(`EXPLAIN QUERY PLAN ${source}`).all('ws_1', 'sent', '2026-12-02') as Array<{ detail: string }>
    ).map((step) => step.detail);
    expect(plan).to.deep.equal([
      'SEARCH invoices USING INDEX invoices_workspace_status_due (workspace_id=? AND status=? AND due_date<?)',
      'USE TEMP B-TREE FOR LAST TERM OF ORDER BY',
    ]);
  });
});
