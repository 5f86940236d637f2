/* global process, URL */
/*
 * Hooks a test loads into the reader threads (startTestServer({ readers: readerHooks({…}) })):
 * a report (or a download, `reportExport`) that takes long, as a slow query would (the thread is
 * busy throughout), and a read that ends the thread, as a crash of the reader would. Plain
 * JavaScript: a reader thread imports it as it is.
 */

/**
 * @param {{ operationId: string }} task
 * @param {{ slowReportsMs?: number, slowExportsMs?: number, crashOn?: string | string[] }} data
 */
export function beforeRead(task, data) {
  if ([data.crashOn].flat().includes(task.operationId)) process.exit(70);
  const slowMs = task.operationId === 'reportExport' ? data.slowExportsMs : task.operationId.endsWith('Report') ? data.slowReportsMs : 0;
  if (slowMs) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, slowMs);
}

/**
 * The runtime option that loads these hooks with `data`.
 * @param {{ slowReportsMs?: number, slowExportsMs?: number, crashOn?: string | string[] }} data
 */
export const readerHooks = (data) => ({ hooks: { module: new URL('./reader-hooks.mjs', import.meta.url).href, data } });
