import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/** The member's own profile in the web app: name, email, zone and first day; a password change that asks the current one. */
describe('web app: the profile', () => {
  // One server for the file; each test has a fresh workspace and signed-in owner in it.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });

  it('changes name, zone and first day; the email only with the current password; refuses a malformed or taken email at its field without saying whose', async () => {
    // The email without the password: refused at the password field, nothing saved (one write).
    const noPassword = await owner.submit('/app/profile', '/app/profile', {
      name: 'Maya Fischer',
      email: 'maya@northwind.example',
      timeZone: 'America/New_York',
      weekStart: 'sunday',
    });
    expect(noPassword.status).to.equal(400);
    expect(flat(noPassword.text)).to.include(
      'id="profile-current-error">Your current password is needed to change your sign-in email.</span>',
    );
    expect(flat(noPassword.text)).to.include('value="maya@northwind.example"');
    const wrong = await owner.submit('/app/profile', '/app/profile', {
      name: 'Maya Fischer',
      email: 'maya@northwind.example',
      emailPassword: 'not my password',
      timeZone: 'America/New_York',
      weekStart: 'sunday',
    });
    expect(wrong.status).to.equal(400);
    expect(flat(wrong.text)).to.include('id="profile-current-error">That is not your current password.</span>');
    expect(server.services.accounts.getUser(OPERATOR, server.ownerId)).to.include({ name: 'Owner', email: server.ownerEmail });
    expect(server.services.accounts.preferences(server.ownerId).timeZone).to.equal(null);
    // Name, zone and day need no password; with it, the email changes too.
    const saved = await owner.submit('/app/profile', '/app/profile', {
      name: 'Maya Fischer',
      email: 'maya@northwind.example',
      emailPassword: PASSWORD,
      timeZone: 'America/New_York',
      weekStart: 'sunday',
    });
    expect([saved.status, saved.headers.get('location')]).to.deep.equal([303, '/app/profile?done=saved']);
    expect(server.services.accounts.getUser(OPERATOR, server.ownerId)).to.include({
      name: 'Maya Fischer',
      email: 'maya@northwind.example',
    });
    expect(server.services.accounts.preferences(server.ownerId)).to.deep.include({
      timeZone: 'America/New_York',
      weekStart: 'sunday',
      language: 'en',
    });
    const renamed = await owner.submit('/app/profile', '/app/profile', {
      name: 'Maya F.',
      email: 'MAYA@northwind.example',
      timeZone: 'America/New_York',
      weekStart: 'sunday',
    });
    expect(renamed.status).to.equal(303);
    const page = flat((await owner.get('/app/profile?done=saved')).text);
    expect(page).to.include('<option value="America/New_York" selected>');
    expect(page).to.match(/id="week-sunday" type="radio" name="weekStart" value="sunday" checked/);
    server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    const taken = await owner.submit('/app/profile', '/app/profile', {
      name: 'Maya',
      email: 'BEA@example.org',
      emailPassword: PASSWORD,
      timeZone: 'Europe/Berlin',
      weekStart: 'monday',
    });
    expect(taken.status).to.equal(409);
    expect(flat(taken.text)).to.match(
      /id="profile-email" name="email" value="BEA@example.org"[^>]*aria-invalid="true" aria-describedby="profile-email-error"/,
    );
    // Nothing says who holds the address (decisions §8a).
    expect(flat(taken.text)).to.include(
      '<span class="field-error" id="profile-email-error">This address cannot be your sign-in here. Choose another one.</span>',
    );
    expect(taken.text).not.to.match(/exists|Bea/);
    const bad = await owner.submit('/app/profile', '/app/profile', {
      name: 'Maya',
      email: 'maya',
      timeZone: 'Europe/Berlin',
      weekStart: 'monday',
    });
    expect(bad.status).to.equal(400);
    expect(flat(bad.text)).to.include('id="profile-email-error">The email must look like name@example.org (got &quot;maya&quot;).</span>');
    expect(server.services.accounts.getUser(OPERATOR, server.ownerId)).to.include({ name: 'Maya F.', email: 'maya@northwind.example' });
    // One write: the refused forms (taken email, with another zone and first day) changed nothing else either.
    expect(server.services.accounts.preferences(server.ownerId)).to.deep.include({
      timeZone: 'America/New_York',
      weekStart: 'sunday',
      language: 'en',
    });
  });

  it('changes the password only with the current one; the other sessions end, this one stays', async () => {
    const laptop = new SettingsClient(server);
    expect((await laptop.signIn(server.ownerEmail, PASSWORD)).status).to.equal(303);
    const wrong = await owner.submit('/app/profile', '/app/profile/password', {
      current: 'not it at all!',
      password: 'a new long password',
      repeat: 'a new long password',
    });
    expect(wrong.status).to.equal(400);
    expect(flat(wrong.text)).to.include('id="current-password-error">That is not your current password.</span>');
    const differ = await owner.submit('/app/profile', '/app/profile/password', {
      current: PASSWORD,
      password: 'a new long password',
      repeat: 'another one',
    });
    expect(flat(differ.text)).to.include('id="repeat-password-error">The two new passwords differ: type the same one twice.</span>');
    const short = await owner.submit('/app/profile', '/app/profile/password', { current: PASSWORD, password: 'short', repeat: 'short' });
    expect(flat(short.text)).to.include('id="new-password-error">The password must be at least 12 characters long.</span>');
    const changed = await owner.submit('/app/profile', '/app/profile/password', {
      current: PASSWORD,
      password: 'a new long password',
      repeat: 'a new long password',
    });
    expect([changed.status, changed.headers.get('location')]).to.deep.equal([303, '/app/profile?done=password']);
    expect((await owner.get('/app/profile')).status).to.equal(200);
    expect((await laptop.get('/app/week')).headers.get('location')).to.equal('/settings/sign-in');
    expect((await new SettingsClient(server).signIn(server.ownerEmail, 'a new long password')).status).to.equal(303);
  });
});
