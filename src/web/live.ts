import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from '../logger.js';
import { readsInvoices } from '../modules/invoices/service.js';
import type { Services } from '../services.js';

/** How often the feed reads what was committed since its last look (any process's writes). */
const POLL_MS = 200;
/** A comment line this often keeps proxies and the browser from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** Changes listed by name in one message; beyond, only counted (the page reads itself again whatever changed). */
const MAX_LISTED = 20;
/** A browser this far behind is cut off (it reconnects and catches up) rather than buffered without end. */
const MAX_BUFFERED_BYTES = 256 * 1024;
/** How often a stream's session is checked again (a sign-out or a password change elsewhere ends its streams within this). */
const SESSION_CHECK_MS = 1_000;

type Access = ReturnType<Services['accounts']['access']>;

/** A member's open streams in one look at the event log, and what they are told. */
interface Audience {
  userId: string;
  streams: Stream[];
  /** Read once per look; undefined when no longer a member. */
  access: Access;
  changes: LiveChange[];
  more: number;
}

interface Stream {
  res: Response;
  workspaceId: string;
  userId: string;
  /** The session it was opened in: re-checked on every look, so a signed-out or ended session ends its streams. */
  sessionSecret: string;
}

/**
 * What a change looks like on the stream: which record, never its content (the page reads that
 * itself, as the viewer). A message (`event: change`) carries `{changes: LiveChange[], more}`:
 * every change of one look at the event log (200 ms) that its member may see.
 */
export interface LiveChange {
  entity: string;
  id: string;
  operation: string;
}

/** The streams by audience (a member in a workspace: a tab each), so that each change is decided once per member. */
function audiencesOf(streams: Set<Stream>, access: (workspaceId: string, userId: string) => Access) {
  const byWorkspace = new Map<string, Audience[]>();
  const byMember = new Map<string, Audience>();
  for (const stream of streams) {
    const key = `${stream.workspaceId}|${stream.userId}`;
    let audience = byMember.get(key);
    if (!audience) {
      audience = { userId: stream.userId, streams: [], access: access(stream.workspaceId, stream.userId), changes: [], more: 0 };
      byMember.set(key, audience);
      byWorkspace.set(stream.workspaceId, [...(byWorkspace.get(stream.workspaceId) ?? []), audience]);
    }
    audience.streams.push(stream);
  }
  return { byWorkspace, byMember };
}

/** The streams whose session is no longer open (each session read once). */
function endedSessions(streams: Set<Stream>, services: Services): Stream[] {
  const alive = new Map<string, boolean>();
  return [...streams].filter((stream) => {
    let ok = alive.get(stream.sessionSecret);
    if (ok === undefined) {
      ok = services.sessions.alive(stream.sessionSecret, stream.workspaceId, stream.userId);
      alive.set(stream.sessionSecret, ok);
    }
    return !ok;
  });
}

/** Why a stream cannot be opened now, or null (the server stopping, or a budget full: the member's, the workspace's, the server's). */
function refusalOfStream(
  streams: Set<Stream>,
  member: { workspaceId: string; userId: string },
  limits: { perMember: number; perWorkspace: number; total: number },
  closed: boolean,
): { status: number; why: string } | null {
  const inWorkspace = [...streams].filter((s) => s.workspaceId === member.workspaceId);
  const own = inWorkspace.filter((s) => s.userId === member.userId).length;
  if (closed) return { status: 503, why: 'The server is stopping.' };
  if (own >= limits.perMember)
    return {
      status: 429,
      why: `You have ${own} pages open with live updates, the most this server allows. Close one and reload.`,
    };
  if (inWorkspace.length >= limits.perWorkspace)
    return {
      status: 429,
      why: 'Your workspace has as many live pages open as this server allows it. Reload later.',
    };
  if (streams.size >= limits.total) return { status: 429, why: 'The server has as many live pages open as it allows. Reload later.' };
  return null;
}

/**
 * The web app's live stream (Server-Sent Events): every committed write of a workspace, from any
 * process (the API, the command line, an import's thread, another browser), is told within a
 * fraction of a second to the open pages of the members who may see it, decided at send time
 * (an entry of a colleague only to those who see colleagues' time; invoices only to those who
 * read them). A change carries no content: the page reads it again as its viewer, so money
 * stays withheld exactly as everywhere else. Writes never wait for a browser: the feed reads
 * the event log after commit, on its own timer, and a stream that falls behind is cut off (the
 * browser reconnects with Last-Event-ID and catches up).
 */
