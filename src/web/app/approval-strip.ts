import { DateTime } from 'luxon';
import type { PeriodState, PeriodView } from '../../modules/approvals/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import { type Html, html } from '../kit/html.js';
import { csrfField } from '../kit/layout.js';
import { APP_PATH } from '../paths.js';
import { formats, t } from '../../i18n/index.js';

/*
 * The period's state where time is shown (decisions §13): the week's and the timesheet's strip of
 * periods and the lock date, and whether a time is held. Shared by the week, the timesheet and the
 * Approvals page.
 */
/** A calendar day as the reader writes it: `26 Oct 2026`, `26.10.2026`. */
export const dayText = (day: string) => formats().date(DateTime.fromISO(day, { zone: 'UTC' }).toISODate() as string);
/** "week of 26 Oct 2026 – 1 Nov 2026", "Woche 26.10.2026 – 01.11.2026" */
export const periodName = (p: { kind: 'weekly' | 'monthly'; startDay: string; endDay: string }) =>
  t(p.kind === 'weekly' ? 'approvals.weekOf' : 'approvals.monthOf', { from: dayText(p.startDay), to: dayText(p.endDay) });

/** A period's state in the reader's words. */
export const stateWords = (state: PeriodView['state']): string =>
  ({
    open: () => t('approvals.open'),
    submitted: () => t('approvals.submitted'),
    approved: () => t('approvals.approved'),
    rejected: () => t('approvals.rejected'),
  })[state]();
export const badge = (state: PeriodView['state']) =>
  html`<span class="badge${state === 'approved' ? ' good' : state === 'rejected' ? ' bad' : ''}">${stateWords(state)}</span>`;

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
  if (strip.lock && at < strip.lock.at) return t('approvals.lockedBefore', { day: dayText(strip.lock.day) });
  const period = strip.periods.find((p) => at >= p.fromAt && at < p.toAt);
  if (period?.state === 'submitted') return t('approvals.heldSubmitted');
  if (period?.state === 'approved') return t('approvals.heldApproved');
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
    const submitWords =
      p.state === 'rejected' ? t('approvals.submitAgain') : t(p.kind === 'weekly' ? 'approvals.submitWeek' : 'approvals.submitMonth');
    const submit =
      options.forms && p.canSubmit
        ? html`<form class="inline" method="post" action="${APP_PATH}/approvals/submit">
            ${hidden}<input type="hidden" name="day" value="${p.startDay}" />
            <button type="submit">${submitWords}</button>
          </form>`
        : '';
    const withdraw =
      options.forms && p.canWithdraw && p.id
        ? html`<form class="inline" method="post" action="${APP_PATH}/approvals/${p.id}/withdraw">
            ${hidden}<button class="secondary" type="submit">${t('approvals.withdraw')}</button>
          </form>`
        : '';
    const words =
      p.state === 'submitted'
        ? t('approvals.waitingWords')
        : p.state === 'approved'
          ? t('approvals.approvedBy', { who: p.decidedBy ?? t('approvals.operator') })
          : p.state === 'rejected'
            ? t('approvals.rejectedBy', { who: p.decidedBy ?? t('approvals.operator'), note: p.note ?? '' })
            : p.canSubmit
              ? ''
              : t('approvals.notBegun');
    return html`<li>
      <span class="period-name">${t('approvals.yours', { period: name })}</span> ${badge(p.state)}
      <span class="hint">${words}</span> ${submit} ${withdraw}
      ${p.id ? html`<a href="${APP_PATH}/approvals/${p.id}">${t('approvals.history')}</a>` : ''}
    </li>`;
  };
  return html`<section class="approval-strip" aria-label="${t('approvals.strip')}">
    <ul>
      ${strip.periods.map(item)}
      ${
        lockShown && strip.lock
          ? html`<li>
              <span class="badge">${t('approvals.locked')}</span>
              <span class="hint">${t('approvals.lockLine', { day: dayText(strip.lock.day) })}</span>
            </li>`
          : ''
      }
    </ul>
  </section>`;
}
