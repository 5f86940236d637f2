/** Types of ./reader-hooks.mjs (plain JavaScript, so a reader thread imports it as it is). */
export interface ReaderHookData {
  slowReportsMs?: number;
  /** A download (`reportExport`) holds its thread this long before it is written. */
  slowExportsMs?: number;
  crashOn?: string | string[];
}
export declare function beforeRead(task: { operationId: string }, data: ReaderHookData): void;
export declare const readerHooks: (data: ReaderHookData) => { hooks: { module: string; data: ReaderHookData } };
