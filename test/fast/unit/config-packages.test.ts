import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseConfig } from '../../../src/config.js';
import { configProblem } from '../../helpers/config.js';

const BASE = { PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: '/tmp/timetrack-config-test/timetrack.db', READER_THREADS: '0' };

const refusal = (env: Record<string, string>): string => configProblem({ ...BASE, ...env });

// node-cron and yaml are loaded only when their settings are set (src/config.ts,
// src/replication-config.ts): these are the paths that load them.
describe('config: the settings whose check loads a package', () => {
  it('SCHEDULER_CRON: unset is every second, off is null, a set expression is checked by node-cron', () => {
    expect(parseConfig(BASE).schedulerCron).to.equal('* * * * * *');
    expect(parseConfig({ ...BASE, SCHEDULER_CRON: 'off' }).schedulerCron).to.equal(null);
    expect(parseConfig({ ...BASE, SCHEDULER_CRON: '*/5 * * * * *' }).schedulerCron).to.equal('*/5 * * * * *');
    expect(refusal({ SCHEDULER_CRON: 'every minute' })).to.equal(
      'Invalid configuration: SCHEDULER_CRON must be a node-cron expression or off (got "every minute")',
    );
  });

  it('LITESTREAM_CONFIG: a file that is not YAML is named with the parser’s first line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-config-'));
    try {
      const file = join(dir, 'litestream.yml');
      writeFileSync(file, 'dbs: [\n  - path: x\n');
      expect(refusal({ LITESTREAM_CONFIG: file })).to.match(
        new RegExp(`^Invalid configuration: LITESTREAM_CONFIG \\(${file.replace(/[.]/g, '\\.')}\\) is not valid YAML: .+`),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
