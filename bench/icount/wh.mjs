// node wh.mjs ROOT PORT N SUBS DB fill|send: fill queues N entries × SUBS subscriptions' deliveries to receiver.mjs on PORT; send sends them all
/* global process, setTimeout, performance */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const [root, port, nArg, subsArg, dbPath, mode] = process.argv.slice(2);
const n = Number(nArg);
const { openDatabase } = await import(`${root}/dist/src/db/database.js`);
const { systemClock } = await import(`${root}/dist/src/clock.js`);
const { createServices } = await import(`${root}/dist/src/services.js`);
const { bootstrapIfEmpty } = await import(`${root}/dist/src/bootstrap.js`);
const database = openDatabase(
  dbPath ?? join(mkdtempSync(join(tmpdir(), 'tt-wh-')), 'tt.db'),
  process.env.SYNC ? { synchronous: process.env.SYNC } : {},
);
const services = createServices(database, {
  clock: systemClock,
  secretKey: Buffer.alloc(32, 7),
  webhooks: { allowPrivateTargets: true, deliver: async () => {} },
});
if (mode !== 'send') {
  const boot = bootstrapIfEmpty(services.write, services.accounts, services.tokens);
  const actor = services.tokens.authenticate(boot.token).actor;
  for (let s = 0; s < Number(subsArg); s++)
    await services.webhooks.create(actor, { url: `http://127.0.0.1:${port}/hook${s}`, events: ['entry.created'] });
  const make = (i) => {
    const start = Date.UTC(2026, 9, 1) + i * 600_000;
    services.entries.create(actor, {
      start: new Date(start).toISOString(),
      end: new Date(start + 300_000).toISOString(),
      description: `Work item ${i}`,
    });
  };
  for (let i = 0; i < n; i++) make(i);
  await new Promise((r) => setTimeout(r, 100));
}
if (mode === 'fill') {
  database.close();
  process.exit(0);
}
const pending = () => database.sqlite.prepare("SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending')").pluck().get();
console.log('queued', pending());
const t0 = performance.now();
const c0 = process.cpuUsage();
while (pending() > 0) await services.sender.tick();
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
const total = database.sqlite.prepare('SELECT count(*) FROM webhook_deliveries').pluck().get();
console.log(
  JSON.stringify({
    deliveries: total,
    wallMs: Math.round(ms),
    cpuMs: Math.round((c.user + c.system) / 1000),
    perSecWall: Math.round((total / ms) * 1000),
    cpuUsPerDelivery: Math.round((c.user + c.system) / total),
  }),
);
database.close();
