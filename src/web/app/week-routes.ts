import type { NextFunction, Request, Response, Router } from 'express';
import { DateTime } from 'luxon';
import { DomainError } from '../../errors.js';
import type { EntryRowView } from '../../modules/entries/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import { field, fields, sentValues, wallClock, weekOf } from '../kit/forms.js';
import { html } from '../kit/html.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { isFormRefusal, refusal, spoken } from '../kit/refusal.js';
import { checkDayTotal, hoursText, LongDay, spanOf, type TimeFormat, timerStartOf } from '../kit/times.js';
import { APP_PATH } from '../paths.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import { appPage } from './page.js';
import type { ProjectChoice, TagChoice, TaskChoice } from './pickers.js';
import { quickEntry } from './quick-entry.js';
import { dayHeading, weekBody, type WeekModel } from './week.js';
import { t, words } from '../../i18n/index.js';
import { stripOf } from './approval-strip.js';

/** The member's zone, first day and clock (their preferences, else the server's zone, Monday, 24-hour). */
export function zoneOf(deps: WebDeps, session: SessionView) {
  const prefs = deps.services.accounts.preferences(session.userId);
  return {
    zone: prefs.timeZone ?? deps.config.serverTimeZone,
    weekStart: prefs.weekStart ?? 'monday',
    asked: prefs.timeZone !== null,
    timeFormat: (prefs.timeFormat ?? '24h') as TimeFormat,
  };
}