export function createLiveFeed(deps: { services: Services; logger: Logger; perMember: number; perWorkspace: number; total: number }) {
  const { services, logger } = deps;
  const streams = new Set<Stream>();
  let lastSeq = services.events.newestSeq();
  /**
   * Message ids are `<epoch>.<n>`: a random epoch drawn whenever the feed starts from idle, and
   * per workspace the count of its changes seen since. They say nothing of the server's other
   * workspaces (the event log's own sequence would); a page reconnecting with an id of another
   * epoch, or an older count, is told to read everything again.
   */
  let epoch = randomBytes(6).toString('hex');
  const seen = new Map<string, number>();
  const idOf = (workspaceId: string) => `${epoch}.${seen.get(workspaceId) ?? 0}`;
  let sessionsCheckedAt = 0;
  let poller: NodeJS.Timeout | null = null;
  let heartbeat: NodeJS.Timeout | null = null;
  let closed = false;

  /** Whether a member may learn of a change: their own entries, colleagues' only with time visibility, invoices only who reads them (the invoices module's rule). Access read once per member per poll. */
  const mayLearnOf = (access: Access, userId: string, change: { entity: string; authorId: string | null }): boolean => {
    if (!access) return false;
    if (change.entity === 'invoice') return readsInvoices(access);
    if (change.entity !== 'entry') return true;
    return change.authorId === userId || change.authorId === null || access.canViewOthersTime;
  };

  const end = (stream: Stream) => {
    streams.delete(stream);
    stream.res.end();
  };

  /** Ends the streams whose session ended (signed out, a password changed elsewhere, expired): once a second, one read per session. */
  const checkSessions = (now: number) => {
    if (now - sessionsCheckedAt < SESSION_CHECK_MS) return;
    sessionsCheckedAt = now;
    for (const stream of endedSessions(streams, services)) end(stream);
  };

  /** Reads what was committed since the last look and tells each stream its share, in one write per stream. */
  const poll = () => {
    checkSessions(Date.now());
    if (streams.size === 0) {
      lastSeq = services.events.newestSeq();
      return;
    }
    const { byWorkspace, byMember } = audiencesOf(streams, (workspaceId, userId) => services.accounts.access(workspaceId, userId));
    try {
      for (let rows = services.events.feed(lastSeq); rows.length > 0; rows = services.events.feed(lastSeq)) {
        for (const row of rows) {
          lastSeq = row.seq;
          seen.set(row.workspaceId, (seen.get(row.workspaceId) ?? 0) + 1);
          for (const audience of byWorkspace.get(row.workspaceId) ?? []) {
            if (!mayLearnOf(audience.access, audience.userId, row)) continue;
            // One message per stream per look: the changes it may see (the first MAX_LISTED), and how many more.
            if (audience.changes.length < MAX_LISTED)
              audience.changes.push({ entity: row.entity, id: row.entityId, operation: row.operation });
            else audience.more++;
          }
        }
      }
    } catch (error) {
      logger.error('live feed failed to read the event log', { error: error instanceof Error ? error.message : String(error) });
    }
    for (const audience of byMember.values()) {
      // No longer a member: their streams end.
      if (!audience.access) for (const stream of audience.streams) end(stream);
      else if (audience.changes.length > 0) {
        const workspaceId = audience.streams[0]?.workspaceId ?? '';
        const text = `id: ${idOf(workspaceId)}\nevent: change\ndata: ${JSON.stringify({ changes: audience.changes, more: audience.more })}\n\n`;
        for (const stream of audience.streams) if (streams.has(stream)) send(stream, text);
      }
    }
  };

  const send = (stream: Stream, text: string) => {
    if (stream.res.writableLength > MAX_BUFFERED_BYTES) {
      logger.info('live stream cut off: the browser fell behind', { userId: stream.userId });
      end(stream);
      return;
    }
    stream.res.write(text);
  };

  const start = () => {
    if (poller || closed) return;
    poller = setInterval(poll, POLL_MS);
    heartbeat = setInterval(() => {
      for (const stream of streams) send(stream, ': heartbeat\n\n');
    }, HEARTBEAT_MS);
  };
  const stopIfIdle = () => {
    if (streams.size > 0) return;
    if (poller) clearInterval(poller);
    if (heartbeat) clearInterval(heartbeat);
    poller = null;
    heartbeat = null;
  };

  return {
    /**
     * Opens a stream for a signed-in member, or answers why not (too many open streams: a clear
     * refusal the page shows). With Last-Event-ID older than the feed's position, the first
     * message tells the page to read everything again (what it missed while away).
     */
    open(req: Request, res: Response, member: { workspaceId: string; userId: string; sessionSecret: string }): void {
      const refused = refusalOfStream(streams, member, deps, closed);
      if (refused) {
        res.status(refused.status).type('text/plain').setHeader('Retry-After', '30').end(refused.why);
        return;
      }
      res.status(200);
      res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Accel-Buffering', 'no');
      res.flushHeaders();
      // The first stream after an idle spell starts at the log's current position (nothing before
      // it is replayed on the request thread), in a new epoch: a page of the old one reads again.
      if (streams.size === 0 && !poller) {
        lastSeq = services.events.newestSeq();
        epoch = randomBytes(6).toString('hex');
        seen.clear();
      }
      const stream: Stream = { res, ...member };
      streams.add(stream);
      const last = req.headers['last-event-id'];
      const behind = typeof last === 'string' && last !== '' && last !== idOf(member.workspaceId);
      res.write(`retry: 2000\nid: ${idOf(member.workspaceId)}\nevent: ${behind ? 'resync' : 'hello'}\ndata: {}\n\n`);
      req.on('close', () => {
        streams.delete(stream);
        stopIfIdle();
      });
      start();
    },
    /** Open streams (metrics, tests). */
    count: () => streams.size,
    /** Reads the event log now (tests; the timer does it every 200 ms). */
    poll,
    /** Ends every stream (the server is stopping): browsers reconnect to wherever it comes back. */
    close(): void {
      closed = true;
      for (const stream of streams) end(stream);
      stopIfIdle();
    },
  };
}

export type LiveFeed = ReturnType<typeof createLiveFeed>;
