import type { PeriodView } from '../modules/approvals/service.js';
import { OPERATOR } from '../principal.js';
import { optionalString, required, UsageError } from './args.js';
import { type Command, command, str } from './command.js';

const STATES: ReadonlyArray<PeriodView['state']> = ['open', 'submitted', 'approved', 'rejected'];

/** `--state a,b`: the states listed, each one of the four. */
function statesOf(raw: string | undefined): PeriodView['state'][] | undefined {
  if (raw === undefined) return undefined;
  const states = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = states.find((s) => !STATES.includes(s as PeriodView['state']));
  if (unknown !== undefined || states.length === 0)
    throw new UsageError(`--state must be one or more of ${STATES.join(', ')}, comma-separated (got ${JSON.stringify(raw)})`);
  return states as PeriodView['state'][];
}

/** A period as a line for a person: id, member, days, state, hours. */
const periodLine = (p: PeriodView & { totals?: { durationSec: number } }) =>
  `${p.id}  ${p.userName}  ${p.kind === 'weekly' ? 'week' : 'month'} ${p.startDay}..${p.endDay} (${p.timeZone})  ${p.state}${
    p.totals ? `  ${(p.totals.durationSec / 3600).toFixed(2)} h` : ''
  }${p.note ? `  “${p.note}”` : ''}`;

/**
 * `approval …` (decisions §13): the operator lists a workspace's periods and approves, rejects or
 * reopens one (the audit names the operator as "the command line"). Approval is turned on with
 * `workspace set W --approval weekly|monthly`.
 */
export const approvalCommands: Record<string, Command> = {
  'approval list': {
    ...command(
      'approval list --workspace W [--state submitted,approved,rejected,open]',
      "List a workspace's periods (oldest first), with their time; by default every state.",
      { workspace: str, state: str },
      0,
      (v, _p, s) => {
        const states = statesOf(optionalString(v, 'state'));
        return { periods: s.approvals.list(OPERATOR, required(v, 'workspace'), states ? { states } : {}) };
      },
    ),
    human: (result) => {
      const periods = result.periods as Array<PeriodView & { totals: { durationSec: number } }>;
      return periods.length === 0 ? 'No periods.\n' : `${periods.map(periodLine).join('\n')}\n`;
    },
  },
  'approval settings': command(
    'approval settings --workspace W',
    "Print a workspace's approval (weekly, monthly or off), its lock date and the zone it is read in, and the members marked as approvers.",
    { workspace: str },
    0,
    (v, _p, s) => ({ approval: s.approvals.settings(OPERATOR, required(v, 'workspace')) }),
  ),
  'approval show': command(
    'approval show ID',
    'Print a period and its audit: who submitted, approved, rejected or reopened it, and when.',
    {},
    1,
    (_v, p, s) => {
      const { period, audit } = s.approvals.period(OPERATOR, p[0] as string);
      return { period, audit };
    },
  ),
  'approval approve': command(
    'approval approve ID [--note TEXT]',
    'Approve a submitted period: its entries stay locked, and invoices may take them.',
    { note: str },
    1,
    (v, p, s) => ({ period: s.approvals.approve(OPERATOR, p[0] as string, { note: optionalString(v, 'note') ?? null }) }),
  ),
  'approval reject': command(
    'approval reject ID --note TEXT',
    'Reject a submitted period, saying why: its entries can change again, and its member submits it again.',
    { note: str },
    1,
    (v, p, s) => ({ period: s.approvals.reject(OPERATOR, p[0] as string, { note: required(v, 'note') }) }),
  ),
  'approval reopen': command(
    'approval reopen ID [--note TEXT]',
    'Reopen a submitted or approved period: its entries can change again.',
    { note: str },
    1,
    (v, p, s) => ({ period: s.approvals.reopen(OPERATOR, p[0] as string, { note: optionalString(v, 'note') ?? null }) }),
  ),
};
