import { t } from '../../i18n/index.js';
import type { OverdueView } from '../../modules/invoices/service.js';
import { html, type Html } from '../kit/html.js';
import type { WebPaths } from '../paths.js';
import { money } from './invoices-views.js';

/*
 * The Overdue view of the invoice list (issue 57 item 3; the list filtered by status=overdue): the
 * invoices whose due date has passed in the workspace's default zone with something still due,
 * the most days overdue first, with the last payment reminder sent for each.
 */

const clientOf = (o: OverdueView) => o.invoice.recipient?.name ?? o.invoice.recipient?.legalName ?? o.invoice.clientId;

/** The last reminder's cell: its level and day, or that none was sent (and whether reminders are on). */
const reminderCell = (o: OverdueView): Html | string =>
  o.lastReminder === null
    ? t('reminders.overdue.none')
    : t('reminders.overdue.level', { level: o.lastReminder.level, date: o.lastReminder.at.slice(0, 10) });

/** The Overdue view's table (under the list's heading and filter), or its empty state. */
export function overdueBody(paths: WebPaths, overdue: OverdueView[], context: { zone: string; reminders: string | null }): Html {
  const intro = html`<p class="hint">
    ${t('reminders.overdue.intro', { zone: context.zone })}
    ${context.reminders === null ? t('reminders.overdue.remindersOff') : t('reminders.overdue.remindersOn', { days: context.reminders })}
  </p>`;
  if (overdue.length === 0)
    return html`${intro}
      <p class="empty">${t('reminders.overdue.empty')}</p>`;
  return html`${intro}
    <div class="scroll">
      <table class="rows invoices overdue">
        <caption class="vh">
          ${t('reminders.overdue.caption')}
        </caption>
        <thead>
          <tr>
            <th scope="col">${t('reminders.overdue.number')}</th>
            <th scope="col">${t('reminders.overdue.client')}</th>
            <th scope="col">${t('reminders.overdue.due')}</th>
            <th scope="col" class="num">${t('reminders.overdue.days')}</th>
            <th scope="col" class="num">${t('reminders.overdue.amountDue')}</th>
            <th scope="col">${t('reminders.overdue.lastReminder')}</th>
          </tr>
        </thead>
        <tbody>
          ${overdue.map(
            (o) =>
              html`<tr>
                <td data-label="${t('reminders.overdue.number')}" class="c-number">
                  <a href="${paths.invoices}/${o.invoice.id}">${o.invoice.number ?? o.invoice.id}</a>
                </td>
                <td data-label="${t('reminders.overdue.client')}">${clientOf(o)}</td>
                <td data-label="${t('reminders.overdue.due')}" class="c-time">${o.invoice.dueDate ?? '–'}</td>
                <td data-label="${t('reminders.overdue.days')}" class="num">${String(o.daysOverdue)}</td>
                <td data-label="${t('reminders.overdue.amountDue')}" class="num">${money(o.amountDue, o.invoice.currency)}</td>
                <td data-label="${t('reminders.overdue.lastReminder')}">${reminderCell(o)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}
