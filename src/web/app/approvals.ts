import type { Request, Response, Router } from 'express';
import { DateTime } from 'luxon';
import { DomainError } from '../../errors.js';
import type { PeriodTotals, PeriodView } from '../../modules/approvals/service.js';
import type { EntryRowView } from '../../modules/entries/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import { errorAt, type FieldErrors, invalidAt } from '../kit/fields.js';
import { field } from '../kit/forms.js';
import { type Html, html } from '../kit/html.js';
import { csrfField, type Notice, when } from '../kit/layout.js';
import { isFormRefusal, refusal, spoken } from '../kit/refusal.js';
import { readerZone } from '../kit/respond.js';
import { hoursText, timeText, type TimeFormat } from '../kit/times.js';
import { APP_PATH } from '../paths.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import { appPage } from './page.js';
import { renderWeek } from './week-routes.js';
import { badge, dayText, periodName } from './approval-strip.js';
import { formats, t } from '../../i18n/index.js';

/*
 * Approval and lock in the web app (decisions §13): the period's state on the week (with "Submit
 * week" for one's own time) and on the timesheet, and the Approvals page of approvers. Each form
 * is one call of the approvals service, which decides who may do what; a refusal is said in its
 * words for people.
 */

/** An amount in its currency as the reader writes it: `€1,190.00`, `1.190,00 €`. */
const moneyText = (amount: number, currency: string) => formats().money(amount, currency);

/** A period's entries as a table: day and times in the period's zone, work, description, hours, and the amount where it may be seen. */
function entryTable(rows: EntryRowView[], zone: string, timeFormat: TimeFormat, totals: PeriodTotals, currency: string): Html {
  if (rows.length === 0) return html`<p class="hint">${t('approvals.noTime')}</p>`;
  const money = totals.amount !== null;
  const [day, time, project, description, hours, amount] = [
    t('approvals.day'),
    t('reports.time'),
    t('reports.grouping.project'),
    t('reports.description'),
    t('export.hours'),
    t('reports.amount'),
  ];
  return html`<div class="scroll">
    <table class="rows approval-entries">
      <thead>
        <tr>
          <th scope="col">${day}</th>
          <th scope="col">${time}</th>
          <th scope="col">${project}</th>
          <th scope="col">${description}</th>
          <th scope="col" class="num">${hours}</th>
          ${money ? html`<th scope="col" class="num">${amount}</th>` : ''}
        </tr>
      </thead>
      <tbody>
        ${rows.map((r) => {
          const start = Date.parse(r.start);
          return html`<tr>
            <td data-label="${day}">${formats().dayMonth(DateTime.fromMillis(start, { zone }).toISODate() as string)}</td>
            <td class="c-time" data-label="${time}">
              ${timeText(start, zone, timeFormat)}–${r.end ? timeText(Date.parse(r.end), zone, timeFormat) : ''}
            </td>
            <td data-label="${project}">
              ${r.projectName ? html`${r.clientName ? `${r.clientName} · ` : ''}${r.projectName}` : html`<span class="hint">${t('timer.noProject')}</span>`}${r.billable ? html` <span class="badge">${t('week.billable')}</span>` : ''}
            </td>
            <td data-label="${description}">${r.description || html`<span class="hint">${t('reports.noDescription')}</span>`}</td>
            <td class="num" data-label="${hours}">${hoursText(r.durationSec)}</td>
            ${money ? html`<td class="num" data-label="${amount}">${r.amount === null ? '' : moneyText(r.amount, currency)}</td>` : ''}
          </tr>`;
        })}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row" colspan="4">
            ${t('approvals.totals', { entries: t('export.entries', { count: totals.entries }), billable: hoursText(totals.billableSec) })}
          </th>
          <td class="num" data-label="${hours}"><strong>${hoursText(totals.durationSec)}</strong></td>
          ${money ? html`<td class="num" data-label="${amount}"><strong>${moneyText(totals.amount ?? 0, currency)}</strong></td>` : ''}
        </tr>
      </tfoot>
    </table>
  </div>`;
}

