import { randomUUID } from 'node:crypto';
import type { Request, Router } from 'express';
import { DomainError } from '../../errors.js';
import { CONTENT_TYPES, exportFileName, exportFormatOf, exportKindOf, type ExportRequest } from '../../modules/reports/service.js';
import { actorData } from '../../threads/readers/tasks.js';
import type { FieldErrors } from '../kit/fields.js';
import type { WebDeps as AppDeps } from '../deps.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import { filterQuery } from './report-filters.js';
import { contextOf, EVERYONE, formErrors, formOf, refusalOf, renderReport } from './reports.js';
import { spoken } from '../kit/refusal.js';

const query = (req: Request, name: string): string => (typeof req.query[name] === 'string' ? (req.query[name] as string).trim() : '');

/**
 * The Reports page's downloads (decisions §11): `GET /app/reports/export?format=csv|xlsx|pdf&kind=
 * detailed|summary|weekly` with the page's own from, to, groupBy, subGroupBy, member and filters. The
 * page's checks and the reports service's refusals answer as the page does (the page with the
 * message, and its status), before any byte of a file; the file is written on a reader thread to
 * a private spooled file at the disk's pace and sent to the socket as it grows, so a slow browser
 * holds no reader thread (issue 54, N2). A failure after the first byte, a browser that stops
 * reading, a download past EXPORT_MAX_MS and the server's stop break the download off (the browser
 * marks it failed) rather than ending a file that looks complete.
 */
export function reportExportRoutes(router: Router, deps: AppDeps): void {
  router.get('/reports/export', async (req, res, next) => {
    const ctx = contextOf(deps, (signedOf(res) as SignedIn).session);
    const form = formOf(req, ctx);
    const errors: FieldErrors = formErrors(form, ctx);
    const asked = { format: query(req, 'format'), kind: query(req, 'kind') || 'detailed' };
    let format;
    let kind;
    try {
      kind = exportKindOf(asked.kind);
      format = exportFormatOf(asked.format);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      errors.form = `${spoken(error)} Choose one with the Download buttons.`;
    }
    if (Object.keys(errors).length > 0 || !format || !kind) return renderReport(deps, res, ctx, 400, form, errors, null);
    const request: ExportRequest = {
      kind,
      format,
      from: form.from,
      to: form.to,
      timeZone: ctx.zone,
      weekStart: ctx.weekStart,
      groupBy: form.groupBy as ExportRequest['groupBy'],
      subGroupBy: form.subGroupBy === '' ? null : (form.subGroupBy as ExportRequest['groupBy']),
      ...(form.member === EVERYONE ? {} : { userIds: [form.member] }),
      filters: filterQuery(form),
      // As on the page: colleagues' money the member may not see is left out of the file, not refused.
      unseenMoney: 'withhold',
      // As on the page: each entry rounded as invoices round it, when the member asked; the file's head says the rules.
      ...(form.rounded ? { rounded: true } : {}),
    };
    const requestId = `app-export-${randomUUID()}`;
    // The browser went away before the end: the export stops reading.
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    let started = false;
    try {
      const outcome = await deps.readers.export(
        { type: 'export', request, actor: actorData(ctx.session.actor), now: deps.clock.now(), requestId },
        {
          start() {
            started = true;
            const name = exportFileName(request);
            res.status(200);
            res.setHeader('Content-Type', CONTENT_TYPES[request.format]);
            res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
            res.setHeader('X-Content-Type-Options', 'nosniff');
            res.flushHeaders();
          },
          chunk(bytes, taken) {
            // Taken once the socket has it; a socket that failed takes nothing more (the export waits for its cancel).
            res.write(bytes, (error) => {
              if (!error) taken();
            });
          },
          brokenOff() {
            // The browser stopped reading, the download ran past EXPORT_MAX_MS, or the server stops: the download
            // is broken off (the browser marks it failed) and its spool file freed.
            res.destroy();
          },
        },
        gone.signal,
      );
      if ('cancelled' in outcome) {
        if (outcome.why === 'stalled')
          deps.logger.warn('an export was broken off: its browser stopped reading', { requestId, kind, format });
        else if (outcome.why === 'gone') deps.logger.info('an export was cancelled: its browser went away', { requestId, kind, format });
        else if (outcome.why === 'stopping')
          deps.logger.info('an export was broken off: the server is stopping', { requestId, kind, format });
        return;
      }
      res.end();
    } catch (error) {
      if (started) {
        deps.logger.error('an export failed after its first byte; the download was broken off', { requestId, kind, format });
        res.destroy();
        return;
      }
      if (!(error instanceof DomainError) || (error.code !== 'invalid' && error.code !== 'money_visibility_required')) return next(error);
      const refused = refusalOf(error);
      renderReport(deps, res, ctx, refused.status, form, refused.errors, null);
    }
  });
}
