import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { addMemberWithToken, startTestServer, type TestServer } from '../../helpers/server.js';
import { freelancer } from '../../helpers/invoices.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * Pages speak to the person reading (issue 46, item 9): no internal id (`ws_…`, `ent_…`), no
 * command line (`timetrack member add`, `--set …`), no setting's name (`SMTP_URL`), and times in
 * the reader's zone, on the pages where services' refusals and the server's facts are shown.
 * The API keeps its messages (ids and parameters are its readers' words).
 */
describe('web pages: words for the person reading', () => {
  let server: TestServer;
  afterEach(() => server.close());

  const flat = (text: string) => text.replace(/\s+/g, ' ');
  /** What a page's visible text may not hold: an id, a command line or its options, a setting's name. */
  const MACHINE_WORDS =
    /\b(?:ws|usr|ent|prj|cli|tsk|tag|inv|tok|whk|imp|del)_[0-9a-z]{12,}\b|timetrack [a-z]+ [a-z-]+|--[a-z]{3,}|\b[A-Z]+_[A-Z_]*URL\b|[A-Z]+_[A-Z]+_MB/;
  /** The page's words as a person sees them: its main part, without markup, ids in forms' addresses and fields. */
  const shown = (html: string) =>
    flat(
      (/<main id="main">([\s\S]*)<\/main>/.exec(html)?.[1] ?? html)
        .replace(/<(?:input|form|a|option|button|li|section|select|details|span|td|tr|div)\b[^>]*>/g, ' ')
        .replace(/<[^>]+>/g, ' ')
        .replace(/&[a-z#0-9]+;/g, ' '),
    );
  const speaksPlainly = (html: string, what: string) => expect(shown(html), what).not.to.match(MACHINE_WORDS);

  it('refusals of the week, the catalog, the members and the invoices name no id and no command line', async () => {
    server = await startTestServer({ now: Date.parse('2026-11-25T13:00:00Z') });
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: 'Europe/Berlin' });
    const { clientId, owner: actor } = freelancer(server);
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const csrf = SettingsClient.csrf((await owner.get('/app/week')).text);

    // Not found (an entry of nobody's): a plain "not here".
    const gone = await owner.post('/app/entries/ent_nothere0000000000/delete', { _csrf: csrf, week: '' });
    expect(gone.status).to.equal(404);
    expect(shown(gone.text)).to.include('It is not here: it does not exist (any more), or it is not yours to see.');
    speaksPlainly(gone.text, 'an entry not found');

    // A timer backdated before the running one: what to do, no id, no instant in UTC.
    await server.request('POST', '/api/v1/entries/current', { json: { description: 'Running', start: '2026-11-25T12:00:00Z' } });
    const early = await owner.post('/app/timer/start', { _csrf: csrf, week: '', next: 'true', description: 'Earlier', startedAt: '11:00' });
    expect(early.status).to.equal(400);
    expect(shown(early.text)).to.include('A new timer starts after the running one, which it stops');
    speaksPlainly(early.text, 'a start before the running timer');

    // A stale edit: the entry's newer values, and why, without its id.
    const entry = server.services.entries.create(actor, {
      start: '2026-11-24T08:00:00Z',
      end: '2026-11-24T09:00:00Z',
      description: 'Stale',
    });
    const stale = await owner.post(`/app/entries/${entry.id}`, {
      _csrf: csrf,
      week: '',
      version: '2020-01-01T00:00:00.000Z',
      description: 'Stale, edited',
      day: '2026-11-24',
      start: '09:00',
      end: '10:00',
    });
    expect(stale.status).to.equal(409);
    expect(shown(stale.text)).to.include('This entry was changed elsewhere since you opened it');
    speaksPlainly(stale.text, 'a stale edit');

    // The catalog: a client its projects still name.
    const inUse = await owner.submit('/app/catalog', `/app/catalog/client/${clientId}/delete`, {});
    expect(inUse.status).to.equal(409);
    expect(shown(inUse.text)).to.include('This client still has projects, so it cannot be deleted: archive it instead');
    speaksPlainly(inUse.text, 'a client in use');

    // Members: a setup link for someone with a password says whom to ask, not what to type.
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    await server.services.sessions.setPassword(OPERATOR, bea.id, PASSWORD);
    const link = await owner.submit('/settings/members', `/settings/members/${bea.id}/invite`, {});
    expect(link.status).to.equal(403);
    expect(shown(link.text)).to.include('Bea has set a password already');
    speaksPlainly(link.text, 'a setup link refused');

    // Invoices: no tax rate (a draft is made, issuing it is refused), and nothing to invoice.
    server.services.invoices.setSettings(OPERATOR, server.workspaceId, { taxRate: null });
    const untaxed = await owner.submit('/app/invoices/new', '/app/invoices/new', {
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
      groupBy: 'project',
      intent: 'create',
    });
    expect(untaxed.status).to.equal(303);
    const draftPath = untaxed.headers.get('location') as string;
    const issued = await owner.submit(`${draftPath}/issue`, `${draftPath}/issue`, {});
    expect(issued.status).to.equal(409);
    expect(shown(issued.text)).to.include('Set the standard VAT rate under Settings › Workspace › Invoicing');
    speaksPlainly(issued.text, 'no tax rate');
    const nothing = await owner.submit('/app/invoices/new', '/app/invoices/new', {
      clientId,
      from: '2026-09-01',
      to: '2026-09-30',
      groupBy: 'project',
      intent: 'create',
    });
    expect(nothing.status).to.equal(400);
    speaksPlainly(nothing.text, 'nothing to invoice');
  });

  it('a member who may not see invoices gets a plain 404 page, not “Invoices of workspace ws_… was not found”', async () => {
    server = await startTestServer();
    const member = addMemberWithToken(server.services, server.workspaceId, { name: 'Cas' });
    const client = new SettingsClient(server);
    await client.setUp(member.userId, PASSWORD);
    const page = await client.get('/app/invoices');
    expect(page.status).to.equal(404);
    expect(page.text).not.to.include(server.workspaceId);
    expect(shown(page.text)).to.include('It is not here');
    speaksPlainly(page.text, 'the invoices of a member');
    // The API keeps its own words (the id is its reader's).
    const api = await server.request('GET', '/api/v1/invoices', { token: member.token });
    expect(api.status).to.equal(404);
  });

  it('the Members page gives a setup link’s end in the reader’s zone, as the mail does (not UTC)', async () => {
    server = await startTestServer({ now: Date.parse('2026-11-25T13:00:00Z') });
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: 'Europe/Berlin' });
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const added = await owner.submit('/settings/members', '/settings/members', { name: 'Dee', email: 'dee@example.org' });
    expect(added.status).to.equal(303);
    const page = shown((await owner.get('/settings/members')).text);
    // 72 hours after 14:00 in Berlin.
    expect(page).to.include('works once, until 28 Nov 2026, 14:00 CET');
    expect(page).to.include('No password yet · since 25 Nov 2026');
    expect(page).not.to.match(/\d{2}:\d{2} UTC/);
    speaksPlainly((await owner.get('/settings/members')).text, 'the Members page');
  });
});