/** Approve (an optional note) and Reject (a note saying why) of a waiting period, and Reopen of a decided one. */
function decisionForms(
  session: SessionView,
  period: PeriodView,
  may: { decide: boolean; reopen: boolean },
  errors: FieldErrors,
  back: string,
): Html {
  const id = period.id;
  const hidden = html`${csrfField(session.csrfToken)}<input type="hidden" name="back" value="${back}" />`;
  const note = (form: string, label: string, required: boolean) => {
    const key = `${form}-${id}`;
    return html`<div class="field">
      <label for="${key}">${label}</label>
      <input id="${key}" name="note" type="text" maxlength="1000" ${required ? html`required` : ''} ${invalidAt(key, errors[key])} />
      ${errorAt(key, errors[key])}
    </div>`;
  };
  return html`<div class="decisions">
    ${
      may.decide
        ? html`<form
              method="post"
              action="${APP_PATH}/approvals/${id}/approve"
              aria-label="${t('approvals.approveWhose', { name: period.userName, period: periodName(period) })}"
            >
              ${hidden} ${note('approve', t('approvals.noteOptional'), false)}
              <button type="submit">${t('approvals.approve')}</button>
            </form>
            <form
              method="post"
              action="${APP_PATH}/approvals/${id}/reject"
              aria-label="${t('approvals.rejectWhose', { name: period.userName, period: periodName(period) })}"
            >
              ${hidden} ${note('reject', t('approvals.whyRejected'), true)}
              <button class="danger" type="submit">${t('approvals.reject')}</button>
            </form>`
        : ''
    }
    ${
      may.reopen
        ? html`<form
            method="post"
            action="${APP_PATH}/approvals/${id}/reopen"
            aria-label="${t('approvals.reopenWhose', { name: period.userName, period: periodName(period) })}"
          >
            ${hidden} ${note('reopen', t('approvals.noteOptional'), false)}
            <button class="secondary" type="submit">${t('approvals.reopen')}</button>
          </form>`
        : ''
    }
  </div>`;
}

/** A step of a period's history in the reader's words. */
const auditWords = (action: 'submitted' | 'approved' | 'rejected' | 'reopened' | 'withdrawn'): string =>
  ({
    submitted: () => t('approvals.submitted'),
    approved: () => t('approvals.approved'),
    rejected: () => t('approvals.rejected'),
    reopened: () => t('approvals.reopened'),
    withdrawn: () => t('approvals.withdrawn'),
  })[action]();