/** Every entry overlapping the range (pages of 500; a week holds far fewer). */
export function entriesOf(deps: WebDeps, session: SessionView, from: string, to: string, whose: string[] | null): EntryRowView[] {
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

/**
 * The member's own time on the day (in the zone) that `start` falls on, without the entry
 * `except`: what that day's rows on the week sum to (entries are filed under the day they start).
 */
export function dayTimeOf(
  deps: WebDeps,
  session: SessionView,
  zone: string,
  start: number,
  except?: string,
): { seconds: number; day: string } {
  const first = DateTime.fromMillis(start, { zone }).startOf('day');
  const from = first.toMillis();
  const to = first.plus({ days: 1 }).toMillis();
  const now = deps.clock.now();
  const seconds = entriesOf(deps, session, first.toISO() as string, first.plus({ days: 1 }).toISO() as string, [session.userId])
    .filter((e) => e.id !== except && Date.parse(e.start) >= from && Date.parse(e.start) < to)
    .reduce((sum, e) => sum + (e.end ? e.durationSec : Math.max(0, Math.floor((now - Date.parse(e.start)) / 1000))), 0);
  return { seconds, day: dayHeading(first) };
}

/** The projects the pickers offer (active ones, with their client's name). */
export function projectChoices(deps: WebDeps, session: SessionView): ProjectChoice[] {
  const { catalog } = deps.services;
  const clients = new Map(catalog.clients.list(session.actor, {}).map((c) => [c.id, c.name]));
  return catalog.projects.list(session.actor, { archived: false }).map((p) => ({
    id: p.id,
    name: p.name,
    billable: p.billable,
    clientName: p.clientId ? (clients.get(p.clientId) ?? null) : null,
    color: p.color,
  }));
}

/** The tasks the pickers offer: every task with its project (archived ones are shown only where chosen already). */
export function taskChoices(deps: WebDeps, session: SessionView): TaskChoice[] {
  return deps.services.catalog.tasks
    .list(session.actor, {})
    .map((task) => ({ id: task.id, name: task.name, projectId: task.projectId, archived: task.archived }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The tags the pickers offer. */
export const tagChoices = (deps: WebDeps, session: SessionView): TagChoice[] =>
  deps.services.catalog.tags.list(session.actor).map((tag) => ({ id: tag.id, name: tag.name }));

/** The pickers' choices, read once when first asked for (quick entry reads them only for a description with `@` or `#`). */
function choicesOf(deps: WebDeps, session: SessionView): () => Choices {
  let read: Choices | null = null;
  return () => (read ??= { projects: projectChoices(deps, session), tasks: taskChoices(deps, session), tags: tagChoices(deps, session) });
}

/** The day asked for in the address (`date`), or the week posted from; one the API cannot hold is refused with what to do. */
function askedDay(req: Request): string | undefined {
  const date =
    typeof req.query.date === 'string' ? req.query.date : typeof req.body?.week === 'string' ? (req.body.week as string) : undefined;
  if (date !== undefined && /^\d{4}-/.test(date) && (date < '1900-01-08' || date > '9998-12-24'))
    throw new DomainError('invalid', `There is no week of ${date} here: choose a day from 1900 to 9998.`, {
      field: 'date',
      words: words('week.noSuchWeek', { date }),
    });
  return date;
}

const welcome = (): Notice => ({ kind: 'ok', body: t('week.welcome') });

/** Renders the week (after a refused form, with the form as sent and its message at the field). */
export function renderWeek(
  deps: WebDeps,
  req: Request,
  res: Response,
  signed: SignedIn,
  status: number,
  refused?: WeekModel['refused'],
  open: { editId?: string; addDay?: string; notice?: Notice } = {},
): void {
  const session = signed.session;
  const { zone, weekStart, asked: zoneAsked, timeFormat } = zoneOf(deps, session);
  const now = deps.clock.now();
  const shown = weekOf(askedDay(req), zone, weekStart, now);
  // A refused Add time shows the week of the day it was for, so the form comes back as typed (nothing lost).
  const week =
    open.addDay && /^\d{4}-\d{2}-\d{2}$/.test(open.addDay) && !shown.days.some((d) => d.key === open.addDay)
      ? weekOf(open.addDay, zone, weekStart, now)
      : shown;
  // Whose week: one's own; a colleague's or the team's for those who may see colleagues' time (read-only here).
  const members = session.actor.canViewOthersTime ? deps.services.accounts.memberDirectory(session.workspaceId) : [];
  const asked = typeof req.query.member === 'string' ? req.query.member : 'me';
  const viewing = asked === 'team' && members.length > 0 ? 'team' : members.some((m) => m.userId === asked) ? asked : session.userId;
  const editId = open.editId ?? (typeof req.query.edit === 'string' ? req.query.edit : undefined);
  const addDay =
    open.addDay ?? (typeof req.query.add === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(req.query.add) ? req.query.add : undefined);
  const notice = open.notice ?? deps.flashes.take(signed.secret) ?? (req.query.welcome === '1' ? welcome() : null);
  const model: WeekModel = {
    session,
    zone,
    timeFormat,
    week,
    now,
    viewing,
    ...(editId ? { editId } : {}),
    ...(addDay ? { addDay } : {}),
    clock: wallClock(zone),
    members: members.map((m) => ({ userId: m.userId, name: m.name })),
    entries: entriesOf(deps, session, week.start.toISO() as string, week.end.toISO() as string, viewing === 'team' ? null : [viewing]),
    running: deps.services.timers.current(session.actor),
    projects: projectChoices(deps, session),
    tasks: taskChoices(deps, session),
    tags: tagChoices(deps, session),
    ...(refused ? { refused } : {}),
    // One's own week shows its periods' state and the lock date (decisions §13).
    ...(viewing === session.userId
      ? {
          approval: stripOf(deps, session, week.start.toISODate() as string, week.end.minus({ days: 1 }).toISODate() as string),
        }
      : {}),
    notice,
  };
  const title = model.running ? `${runningClock(model.running.start, now)} · ${model.running.description || t('timer.timer')}` : undefined;
  res
    .status(status)
    .type('html')
    .end(
      appPage(deps, session, {
        title: t('nav.week'),
        current: 'week',
        body: weekBody(model),
        askZone: !zoneAsked,
        ...(title ? { documentTitle: title } : {}),
      }),
    );
}

/** A running timer's time as the page title shows it: `0:42` (hours and minutes). */
const runningClock = (start: string, now: number) => {
  const minutes = Math.max(0, Math.floor((now - Date.parse(start)) / 60_000));
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
};

/** Back to the week a form was posted from (post/redirect/get), at the place it was made (`#e-…`, `#day-…`). */
function backToWeek(deps: WebDeps, req: Request, res: Response, place = '', notice?: Notice) {
  const week = field(req, 'week');
  if (notice) deps.flashes.put((signedOf(res) as SignedIn).secret, notice);
  res.redirect(303, `${APP_PATH}/week${/^\d{4}-\d{2}-\d{2}$/.test(week) ? `?date=${week}` : ''}${place}`);
}

/** A refused form, shown at its fields (the add form types its span as a day and times). */
function refusalOf(form: string, req: Request, error: DomainError): NonNullable<WeekModel['refused']> {
  // The form that starts another timer has no start field: a refusal of its start shows at its description.
  const names: Record<string, string> =
    form === 'add'
      ? { start: 'startTime', end: 'endTime', description: 'description' }
      : form === 'next'
        ? { start: 'description', startedAt: 'description' }
        : { startedAt: 'start' };
  const { errors } = refusal(error, { fields: names, fallback: 'description', message: (text) => text.replace(/^body\./, '') });
  return { form, values: { ...sentValues(req), tagIds: fields(req, 'tagIds').join(',') }, errors };
}

/** What quick entry reads names from: the pickers' projects, tasks and tags. */
type Choices = { projects: ProjectChoice[]; tasks: TaskChoice[]; tags: TagChoice[] };

/**
 * The body of a form the API's way: description, project (none when empty), its task, Billable,
 * tags. Billable is the checkbox's only when it showed the chosen project's state (`billableFor`);
 * a form posted with another project leaves it to the project (absent: the service's default).
 * Quick entry: `@Project / Task` and `#tag` typed whole in the description set them over the
 * pickers (./quick-entry.ts), and leave the text.
 */
function common(
  req: Request,
  choices: () => Choices,
): {
  description: string;
  projectId: string | null;
  taskId?: string | null;
  billable?: boolean;
  tagIds?: string[];
} {
  const typed = field(req, 'description').trim();
  const quick = /(?:^|\s)[@#]/.test(typed) ? quickEntry(typed, choices()) : null;
  const tagIds = [...new Set([...fields(req, 'tagIds'), ...(quick?.tagIds ?? [])])];
  const projectId = quick?.projectId ?? (field(req, 'projectId') || null);
  const picked = field(req, 'taskId') || null;
  // A task picked for another project than the one typed goes with it.
  const taskId = quick?.projectId
    ? (quick.taskId ?? (picked && choices().tasks.some((task) => task.id === picked && task.projectId === projectId) ? picked : null))
    : picked;
  return {
    ...(tagIds.length > 0 || field(req, 'tagsShown') === 'true' ? { tagIds } : {}),
    description: quick ? quick.description : typed,
    projectId,
    ...(taskId && projectId ? { taskId } : {}),
    ...(field(req, 'billableFor') === (projectId ?? '') ? { billable: field(req, 'billable') === 'true' } : {}),
  };
}

/** The Undo of a delete, as the notice after it carries it (a form: works without the script; 10 seconds). */
const undoNotice = (session: SessionView, id: string, what: string, week: string): Notice => ({
  kind: 'ok',
  body: html`${t('week.deleted', { what: what || t('week.theEntry') })}
    <form class="inline undo" method="post" action="${APP_PATH}/entries/${id}/restore" data-inplace data-undo-ms="10000">
      ${csrfField(session.csrfToken)}<input type="hidden" name="week" value="${week}" />
      <button class="secondary" type="submit">${t('week.undo')}</button>
    </form>`,
});

/** A form's write: its name (for a refusal), its body (a place to return to, or a notice). */
type FormWrite = (
  form: (req: Request) => string,
  body: (req: Request, session: SessionView, zone: string, tell: (notice: Notice) => void) => string | Notice | void,
) => (req: Request, res: Response, next: NextFunction) => void;

/** The timer's forms: start (with its project, tags, Billable and when it started), save in place, stop. */
function timerRoutes(router: Router, deps: WebDeps, write: FormWrite): void {
  const { services, check } = deps;
  router.post(
    '/timer/start',
    write(
      // The form that starts another timer while one runs is refused at its own fields.
      (req) => (field(req, 'next') === 'true' ? 'next' : 'timer'),
      (req, session, zone) => {
        const startedAt = field(req, 'startedAt').trim();
        const input = {
          ...common(req, choicesOf(deps, session)),
          ...(startedAt === '' || startedAt === 'now' || startedAt === t('week.now')
            ? {}
            : { start: new Date(timerStartOf(startedAt, deps.clock.now(), zone)).toISOString() }),
        };
        check('TimerStart', input);
        services.timers.start(session.actor, input, 'web');
      },
    ),
  );
  router.post(
    '/timer/stop',
    write(
      () => 'timer',
      // Said, so the last notice ("Started … again") never stays over a stopped timer.
      (_req, session) => {
        const stopped = services.timers.stop(session.actor);
        return {
          kind: 'ok',
          body: t('timer.stopped', { what: stopped.description || t('timer.theTimer'), duration: hoursText(stopped.durationSec) }),
        };
      },
    ),
  );
  router.post(
    '/timer/save',
    write(
      () => 'timer',
      (req, session, zone) => {
        const running = services.timers.current(session.actor);
        if (!running)
          throw new DomainError('conflict', 'The timer was stopped meanwhile (elsewhere); nothing was saved.', {
            field: 'description',
            words: words('timer.gone'),
          });
        const startedAt = field(req, 'startedAt').trim();
        const form = common(req, choicesOf(deps, session));
        const patch = {
          ...form,
          ...(form.projectId !== running.projectId && form.taskId === undefined ? { taskId: null } : {}),
          ...(startedAt === '' ? {} : { start: new Date(timerStartOf(startedAt, deps.clock.now(), zone)).toISOString() }),
        };
        check('EntryPatch', patch);
        services.entries.update(session.actor, running.id, patch, { ifUpdatedAt: field(req, 'version') || running.updatedAt });
        return { kind: 'ok', body: t('profile.saved') };
      },
    ),
  );
}

/** Entries: added on a day, edited in place (with their version), deleted with an Undo, restored, continued. */
function entryRoutes(router: Router, deps: WebDeps, write: FormWrite): void {
  const { services, check } = deps;
  router.post(
    '/entries',
    write(
      () => 'add',
      (req, session, zone, tell) => {
        const day = field(req, 'day');
        const span = spanOf(
          {
            day,
            start: field(req, 'startTime'),
            end: field(req, 'endTime'),
            duration: field(req, 'duration'),
            nextDay: field(req, 'nextDay') === 'true',
          },
          zone,
        );
        // The day's total: over 24 hours refused, over 12 asked again (docs/pages.md).
        const onDay = dayTimeOf(deps, session, zone, span.start);
        checkDayTotal(
          onDay.seconds + Math.round((span.end - span.start) / 1000),
          onDay.day,
          field(req, 'longDay') === 'true',
          field(req, 'duration').trim() !== '' ? 'duration' : 'end',
        );
        const input = {
          ...common(req, choicesOf(deps, session)),
          start: new Date(span.start).toISOString(),
          end: new Date(span.end).toISOString(),
          timeZone: zone,
        };
        check('EntryCreate', input);
        const made = services.entries.create(session.actor, { ...input, source: 'web' });
        tell({ kind: 'ok', body: t('week.added', { what: made.description || t('week.aTime') }) });
        return `#e-${made.id}`;
      },
    ),
  );
  router.post(
    '/entries/:id',
    write(
      (req) => req.params.id as string,
      (req, session, zone, tell) => {
        const id = req.params.id as string;
        const span = spanOf(
          {
            day: field(req, 'day'),
            start: field(req, 'start'),
            end: field(req, 'end'),
            duration: '',
            nextDay: field(req, 'nextDay') === 'true',
          },
          zone,
        );
        // Its times changed: the day's total, as when adding (an entry whose times stay is not asked about again).
        const before = services.entries.get(session.actor, id);
        if (Date.parse(before.start) !== span.start || (before.end !== null && Date.parse(before.end) !== span.end)) {
          const onDay = dayTimeOf(deps, session, zone, span.start, id);
          checkDayTotal(onDay.seconds + Math.round((span.end - span.start) / 1000), onDay.day, field(req, 'longDay') === 'true', 'end');
        }
        const form = common(req, choicesOf(deps, session));
        // A project changed without the box: the new project's default (an edit keeps Billable otherwise).
        const billable = form.billable ?? (form.projectId ? services.catalog.projects.get(session.actor, form.projectId).billable : false);
        const patch = {
          ...form,
          taskId: form.taskId ?? null,
          billable,
          start: new Date(span.start).toISOString(),
          end: new Date(span.end).toISOString(),
        };
        check('EntryPatch', patch);
        services.entries.update(session.actor, id, patch, field(req, 'version') ? { ifUpdatedAt: field(req, 'version') } : {});
        tell({ kind: 'ok', body: t('profile.saved') });
        return `#e-${id}`;
      },
    ),
  );
  router.post(
    '/entries/:id/delete',
    write(
      () => 'delete',
      (req, session, zone, tell) => {
        const id = req.params.id as string;
        const entry = services.entries.get(session.actor, id);
        services.entries.delete(session.actor, id, { undoable: true });
        const day = DateTime.fromISO(entry.start, { zone }).toISODate();
        tell(undoNotice(session, id, entry.description, field(req, 'week')));
        return `#day-${day}`;
      },
    ),
  );
  router.post(
    '/entries/:id/restore',
    write(
      () => 'restore',
      (req, session, _zone, tell) => {
        const restored = services.entries.restore(session.actor, req.params.id as string);
        tell({ kind: 'ok', body: t('week.restored', { what: restored.description || t('week.theEntry') }) });
        return `#e-${restored.id}`;
      },
    ),
  );
  router.post(
    '/entries/:id/continue',
    write(
      () => 'timer',
      (req, session) => {
        const past = services.entries.get(session.actor, req.params.id as string);
        services.timers.start(
          session.actor,
          { description: past.description, projectId: past.projectId, taskId: past.taskId, tagIds: past.tagIds, billable: past.billable },
          'web',
        );
        return { kind: 'ok', body: t('timer.startedAgain', { what: past.description || t('timer.aTimer') }) };
      },
    ),
  );
}

/** What the page's script asks: suggestions while typing a description, and a tag made from the chips. */
function helperRoutes(router: Router, deps: WebDeps): void {
  const { services, check } = deps;
  // Typing a description: the member's own past entries that match, as JSON for the page's script.
  router.get('/suggest', (req, res) => {
    const { session } = signedOf(res) as SignedIn;
    const text = typeof req.query.q === 'string' ? req.query.q : '';
    res.setHeader('Cache-Control', 'no-store');
    res.json({ data: services.entries.suggestions(session.actor, text) });
  });

  // A tag made from the chips' filter (Enter on a new name): the catalog's rules and words; JSON for the script.
  router.post('/tags', (req, res, next) => {
    const { session } = signedOf(res) as SignedIn;
    try {
      const body = { name: field(req, 'name').trim() };
      check('TagCreate', body);
      const tag = services.catalog.tags.create(session.actor, body);
      res.status(201).json({ data: { id: tag.id, name: tag.name } });
    } catch (error) {
      if (!isFormRefusal(error)) return next(error);
      res.status(refusal(error).status).json({ error: spoken(error).replace(/^body\./, '') });
    }
  });
}

/** The week's forms: the timer, time added, edited, deleted and restored, continued; each back to its place, or its refusal at its field. */
export function weekRoutes(router: Router, deps: WebDeps): void {
  /** Runs a form's write; a refusal re-renders the week with the message at its field (the API's status). */
  const write: FormWrite =
    (
      form: (req: Request) => string,
      body: (req: Request, session: SessionView, zone: string, tell: (notice: Notice) => void) => string | Notice | void,
    ) =>
    (req: Request, res: Response, next: NextFunction) => {
      const signed = signedOf(res) as SignedIn;
      let outcome: string | Notice | void;
      try {
        outcome = body(req, signed.session, zoneOf(deps, signed.session).zone, (notice) => deps.flashes.put(signed.secret, notice));
      } catch (error) {
        if (!isFormRefusal(error)) return next(error);
        const name = form(req);
        // An entry changed elsewhere since the page was read: its newer values, its form open, the message on top.
        if (error.field === 'version')
          return renderWeek(deps, req, res, signed, 409, undefined, { editId: name, notice: { kind: 'error', body: spoken(error) } });
        // A refusal of a form that is not on the page (an Undo, a Delete, the edit of a row or the time added on a day
        // that is read-only now: its period submitted or approved, its day locked, decisions §13): its message on top.
        const readOnly = error.code === 'conflict' && error.field === undefined && (name.startsWith('ent_') || name === 'add');
        if (name === 'restore' || name === 'delete' || readOnly)
          return renderWeek(deps, req, res, signed, refusal(error).status, undefined, { notice: { kind: 'error', body: spoken(error) } });
        return renderWeek(
          deps,
          req,
          res,
          signed,
          refusal(error).status,
          // A long day is asked about again: the form as sent, the question at its field, and its "Yes" button.
          { ...refusalOf(name, req, error), ...(error instanceof LongDay ? { asked: error.total } : {}) },
          name === 'add' ? { addDay: field(req, 'day') } : {},
        );
      }
      if (typeof outcome === 'string') return backToWeek(deps, req, res, outcome);
      backToWeek(deps, req, res, '', outcome ?? undefined);
    };

  router.get('/week', (req, res) => renderWeek(deps, req, res, signedOf(res) as SignedIn, 200));

  timerRoutes(router, deps, write);
  entryRoutes(router, deps, write);
  helperRoutes(router, deps);
}
