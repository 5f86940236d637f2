// node sug.mjs ROOT DB TOKEN TEXT N: N suggestions for TEXT as the dataset's owner
/* global process */
const [root, db, token, text, nArg] = process.argv.slice(2);
const n = Number(nArg);
const { openDatabase } = await import(`${root}/dist/src/db/database.js`);
const { ManualClock } = await import(`${root}/dist/src/clock.js`);
const { createServices } = await import(`${root}/dist/src/services.js`);
const database = openDatabase(db, { readOnly: true });
const services = createServices(database, { clock: new ManualClock(Date.UTC(2026, 10, 1, 12)), secretKey: Buffer.alloc(32, 7) });
const actor = services.tokens.authenticate(token).actor;
let out = services.entries.suggestions(actor, text);
for (let i = 0; i < 20; i++) services.entries.suggestions(actor, text);
const t = process.cpuUsage();
for (let i = 0; i < n; i++) out = services.entries.suggestions(actor, text);
const u = process.cpuUsage(t);
console.log(
  JSON.stringify({
    text,
    n,
    cpuUsPerCall: n ? Math.round((u.user + u.system) / n) : 0,
    got: out.length,
    first: out.slice(0, 3).map((s) => `${s.description}|${s.uses}|${s.lastStart.slice(0, 10)}`),
  }),
);
