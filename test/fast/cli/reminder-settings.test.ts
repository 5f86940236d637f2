import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import { settingsPatchOfText } from '../../../src/modules/invoices/service.js';
import { OPERATOR } from '../../../src/principal.js';
import { refusal } from '../../helpers/refusal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

/*
 * Payment reminders per workspace (issue 57 item 3): off by default; the days past due of each
 * level (on: 7 and 21), as people type them, kept one way; refused with what to type instead;
 * set by `timetrack workspace invoicing W --set reminders=…` as earlyPayment is.
 */
describe('reminder settings', () => {
  let w: ServiceWorld;
  beforeEach(() => {
    w = memoryServices();
  });
  afterEach(() => w.close());
  const set = (text: string) => w.services.invoices.setSettings(OPERATOR, w.workspaceId, settingsPatchOfText([['reminders', text]]));
  const stored = () => w.services.invoices.settings(OPERATOR, w.workspaceId).reminders;

  it('are off by default; take on, the days of each level as typed, and off; blank turns them off', () => {
    expect(stored()).to.equal(null);
    for (const [typed, kept] of [
      ['on', '7, 21'],
      ['7, 21', '7, 21'],
      [' 14 ', '14'],
      ['10 30 60', '10, 30, 60'],
      ['5;15', '5, 15'],
      ['7, 21 days', '7, 21'],
      ['off', null],
      ['1, 365', '1, 365'],
      ['', null],
    ] as const) {
      set(typed);
      expect(stored(), typed).to.equal(kept);
    }
  });

  it('refuses what is not rising days from 1 to 365 (at most 3 levels), saying what to type, and changes nothing', () => {
    set('7, 21');
    for (const [typed, why] of [
      ['soon', 'is not a list of days'],
      ['7, 21, 35, 60', 'has 4 levels, more than 3'],
      ['0, 7', 'has a day outside 1 to 365'],
      ['7, 400', 'has a day outside 1 to 365'],
      ['21, 7', 'does not rise (each level comes later than the one before)'],
      ['7, 7', 'does not rise (each level comes later than the one before)'],
      ['7.5', 'is not a list of days'],
    ] as const) {
      const error = refusal(() => set(typed));
      expect(error.code, typed).to.equal('invalid');
      expect(error.field, typed).to.equal('reminders');
      expect(error.message, typed).to.equal(
        `reminders ${JSON.stringify(typed)} ${why}: type the days past the due date of each reminder, rising, such as 7, 21 (at most 3 levels, each 1 to 365 days), on for 7, 21, or off.`,
      );
    }
    expect(stored()).to.equal('7, 21');
  });

  it('`workspace invoicing W --set reminders=…` sets them, shows them, and refuses bad days with exit 1', async () => {
    const cli = async (...argv: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(argv, {
        openDatabase: () => ({ ...w.database, close: () => {} }),
        createServices: () => w.services,
        stdout: (t) => (stdout += t),
        stderr: (t) => (stderr += t),
      });
      return { code, stdout, stderr };
    };
    expect((await cli('workspace', 'invoicing', w.workspaceId, '--set', 'reminders=on')).code).to.equal(0);
    expect(stored()).to.equal('7, 21');
    const shown = await cli('workspace', 'invoicing', w.workspaceId, '--json');
    expect(JSON.parse(shown.stdout).invoicing.reminders).to.equal('7, 21');
    const bad = await cli('workspace', 'invoicing', w.workspaceId, '--set', 'reminders=21,7');
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include(
      'reminders "21,7" does not rise (each level comes later than the one before): type the days past the due date',
    );
    expect(stored()).to.equal('7, 21');
    expect((await cli('workspace', 'invoicing', w.workspaceId, '--set', 'reminders=')).code).to.equal(0);
    expect(stored()).to.equal(null);
  });
});
