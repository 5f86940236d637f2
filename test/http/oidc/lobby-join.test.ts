import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import type { CookieBrowser } from '../../helpers/oidc-provider.js';
import { back, type OidcFixture, oidcFixture, rows, signedIn, throughProvider, visit } from '../../helpers/oidc-fixture.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/**
 * Issue 54, I1: a lobby opened through the identity provider (an account in no workspace) holds
 * no session of the provider's, so it outlived the provider disabling the person, and its Join
 * still made the membership before sending them to the provider. The Join now accepts nothing by
 * itself: it starts a sign-in at the provider that carries the invitation, and the membership is
 * made in the write of the way back, only when the provider let that very account in again.
 */
describe('identity provider: a lobby’s Join makes the membership only after a fresh sign-in there (I1)', function () {
  this.timeout(120_000);
  let fixture: OidcFixture;
  let leaver: string;

  beforeEach(async () => {
    fixture = await oidcFixture({ users: { leaver: { email: 'leaver@example.org', email_verified: true, name: 'Lee Leaver' } } });
    const { accounts } = fixture.server.services;
    leaver = accounts.createUser(OPERATOR, { name: 'Lee', email: 'leaver@example.org' }).id;
    accounts.addMember(OPERATOR, { workspaceId: fixture.server.workspaceId, userId: leaver });
    // Bound to the provider's user (the address proved at binding), then removed from the workspace.
    await signedIn(fixture, 'leaver');
    accounts.removeMember(OPERATOR, { workspaceId: fixture.server.workspaceId, userId: leaver });
  });
  afterEach(() => fixture.close());

  /** Signed in through the provider to the lobby; invited again; then `meanwhile`; the Join form of the lobby posted. */
  async function joinPosted(meanwhile: () => void = () => undefined): Promise<{ browser: CookieBrowser; joined: Response }> {
    const out = await throughProvider(fixture, 'leaver');
    const lobby = await back(out.browser, out.callback);
    expect(lobby.text).to.include('<meta http-equiv="refresh" content="0;url=/settings/invitations" />');
    fixture.server.services.accounts.enrollMember(OPERATOR, {
      workspaceId: fixture.server.workspaceId,
      name: '',
      email: 'leaver@example.org',
    });
    const listed = await visit(fixture, out.browser, '/settings/invitations');
    const action = /action="(\/settings\/invitations\/ivt_[^"/]+\/join)"/.exec(listed.text)?.[1] as string;
    expect(action, 'a Join form').to.be.a('string');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(listed.text)?.[1] as string;
    meanwhile();
    const joined = await out.browser.request(`${fixture.server.url}${action}`, {
      form: { _csrf: csrf },
      headers: { origin: fixture.server.url, 'sec-fetch-site': 'same-origin' },
    });
    return { browser: out.browser, joined };
  }
  const memberships = () => rows(fixture.server, `select count(*) as n from members where user_id = '${leaver}'`);

  it('the provider disabled the person after the lobby opened: Join goes to the provider, which refuses, and no membership is made', async () => {
    const { browser, joined } = await joinPosted(() => fixture.provider.disabled.add('leaver'));
    expect(joined.status).to.equal(303);
    expect(memberships()).to.deep.equal([{ n: 0 }]);
    expect(joined.headers.get('location')).to.match(new RegExp(`^${fixture.provider.issuer}/`));
    expect(rows(fixture.server, 'select count(*) as n from lobby_sessions')).to.deep.equal([{ n: 0 }]);
    // At the provider the person is disabled: it answers with a page of its own and sends nobody back.
    const at = await browser.follow(joined.headers.get('location') as string, fixture.callback);
    expect(at.response, 'the provider’s answer, not a way back').to.not.equal(null);
    expect(at.url.startsWith(fixture.provider.issuer)).to.equal(true);
    expect(memberships()).to.deep.equal([{ n: 0 }]);
    expect((await visit(fixture, browser, '/app/week')).status).to.equal(303);
    expect(rows(fixture.server, 'select count(*) as n from oidc_sessions')).to.deep.equal([{ n: 0 }]);
  });

  it('still let in: the membership is made on the way back from the provider, in the invitation’s workspace, with the provider’s session', async () => {
    const { browser, joined } = await joinPosted();
    expect(joined.status).to.equal(303);
    const location = joined.headers.get('location') as string;
    expect(location).to.match(new RegExp(`^${fixture.provider.issuer}/`));
    expect(memberships()).to.deep.equal([{ n: 0 }]);
    const callback = await browser.authorize(location, 'leaver', fixture.callback);
    const done = await back(browser, callback);
    expect(done.status, done.text).to.equal(200);
    expect(done.text).to.include('<meta http-equiv="refresh" content="0;url=/app/week" />');
    expect(memberships()).to.deep.equal([{ n: 1 }]);
    const week = await visit(fixture, browser, '/app/week');
    expect(week.status).to.equal(200);
    expect(flat(week.text)).to.include('You joined the workspace: this is your week in it.');
    expect(rows(fixture.server, 'select count(*) as n from oidc_sessions')).to.deep.equal([{ n: 1 }]);
    expect(rows(fixture.server, 'select count(*) as n from invitations where accepted_at is null')).to.deep.equal([{ n: 0 }]);
  });
});
