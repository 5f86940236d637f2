import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { bootstrapIfEmpty, type BootstrapResult } from '../../../src/bootstrap.js';
import { openExistingDatabase } from '../../../src/cli/database.js';
import { runCli } from '../../../src/cli/main.js';
import { table } from '../../../src/cli/table.js';
import { ManualClock } from '../../../src/clock.js';
import { openDatabase } from '../../../src/db/database.js';
import { OPERATOR } from '../../../src/principal.js';
import { createServices } from '../../../src/services.js';

/** The command line speaks one way (issue 58 item 7): listings are tables on a terminal, JSON with --json. */
describe('timetrack CLI: listings as tables', () => {
  let dir: string;
  let databasePath: string;
  let boot: BootstrapResult;
  const clock = new ManualClock(Date.parse('2026-11-02T09:00:00.000Z'));
  const secretKey = randomBytes(32);
  const withServices = <T>(body: (services: ReturnType<typeof createServices>) => T) => {
    const database = openDatabase(databasePath);
    try {
      return body(createServices(database, { clock, secretKey }));
    } finally {
      database.close();
    }
  };
  const cli = async (argv: string[]) => {
    let stdout = '';
    const code = await runCli(argv, {
      openDatabase: () => openExistingDatabase(databasePath, (path) => openDatabase(path)),
      createServices: (database) => createServices(database, { clock, secretKey }),
      stdout: (t) => (stdout += t),
      stderr: () => {},
    });
    return { code, stdout };
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-cli-tables-'));
    databasePath = join(dir, 'timetrack.db');
    boot = withServices((s) => {
      const result = bootstrapIfEmpty(s.write, s.accounts, s.tokens) as BootstrapResult;
      const userId = s.accounts.createUser(OPERATOR, { name: 'Bartholomew Longname-Example', email: 'bart@example.org' }).id;
      s.accounts.addMember(OPERATOR, { workspaceId: result.workspaceId, userId, canViewOthersTime: true, hourlyRate: 125.5 });
      return result;
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('member list: a header and a row per member, each column as wide as its widest value, the rate right-aligned', async () => {
    const { code, stdout } = await cli(['member', 'list', '--workspace', boot.workspaceId]);
    expect(code).to.equal(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).to.have.length(3);
    expect(lines[0]).to.match(/^USER +NAME +EMAIL +OWNER +SEES TIME +SEES MONEY +RATE$/);
    const bart = lines.find((l) => l.includes('Bartholomew')) as string;
    expect(bart).to.match(/Bartholomew Longname-Example {2}bart@example\.org +no +yes +no +125\.5$/);
    // Columns line up: every line has its NAME and RATE columns at the same places.
    const nameAt = (lines[0] as string).indexOf('NAME');
    for (const line of lines.slice(1)) expect(line.slice(nameAt)).to.match(/^\S/);
    expect(new Set(lines.map((l) => l.length)).size).to.equal(1);
  });

  it('member list --json and token list --json print the listing as before; token list is a table without --json', async () => {
    const json = await cli(['member', 'list', '--workspace', boot.workspaceId, '--json']);
    expect(JSON.parse(json.stdout).members).to.have.length(2);
    const tokens = await cli(['token', 'list', '--workspace', boot.workspaceId]);
    const lines = tokens.stdout.trimEnd().split('\n');
    expect(lines[0]).to.match(/^ID +NAME +PREFIX +USER +EXPIRES +LAST USED +REVOKED +SCOPES$/);
    expect(lines).to.have.length(2);
    expect(lines[1])
      .to.include(boot.userId)
      .and.to.match(/ - +- +- +\S+$/);
    expect(JSON.parse((await cli(['token', 'list', '--workspace', boot.workspaceId, '--json'])).stdout).tokens[0]).to.include.keys(
      'id',
      'prefix',
      'scopes',
    );
  });

  it('table(): an empty listing says so; wide characters count once', () => {
    expect(table([], [{ header: 'A', value: String }], 'Nothing.')).to.equal('Nothing.\n');
    expect(
      table(
        ['é', 'abc'],
        [
          { header: 'X', value: (v) => v },
          { header: 'N', value: () => '1', align: 'right' },
        ],
        '',
      ),
    ).to.equal('X    N\né    1\nabc  1\n');
  });
});
