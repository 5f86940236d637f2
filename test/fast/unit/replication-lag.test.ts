import { expect } from 'chai';
import { databasesIn, LagTracker, readFigures } from '../../../src/replication.js';

/** Litestream 0.3.13's metrics text for one database with one file replica (as served at its addr). */
const figures = (shadow: [number, number], replica: [number, number], syncs = 7, db = '/var/lib/timetrack/timetrack.db') =>
  [
    '# HELP litestream_db_size The current size of the real DB',
    '# TYPE litestream_db_size gauge',
    `litestream_db_size{db="${db}"} 16384`,
    `litestream_replica_wal_index{db="${db}",name="file"} ${replica[0]}`,
    `litestream_replica_wal_offset{db="${db}",name="file"} ${replica[1]}`,
    `litestream_shadow_wal_index{db="${db}"} ${shadow[0]}`,
    `litestream_shadow_wal_size{db="${db}"} ${shadow[1]}`,
    `litestream_sync_count{db="${db}"} ${syncs}`,
    `litestream_sync_error_count{db="${db}"} 0`,
    'go_goroutines 12',
    '',
  ].join('\n');

describe('replication lag from Litestream figures', () => {
  const db = '/var/lib/timetrack/timetrack.db';

  it('reads the shadow WAL, each replica and the sync counts of the database named, null for another', () => {
    expect(readFigures(figures([1, 8272], [1, 4152], 9), db)).to.deep.equal({
      shadow: { index: 1, offset: 8272 },
      replicas: new Map([['file', { index: 1, offset: 4152 }]]),
      syncs: 9,
      syncErrors: 0,
    });
    expect(readFigures(figures([1, 8272], [1, 4152]), '/elsewhere.db')).to.equal(null);
    expect(databasesIn(figures([0, 0], [0, 0]))).to.deep.equal([db]);
  });

  it('the lag is the age of the oldest position read and not uploaded; a position going back restarts the timing', () => {
    const tracker = new LagTracker();
    const at = (ms: number, shadow: [number, number], replica: [number, number]) =>
      tracker.observe(ms, readFigures(figures(shadow, replica), db)!);
    expect(at(0, [0, 100], [0, 100])).to.equal(0);
    expect(at(250, [0, 200], [0, 100])).to.equal(0); // first seen now
    expect(at(500, [0, 300], [0, 100])).to.equal(250);
    expect(at(750, [0, 400], [0, 200])).to.equal(250); // 200 uploaded: 300 (seen at 500) is the oldest
    expect(at(1000, [1, 50], [0, 400])).to.equal(0); // the next WAL index, seen now
    expect(at(1250, [1, 50], [1, 50])).to.equal(0);
    expect(at(1500, [0, 10], [1, 50])).to.equal(0); // a new generation: back to the start
    expect(at(1750, [0, 20], [0, 5])).to.equal(0);
    expect(at(2750, [0, 20], [0, 5])).to.equal(1000); // a replica that stopped uploading
  });
});
