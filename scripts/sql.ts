/*
 * Writes the SQL of every module's repository to checked-in files beside it, with SQLite's query
 * plan of each statement on a small seeded database, so that a pull request shows every query
 * change and its plan (Immich's server does this for its repositories).
 *
 *   npm run sql         writes src/modules/<module>/repository.sql
 *   npm run sql:check   exits 1 when a written file differs from what would be written
 *
 * The statements are the ones the repositories prepare while the services run a fixed tour of
 * what they do (below): every statement a repository keeps (made here before the tour, though a
 * server makes each at its first use), and the per-call ones the tour reaches. A statement is attributed to the module whose repository prepared it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { bootstrapIfEmpty } from '../src/bootstrap.js';
import { ManualClock } from '../src/clock.js';
import { openDatabase } from '../src/db/database.js';
import { prepareEvery } from '../src/db/prepared.js';
import { issuerPatchOfText } from '../src/modules/invoices/service.js';
import { parseMailSettings } from '../src/modules/mail/service.js';
import type { ProviderClient } from '../src/modules/oidc/provider.js';
import type { OidcSettings } from '../src/modules/oidc/service.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { type Actor, OPERATOR } from '../src/principal.js';
import { createServices, type Services } from '../src/services.js';

interface Recorded {
  module: string;
  sql: string;
  params: unknown[];
}

const MODULE_FRAME = /\/src\/modules\/([a-z]+)\/repository(?:\.ts|\/[a-z-]+\.ts)/;

/** Records each statement a module's repository prepares, with the parameters of its first run. */
function record(sqlite: Database.Database): Map<string, Recorded> {
  const seen = new Map<string, Recorded>();
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    const statement = prepare(source);
    const module = MODULE_FRAME.exec(new Error().stack ?? '')?.[1];
    if (module === undefined) return statement;
    const key = `${module}\u0000${source}`;
    if (!seen.has(key)) seen.set(key, { module, sql: source, params: [] });
    const entry = seen.get(key) as Recorded;
    const target = statement as unknown as Record<'run' | 'get' | 'all' | 'iterate', (...args: unknown[]) => unknown>;
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const original = target[method].bind(statement);
      target[method] = (...args: unknown[]) => {
        if (entry.params.length === 0 && args.length > 0) entry.params = args;
        return original(...args);
      };
    }
    return statement;
  }) as typeof sqlite.prepare;
  return seen;
}

