import { formats, t } from '../../i18n/index.js';
import type { InvoiceReminderSkipView, InvoiceReminderView, OverdueView } from '../../modules/invoices/service.js';
import { html, type Html } from '../kit/html.js';
import type { WebPaths } from '../paths.js';

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
    : t('reminders.overdue.level', { level: o.lastReminder.level, date: formats().date(o.lastReminder.at.slice(0, 10)) });

/** The Overdue view's table (under the list's heading and filter), or its empty state. */
export function overdueBody(paths: WebPaths, overdue: OverdueView[], context: { zone: string; reminders: string | null }): Html {
  const intro = html`<p class="hint">
    ${t('reminders.overdue.intro', { zone: context.zone })}
    ${context.reminders === null ? t('reminders.overdue.remindersOff') : t('reminders.overdue.remindersOn', { days: context.reminders })}
  </p>`;
  if (overdue.length === 0)
    return html`${intro}
      <p class="empty">${t('reminders.overdue.empty')}</p>`;
  const f = formats();
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
                <td data-label="${t('reminders.overdue.due')}" class="c-time">${o.invoice.dueDate ? f.date(o.invoice.dueDate) : '–'}</td>
                <td data-label="${t('reminders.overdue.days')}" class="num">${String(o.daysOverdue)}</td>
                <td data-label="${t('reminders.overdue.amountDue')}" class="num">${f.money(o.amountDue, o.invoice.currency)}</td>
                <td data-label="${t('reminders.overdue.lastReminder')}">${reminderCell(o)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}

/**
 * The reminders section of an invoice's page: a reminder the tick could not send (why, since
 * when), then each level sent, when (in the viewer's zone), how late, what was due, to whom, and
 * where its mail stands.
 */
export function remindersSection(
  reminders: InvoiceReminderView[],
  zone: string,
  currency: string,
  skip: InvoiceReminderSkipView | null = null,
): Html | string {
  if (reminders.length === 0 && skip === null) return '';
  return html`<section class="sends reminders" aria-labelledby="reminders-heading">
    <h2 id="reminders-heading">${t('reminders.page.heading')}</h2>
    ${
      skip
        ? html`<div class="notice error" role="status">
            ${t('invoices.reminderSkip.line', {
              level: skip.level,
              since: formats().date(skip.since),
              why: t(
                skip.reason === 'budget'
                  ? 'invoices.reminderSkip.budget'
                  : skip.reason === 'address'
                    ? 'invoices.reminderSkip.address'
                    : 'invoices.reminderSkip.document',
              ),
            })}
          </div>`
        : ''
    }
    ${reminders.length === 0 ? '' : remindersTable(reminders, zone, currency)}
  </section>`;
}

/** The reminders sent, a row each. */
function remindersTable(reminders: InvoiceReminderView[], zone: string, currency: string): Html {
  const f = formats();
  return html` <div class="scroll">
    <table class="rows sends">
      <thead>
        <tr>
          <th scope="col">${t('reminders.page.level')}</th>
          <th scope="col">${t('reminders.page.when')}</th>
          <th scope="col" class="num">${t('reminders.overdue.days')}</th>
          <th scope="col" class="num">${t('reminders.overdue.amountDue')}</th>
          <th scope="col">${t('reminders.page.to')}</th>
          <th scope="col">${t('reminders.page.files')}</th>
          <th scope="col">${t('reminders.page.delivery')}</th>
        </tr>
      </thead>
      <tbody>
        ${reminders.map(
          (r) =>
            html`<tr>
              <td data-label="${t('reminders.page.level')}">${String(r.level)}</td>
              <td data-label="${t('reminders.page.when')}" class="c-time">${f.dateTime(Date.parse(r.at), zone)}</td>
              <td data-label="${t('reminders.overdue.days')}" class="num">${String(r.daysOverdue)}</td>
              <td data-label="${t('reminders.overdue.amountDue')}" class="num">${f.money(r.amountDue, currency)}</td>
              <td data-label="${t('reminders.page.to')}">${r.to}</td>
              <td data-label="${t('reminders.page.files')}">${r.files.join(', ')}</td>
              <td data-label="${t('reminders.page.delivery')}">${r.delivery ?? t('reminders.page.gone')}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
