import type { Router } from 'express';
import { DomainError } from '../../errors.js';
import type { WebArea, WebDeps } from '../deps.js';
import { field } from '../kit/forms.js';
import { requireSignIn, type SignedIn, signedOf } from '../session/guard.js';
import { approvalRoutes } from './approvals.js';
import { catalogRoutes } from './catalog.js';
import { expenseRoutes } from './expenses.js';
import { invoiceRoutes } from './invoices.js';
import { profileRoutes } from './profile.js';
import { reportExportRoutes } from './report-export.js';
import { reportRoutes } from './reports.js';
import { timesheetRoutes } from './timesheet.js';
import { weekRoutes } from './week-routes.js';
import { spoken } from '../kit/refusal.js';

/**
 * The first-party web app, under /app: the timer and the week, the timesheet, reports, the
 * catalog, the invoices, the profile. Every write goes to the same domain services as the API with `source:
 * "web"`, after the same contract check of its body, and so records its sync event and webhooks
 * as a REST write does. Every page is a signed-in member's.
 */
export const appArea: WebArea = {
  base: (deps) => deps.paths.app,
  routes(router: Router, deps: WebDeps): void {
    const { services, live } = deps;
    // The live stream answers 401 to a browser signed out meanwhile (EventSource reads no redirect).
    router.get('/events', (req, res) => {
      const { session, secret } = signedOf(res);
      if (!session || secret === null) return void res.status(401).type('text/plain').end('Sign in again.');
      live.open(req, res, { workspaceId: session.workspaceId, userId: session.userId, sessionSecret: secret });
    });
    router.use(requireSignIn(deps.paths));
    router.get('/', (_req, res) => res.redirect(303, `${deps.paths.app}/week`));
    weekRoutes(router, deps);
    timesheetRoutes(router, deps);
    profileRoutes(router, deps);
    catalogRoutes(router, deps);
    reportRoutes(router, deps);
    reportExportRoutes(router, deps);
    invoiceRoutes(router, deps);
    approvalRoutes(router, deps);
    expenseRoutes(router, deps);
    router.post('/preferences/zone', (req, res, next) => {
      const { session } = signedOf(res) as SignedIn;
      try {
        services.accounts.setPreferences(session.actor, session.userId, { timeZone: field(req, 'timeZone') });
        res.status(204).end();
      } catch (error) {
        if (error instanceof DomainError && error.code === 'invalid') return void res.status(400).type('text/plain').end(spoken(error));
        next(error);
      }
    });
  },
};