/** A small workspace and a tour of what the services do, reaching the repositories' statements. */
async function tour(services: Services, clock: ManualClock, owner: Actor, workspaceId: string, ownerId: string): Promise<void> {
  const { accounts, catalog, entries, timers, reports, tokens, webhooks, sessions, events, invoices, sender } = services;
  const bea = accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
  accounts.addMember(OPERATOR, { workspaceId, userId: bea.id, canViewOthersTime: true });
  const beaToken = tokens.create(OPERATOR, { workspaceId, userId: bea.id, name: 'bea', scopes: ['entries:read', 'entries:write'] });
  const member = tokens.authenticate(beaToken.token)?.actor as Actor;
  accounts.setMember(OPERATOR, { workspaceId, userId: bea.id, hourlyRate: 60 });
  accounts.setWorkspace(OPERATOR, workspaceId, { hourlyRate: 50, runawayLimitSec: 3600 });
  accounts.listMembers(OPERATOR, workspaceId);
  accounts.getMember(OPERATOR, { workspaceId, userId: bea.id });
  accounts.getUser(OPERATOR, bea.id);
  accounts.listUsers(OPERATOR);
  accounts.listWorkspaces(OPERATOR);
  accounts.setUser(OPERATOR, bea.id, { email: 'bea.b@example.org' });
  // Invitations (decisions §8a): an address an account holds is invited, not attached.
  const other = accounts.createWorkspace(OPERATOR, { name: 'Other' });
  const invited = accounts.enrollMember(OPERATOR, { workspaceId: other.id, name: '', email: 'bea.b@example.org' });
  accounts.invitations(OPERATOR, other.id);
  if (invited.kind === 'invited' && invited.secret !== null) {
    accounts.invitation(invited.secret);
    accounts.withdrawInvitation(OPERATOR, { workspaceId: other.id, id: invited.invitationId });
  }
  accounts.purgeInvitations();

  const acme = catalog.clients.create(owner, { name: 'Acme', city: 'Berlin' });
  catalog.clients.update(owner, acme.id, { legalName: 'Acme GmbH' });
  const projects = [0, 1, 2].map((i) =>
    catalog.projects.create(owner, { name: `Project ${i}`, clientId: i < 2 ? acme.id : null, billable: true, hourlyRate: 80 + i }),
  );
  const [p0, p1] = projects as [(typeof projects)[0], (typeof projects)[0]];
  const task = catalog.tasks.create(owner, { name: 'Design', projectId: p0.id, hourlyRate: 95 });
  const tags = ['alpha', 'beta', 'gamma'].map((name) => catalog.tags.create(owner, { name }));
  catalog.tags.update(owner, (tags[2] as { id: string }).id, { name: 'gamma2' });
  catalog.projects.update(owner, p1.id, { color: '#336699' });
  catalog.tasks.update(owner, task.id, { estimateSec: 3600 });
  for (let day = 1; day <= 20; day++) {
    const date = `2026-10-${String(day).padStart(2, '0')}`;
    const by = day % 2 === 0 ? owner : member;
    entries.create(by, {
      start: `${date}T09:00:00Z`,
      end: `${date}T11:30:00Z`,
      description: `Work on item ${day}`,
      projectId: (projects[day % 3] as { id: string }).id,
      ...(day % 3 === 0 ? { taskId: task.id } : {}),
      tagIds: [(tags[day % 3] as { id: string }).id],
    });
  }
  const one = entries.create(owner, { start: '2026-10-21T09:00:00Z', end: '2026-10-21T10:00:00Z', projectId: p0.id });
  entries.update(owner, one.id, { description: 'edited', tagIds: [(tags[0] as { id: string }).id] });
  entries.update(owner, one.id, { projectId: p1.id });
  entries.get(owner, one.id);
  entries.delete(owner, entries.create(owner, { start: '2026-10-22T09:00:00Z', end: '2026-10-22T10:00:00Z' }).id);
  // The web app's working day: a delete with its Undo, suggestions while typing, the timesheet's cells.
  const undone = entries.create(owner, { start: '2026-10-22T11:00:00Z', end: '2026-10-22T12:00:00Z', description: 'undone' });
  entries.delete(owner, undone.id, { undoable: true });
  entries.restore(owner, undone.id);
  entries.dropTombstones();
  entries.suggestions(owner, 'ed');
  const sheet = entries.saveSheet(owner, {
    add: [{ start: '2026-10-22T13:00:00Z', end: '2026-10-22T14:00:00Z', source: 'web' }],
    shorten: [],
    remove: [],
  });
  entries.undoSheet(owner, sheet);
  for (const catalogList of [
    () => catalog.clients.list(owner, {}),
    () => catalog.projects.list(owner, {}),
    () => catalog.tasks.list(owner, {}),
    () => catalog.tags.list(owner),
    () => catalog.projects.get(owner, p0.id),
  ])
    catalogList();
  entries.catchUpSearchIndex();

  // Lists and reports: unfiltered, filtered, searched, paged, own-only.
  const range = { from: '2026-10-01', to: '2026-10-31' };
  const page = entries.list(owner, { ...range, limit: 5 });
  if (page.nextCursor) entries.list(owner, { ...range, limit: 5, cursor: page.nextCursor });
  entries.list(member, { ...range });
  entries.list(owner, { ...range, projectIds: [p0.id], clientIds: [acme.id], tagIds: [(tags[0] as { id: string }).id], billable: true });
  entries.list(owner, { ...range, search: 'item 1' });
  entries.list(owner, { ...range, search: 'it' });
  reports.summary(owner, { ...range, groupBy: 'project', subGroupBy: 'tag' });
  reports.summary(owner, { ...range, groupBy: 'client', subGroupBy: 'user' });
  reports.summary(owner, { ...range, groupBy: 'day', timeZone: 'Europe/Berlin' });
  reports.summary(owner, { ...range, groupBy: 'task', userIds: [ownerId] });
  reports.detailed(owner, { ...range, limit: 5 });
  reports.weekly(owner, { from: '2026-10-05', groupBy: 'user' });
  // A report's export reads its entries in batches: unfiltered (prepared once), and filtered.
  const exported = { kind: 'detailed', format: 'csv', ...range, weekStart: 'monday', groupBy: 'project', subGroupBy: null } as const;
  for (const filters of [undefined, { search: 'item' }]) {
    const table = reports.exportTable(owner, { ...exported, ...(filters ? { filters } : {}) });
    for await (const batch of table.batches) void batch;
  }

  // Timers and runaways.
  timers.start(owner, { start: new Date(clock.now() - 2 * 3_600_000).toISOString(), projectId: p0.id });
  timers.current(owner);
  timers.detectRunaways();
  timers.stop(owner, {});
  timers.start(member, {});

  // Tokens, sessions, setup links.
  tokens.list(OPERATOR, workspaceId);
  tokens.list(member);
  tokens.revoke(OPERATOR, beaToken.id);
  const link = sessions.invite(OPERATOR, { workspaceId, userId: bea.id });
  sessions.setupLink(link.secret);
  const session = await sessions.completeSetup(link.secret, 'correct horse battery staple');
  if (session) {
    sessions.session(session.secret);
    sessions.switchWorkspace(session.secret, bea.id, workspaceId);
    sessions.signOut(session.secret);
  }
  await sessions.signIn({ email: 'bea.b@example.org', password: 'correct horse battery staple', address: '127.0.0.1' });
  sessions.purge();
  await providerTour(services, clock, workspaceId, ownerId);

  // Mail: what the modules queue (a setup link, an invitation, a reset, an email change, a
  // runaway reminder: the tour's detection above), the sender, the log, a retry, the retention.
  const { mail } = services;
  const cleo = accounts.enrollMember(owner, { workspaceId, name: 'Cleo', email: 'cleo@example.org' });
  if (cleo.kind === 'created') sessions.invite(owner, { workspaceId, userId: cleo.userId });
  accounts.enrollMember(OPERATOR, { workspaceId: other.id, name: '', email: 'bea.b@example.org' });
  sessions.requestReset({ email: 'bea.b@example.org', address: '127.0.0.1' });
  sessions.resetLink('not-a-link');
  await sessions.completeReset('not-a-link', 'correct horse battery staple');
  await sessions.updateProfile(member, {
    name: 'Bea',
    email: 'bea.new@example.org',
    timeZone: 'Europe/Berlin',
    weekStart: 'monday',
    language: 'de',
    currentPassword: 'correct horse battery staple',
  });
  sessions.pendingEmail(member.userId);
  sessions.emailChangeLink('not-a-link');
  sessions.confirmEmailChange('not-a-link');
  // The identity provider vouching for an address nobody proved (issue 44, H1): its credentials end.
  if (cleo.kind === 'created') services.write(() => accounts.addressVouchedFor(cleo.userId));
  timers.stopLink('not-a-link');
  timers.stopByLink('not-a-link');
  timers.purgeStopLinks();
  await mail.deliver();
  const given = mail.log(OPERATOR, { workspaceId: null, limit: 50 }).messages.find((m) => m.status === 'failed');
  mail.log(owner, { workspaceId, limit: 2 });
  if (given) {
    mail.retry(OPERATOR, given.id);
    await mail.sendNow(given.id);
  }
  mail.queued();
  mail.health();
  mail.recover();
  mail.purge();
  void mail.jobs.find((job) => job.name === 'mail retention')?.run();

  // Webhooks: a subscription, the outbox, the sender's queue and the log (attempts are refused
  // before any connection: the target resolves to a private address and they are not allowed).
  const hook = await webhooks.create(OPERATOR, {
    workspaceId,
    userId: ownerId,
    url: 'https://93.184.216.34/hook',
    events: ['entry.created', 'entry.updated'],
  });
  entries.create(owner, { start: '2026-10-23T09:00:00Z', end: '2026-10-23T10:00:00Z' });
  await sender.tick();
  webhooks.list(OPERATOR, workspaceId);
  webhooks.deliveryPage(owner, hook.id, { limit: 10 });
  webhooks.deliveries(OPERATOR, hook.id);
  webhooks.figures.open(clock.now());
  webhooks.figures.settled(0, clock.now());
  webhooks.enable(OPERATOR, hook.id);
  sender.recover();
  sender.purge();

  // Imports: a file imported (the catalog found or created, fingerprints), listed, shown, undone.
  const imported = await services.imports.run(OPERATOR, {
    workspaceId,
    path: join(PACKAGE_ROOT, 'test/fixtures/import/toggl.csv'),
    timeZone: 'Europe/Berlin',
    createMembers: true,
    webhooks: true,
  });
  await services.imports.list(OPERATOR, workspaceId);
  await services.imports.undo(OPERATOR, imported.report.importId as string);
  // The workspace's export: the catalog, the entries a page at a time, their authors.
  for await (const chunk of services.imports.exportWorkspace(OPERATOR, { workspaceId }).chunks) void chunk;

  // Events: tail, positions, retention.
  events.tail(OPERATOR, workspaceId);
  events.position(workspaceId, 'catalog');
  events.position(workspaceId, 'all');
  events.oldestSeq();
  services.write(() => events.purge(clock.now() + 86_400_000, 5000, 0));

  // Invoices.
  invoices.setBusinessProfile(
    OPERATOR,
    workspaceId,
    issuerPatchOfText([
      ['legalName', 'Studio'],
      ['city', 'Hamburg'],
    ]),
  );
  invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
  invoices.settings(OPERATOR, workspaceId);
  // A project's and a task's own VAT (issue 57 item 2): their lines carry it.
  invoices.setWorkTax(OPERATOR, workspaceId, { kind: 'project', id: p1.id }, { taxCategory: 'S', taxRate: 7 });
  invoices.setWorkTax(OPERATOR, workspaceId, { kind: 'task', id: task.id }, { taxCategory: 'Z' });
  invoices.workTaxes(OPERATOR, workspaceId);
  const billed = { workspaceId, userId: ownerId, clientId: acme.id };
  invoices.preview(OPERATOR, { ...billed, from: '2026-10-01', to: '2026-10-10', groupBy: 'entry' });
  const invoice = invoices.create(OPERATOR, { ...billed, from: '2026-10-01', to: '2026-10-10' });
  invoices.fill(OPERATOR, invoice.id, ownerId, [['recipient.email', 'billing@acme.example']]);
  // What its PDF needs, so that its credit note can be mailed below.
  invoices.fill(OPERATOR, invoice.id, ownerId, [
    ['issuer.country', 'DE'],
    ['recipient.country', 'DE'],
    ['issuer.vatId', 'DE136695976'],
  ]);
  invoices.changeStatus(OPERATOR, invoice.id, 'sent', ownerId);
  invoices.get(OPERATOR, invoice.id);
  invoices.changeStatus(OPERATOR, invoice.id, 'void', ownerId);
  const paid = invoices.create(OPERATOR, { ...billed, from: '2026-10-11', to: '2026-10-20', groupBy: 'task' });
  // Issuing checks its PDF first: the values it needs, filled.
  invoices.fill(OPERATOR, paid.id, ownerId, [
    ['issuer.country', 'DE'],
    ['recipient.country', 'DE'],
    ['issuer.taxNumber', '30/123/45678'],
  ]);
  invoices.changeStatus(OPERATOR, paid.id, 'sent', ownerId);
  invoices.changeStatus(OPERATOR, paid.id, 'paid', ownerId);
  invoices.list(OPERATOR, workspaceId);
  invoices.list(OPERATOR, workspaceId, { status: 'paid', clientId: acme.id });
  // Mailed: the voided invoice's credit note, then its sends read back.
  await invoices.send(OPERATOR, invoice.id, { userId: ownerId, to: 'billing@acme.example', xml: null, message: null });
  invoices.sends(OPERATOR, invoice.id);
  // Payment reminders (issue 57): the tick's query of what may be due, an invoice's reminders, the Overdue list.
  invoices.setSettings(OPERATOR, workspaceId, { reminders: '7, 21' });
  await invoices.remind();
  invoices.reminders(OPERATOR, invoice.id);
  invoices.overdue(OPERATOR, workspaceId);
  // Billable time without a rate is refused, naming the first entries (the statement that names them).
  const unpriced = catalog.projects.create(owner, { name: 'Unpriced', clientId: acme.id, billable: true });
  accounts.setWorkspace(OPERATOR, workspaceId, { hourlyRate: null });
  entries.create(owner, { start: '2026-10-24T09:00:00Z', end: '2026-10-24T10:00:00Z', projectId: unpriced.id });
  try {
    invoices.preview(OPERATOR, { ...billed, from: '2026-10-24', to: '2026-10-24' });
  } catch {
    // refused, as it should be
  }

  // An account in no workspace (issue 44): a password sign-in opens its lobby, which lists its invitations and joins one.
  const dora = accounts.createUser(OPERATOR, { name: 'Dora', email: 'dora@example.org' });
  await sessions.setPassword(OPERATOR, dora.id, 'correct horse battery staple');
  const doraInvited = accounts.enrollMember(OPERATOR, { workspaceId, name: '', email: 'dora@example.org' });
  const lobby = await sessions.signIn({ email: 'dora@example.org', password: 'correct horse battery staple', address: '127.0.0.2' });
  if (lobby.kind === 'lobby' && doraInvited.kind === 'invited') {
    sessions.lobby(lobby.session.secret);
    sessions.joinFromLobby(lobby.session.secret, doraInvited.invitationId);
  }

  // Approval and lock (decisions §13): a week submitted, refused writes, approved, reopened, rejected; the lock date.
  const { approvals } = services;
  approvals.setSettings(owner, workspaceId, { approval: 'weekly' });
  approvals.setApprover(owner, { workspaceId, userId: bea.id, approver: true });
  approvals.settings(member, workspaceId);
  approvals.approves(member);
  const week = approvals.submit(member, { day: '2026-10-05' });
  approvals.periodsOf(member, '2026-10-01', '2026-10-31');
  approvals.waiting(owner);
  for (const refused of [
    () => entries.create(member, { start: '2026-10-06T09:00:00Z', end: '2026-10-06T10:00:00Z' }),
    () => entries.delete(member, entries.list(member, { from: '2026-10-05', to: '2026-10-11' }).rows[0]?.id ?? ''),
  ])
    try {
      refused();
    } catch {
      // 409: the week waits for approval
    }
  approvals.approve(owner, week.id, { note: 'Checked.' });
  // With approval on, invoices take approved time only and say what still waits.
  invoices.preview(OPERATOR, { workspaceId, userId: ownerId, clientId: acme.id, from: '2026-10-01', to: '2026-10-31' });
  approvals.list(OPERATOR, workspaceId, { states: ['approved'] });
  approvals.period(owner, week.id);
  approvals.reopen(owner, week.id);
  approvals.submit(member, { day: '2026-10-05' });
  approvals.reject(owner, week.id, { note: 'The 7th is missing.' });
  approvals.setSettings(owner, workspaceId, { lockedBefore: '2026-10-02' });
  try {
    entries.create(owner, { start: '2026-10-01T12:00:00Z', end: '2026-10-01T13:00:00Z' });
  } catch {
    // 409: before the lock date
  }
  approvals.setSettings(owner, workspaceId, { approval: 'off', lockedBefore: null });

  // Expenses (issue 57 item 1): one with a receipt, listed by month and project, changed, invoiced, released, deleted.
  const pdf = Buffer.from('%PDF-1.4\n%%EOF\n');
  const spent = services.expenses.add(
    owner,
    { day: '2026-10-05', description: 'Train', amount: '89.90', projectId: p1.id },
    { name: 'ticket.pdf', bytes: pdf },
  );
  services.expenses.list(owner, { month: '2026-10' });
  services.expenses.list(owner, { month: '2026-10', projectId: p1.id });
  services.expenses.list(member, {});
  services.expenses.update(owner, spent.id, { amount: '90' });
  services.expenses.receipt(owner, spent.id);
  const taken = services.expenses.invoicing.invoiceable(workspaceId, [p1.id], '2026-10-01', '2026-10-31');
  services.expenses.invoicing.markInvoiced(
    taken.map((e) => e.id),
    'inv_tour',
  );
  services.expenses.invoicing.receiptsOf('inv_tour');
  services.expenses.invoicing.held('inv_tour');
  services.expenses.invoicing.release('inv_tour', [spent.id]);
  services.expenses.invoicing.releaseInvoice('inv_tour');
  services.expenses.delete(owner, spent.id);

  // Deletions and the account's end.
  catalog.tags.delete(owner, catalog.tags.create(owner, { name: 'unused' }).id);
  catalog.tasks.delete(owner, catalog.tasks.create(owner, { name: 'Unused', projectId: p1.id }).id);
  catalog.projects.delete(owner, catalog.projects.create(owner, { name: 'Unused' }).id);
  catalog.clients.delete(owner, catalog.clients.create(owner, { name: 'Unused' }).id);
  webhooks.delete(OPERATOR, hook.id);
  accounts.removeMember(OPERATOR, { workspaceId, userId: bea.id });
  accounts.deleteUser(OPERATOR, bea.id);
}

