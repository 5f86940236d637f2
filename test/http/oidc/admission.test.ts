import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { CookieBrowser } from '../../helpers/oidc-provider.js';
import { SettingsClient } from '../../helpers/settings-client.js';
import {
  back,
  noticeOf,
  type OidcFixture,
  oidcFixture,
  PROVIDER_NAME,
  rows,
  signedIn,
  throughProvider,
  visit,
} from '../../helpers/oidc-fixture.js';

/**
 * Who comes in through the identity provider (a real one on 127.0.0.1): the account holding the
 * provider's verified email, bound to its `sub` from then on; nobody unverified or unknown, unless
 * a workspace lets their email's domain join; never a member removed here.
 */
describe('sign-in through the identity provider: who may come in', function () {
  this.timeout(60_000);
  let fixture: OidcFixture;

  before(async () => {
    fixture = await oidcFixture({
      users: {
        ada: { email: 'owner@localhost', email_verified: true, name: 'Ada at SSO' },
        una: { email: 'una@joiners.example', email_verified: false, name: 'Una' },
        nomail: { name: 'No Mail' },
        newbie: { email: 'New.Bie@Joiners.example', email_verified: true, name: 'New Bie' },
        stranger: { email: 'stranger@elsewhere.example', email_verified: true, name: 'Stranger' },
        thief: { email: 'owner@localhost', email_verified: true, name: 'Someone with the owner’s old address' },
      },
    });
  });
  after(() => fixture.close());

  it('offers "Sign in with <provider>" beside the password form', async () => {
    const page = await visit(fixture, new CookieBrowser(), '/settings/sign-in?next=%2Fapp%2Freports');
    expect(page.status).to.equal(200);
    expect(page.text).to.include(
      `<a class="button" id="provider-sign-in" href="/settings/oidc/start?next=%2Fapp%2Freports">Sign in with ${PROVIDER_NAME}</a>`,
    );
    expect(page.text).to.include('name="password"');
  });

  it('lets in the account that holds the verified email, binds it to the sub, and keeps it when the email changes at the provider', async () => {
    const browser = await signedIn(fixture, 'ada');
    const week = await visit(fixture, browser, '/app/week');
    expect(week.status).to.equal(200);
    expect(week.text).to.include('(owner@localhost), owner');
    expect(rows(fixture.server, 'select subject, user_id as userId from oidc_identities')).to.deep.equal([
      { subject: 'ada', userId: fixture.server.ownerId },
    ]);

    // The address changes at the provider (and another user there takes the old one): the sub still finds the owner.
    fixture.provider.users.set('ada', { email: 'ada@renamed.example', email_verified: true });
    const again = await signedIn(fixture, 'ada');
    expect((await visit(fixture, again, '/app/week')).text).to.include('(owner@localhost), owner');
    // The account is bound to its sub: another provider user with its email is not let in as it.
    const out = await throughProvider(fixture, 'thief');
    const refused = await back(out.browser, out.callback);
    expect(refused.status).to.equal(403);
    expect(noticeOf(refused.text)).to.equal(
      `The timetrack account of owner@localhost signs in as another ${PROVIDER_NAME} user. Ask the person who runs timetrack.`,
    );
    expect(out.browser.cookie(fixture.server.url, 'tt_session')).to.equal(undefined);
  });

  it('refuses an email the provider has not verified, saying what to ask its administrator, and binds nothing', async () => {
    const out = await throughProvider(fixture, 'una');
    const refused = await back(out.browser, out.callback);
    expect(refused.status).to.equal(403);
    expect(noticeOf(refused.text)).to.equal(
      `${PROVIDER_NAME} says your address una@joiners.example is not verified, so timetrack cannot tell it is yours. Ask your ${PROVIDER_NAME} administrator to mark the address as verified (email_verified), then sign in again.`,
    );
    expect(out.browser.cookie(fixture.server.url, 'tt_session')).to.equal(undefined);
    expect(rows(fixture.server, "select subject from oidc_identities where subject = 'una'")).to.deep.equal([]);
  });

  it('refuses a provider user without an email, saying the administrator must release the claim', async () => {
    const out = await throughProvider(fixture, 'nomail');
    const refused = await back(out.browser, out.callback);
    expect(refused.status).to.equal(403);
    expect(noticeOf(refused.text)).to.include('did not tell timetrack your email address');
    expect(noticeOf(refused.text)).to.include('release the email claim');
  });

  it('refuses someone no account knows until an owner lists their domain on the Workspace page; they join without flags', async () => {
    const out = await throughProvider(fixture, 'newbie');
    const refused = await back(out.browser, out.callback);
    expect(refused.status).to.equal(403);
    expect(noticeOf(refused.text)).to.equal(
      'No one here signs in as New.Bie@Joiners.example, and no workspace lets people of joiners.example join. Ask an owner of your workspace to add you on the Members page, or to list joiners.example on the Workspace page.',
    );
    const before = (rows(fixture.server, 'select count(*) as n from users')[0] as { n: number }).n;

    // The owner lists the domain (a consumer mail domain is refused at its field).
    const owner = new SettingsClient(fixture.server);
    await owner.setUp(fixture.server.ownerId, 'correct horse battery staple');
    const fields = {
      name: 'Default workspace',
      currency: 'EUR',
      hourlyRate: '',
      runawayLimitHours: '10',
      runawayAction: 'flagged',
      rateLimitPerMin: '',
    };
    const open = await owner.submit('/settings/workspace', '/settings/workspace', { ...fields, joinDomains: 'joiners.example, gmail.com' });
    expect(open.status).to.equal(400);
    expect(open.text).to.include('Anyone can have an address at gmail.com');
    const saved = await owner.submit('/settings/workspace', '/settings/workspace', { ...fields, joinDomains: 'Joiners.example' });
    expect(saved.status, saved.text).to.equal(303);
    expect((await owner.get('/settings/workspace')).text).to.include('value="joiners.example"');

    const browser = await signedIn(fixture, 'newbie');
    expect((await visit(fixture, browser, '/app/week')).text).to.include('New Bie (New.Bie@Joiners.example)');
    const joined = rows(fixture.server, "select id from users where email = 'New.Bie@Joiners.example'") as Array<{ id: string }>;
    expect(joined).to.have.length(1);
    expect((rows(fixture.server, 'select count(*) as n from users')[0] as { n: number }).n).to.equal(before + 1);
    const member = fixture.server.services.accounts.getMember(OPERATOR, { workspaceId: fixture.server.workspaceId, userId: joined[0]!.id });
    expect(member).to.include({ canViewOthersTime: false, canViewOthersMoney: false, isOwner: false, hourlyRate: null });
    // Unverified stays out, whatever the domain.
    const una = await throughProvider(fixture, 'una');
    expect((await back(una.browser, una.callback)).status).to.equal(403);
    // Someone of another domain is still refused.
    const stranger = await throughProvider(fixture, 'stranger');
    expect((await back(stranger.browser, stranger.callback)).status).to.equal(403);
  });

  it('keeps a member removed here out, whatever the provider says (the domain still listed); signed in there, they see only their invitations and join by signing in again', async () => {
    const { id } = (rows(fixture.server, "select id from users where email = 'New.Bie@Joiners.example'") as Array<{ id: string }>)[0]!;
    const open = await signedIn(fixture, 'newbie');
    fixture.server.services.accounts.removeMember(OPERATOR, { workspaceId: fixture.server.workspaceId, userId: id });
    // Their open session ends at once.
    expect((await visit(fixture, open, '/app/week')).status).to.equal(303);
    // Signed in at the provider again: the page of an account in no workspace, with no invitation (issue 44), nothing else.
    const out = await throughProvider(fixture, 'newbie');
    const lobby = await back(out.browser, out.callback);
    expect(lobby.status).to.equal(200);
    expect(lobby.text).to.include('<meta http-equiv="refresh" content="0;url=/settings/invitations" />');
    const invitations = await visit(fixture, out.browser, '/settings/invitations');
    expect(invitations.status).to.equal(200);
    expect(invitations.text).to.include('You belong to no workspace yet');
    expect(invitations.text).to.include('No invitation is open for you.');
    expect((await visit(fixture, out.browser, '/app/week')).location).to.match(/^\/settings\/sign-in/);
    expect(rows(fixture.server, `select count(*) as n from members where user_id = '${id}'`)).to.deep.equal([{ n: 0 }]);
    expect(rows(fixture.server, `select count(*) as n from oidc_sessions`)).to.deep.equal([{ n: 0 }]);

    // Invited again, they join from that page: the join signs in at the provider again, so the new
    // session is the provider's (checked with it, ended by its logout), never one made here.
    const invite = fixture.server.services.accounts.enrollMember(OPERATOR, {
      workspaceId: fixture.server.workspaceId,
      name: '',
      email: 'New.Bie@Joiners.example',
    });
    if (invite.kind !== 'invited') throw new Error('expected an invitation');
    const listed = await visit(fixture, out.browser, '/settings/invitations');
    const action = /action="(\/settings\/invitations\/ivt_[^"/]+\/join)"/.exec(listed.text)?.[1] as string;
    expect(action, 'a Join form').to.be.a('string');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(listed.text)?.[1] as string;
    const joined = await out.browser.request(`${fixture.server.url}${action}`, {
      form: { _csrf: csrf },
      headers: { origin: fixture.server.url, 'sec-fetch-site': 'same-origin' },
    });
    // The Join itself goes to the provider, carrying the invitation: it is accepted on the way back (issue 54, I1).
    expect(joined.status).to.equal(303);
    const location = joined.headers.get('location') as string;
    expect(location).to.match(new RegExp(`^${fixture.provider.issuer}/`));
    expect(rows(fixture.server, 'select count(*) as n from lobby_sessions')).to.deep.equal([{ n: 0 }]);
    expect((await visit(fixture, out.browser, '/app/week')).status).to.equal(303);
    const done = await back(out.browser, await out.browser.authorize(location, 'newbie', fixture.callback));
    expect(done.text).to.include('<meta http-equiv="refresh" content="0;url=/app/week" />');
    expect((await visit(fixture, out.browser, '/app/week')).status).to.equal(200);
    expect(rows(fixture.server, `select count(*) as n from oidc_sessions`)).to.deep.equal([{ n: 1 }]);
    fixture.server.services.accounts.removeMember(OPERATOR, { workspaceId: fixture.server.workspaceId, userId: id });
    // Nor does the operator's deletion of the account let the same person in again as someone new.
    fixture.server.services.accounts.deleteUser(OPERATOR, id);
    const closed = await throughProvider(fixture, 'newbie');
    const gone = await back(closed.browser, closed.callback);
    expect(gone.status).to.equal(403);
    expect(noticeOf(gone.text)).to.include('Your timetrack account was closed');
    expect(
      rows(fixture.server, "select count(*) as n from users where lower(email) = 'new.bie@joiners.example' and deleted_at is null"),
    ).to.deep.equal([{ n: 0 }]);
  });
});
