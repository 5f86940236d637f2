// node post.mjs ROOT N: N entries created through the service (as POST /entries does), in memory
/* global process */
const [root, nArg] = process.argv.slice(2);
const n = Number(nArg);
const { openDatabase } = await import(`${root}/dist/src/db/database.js`);
const { ManualClock } = await import(`${root}/dist/src/clock.js`);
const { createServices } = await import(`${root}/dist/src/services.js`);
const { bootstrapIfEmpty } = await import(`${root}/dist/src/bootstrap.js`);
const database = openDatabase(':memory:');
const clock = new ManualClock(Date.UTC(2026, 10, 2, 10));
const services = createServices(database, { clock, secretKey: Buffer.alloc(32, 7) });
const boot = bootstrapIfEmpty(services.write, services.accounts, services.tokens);
const actor = services.tokens.authenticate(boot.token).actor;
const make = (i) => {
  const start = Date.UTC(2026, 9, 1) + i * 600_000;
  services.entries.create(actor, {
    start: new Date(start).toISOString(),
    end: new Date(start + 300_000).toISOString(),
    description: `Work item ${i % 997}`,
  });
};
for (let i = 0; i < 500; i++) make(i);
for (let i = 0; i < n; i++) make(500 + i);
console.log('made', n);