/** The identity provider's settings of the tour, and a stand-in for it (no network): what a sign-in and a logout bring. */
const OIDC_SETTINGS: OidcSettings = {
  issuer: 'https://sso.example.org',
  clientId: 'timetrack',
  clientSecret: 'secret',
  name: 'SSO',
  only: false,
  scopes: ['openid', 'email'],
  redirectUri: 'https://tt.example.org/settings/oidc/callback',
  postLogoutRedirectUri: 'https://tt.example.org/settings/sign-in',
  backchannelLogoutUri: 'https://tt.example.org/settings/oidc/backchannel-logout',
};
const logouts = [
  { sub: 'sub-new', sid: 'sid-1' },
  { sub: 'sub-bea', sid: null },
];
const STAND_IN_PROVIDER = {
  discovered: () => true,
  probe: async () => true,
  refresh: async () => ({ refreshToken: 'rt-2' }),
  endSessionUrl: () => 'https://sso.example.org/logout',
  verifyLogoutToken: async () => ({
    ...(logouts.shift() as { sub: string; sid: string | null }),
    jti: randomBytes(8).toString('hex'),
    expiresAt: Date.UTC(2027, 0),
  }),
} as unknown as ProviderClient;

/** Sign-in through the identity provider: joining by domain, binding by email, the 15-minute check, sign-out, back-channel logout. */
async function providerTour(services: Services, clock: ManualClock, workspaceId: string, ownerId: string): Promise<void> {
  const { accounts, oidc } = services;
  accounts.setWorkspace(OPERATOR, workspaceId, { joinDomains: ['joiners.example'] });
  accounts.workspaceToEdit(OPERATOR, workspaceId);
  const joined = oidc.admit({ sub: 'sub-new', email: 'new@joiners.example', emailVerified: true, name: 'New', sid: 'sid-1' }, 'rt-1');
  oidc.admit({ sub: 'sub-new', email: null, emailVerified: false, name: null, sid: 'sid-2' });
  oidc.admit({ sub: 'sub-bea', email: 'bea.b@example.org', emailVerified: true, name: 'Bea', sid: null });
  clock.advance(16 * 60_000);
  await oidc.recheck(joined.session.secret);
  oidc.signOutUrl(joined.session.secret);
  await oidc.backchannelLogout('logout-token');
  await oidc.backchannelLogout('logout-token');
  accounts.setBreakGlass(OPERATOR, ownerId, true);
}

