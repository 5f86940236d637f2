import type { Services } from '../services.js';
import { type Handler, ok } from './types.js';

export function reportHandlers({ reports }: Pick<Services, 'reports'>) {
  const getSummaryReport: Handler<'getSummaryReport'> = ({ actor, query }) => ok({ data: reports.summary(actor, query) });
  const getDetailedReport: Handler<'getDetailedReport'> = ({ actor, query }) => {
    const page = reports.detailed(actor, query);
    return ok({ data: page.rows, nextCursor: page.nextCursor });
  };
  const getWeeklyReport: Handler<'getWeeklyReport'> = ({ actor, query }) => ok({ data: reports.weekly(actor, query) });
  return { getSummaryReport, getDetailedReport, getWeeklyReport };
}
