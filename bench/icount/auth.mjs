// node auth.mjs ROOT N : N token checks through the services of the tree at ROOT (compiled dist/).
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
// warm-up: the same for every N
for (let i = 0; i < 2000; i++) services.tokens.authenticate(boot.token);
let ok = 0;
for (let i = 0; i < n; i++) if (services.tokens.authenticate(boot.token)) ok++;
console.log('ok', ok);