/** SQLite's plan of a statement, as an indented tree. */
function plan(sqlite: Database.Database, recorded: Recorded): string[] {
  try {
    // A statement the tour never ran is planned with nulls for its parameters.
    const params = recorded.params.length > 0 ? recorded.params : Array.from(recorded.sql.matchAll(/\?/g), () => null);
    const rows = sqlite.prepare(`EXPLAIN QUERY PLAN ${recorded.sql}`).all(...params) as Array<{
      id: number;
      parent: number;
      detail: string;
    }>;
    const depth = new Map<number, number>([[0, 0]]);
    return rows.map((row) => {
      const level = (depth.get(row.parent) ?? 0) + 1;
      depth.set(row.id, level);
      return `${'  '.repeat(level - 1)}${row.detail}`;
    });
  } catch (error) {
    return [`(no plan: ${(error as Error).message})`];
  }
}

/** One statement as it is written: the SQL on lines of its own, then its plan as comments. */
function render(sqlite: Database.Database, recorded: Recorded): string {
  const steps = plan(sqlite, recorded);
  const text = recorded.sql.replace(/\s+/g, ' ').trim();
  return `${text};\n${steps.map((step) => `--   ${step}`).join('\n')}\n`;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const database = openDatabase(':memory:');
  const seen = record(database.sqlite);
  const clock = new ManualClock(Date.UTC(2026, 10, 2, 10));
  // Attempts must never connect: every name resolves to a private address, which is refused.
  const services = createServices(database, {
    clock,
    secretKey: randomBytes(32),
    defaultTimeZone: 'UTC',
    webhooks: { resolve: async () => [{ address: '10.0.0.1', family: 4 }] },
    // Mail on, through a relay that answers without a network: the first message is refused for good, the rest sent.
    mail: {
      settings: parseMailSettings({ SMTP_URL: 'smtp://relay.invalid', MAIL_FROM: 'time@example.org' }, []),
      links: () => 'http://localhost:8080/settings',
      relay: (() => {
        let n = 0;
        return async () =>
          (n += 1) === 1 ? { status: 'permanent', error: 'rejected', detail: '550 no' } : { status: 'sent', response: '250 ok' };
      })(),
    },
    oidc: OIDC_SETTINGS,
    oidcProvider: STAND_IN_PROVIDER,
  });
  // Every repository statement, as a start once made them all: those prepared at their first use
  // (src/db/prepared.ts) are listed whether the tour runs them or not.
  prepareEvery(database.db);
  const boot = bootstrapIfEmpty(services.write, services.accounts, services.tokens);
  if (!boot) throw new Error('the database was not empty');
  const owner = services.tokens.authenticate(boot.token)?.actor as Actor;
  await tour(services, clock, owner, boot.workspaceId, boot.userId);

  const modules = [...new Set([...seen.values()].map((r) => r.module))].sort();
  const stale: string[] = [];
  for (const module of modules) {
    const statements = [...seen.values()].filter((r) => r.module === module);
    const file = join(PACKAGE_ROOT, 'src', 'modules', module, 'repository.sql');
    const content = `-- The SQL of the ${module} module's repository, in the order a tour of the services first prepares it,
-- with SQLite's plan of each statement on a small seeded database (indented under it).
-- Written by \`npm run sql\` (scripts/sql.ts); \`npm test\` fails when it is stale. Review it with the code.

${statements.map((r) => render(database.sqlite, r)).join('\n')}`;
    if (check) {
      if (!existsSync(file) || readFileSync(file, 'utf8') !== content) stale.push(file);
    } else writeFileSync(file, content);
  }
  database.close();
  if (stale.length > 0) {
    process.stderr.write(`sql:check: stale, run npm run sql and commit: ${stale.join(', ')}\n`);
    process.exitCode = 1;
  } else if (!check)
    process.stdout.write(`wrote ${modules.length} files: ${modules.map((m) => `src/modules/${m}/repository.sql`).join(', ')}\n`);
}

await main();
