import type { NextFunction, Request, Response, Router } from 'express';
import { DateTime } from 'luxon';
import { DomainError } from '../../errors.js';
import type { EntryRowView } from '../../modules/entries/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebArea, WebDeps } from '../deps.js';
import { durationOf, field, fields, instantOf, sentValues, wallClock, weekOf } from '../kit/forms.js';
import { isFormRefusal, refusal } from '../kit/refusal.js';
import { requireSignIn, type SignedIn, signedOf } from '../session/guard.js';
import { catalogRoutes } from './catalog.js';
import { appPage } from './page.js';
import { profileRoutes } from './profile.js';
import { reportRoutes } from './reports.js';
import { weekBody, type WeekModel } from './week.js';

type AppDeps = WebDeps;

/** The member's zone and first day (their preferences, else the server's zone and Monday). */
function zoneOf(deps: AppDeps, session: SessionView) {
  const prefs = deps.services.accounts.preferences(session.userId);
  return { zone: prefs.timeZone ?? deps.config.serverTimeZone, weekStart: prefs.weekStart ?? 'monday', asked: prefs.timeZone !== null };
}

/** Every own entry overlapping the week (pages of 500; a week holds far fewer). */
function entriesOf(deps: AppDeps, session: SessionView, from: string, to: string, whose: string[] | null): EntryRowView[] {
  const rows: EntryRowView[] = [];
  let cursor: string | undefined;
  do {
    const page = deps.services.entries.list(session.actor, {
      from,
      to,
      ...(whose ? { userIds: whose } : {}),
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    rows.push(...page.rows);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && rows.length < 5000);
  return rows;
}

/** Renders the week (after a refused form, with the form as sent). */
function renderWeek(deps: AppDeps, req: Request, res: Response, signed: SignedIn, status: number, refused?: WeekModel['refused']): void {
  const session = signed.session;
  const { zone, weekStart, asked: zoneAsked } = zoneOf(deps, session);
  const now = deps.clock.now();
  const date =
    typeof req.query.date === 'string' ? req.query.date : typeof req.body?.week === 'string' ? (req.body.week as string) : undefined;
  // A week the API can hold (1900 to 9998): a day outside is refused with what to do, not answered with a failure.
  if (date !== undefined && /^\d{4}-/.test(date) && (date < '1900-01-08' || date > '9998-12-24'))
    throw new DomainError('invalid', `There is no week of ${date} here: choose a day from 1900 to 9998.`, { field: 'date' });
  const week = weekOf(date, zone, weekStart, now);
  // Whose week: one's own; a colleague's or the team's for those who may see colleagues' time (read-only here).
  const members = session.actor.canViewOthersTime ? deps.services.accounts.memberDirectory(session.workspaceId) : [];
  const asked = typeof req.query.member === 'string' ? req.query.member : 'me';
  const viewing = asked === 'team' && members.length > 0 ? 'team' : members.some((m) => m.userId === asked) ? asked : session.userId;
  const model: WeekModel = {
    session,
    zone,
    week,
    now,
    viewing,
    ...(typeof req.query.edit === 'string' ? { editId: req.query.edit } : {}),
    clock: wallClock(zone),
    members: members.map((m) => ({ userId: m.userId, name: m.name })),
    entries: entriesOf(deps, session, week.start.toISO() as string, week.end.toISO() as string, viewing === 'team' ? null : [viewing]),
    running: deps.services.timers.current(session.actor),
    projects: deps.services.catalog.projects
      .list(session.actor, { archived: false })
      .map((p) => ({ id: p.id, name: p.name, billable: p.billable })),
    tags: deps.services.catalog.tags.list(session.actor).map((t) => ({ id: t.id, name: t.name })),
    ...(refused ? { refused } : {}),
  };
  res
    .status(status)
    .type('html')
    .end(
      appPage(deps, session, {
        title: 'Week',
        current: 'week',
        body: weekBody(model),
        askZone: !zoneAsked,
        notice:
          deps.flashes.take(signed.secret) ??
          (req.query.welcome === '1'
            ? { kind: 'ok', body: 'Welcome! Your password is set. Start a timer, or add the time you worked.' }
            : null),
        ...(model.running ? { documentTitle: `${runningClock(model.running.start, now)} · ${model.running.description || 'Timer'}` } : {}),
      }),
    );
}

/** A running timer's time as the page title shows it: `0:42` (hours and minutes). */
const runningClock = (start: string, now: number) => {
  const minutes = Math.max(0, Math.floor((now - Date.parse(start)) / 60_000));
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
};

/** Back to the week a form was posted from (post/redirect/get). */
const backToWeek = (deps: AppDeps, req: Request, res: Response) => {
  const week = field(req, 'week');
  res.redirect(303, /^\d{4}-\d{2}-\d{2}$/.test(week) ? `${deps.paths.app}/week?date=${week}` : `${deps.paths.app}/week`);
};

/** A refusal shown at its field (the error's own `field`; the add form types its start and end as times of a day). */
function refusalOf(form: string, req: Request, error: DomainError, fallback: string): NonNullable<WeekModel['refused']> {
  const fields: Record<string, string> = form === 'add' ? { start: 'startTime', end: 'endTime' } : {};
  const { errors } = refusal(error, { fields, fallback, message: (text) => text.replace(/^body\./, '') });
  return { form, values: sentValues(req), errors };
}

/**
 * The body of a form the API's way: the description, the project (none when empty), billable,
 * tags. Billable is the checkbox's only when it showed the chosen project's state
 * (`billableFor`); a form posted with another project leaves it to the project (absent: the
 * service takes the project's default, as for any API client).
 */
function common(req: Request): { description: string; projectId: string | null; billable?: boolean; tagIds?: string[] } {
  const tagIds = fields(req, 'tagIds');
  const projectId = field(req, 'projectId') || null;
  return {
    ...(tagIds.length > 0 || field(req, 'tagsShown') === 'true' ? { tagIds } : {}),
    description: field(req, 'description').trim(),
    projectId,
    ...(field(req, 'billableFor') === (projectId ?? '') ? { billable: field(req, 'billable') === 'true' } : {}),
  };
}

/** The forms that write: the timer, an entry added, edited or deleted; each back to its week, or its refusal at its field. */
function writeRoutes(router: Router, deps: AppDeps): void {
  const { services, check } = deps;
  /** Runs a form's write; a refusal re-renders the week with the message at its field (400, or the API's status). */
  const write =
    (form: (req: Request) => string, fallback: string, body: (req: Request, session: SessionView, zone: string) => void) =>
    (req: Request, res: Response, next: NextFunction) => {
      const signed = signedOf(res) as SignedIn;
      try {
        body(req, signed.session, zoneOf(deps, signed.session).zone);
      } catch (error) {
        if (!isFormRefusal(error)) return next(error);
        const refused = refusalOf(form(req), req, error, fallback);
        return renderWeek(deps, req, res, signed, refusal(error).status, refused);
      }
      backToWeek(deps, req, res);
    };

  router.post(
    '/timer/start',
    write(
      () => 'timer',
      'description',
      (req, session) => {
        const input = { ...common(req) };
        check('TimerStart', input);
        services.timers.start(session.actor, input, 'web');
      },
    ),
  );
  router.post(
    '/timer/stop',
    write(
      () => 'timer',
      'description',
      (_req, session) => void services.timers.stop(session.actor),
    ),
  );
  router.post(
    '/timer/save',
    write(
      () => 'timer',
      'description',
      (req, session) => {
        const running = services.timers.current(session.actor);
        if (!running)
          throw new DomainError('conflict', 'description: the timer was stopped meanwhile (elsewhere); nothing was saved.', {
            field: 'description',
          });
        const { description, projectId } = common(req);
        check('EntryPatch', { description, projectId });
        services.entries.update(session.actor, running.id, { description, projectId });
      },
    ),
  );
  router.post(
    '/entries',
    write(
      () => 'add',
      'description',
      (req, session, zone) => {
        const day = field(req, 'day');
        const start = instantOf(`${day}T${field(req, 'startTime')}`, zone, 'start');
        const duration = field(req, 'duration').trim();
        const end =
          duration !== ''
            ? (DateTime.fromISO(start)
                .plus({ seconds: durationOf(duration) })
                .toISO({ suppressMilliseconds: true }) as string)
            : field(req, 'endTime').trim() === ''
              ? (() => {
                  throw new DomainError('invalid', 'end: give an end time or a duration.', { field: 'end' });
                })()
              : instantOf(`${day}T${field(req, 'endTime')}`, zone, 'end');
        const input = { ...common(req), start, end, timeZone: zone };
        check('EntryCreate', input);
        services.entries.create(session.actor, { ...input, source: 'web' });
      },
    ),
  );
  router.post(
    '/entries/:id',
    write(
      (req) => req.params.id as string,
      'description',
      (req, session, zone) => {
        const form = common(req);
        // An edit that changed the project without the box: the new project's default (an edit keeps Billable otherwise).
        const billable = form.billable ?? (form.projectId ? services.catalog.projects.get(session.actor, form.projectId).billable : false);
        const patch = {
          ...form,
          billable,
          start: instantOf(field(req, 'start'), zone, 'start'),
          end: instantOf(field(req, 'end'), zone, 'end'),
        };
        check('EntryPatch', patch);
        services.entries.update(session.actor, req.params.id as string, patch);
      },
    ),
  );
  router.post(
    '/entries/:id/delete',
    write(
      () => 'delete',
      'description',
      (req, session) => services.entries.delete(session.actor, req.params.id as string),
    ),
  );
}

/**
 * The first-party web app, under /app: the timer and the week, reports, the catalog, the
 * profile. Every write goes to the same domain services as the API with `source: "web"`, after
 * the same contract check of its body, and so records its sync event and webhooks as a REST
 * write does. Every page is a signed-in member's.
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
    router.get('/week', (req, res) => renderWeek(deps, req, res, signedOf(res) as SignedIn, 200));
    writeRoutes(router, deps);
    profileRoutes(router, deps);
    catalogRoutes(router, deps);
    reportRoutes(router, deps);
    router.post('/preferences/zone', (req, res, next) => {
      const { session } = signedOf(res) as SignedIn;
      try {
        services.accounts.setPreferences(session.actor, session.userId, { timeZone: field(req, 'timeZone') });
        res.status(204).end();
      } catch (error) {
        if (error instanceof DomainError && error.code === 'invalid') return void res.status(400).type('text/plain').end(error.message);
        next(error);
      }
    });
  },
};
