import Database from 'better-sqlite3';
import { expect } from 'chai';
import { onFirstUse, prepareEvery, preparedOnFirstUse } from '../../../src/db/prepared.js';

/** A connection whose prepare() calls are counted by their SQL. */
function counted() {
  const sqlite = new Database(':memory:');
  sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two')");
  const prepared: string[] = [];
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    prepared.push(source);
    return prepare(source);
  }) as typeof sqlite.prepare;
  return { sqlite, prepared };
}

describe('db/prepared: statements made at their first use', () => {
  it('makes a statement at the first read of its property, once; the property is the statement itself after', () => {
    const { sqlite, prepared } = counted();
    const statements = preparedOnFirstUse(sqlite, {
      one: () => sqlite.prepare('SELECT v FROM t WHERE id = 1').pluck(),
      two: () => sqlite.prepare('SELECT v FROM t WHERE id = 2').pluck(),
    });
    expect(prepared).to.deep.equal([]);
    expect(statements.one.get()).to.equal('one');
    expect(statements.one.get()).to.equal('one');
    expect(prepared).to.deep.equal(['SELECT v FROM t WHERE id = 1']);
    expect(Object.getOwnPropertyDescriptor(statements, 'one')).to.include({ writable: false, enumerable: true });
    expect(Object.getOwnPropertyDescriptor(statements, 'one')?.get).to.equal(undefined);
    expect(Object.getOwnPropertyDescriptor(statements, 'two')?.get).to.be.a('function');
  });

  it('onFirstUse: the first call makes it, later calls return the same statement', () => {
    const { sqlite, prepared } = counted();
    const two = onFirstUse(sqlite, () => sqlite.prepare('SELECT v FROM t WHERE id = 2').pluck());
    expect(prepared).to.deep.equal([]);
    expect(two()).to.equal(two());
    expect(two().get()).to.equal('two');
    expect(prepared).to.have.length(1);
  });

  it('prepareEvery makes every statement of its connection not made yet, and only its own', () => {
    const a = counted();
    const b = counted();
    const statements = preparedOnFirstUse(a.sqlite, {
      one: () => a.sqlite.prepare('SELECT v FROM t WHERE id = 1'),
      two: () => a.sqlite.prepare('SELECT v FROM t WHERE id = 2'),
    });
    const alone = onFirstUse(a.sqlite, () => a.sqlite.prepare('SELECT count(*) FROM t'));
    const other = onFirstUse(b.sqlite, () => b.sqlite.prepare('SELECT 1'));
    statements.one.get();
    prepareEvery(a.sqlite);
    expect(a.prepared).to.deep.equal(['SELECT v FROM t WHERE id = 1', 'SELECT v FROM t WHERE id = 2', 'SELECT count(*) FROM t']);
    expect(b.prepared).to.deep.equal([]);
    prepareEvery(a.sqlite);
    expect(a.prepared).to.have.length(3);
    expect(alone()).to.be.an('object');
    expect(other()).to.be.an('object');
    expect(b.prepared).to.deep.equal(['SELECT 1']);
  });

  it('a statement that cannot be prepared throws at its first use, and again at the next', () => {
    const { sqlite } = counted();
    const statements = preparedOnFirstUse(sqlite, { broken: () => sqlite.prepare('SELECT nope FROM t') });
    expect(() => statements.broken).to.throw(/no such column: nope/);
    expect(() => statements.broken).to.throw(/no such column: nope/);
  });
});
