import { OPERATOR } from '../../src/principal.js';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { hashToken, mintToken, tokenPrefix } from '../../src/modules/tokens/token-format.js';
import { addMemberWithToken, expectProblem, startTestServer, type TestServer } from '../helpers/server.js';
import { typedClient } from '../helpers/client.js';

describe('tokens', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('format', () => {
    it('is tt_<8-char prefix>_<43-char secret> from a CSPRNG', () => {
      const seen = new Set<string>();
      for (let i = 0; i < 200; i++) {
        const { token, prefix, hash } = mintToken();
        expect(token).to.match(/^tt_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
        expect(token.slice(3, 11)).to.equal(prefix);
        expect(tokenPrefix(token)).to.equal(prefix);
        expect(hash)
          .to.equal(hashToken(token))
          .and.match(/^[0-9a-f]{64}$/);
        seen.add(token);
      }
      expect(seen.size).to.equal(200);
    });

    it('stores only the SHA-256 of the token, never the plaintext or the secret', async () => {
      const minted = addMemberWithToken(server.services, server.workspaceId);
      // The server commits its writes at the end of the event loop's turn (its batch): then another connection sees them.
      await new Promise((resolve) => setImmediate(resolve));
      const secret = minted.token.slice(12);
      const db = new Database(server.config.databasePath, { readonly: true });
      try {
        const row = db.prepare('SELECT * FROM api_tokens WHERE id = ?').get(minted.tokenId) as Record<string, unknown>;
        expect(row.secret_hash).to.equal(hashToken(minted.token));
        for (const value of Object.values(row)) {
          expect(String(value)).not.to.contain(secret);
        }
        // Nothing anywhere in the file holds the plaintext.
        const dump = db.prepare("SELECT group_concat(secret_hash || prefix || name || scopes, '|') AS all_text FROM api_tokens").get() as {
          all_text: string;
        };
        expect(dump.all_text).not.to.contain(secret);
      } finally {
        db.close();
      }
    });
  });

  describe('every failure answers the same 401', () => {
    it('is byte-identical for missing, malformed, prefix-only, unknown, wrong secret, revoked, expired, removed member and deleted account', async () => {
      const { services, workspaceId, clock } = server;
      const revoked = addMemberWithToken(services, workspaceId);
      services.tokens.revoke(OPERATOR, revoked.tokenId);
      const expiring = addMemberWithToken(services, workspaceId, { expiresAt: clock.now() + 1000 });
      const removed = addMemberWithToken(services, workspaceId);
      services.accounts.removeMember(OPERATOR, { workspaceId, userId: removed.userId });
      const deleted = addMemberWithToken(services, workspaceId);
      services.accounts.deleteUser(OPERATOR, deleted.userId);
      const valid = addMemberWithToken(services, workspaceId);
      const prefixOnly = valid.token.slice(0, 11);
      const wrongSecret = `${valid.token.slice(0, 12)}${'A'.repeat(43)}`;
      const unknown = mintToken().token;

      // Still valid right before expiry, then refused.
      expect((await server.request('GET', '/api/v1/me', { token: expiring.token })).status).to.equal(200);
      clock.advance(1000);

      const attempts: Array<[string, Record<string, string>]> = [
        ['missing header', {}],
        ['empty bearer', { authorization: 'Bearer ' }],
        ['other scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
        ['malformed', { authorization: 'Bearer not-a-token' }],
        ['prefix only', { authorization: `Bearer ${prefixOnly}` }],
        ['prefix and underscore', { authorization: `Bearer ${prefixOnly}_` }],
        ['unknown', { authorization: `Bearer ${unknown}` }],
        ['wrong secret', { authorization: `Bearer ${wrongSecret}` }],
        ['revoked', { authorization: `Bearer ${revoked.token}` }],
        ['expired', { authorization: `Bearer ${expiring.token}` }],
        ['member removed', { authorization: `Bearer ${removed.token}` }],
        ['account deleted', { authorization: `Bearer ${deleted.token}` }],
        ['token with trailing garbage', { authorization: `Bearer ${valid.token}x` }],
      ];
      const bodies = new Set<string>();
      for (const [label, headers] of attempts) {
        const res = await server.request('GET', '/api/v1/me', { token: null, headers });
        expectProblem(res, 401, 'invalid-token', server.config.problemsBase, '/api/v1/me');
        expect(res.headers.get('www-authenticate'), label).to.equal('Bearer realm="timetrack"');
        bodies.add(res.text);
      }
      expect(bodies.size).to.equal(1);
      // And the valid token of the same workspace still works.
      expect((await server.request('GET', '/api/v1/me', { token: valid.token })).status).to.equal(200);
    });

    it('a revocation bites on the very next request', async () => {
      const member = addMemberWithToken(server.services, server.workspaceId);
      expect((await server.request('GET', '/api/v1/me', { token: member.token })).status).to.equal(200);
      server.services.tokens.revoke(OPERATOR, member.tokenId);
      expectProblem(await server.request('GET', '/api/v1/me', { token: member.token }), 401, 'invalid-token', server.config.problemsBase);
    });

    it('a revocation or a narrowing from another connection (the command line) bites on the very next request too', async () => {
      const { services, workspaceId } = server;
      const member = addMemberWithToken(services, workspaceId, { canViewOthersTime: true, canViewOthersMoney: true });
      const me = () => server.request('GET', '/api/v1/me', { token: member.token });
      // Twice: the second check finds the rows it kept from the first.
      expect((await me()).status).to.equal(200);
      expect((await me()).body.data.visibility).to.deep.equal({ canViewOthersTime: true, canViewOthersMoney: true });
      await new Promise((resolve) => setImmediate(resolve)); // the server's batch (and the touch) committed
      const cli = new Database(server.config.databasePath);
      try {
        cli.pragma('busy_timeout = 5000');
        cli.prepare('UPDATE members SET can_view_others_money = 0 WHERE workspace_id = ? AND user_id = ?').run(workspaceId, member.userId);
        expect((await me()).body.data.visibility).to.deep.equal({ canViewOthersTime: true, canViewOthersMoney: false });
        expect((await me()).status).to.equal(200);
        cli.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ?').run(server.clock.now(), member.tokenId);
        expectProblem(await me(), 401, 'invalid-token', server.config.problemsBase);
      } finally {
        cli.close();
      }
    });

    it('a token whose rows are kept still expires on time, and a change on the server’s own connection bites at once', async () => {
      const { services, workspaceId, clock } = server;
      const member = addMemberWithToken(services, workspaceId, { expiresAt: clock.now() + 120_000 });
      const me = () => server.request('GET', '/api/v1/me', { token: member.token });
      expect((await me()).status).to.equal(200);
      expect((await me()).status).to.equal(200);
      clock.advance(120_000);
      expectProblem(await me(), 401, 'invalid-token', server.config.problemsBase);
      const other = addMemberWithToken(services, workspaceId);
      expect((await server.request('GET', '/api/v1/me', { token: other.token })).status).to.equal(200);
      server.running.database.sqlite.exec('BEGIN');
      server.running.database.sqlite.prepare('DELETE FROM members WHERE user_id = ?').run(other.userId);
      server.running.database.sqlite.exec('COMMIT');
      expectProblem(await server.request('GET', '/api/v1/me', { token: other.token }), 401, 'invalid-token', server.config.problemsBase);
    });

    it('re-adding a removed member does not revive their old token', async () => {
      const member = addMemberWithToken(server.services, server.workspaceId);
      server.services.accounts.removeMember(OPERATOR, { workspaceId: server.workspaceId, userId: member.userId });
      server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: member.userId });
      expectProblem(await server.request('GET', '/api/v1/me', { token: member.token }), 401, 'invalid-token', server.config.problemsBase);
    });

    it('the bearer scheme is case-insensitive', async () => {
      const res = await server.request('GET', '/api/v1/me', { token: null, headers: { authorization: `bearer ${server.ownerToken}` } });
      expect(res.status).to.equal(200);
    });
  });

  describe('identity and visibility', () => {
    it('GET /me returns the token identity with the effective visibility', async () => {
      const member = addMemberWithToken(server.services, server.workspaceId, {
        scopes: ['reports:read', 'entries:read'],
        canViewOthersTime: true,
      });
      const res = await typedClient(server, member.token).GET('/api/v1/me');
      expect(res.response.status).to.equal(200);
      expect(res.data).to.deep.equal({
        data: {
          tokenId: member.tokenId,
          workspaceId: server.workspaceId,
          userId: member.userId,
          scopes: ['reports:read', 'entries:read'],
          visibility: { canViewOthersTime: true, canViewOthersMoney: false },
        },
      });
    });

    it('narrowing the member narrows the token on the next request; widening again does not widen it', async () => {
      const { services, workspaceId } = server;
      const member = addMemberWithToken(services, workspaceId, { canViewOthersTime: true, canViewOthersMoney: true });
      const visibility = async (token: string) => (await typedClient(server, token).GET('/api/v1/me')).data?.data.visibility;
      expect(await visibility(member.token)).to.deep.equal({ canViewOthersTime: true, canViewOthersMoney: true });

      services.accounts.setMember(OPERATOR, { workspaceId, userId: member.userId, canViewOthersMoney: false });
      expect(await visibility(member.token)).to.deep.equal({ canViewOthersTime: true, canViewOthersMoney: false });

      services.accounts.setMember(OPERATOR, { workspaceId, userId: member.userId, canViewOthersMoney: true, canViewOthersTime: false });
      expect(await visibility(member.token)).to.deep.equal({ canViewOthersTime: false, canViewOthersMoney: true });

      services.accounts.setMember(OPERATOR, { workspaceId, userId: member.userId, canViewOthersTime: true });
      expect(await visibility(member.token)).to.deep.equal({ canViewOthersTime: true, canViewOthersMoney: true });
    });

    it('granting a flag the member lacked at minting does not widen the existing token; a new token gets it', async () => {
      const { services, workspaceId } = server;
      const member = addMemberWithToken(services, workspaceId, { canViewOthersTime: false, canViewOthersMoney: false });
      services.accounts.setMember(OPERATOR, { workspaceId, userId: member.userId, canViewOthersTime: true, canViewOthersMoney: true });
      const old = await typedClient(server, member.token).GET('/api/v1/me');
      expect(old.data?.data.visibility).to.deep.equal({ canViewOthersTime: false, canViewOthersMoney: false });
      const fresh = services.tokens.create(OPERATOR, { workspaceId, userId: member.userId, name: 'new', scopes: [] });
      const now = await typedClient(server, fresh.token).GET('/api/v1/me');
      expect(now.data?.data.visibility).to.deep.equal({ canViewOthersTime: true, canViewOthersMoney: true });
    });
  });

  describe('lastUsedAt', () => {
    it('is written at most once a minute per token', async () => {
      const { services, workspaceId, clock } = server;
      const member = addMemberWithToken(services, workspaceId);
      const lastUsed = () => services.tokens.list(OPERATOR, workspaceId).find((t) => t.id === member.tokenId)?.lastUsedAt;
      expect(lastUsed()).to.equal(null);
      const first = clock.now();
      await server.request('GET', '/api/v1/me', { token: member.token });
      expect(lastUsed()).to.equal(new Date(first).toISOString());
      clock.advance(59_999);
      await server.request('GET', '/api/v1/me', { token: member.token });
      expect(lastUsed()).to.equal(new Date(first).toISOString());
      clock.advance(1);
      await server.request('GET', '/api/v1/me', { token: member.token });
      expect(lastUsed()).to.equal(new Date(first + 60_000).toISOString());
    });
  });
});
