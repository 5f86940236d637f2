import { expect } from 'chai';
import { type DatabaseHandle, openDatabase } from '../../../src/db/database.js';
import { createExpensesRepository } from '../../../src/modules/expenses/repository.js';

/**
 * The plan SQLite gives the draft's mark of its expenses (issue 57, the bench's plans): by their
 * ids, not by `invoice_id IS NULL`. Every expense not on an invoice, of every workspace and every
 * year (a non-billable one never is), has a null `invoice_id`; with a draft's 200 ids, SQLite
 * preferred the `expenses_invoice` index for that term and read them all inside the draft's write
 * (100,000 such expenses: 20 ms a mark, against 0.3 ms by the ids).
 */
describe('the expenses repository: the plan of marking a draft’s expenses', () => {
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

  for (const count of [1, 2, 200])
    it(`reads the ${count} expense${count === 1 ? '' : 's'} by id (the primary key), not every expense without an invoice`, () => {
      database = openDatabase(':memory:');
      const repo = createExpensesRepository(database.db);
      const ids = Array.from({ length: count }, (_, i) => `exp_${i}`);
      const [source, ...more] = prepared(() => repo.markInvoiced(ids, 'inv_1'));
      expect(more).to.deep.equal([]);
      expect(source).to.match(/^update "expenses" set "invoice_id" = \?/);
      const plan = (database.sqlite.prepare(`EXPLAIN QUERY PLAN ${source}`).all('inv_1', ...ids) as Array<{ detail: string }>).map(
        (step) => step.detail,
      );
      expect(plan).to.deep.equal(['SEARCH expenses USING INDEX sqlite_autoindex_expenses_1 (id=?)']);
    });
});
