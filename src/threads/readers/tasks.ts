import type { Actor, Scope } from '../../principal.js';
import { DomainError, type DomainErrorData, errorData, errorOf } from '../../errors.js';
import { compressSync, compresses, type Negotiated } from '../../kernel/compression.js';
import { catalogHandlers } from '../../operations/catalog.js';
import { entryHandlers } from '../../operations/entries.js';
import { reportHandlers } from '../../operations/reports.js';
import type { Handler, OperationId } from '../../operations/types.js';
import type { EncodedBody } from '../../kernel/compression.js';
import type { SummaryWindow } from '../../modules/reports/service.js';
import type { Services } from '../../services.js';

/*
 * The heavy reads run on the reader threads (./pool.ts), each with its own read-only connection,
 * and come back as JSON bytes; everything else (routing, tokens, validation, point reads, writes)
 * stays on the request thread. Which operations are heavy is the contract's word
 * (`x-reader-thread: true`), read by the request thread at start.
 */

/** An actor as it crosses to a thread (a Set does not survive structured cloning as one). */
export type ActorData = Omit<Actor, 'scopes'> & { scopes: Scope[] };

export const actorData = (actor: Actor): ActorData => ({ ...actor, scopes: [...actor.scopes] });
export const actorOf = (data: ActorData): Actor => ({ ...data, scopes: new Set(data.scopes) });

/** One read, as the request thread hands it over: validated and coerced, with the request's instant. */
export interface ReadTask {
  operationId: OperationId;
  query: Record<string, unknown>;
  path: Record<string, string>;
  actor: ActorData;
  /** The request's clock reading: running timers' durations are measured to it. */
  now: number;
  requestId: string;
  /**
   * The coding the client accepts: the thread compresses the answer itself (on its own core, not
   * the request thread's) when it is large enough. null: the bytes come back as they are.
   */
  compression: Negotiated | null;
  /** getSummaryReport for a person's page (the web app): a window of the groups instead of the contract's whole answer. */
  window?: SummaryWindow;
  /** A person's page (the web app's Reports): colleagues' money the member may not see is withheld, not refused (the reports service's option). */
  unseenMoney?: 'withhold';
  /** A person's page that asked for each entry rounded as invoices round it (the reports service's option; never the API's). */
  rounded?: true;
}

/**
 * The answer as UTF-8 JSON bytes (moved, not copied, from a reader thread, and written to the
 * socket as they are): as they are (a task without `compression`), or compressed or not as the
 * task's compression decided; or the domain error the read raised (an error object does not
 * cross threads as itself).
 */
export type ReadResult = Uint8Array | EncodedBody | { error: DomainErrorData };

const encoder = new TextEncoder();

/** The operations a reader thread can answer: the data operations of the contract (not the contract or health). */
export type ReadHandlers = Partial<Record<OperationId, Handler<OperationId>>>;

/** The read handlers over a set of services (the reader thread's, or the server's own). */
export function readHandlers(services: Pick<Services, 'entries' | 'timers' | 'catalog' | 'reports'>): ReadHandlers {
  return { ...entryHandlers(services), ...catalogHandlers(services), ...reportHandlers(services) } as unknown as ReadHandlers;
}

/**
 * Reads whose answer is written as JSON text directly, without the objects `JSON.stringify` would
 * be handed (the same bytes: test/fast/services/reports-text.test.ts): the largest summaries have
 * tens of thousands of sub-groups.
 */
export type ReadTexts = Partial<
  Record<OperationId, (request: { query: never; actor: Actor; window?: SummaryWindow; unseenMoney?: 'withhold'; rounded?: true }) => string>
>;

export function readTexts(services: Pick<Services, 'reports'>): ReadTexts {
  type Query = Parameters<Services['reports']['summaryJson']>[1];
  type Detailed = Parameters<Services['reports']['detailed']>[1];
  const optionsOf = (unseenMoney?: 'withhold', rounded?: true) => ({
    ...(unseenMoney ? { unseenMoney } : {}),
    ...(rounded ? { rounded } : {}),
  });
  return {
    getSummaryReport: ({
      query,
      actor,
      window,
      unseenMoney,
      rounded,
    }: {
      query: Query;
      actor: Actor;
      window?: SummaryWindow;
      unseenMoney?: 'withhold';
      rounded?: true;
    }) =>
      window
        ? JSON.stringify({ data: services.reports.summaryWindow(actor, query, window, optionsOf(unseenMoney, rounded)) })
        : `{"data":${services.reports.summaryJson(actor, query, optionsOf(unseenMoney, rounded))}}`,
    // The same JSON as the operation's handler gives (./operations/reports.ts), with the page's options.
    getDetailedReport: ({
      query,
      actor,
      unseenMoney,
      rounded,
    }: {
      query: Detailed;
      actor: Actor;
      unseenMoney?: 'withhold';
      rounded?: true;
    }) => {
      const page = services.reports.detailed(actor, query, optionsOf(unseenMoney, rounded));
      return JSON.stringify({ data: page.rows, nextCursor: page.nextCursor });
    },
  } as ReadTexts;
}

/** Runs a read and serialises its answer; a domain error becomes a result, anything else throws. */
export async function runRead(handlers: ReadHandlers, task: ReadTask, texts: ReadTexts = {}): Promise<ReadResult> {
  const handler = handlers[task.operationId] as unknown as (
    request: unknown,
  ) => { status: 200; body: unknown } | Promise<{ status: 200; body: unknown }>;
  const text = texts[task.operationId];
  try {
    const actor = actorOf(task.actor);
    const answer = text
      ? text({
          query: task.query as never,
          actor,
          ...(task.window ? { window: task.window } : {}),
          ...(task.unseenMoney ? { unseenMoney: task.unseenMoney } : {}),
          ...(task.rounded ? { rounded: task.rounded } : {}),
        })
      : JSON.stringify((await handler({ query: task.query, path: task.path, body: undefined, actor })).body);
    // A fresh buffer of its own (never a pooled slab), so a thread can move it whole.
    const json = encoder.encode(answer);
    const { compression } = task;
    if (compression === null) return json;
    return compresses(compression, json.byteLength)
      ? { bytes: compressSync(json, compression.coding), coding: compression.coding }
      : { bytes: json, coding: null };
  } catch (error) {
    if (error instanceof DomainError) return { error: errorData(error) };
    throw error;
  }
}

/** The domain error of a read's result, raised again on the request thread. */
export const raise = (result: Extract<ReadResult, { error: unknown }>): never => {
  throw errorOf(result.error);
};

/** What a reader thread is started with (src/threads/reader-thread.ts). */
export interface ReaderThreadData {
  databasePath: string;
  secretKey: Uint8Array;
  defaultTimeZone: string;
  /** The connection's page cache: random reads (a report's tag join, a search's rows) stay in memory. */
  cacheMb: number;
  /**
   * Tests: a module of the test's own whose `beforeRead(task, data)` runs before each read (a
   * slow read, a crashing reader). Production code ships no such branch.
   */
  hooks?: { module: string; data: unknown };
}

/** What a test's hooks module exports. */
export interface ReaderHooks {
  /** Before each read, preview (operationId `invoicePreview`) and export (`reportExport`). */
  beforeRead(task: { operationId: string }, data: unknown): void;
}
