import { amountOf } from '../../kernel/money.js';
import { type ClientRounding, roundingWords, ruleFor, type RoundingText, roundSeconds } from '../../kernel/rounding.js';
import type { AggregateRounding, EntryRowView } from '../entries/service.js';
import type { Namer } from './names.js';

/*
 * Reports rounded as invoices round (issue 56 item 4), when the reader asks: each entry's time
 * by its project's client's own rule, else the workspace's; its amount made of the rounded time.
 */

/** The rounding rules of a workspace, as the invoices module keeps them (its settings and each client's own). */
export interface RoundingPorts {
  roundingRules(workspaceId: string): { workspace: RoundingText | null; clients: ReadonlyMap<string, Exclude<ClientRounding, null>> };
  clientsOfProjects(workspaceId: string): Array<{ id: string; clientId: string | null }>;
}

/** The rules of one rounded report: for the aggregation's SQL, for a detailed row, and as the report says them. */
export interface Rounding {
  aggregate: AggregateRounding;
  ruleOf: (projectId: string | null) => RoundingText | null;
  view: ReportRounding;
}

/**
 * The rules a rounded report reads each entry by: its project's client's own rule, else the
 * workspace's (as an invoice of that client would); the projects grouped by the rule that is
 * not the workspace's, for one CASE in the aggregation's SQL.
 */
export function createRounding(ports: RoundingPorts, namer: Namer): (workspaceId: string) => Rounding {
  return (workspaceId) => {
    const rules = ports.roundingRules(workspaceId);
    const byProject = new Map<string, RoundingText | null>();
    const byRule = new Map<RoundingText | null, string[]>();
    if (rules.clients.size > 0)
      for (const p of ports.clientsOfProjects(workspaceId)) {
        const own = p.clientId === null ? undefined : rules.clients.get(p.clientId);
        const rule = ruleFor(rules.workspace, own);
        if (rule === rules.workspace) continue;
        byProject.set(p.id, rule);
        byRule.set(rule, [...(byRule.get(rule) ?? []), p.id]);
      }
    const ids = [...rules.clients.keys()];
    const name = namer('client', workspaceId, ids);
    const clients = ids
      .map((id) => ({ name: name(id).name ?? id, rule: ruleFor(rules.workspace, rules.clients.get(id)) }))
      .filter((c) => c.rule !== rules.workspace)
      .sort((a, b) => a.name.localeCompare(b.name));
    return {
      aggregate: { byProjects: [...byRule].map(([rule, projectIds]) => ({ rule, projectIds })), otherwise: rules.workspace },
      ruleOf: (projectId) =>
        projectId !== null && byProject.has(projectId) ? (byProject.get(projectId) as RoundingText | null) : rules.workspace,
      view: { rule: rules.workspace, clients },
    };
  };
}

/** A detailed row of a rounded report: its time rounded by its rule, its amount made of it (none stays none: withheld or without a rate). */
export const roundedRow =
  (ruleOf: Rounding['ruleOf']) =>
  (row: EntryRowView): EntryRowView => {
    const durationSec = roundSeconds(row.durationSec, ruleOf(row.projectId));
    return { ...row, durationSec, amount: row.amount === null ? null : amountOf(row.billable, row.hourlyRate, durationSec) };
  };

/** What a rounded report says of its rules (issue 56 item 4): the workspace's, and each client whose own differs, by name. */
export interface ReportRounding {
  rule: RoundingText | null;
  clients: Array<{ name: string; rule: RoundingText | null }>;
}

const words = (rule: RoundingText | null) => (rule === null ? 'not rounded' : roundingWords(rule));

/**
 * The rules of a rounded report in one sentence, as the Reports page and the heads of its files
 * say them: `Rounded as invoices are, each entry on its own: up to 15 minutes (Globex: to the
 * nearest 6 minutes; Initech: not rounded).`
 */
export function roundingSentence(rounding: ReportRounding): string {
  if (rounding.rule === null && rounding.clients.length === 0)
    return 'Rounded as invoices are: no rounding rule is set, so the time is as tracked.';
  const clients = rounding.clients.map((c) => `${c.name}: ${words(c.rule)}`).join('; ');
  return `Rounded as invoices are, each entry on its own: ${words(rounding.rule)}${clients ? ` (${clients})` : ''}.`;
}
