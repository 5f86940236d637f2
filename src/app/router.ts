import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { DateTime } from 'luxon';
import { DomainError } from '../errors.js';
import { errorFields } from '../logger.js';
import type { EntryRowView } from '../modules/entries/service.js';
import type { SessionView } from '../modules/sessions/service.js';
import { csrfOk, field, fields, sessionSecretOf } from '../settings/kit.js';
import { durableAnswers, SETTINGS_CSP } from '../settings/router.js';
import { APP_SCRIPT, APP_STYLE } from './assets.js';
import { durationOf, instantOf, wallClock, weekOf } from './forms.js';
import type { AppDeps, SignedIn } from './deps.js';
import { appPage } from './layout.js';
import { profileRoutes } from './profile.js';
import { catalogRoutes } from './catalog.js';
import { reportRoutes } from './reports.js';
import { weekBody, type WeekModel } from './week.js';

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
    .end(appPage(deps, session, { title: 'Week', current: 'week', body: weekBody(model), askZone: !zoneAsked }));
}

/** Back to the week a form was posted from (post/redirect/get). */
const backToWeek = (req: Request, res: Response) => {
  const week = field(req, 'week');
  res.redirect(303, /^\d{4}-\d{2}-\d{2}$/.test(week) ? `/app/week?date=${week}` : '/app/week');
};

/** The names the API's and the services' messages start with, and the form fields they are about. */
const FIELD_OF: Record<string, string> = {
  description: 'description',
  start: 'start',
  end: 'end',
  duration: 'duration',
  project: 'projectId',
  projectid: 'projectId',
  billable: 'billable',
};

/** A refusal shown at its field: the message's first word names it (`description: …`, `end must be after start`). */
function refusal(form: string, req: Request, error: DomainError, fallback: string): NonNullable<WeekModel['refused']> {
  const first = /^(?:body\.)?([a-zA-Z]+)/.exec(error.message)?.[1]?.toLowerCase() ?? '';
  const named = FIELD_OF[first] ?? fallback;
  // The add form types a day and times: its start and end are its time fields.
  const at = form === 'add' && (named === 'start' || named === 'end') ? `${named}Time` : named;
  const values = Object.fromEntries(
    Object.entries((req.body ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === 'string'),
  ) as Record<string, string>;
  return { form, values, errors: { [at]: error.message.replace(/^body\./, '') } };
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
function writeRoutes(router: Router, deps: AppDeps, signedOf: (res: Response) => SignedIn): void {
  const { services, check } = deps;
  /** Runs a form's write; a refusal re-renders the week with the message at its field (400, or the API's status). */
  const write =
    (form: (req: Request) => string, fallback: string, body: (req: Request, session: SessionView, zone: string) => void) =>
    (req: Request, res: Response, next: NextFunction) => {
      const signed = signedOf(res);
      try {
        body(req, signed.session, zoneOf(deps, signed.session).zone);
      } catch (error) {
        if (!(error instanceof DomainError)) return next(error);
        if (error.code === 'not_found' || error.code === 'forbidden') return next(error);
        return renderWeek(deps, req, res, signed, error.code === 'conflict' ? 409 : 400, refusal(form(req), req, error, fallback));
      }
      backToWeek(req, res);
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
        if (!running) throw new DomainError('conflict', 'description: the timer was stopped meanwhile (elsewhere); nothing was saved.');
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
                  throw new DomainError('invalid', 'end: give an end time or a duration.');
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
 * The first-party web app, under /app, on the settings page's sessions: the timer and the week.
 * Every write goes to the same domain services as the API with `source: "web"`, after the same
 * contract check of its body, and so records its sync event and webhooks as a REST write does.
 */
export function createAppRouter(deps: AppDeps): Router {
  const { services, logger, live } = deps;
  const router = express.Router({ strict: false, caseSensitive: true });

  router.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', SETTINGS_CSP.replace("form-action 'self'", "form-action 'self'; connect-src 'self'"));
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  for (const asset of [APP_STYLE, APP_SCRIPT]) {
    router.get(`/assets/${asset.name}`, (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.type(asset.name.split('.').pop() as string).end(asset.body);
    });
  }
  router.use(express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 100 }));
  // A form's answer leaves once what it wrote is on disk (group commit), as the API's and the settings page's.
  router.use(durableAnswers(services, logger));
  // Signed in (the settings page's session), or to its sign-in; a POST must carry the session's token.
  router.use((req, res, next) => {
    const secret = sessionSecretOf(req, deps.config);
    const session = secret === null ? null : services.sessions.session(secret);
    if (!session || secret === null) {
      if (req.path === '/events') return void res.status(401).type('text/plain').end('Sign in again.');
      return void res.redirect(303, `${deps.base}/sign-in`);
    }
    const signed: SignedIn = { session, secret };
    if (req.method === 'POST' && !csrfOk(req, deps, signed))
      return void res
        .status(403)
        .type('text/plain')
        .end('The form was out of date or came from another site. Reload the page and try again.');
    res.locals.signed = signed;
    next();
  });
  const signedOf = (res: Response) => res.locals.signed as SignedIn;

  router.get('/', (_req, res) => res.redirect(303, '/app/week'));
  router.get('/week', (req, res) => renderWeek(deps, req, res, signedOf(res), 200));
  router.get('/events', (req, res) => {
    const { session } = signedOf(res);
    live.open(req, res, { workspaceId: session.workspaceId, userId: session.userId });
  });

  writeRoutes(router, deps, signedOf);
  profileRoutes(router, deps, signedOf);
  catalogRoutes(router, deps, signedOf);
  reportRoutes(router, deps, signedOf);
  router.post('/preferences/zone', (req, res, next) => {
    try {
      services.accounts.setPreferences(signedOf(res).session.actor, signedOf(res).session.userId, { timeZone: field(req, 'timeZone') });
      res.status(204).end();
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid') return void res.status(400).type('text/plain').end(error.message);
      next(error);
    }
  });

  router.use((_req, res) => res.status(404).type('text/plain').end('There is no such page of the app. Go to /app/week.'));
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof DomainError && (error.code === 'not_found' || error.code === 'forbidden')) {
      return void res
        .status(error.code === 'not_found' ? 404 : 403)
        .type('text/plain')
        .end(`${error.message} Go back to /app/week.`);
    }
    logger.error('web app failed', { method: req.method, path: req.path, ...errorFields(error) });
    res.status(500).type('text/plain').end('Something went wrong; it was logged. Try again in a moment.');
  });
  return router;
}
