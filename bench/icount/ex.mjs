// node ex.mjs ROOT DB TOKEN FORMAT FROM TO: a detailed report export into a sink that drops the bytes
/* global process */
const [root, db, token, format, from, to] = process.argv.slice(2);
const { openDatabase } = await import(`${root}/dist/src/db/database.js`);
const { ManualClock } = await import(`${root}/dist/src/clock.js`);
const { createServices } = await import(`${root}/dist/src/services.js`);
const { writeExport } = await import(`${root}/dist/src/modules/reports/export/index.js`);
const database = openDatabase(db, { readOnly: true });
const services = createServices(database, { clock: new ManualClock(Date.UTC(2026, 10, 1, 12)), secretKey: Buffer.alloc(32, 7) });
const actor = services.tokens.authenticate(token).actor;
const run = async (from, to) => {
  const table = services.reports.exportTable(actor, {
    kind: 'detailed',
    format,
    from,
    to,
    timeZone: 'Europe/Berlin',
    weekStart: 'monday',
    groupBy: 'project',
    subGroupBy: null,
  });
  let bytes = 0;
  return writeExport(table, format, { cancelled: false, write: async (c) => void (bytes += c.byteLength) });
};
await run('2026-10-01', '2026-10-01'); // warm-up: loads the writer
const t = process.cpuUsage();
const r = await run(from, to);
const u = process.cpuUsage(t);
console.log(JSON.stringify({ ...r, cpuMs: Math.round((u.user + u.system) / 1000) }));
