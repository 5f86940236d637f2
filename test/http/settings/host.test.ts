import { request } from 'node:http';
import { expect } from 'chai';
import { parseConfig, riskySettings } from '../../../src/config.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** A GET of a settings path with the Host header given (fetch does not let a caller set it). */
function getWithHost(server: TestServer, path: string, host: string): Promise<{ status: number; text: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('settings page: the host it answers at, and risky settings at start', () => {
  let server: TestServer;
  afterEach(() => server.close());

  it('answers only at the host of BASE_URL when it is set (no DNS rebinding of its forms)', async () => {
    server = await startTestServer({ env: { BASE_URL: 'http://timetrack.test' } });
    expect((await getWithHost(server, '/settings/sign-in', 'timetrack.test')).status).to.equal(200);
    const other = await getWithHost(server, '/settings/sign-in', 'attacker.example');
    expect(other.status).to.equal(421);
    expect(other.text).to.include('These pages answer at http://timetrack.test only: open them there.');
    expect((await getWithHost(server, '/settings/sign-in', new URL(server.url).host)).status).to.equal(421);
    // The API is not a page of forms: its bearer tokens are not sent by a browser on its own.
    expect((await getWithHost(server, '/healthz', 'attacker.example')).status).to.equal(200);
  });

  it('answers at any host when BASE_URL is not set', async () => {
    server = await startTestServer();
    expect((await getWithHost(server, '/settings/sign-in', 'whatever.test')).status).to.equal(200);
  });

  it('logs one warning per risky setting in force at start', async () => {
    server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', METRICS: 'true' } });
    const warnings = server.logLines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn' && l.msg.startsWith('risky setting: '));
    expect(warnings.map((w) => w.msg.split(':')[1].trim().split(' ')[0])).to.deep.equal(['WEBHOOK_ALLOW_PRIVATE_TARGETS=true', 'GET']);
  });

  it('names plain http on a non-loopback address without a trusted proxy or an https BASE_URL', () => {
    const risks = (env: Record<string, string>) => riskySettings(parseConfig(env)).map((r) => r.slice(0, 30));
    expect(risks({})).to.deep.equal(['Plain http on 0.0.0.0 (every i']);
    expect(risks({ HOST: '127.0.0.1' })).to.deep.equal([]);
    expect(risks({ HOST: '::1' })).to.deep.equal([]);
    expect(risks({ HOST: '10.1.2.3' })).to.deep.equal(['Plain http on 10.1.2.3, with n']);
    expect(risks({ TRUST_PROXY: 'loopback' })).to.deep.equal([]);
    expect(risks({ BASE_URL: 'https://timetrack.example.org' })).to.deep.equal([]);
    expect(risks({ HOST: '127.0.0.1', METRICS_TOKEN: 'a-metrics-token-of-32-characters!' })).to.deep.equal([]);
    expect(risks({ HOST: '127.0.0.1', METRICS: 'true' })).to.deep.equal(['GET /metrics is served without']);
  });
});
