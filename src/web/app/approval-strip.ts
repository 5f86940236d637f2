import { DateTime } from 'luxon';
import type { PeriodState, PeriodView } from '../../modules/approvals/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import { type Html, html } from '../kit/html.js';
import { csrfField } from '../kit/layout.js';
import { APP_PATH } from '../paths.js';

/*
 * The period's state where time is shown (decisions §13): the week's and the timesheet's strip of
 * periods and the lock date, and whether a time is held. Shared by the week, the timesheet and the
 * Approvals page.
 */
export const dayText = (day: string) => DateTime.fromISO(day, { zone: 'UTC' }).toFormat('d LLL yyyy');
export const noun = (kind: 'weekly' | 'monthly') => (kind === 'weekly' ? 'week' : 'month');
/** "week of 26 Oct 2026 – 1 Nov 2026" */
export const periodName = (p: { kind: 'weekly' | 'monthly'; startDay: string; endDay: string }) =>
  `${noun(p.kind)} of ${dayText(p.startDay)} – ${dayText(p.endDay)}`;

export const STATE_WORDS: Record<PeriodView['state'], string> = {
  open: 'Open',
  submitted: 'Submitted',
  approved: 'Approved',
  rejected: 'Rejected',
};
export const badge = (state: PeriodView['state']) =>
  html`<span class="badge${state === 'approved' ? ' good' : state === 'rejected' ? ' bad' : ''}">${STATE_WORDS[state]}</span>`;

/** What the week and the timesheet show of approval: the member's periods touching them, and the lock date. */
export interface ApprovalStrip {
  periods: PeriodState[];
  /** The workspace's lock date, when it has one. */
  lock: { day: string; at: number } | null;
}

/** The member's periods and the lock date for the days [fromDay, toDay] (nothing when approval is off and nothing is locked). */
export function stripOf(deps: WebDeps, session: SessionView, fromDay: string, toDay: string): ApprovalStrip {
  const settings = deps.services.approvals.settings(session.actor, session.workspaceId);
  return {
    periods: deps.services.approvals.periodsOf(session.actor, fromDay, toDay),
    lock: settings.lockedBefore && settings.lockedBeforeAt ? { day: settings.lockedBefore, at: Date.parse(settings.lockedBeforeAt) } : null,
  };
}

/** Why an entry of one's own is read-only here (a period that waits or was approved, the lock date), or null. */
export function lockedWords(strip: ApprovalStrip | undefined, start: string): string | null {
  if (!strip) return null;
  const at = Date.parse(start);
  if (strip.lock && at < strip.lock.at)
    return `Locked: the workspace's time before ${dayText(strip.lock.day)} cannot change. An owner can move the lock date.`;
  const period = strip.periods.find((p) => at >= p.fromAt && at < p.toAt);
  if (period?.state === 'submitted') return 'Submitted for approval: read-only until an approver decides, or you withdraw it.';
  if (period?.state === 'approved') return 'Approved: read-only. An approver can reopen it.';
  return null;
}

/** The state of each of the member's periods on the week (with Submit, Withdraw), or on the timesheet (state only). */
export function periodStrip(
  strip: ApprovalStrip | undefined,
  options: { csrfToken: string; week: string; forms: boolean; first: number; last: number },
): Html | string {
  if (!strip) return '';
  const lockShown = strip.lock && strip.lock.at > options.first;
  if (strip.periods.length === 0 && !lockShown) return '';
  const item = (p: PeriodState) => {
    const name = periodName(p);
    const hidden = html`${csrfField(options.csrfToken)}<input type="hidden" name="week" value="${options.week}" />`;
    const submit =
      options.forms && p.canSubmit
        ? html`<form class="inline" method="post" action="${APP_PATH}/approvals/submit">
            ${hidden}<input type="hidden" name="day" value="${p.startDay}" />
            <button type="submit">${p.state === 'rejected' ? 'Submit again' : `Submit ${noun(p.kind)}`}</button>
          </form>`
        : '';
    const withdraw =
      options.forms && p.canWithdraw && p.id
        ? html`<form class="inline" method="post" action="${APP_PATH}/approvals/${p.id}/withdraw">
            ${hidden}<button class="secondary" type="submit">Withdraw</button>
          </form>`
        : '';
    const words =
      p.state === 'submitted'
        ? 'waiting for an approver; its time is read-only.'
        : p.state === 'approved'
          ? `by ${p.decidedBy ?? 'the operator'}; its time is read-only.`
          : p.state === 'rejected'
            ? html`by ${p.decidedBy ?? 'the operator'}: “${p.note ?? ''}” Change what is asked, then submit it again.`
            : p.canSubmit
              ? ''
              : 'not begun yet.';
    return html`<li>
      <span class="period-name">Your ${name}</span> ${badge(p.state)} <span class="hint">${words}</span> ${submit} ${withdraw}
      ${p.id ? html`<a href="${APP_PATH}/approvals/${p.id}">History</a>` : ''}
    </li>`;
  };
  return html`<section class="approval-strip" aria-label="Approval">
    <ul>
      ${strip.periods.map(item)}
      ${lockShown && strip.lock ? html`<li><span class="badge">Locked</span> <span class="hint">Time before ${dayText(strip.lock.day)} cannot change.</span></li>` : ''}
    </ul>
  </section>`;
}
