import { OPERATOR } from '../src/principal.js';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../src/clock.js';
import { openDatabase } from '../src/db/database.js';
import { loadSecretKey } from '../src/secret-key.js';
import { createServices } from '../src/services.js';

const PASSWORD = 'bench settings password';

/**
 * A browser session of the token's member, made as a person makes it: an owner's setup link
 * (through the services on the database), its form cookie and CSRF field, then the password.
 */
export async function sessionOf(serverUrl: string, databasePath: string, token: string): Promise<string> {
  return signedIn(serverUrl, databasePath, token, false);
}

/**
 * A browser session of another member of the token's workspace, made able to see everyone's time
 * and money first (as an owner would set it): a second person for what one person may do only
 * once at a time (each member downloads one report at a time).
 */
export async function colleagueSessionOf(serverUrl: string, databasePath: string, token: string): Promise<string> {
  return signedIn(serverUrl, databasePath, token, true);
}

async function signedIn(serverUrl: string, databasePath: string, token: string, colleague: boolean): Promise<string> {
  const database = openDatabase(databasePath);
  let secret: string;
  try {
    const services = createServices(database, { clock: systemClock, secretKey: loadSecretKey(databasePath, undefined) });
    const actor = services.tokens.authenticate(token)!.actor;
    let userId = actor.userId;
    if (colleague) {
      const other = services.accounts.listMembers(OPERATOR, actor.workspaceId).find((m) => m.userId !== actor.userId);
      if (!other) throw new Error('the workspace has no second member');
      userId = other.userId;
      services.accounts.setMember(OPERATOR, { workspaceId: actor.workspaceId, userId, canViewOthersTime: true, canViewOthersMoney: true });
    }
    secret = services.sessions.invite(OPERATOR, { workspaceId: actor.workspaceId, userId }).secret;
  } finally {
    database.close();
  }
  const setup = await fetch(`${serverUrl}/settings/setup/${secret}`);
  const formCookie = (setup.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await setup.text())?.[1] ?? '';
  const signedIn = await fetch(`${serverUrl}/settings/setup/${secret}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: formCookie, origin: serverUrl, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, password: PASSWORD, confirm: PASSWORD }),
  });
  return (signedIn.headers.getSetCookie().find((c) => c.startsWith('tt_session=')) ?? '').split(';')[0] as string;
}

/** A page's time over HTTP at one connection: `warm` requests not counted, then `runs` counted (p50, and the slowest as p99). */
export async function timePage(serverUrl: string, session: string, path: string, runs = 50, warm = 10) {
  const ms: number[] = [];
  let bytes = 0;
  let status = 0;
  for (let i = 0; i < warm + runs; i++) {
    const started = performance.now();
    const response = await fetch(`${serverUrl}${path}`, { headers: { cookie: session } });
    bytes = (await response.arrayBuffer()).byteLength;
    status = response.status;
    if (i >= warm) ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return {
    status,
    bytes,
    p50Ms: Math.round((ms[Math.floor(ms.length / 2)] as number) * 100) / 100,
    // The 99th percentile by nearest rank (of 200 runs the 198th; of 5 the slowest), and the slowest apart.
    p99Ms: Math.round((ms[Math.ceil(ms.length * 0.99) - 1] as number) * 100) / 100,
    slowestMs: Math.round((ms.at(-1) as number) * 100) / 100,
  };
}

/**
 * The settings page's costliest read: a subscription's delivery log, at its newest page and at a
 * page deep in the log (the subscription with the most deliveries, after the POST scenario
 * filled it), over HTTP with a real session, one request at a time. Also prints the plan.
 */
export async function measureSettingsLog(serverUrl: string, databasePath: string, token: string) {
  const database = openDatabase(databasePath);
  let hook: { id: string; n: number };
  let deep: { created_at: number; event_seq: number } | undefined;
  let plan: string;
  try {
    hook = database.sqlite
      .prepare('SELECT webhook_id AS id, count(*) AS n FROM webhook_deliveries GROUP BY webhook_id ORDER BY n DESC LIMIT 1')
      .get() as { id: string; n: number };
    deep = database.sqlite
      .prepare('SELECT created_at, event_seq FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at, event_seq LIMIT 1 OFFSET 30')
      .get(hook.id) as typeof deep;
    plan = (
      database.sqlite
        .prepare(
          'EXPLAIN QUERY PLAN SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND (created_at, event_seq) < (?, ?) ORDER BY created_at DESC, event_seq DESC LIMIT 26',
        )
        .all(hook.id, 0, 0) as Array<{ detail: string }>
    )
      .map((r) => r.detail)
      .join(' | ');
  } finally {
    database.close();
  }
  const session = await sessionOf(serverUrl, databasePath, token);
  const newest = await timePage(serverUrl, session, `/settings/webhooks/${hook.id}`);
  const deepPage = deep
    ? await timePage(serverUrl, session, `/settings/webhooks/${hook.id}?after=${deep.created_at}.${deep.event_seq}`)
    : null;
  return { deliveries: hook.n, plan, newest, deepPage };
}

/** Signs in through the settings page as a browser does (its form, its token, its cookie); the session cookie. */
export async function signIn(url: string, email: string, password: string): Promise<string> {
  const page = await fetch(`${url}/settings/sign-in`);
  const formCookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] as string;
  const done = await fetch(`${url}/settings/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: formCookie, origin: url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email, password }),
  });
  return done.headers
    .getSetCookie()
    .find((c) => c.startsWith('tt_session='))
    ?.split(';')[0] as string;
}