/** The Approvals page: what waits for the approver (each period with its entries, totals and decisions), and what was decided lately. */
function approvalsPage(deps: WebDeps, res: Response, signed: SignedIn, status: number, notice: Notice | null, errors: FieldErrors) {
  const { services } = deps;
  const { session } = signed;
  const zone = readerZone(deps, session);
  const timeFormat = (services.accounts.preferences(session.userId).timeFormat ?? '24h') as TimeFormat;
  const waiting = services.approvals.waiting(session.actor);
  const decided = services.approvals.approves(session.actor)
    ? services.approvals
        .list(session.actor, session.workspaceId, { states: ['approved', 'rejected'] })
        .reverse()
        .slice(0, 20)
    : [];
  const body = html`<h1>${t('nav.approvals')}</h1>
    ${notice ? html`<div class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${notice.body}</div>` : ''}
    <h2>${t('approvals.waiting', { count: waiting.length })}</h2>
    ${waiting.length === 0 ? html`<p class="hint">${t('approvals.nothingWaits')}</p>` : ''}
    ${waiting.map(
      (w) =>
        html`<section class="period" id="p-${w.period.id}" aria-labelledby="p-${w.period.id}-h">
          <h3 id="p-${w.period.id}-h">${w.period.userName}: ${periodName(w.period)}</h3>
          <p class="hint">
            ${t('approvals.submittedAt', { when: when(w.period.submittedAt, zone), zone: w.period.timeZone })}
            <a href="${APP_PATH}/approvals/${w.period.id}">${t('approvals.history')}</a>
          </p>
          ${entryTable(w.rows, w.period.timeZone, timeFormat, w.totals, session.actor.currency)}
          ${decisionForms(session, w.period, { decide: true, reopen: false }, errors, 'list')}
        </section>`,
    )}
    ${
      decided.length > 0
        ? html`<h2>${t('approvals.decidedLately')}</h2>
            <div class="scroll">
              <table class="rows approval-decided">
                <thead>
                  <tr>
                    <th scope="col">${t('approvals.member')}</th>
                    <th scope="col">${t('approvals.period')}</th>
                    <th scope="col">${t('approvals.state')}</th>
                    <th scope="col" class="num">${t('export.hours')}</th>
                    <th scope="col">${t('approvals.decided')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${decided.map(
                    (p) =>
                      html`<tr>
                        <td data-label="${t('approvals.member')}">${p.userName}</td>
                        <td data-label="${t('approvals.period')}"><a href="${APP_PATH}/approvals/${p.id}">${periodName(p)}</a></td>
                        <td data-label="${t('approvals.state')}">
                          ${badge(p.state)}${p.note ? html` <span class="hint">“${p.note}”</span>` : ''}
                        </td>
                        <td class="num" data-label="${t('export.hours')}">${hoursText(p.totals.durationSec)}</td>
                        <td data-label="${t('approvals.decided')}">
                          ${t('approvals.decidedBy', { who: p.decidedBy?.name ?? t('approvals.operator'), when: when(p.decidedAt, zone) })}
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
        : ''
    }`;
  res
    .status(status)
    .type('html')
    .end(appPage(deps, session, { title: t('nav.approvals'), current: 'approvals', body }));
}

/** A period's page: its state, entries and totals, what the reader may do, and its history. */
function periodOfPage(
  deps: WebDeps,
  res: Response,
  signed: SignedIn,
  id: string,
  status: number,
  notice: Notice | null,
  errors: FieldErrors,
) {
  const { services } = deps;
  const { session } = signed;
  const zone = readerZone(deps, session);
  const timeFormat = (services.accounts.preferences(session.userId).timeFormat ?? '24h') as TimeFormat;
  const { period, audit, rows, totals, may } = services.approvals.period(session.actor, id);
  const own = period.userId === session.userId;
  const heading = own
    ? t('approvals.yours', { period: periodName(period) })
    : t('approvals.theirs', { name: period.userName, period: periodName(period) });
  const body = html`<h1>${heading}</h1>
    ${notice ? html`<div class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${notice.body}</div>` : ''}
    <dl class="facts">
      <dt>${t('approvals.state')}</dt>
      <dd>${badge(period.state)}${period.note ? html` “${period.note}”` : ''}</dd>
      <dt>${t('approvals.days')}</dt>
      <dd>${t('approvals.daysIn', { from: dayText(period.startDay), to: dayText(period.endDay), zone: period.timeZone })}</dd>
    </dl>
    ${entryTable(rows, period.timeZone, timeFormat, totals, session.actor.currency)}
    ${
      own && period.state === 'submitted'
        ? html`<form method="post" action="${APP_PATH}/approvals/${period.id}/withdraw">
            ${csrfField(session.csrfToken)}<input type="hidden" name="back" value="period" />
            <button class="secondary" type="submit">${t('approvals.withdraw')}</button>
          </form>`
        : decisionForms(session, period, may, errors, 'period')
    }
    <h2>${t('approvals.history')}</h2>
    <ol class="audit">
      ${audit.map(
        (a) =>
          html`<li>
            ${t('approvals.historyLine', { when: when(a.at, zone), action: auditWords(a.action), who: a.by?.name ?? t('approvals.operatorCli') })}${a.note ? html`: “${a.note}”` : ''}
          </li>`,
      )}
    </ol>
    <p>
      <a href="${APP_PATH}/week?date=${period.startDay}${own ? '' : `&member=${period.userId}`}"
        >${
          own
            ? t('approvals.yourWeek', { day: dayText(period.startDay) })
            : t('approvals.theirWeek', { name: period.userName, day: dayText(period.startDay) })
        }</a
      >
    </p>`;
  res
    .status(status)
    .type('html')
    .end(appPage(deps, session, { title: `${period.userName}: ${periodName(period)}`, current: own ? 'week' : 'approvals', body }));
}

/** The Approvals page, the period page, and the week's Submit and Withdraw. */
export function approvalRoutes(router: Router, deps: WebDeps): void {
  const { services } = deps;

  const listPage = (res: Response, signed: SignedIn, status: number, notice: Notice | null, errors: FieldErrors = {}) =>
    approvalsPage(deps, res, signed, status, notice, errors);
  const periodPage = (res: Response, signed: SignedIn, id: string, status: number, notice: Notice | null, errors: FieldErrors = {}) =>
    periodOfPage(deps, res, signed, id, status, notice, errors);

  // Approvers only (in a workspace with approval on): anyone else gets 404, as anything hidden does.
  router.get('/approvals', (_req, res) => {
    const signed = signedOf(res) as SignedIn;
    if (!services.approvals.approves(signed.session.actor)) throw new DomainError('not_found', 'The Approvals page is for approvers.');
    listPage(res, signed, 200, deps.flashes.take(signed.secret));
  });

  router.get('/approvals/:id', (req, res, next) => {
    const signed = signedOf(res) as SignedIn;
    try {
      periodPage(res, signed, req.params.id as string, 200, deps.flashes.take(signed.secret));
    } catch (error) {
      next(error);
    }
  });

  // Submit one's own period (from the week): back to the week with a notice, or the week with the refusal on top.
  router.post('/approvals/submit', (req, res, next) => {
    const signed = signedOf(res) as SignedIn;
    try {
      const period = services.approvals.submit(signed.session.actor, { day: field(req, 'day') });
      deps.flashes.put(signed.secret, {
        kind: 'ok',
        body: t('approvals.submittedYours', { period: periodName(period) }),
      });
      const week = field(req, 'week');
      res.redirect(303, `${APP_PATH}/week${/^\d{4}-\d{2}-\d{2}$/.test(week) ? `?date=${week}` : ''}`);
    } catch (error) {
      if (!(error instanceof DomainError)) return next(error);
      renderWeek(deps, req, res, signed, refusal(error).status, undefined, { notice: { kind: 'error', body: spoken(error) } });
    }
  });

  /** A decision's form: done, back where it was made with a notice; refused, that page again with the refusal. */
  const decide =
    (act: 'approve' | 'reject' | 'reopen' | 'withdraw') =>
    (req: Request, res: Response, next: (error?: unknown) => void): void => {
      const signed = signedOf(res) as SignedIn;
      const id = req.params.id as string;
      const back = field(req, 'back');
      const note = field(req, 'note');
      let done: PeriodView;
      try {
        const { approvals } = services;
        const actor = signed.session.actor;
        done =
          act === 'approve'
            ? approvals.approve(actor, id, { note })
            : act === 'reject'
              ? approvals.reject(actor, id, { note })
              : approvals.reopen(actor, id, { note });
      } catch (error) {
        if (!isFormRefusal(error) && !(error instanceof DomainError && error.code === 'forbidden')) return next(error);
        const refused = refusal(error as DomainError);
        const errors: FieldErrors = refused.field === 'note' ? { [`${act}-${id}`]: refused.message } : {};
        const notice: Notice = { kind: 'error', body: refused.message };
        if (back === 'period') return periodPage(res, signed, id, refused.status, notice, errors);
        if (back === 'week' || act === 'withdraw') return renderWeek(deps, req, res, signed, refused.status, undefined, { notice });
        return listPage(res, signed, refused.status, notice, errors);
      }
      const vars = { name: done.userName, period: periodName(done) };
      const body =
        done.userId === signed.session.userId
          ? {
              approve: () => t('approvals.approvedYours', vars),
              reject: () => t('approvals.rejectedYours', vars),
              reopen: () => t('approvals.reopenedYours', vars),
              withdraw: () => t('approvals.withdrewYours', vars),
            }[act]()
          : {
              approve: () => t('approvals.approvedTheirs', vars),
              reject: () => t('approvals.rejectedTheirs', vars),
              reopen: () => t('approvals.reopenedTheirs', vars),
              withdraw: () => t('approvals.withdrewTheirs', vars),
            }[act]();
      deps.flashes.put(signed.secret, { kind: 'ok', body });
      const week = field(req, 'week');
      if (back === 'period') return void res.redirect(303, `${APP_PATH}/approvals/${id}`);
      if (back === 'week' || act === 'withdraw')
        return void res.redirect(303, `${APP_PATH}/week?date=${/^\d{4}-\d{2}-\d{2}$/.test(week) ? week : done.startDay}`);
      res.redirect(303, `${APP_PATH}/approvals`);
    };
  router.post('/approvals/:id/approve', decide('approve'));
  router.post('/approvals/:id/reject', decide('reject'));
  router.post('/approvals/:id/reopen', decide('reopen'));
  router.post('/approvals/:id/withdraw', decide('withdraw'));
}
