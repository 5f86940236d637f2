import type { Request, Response } from 'express';
import type { Logger } from '../logger.js';
import type { Services } from '../services.js';

/** How often the feed reads what was committed since its last look (any process's writes). */
const POLL_MS = 200;
/** A comment line this often keeps proxies and the browser from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** Changes listed by name in one message; beyond, only counted (the page reads itself again whatever changed). */
const MAX_LISTED = 20;
/** A browser this far behind is cut off (it reconnects and catches up) rather than buffered without end. */
const MAX_BUFFERED_BYTES = 256 * 1024;

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

/**
 * The web app's live stream (Server-Sent Events): every committed write of a workspace, from any
 * process (the API, the command line, an import's thread, another browser), is told within a
 * fraction of a second to the open pages of the members who may see it, decided at send time
 * (an entry of a colleague only to those who see colleagues' time; invoices only to those who
 * see money). A change carries no content: the page reads it again as its viewer, so money
 * stays withheld exactly as everywhere else. Writes never wait for a browser: the feed reads
 * the event log after commit, on its own timer, and a stream that falls behind is cut off (the
 * browser reconnects with Last-Event-ID and catches up).
 */
export function createLiveFeed(deps: { services: Services; logger: Logger; perMember: number; total: number }) {
  const { services, logger } = deps;
  const streams = new Set<Stream>();
  let lastSeq = services.events.newestSeq();
  let poller: NodeJS.Timeout | null = null;
  let heartbeat: NodeJS.Timeout | null = null;
  let closed = false;

  /** Whether the stream's member may learn of a change; null when no longer a member (the stream ends). Access read once per member per poll. */
  /** Whether a member may learn of a change: their own entries, colleagues' only with time visibility, invoices only with money visibility. */
  const mayLearnOf = (access: Access, userId: string, change: { entity: string; authorId: string | null }): boolean => {
    if (!access) return false;
    if (change.entity === 'invoice') return access.canViewOthersMoney;
    if (change.entity !== 'entry') return true;
    return change.authorId === userId || change.authorId === null || access.canViewOthersTime;
  };

  const end = (stream: Stream) => {
    streams.delete(stream);
    stream.res.end();
  };

  /** Reads what was committed since the last look and tells each stream its share, in one write per stream. */
  const poll = () => {
    if (streams.size === 0) {
      lastSeq = services.events.newestSeq();
      return;
    }
    const { byWorkspace, byMember } = audiencesOf(streams, (workspaceId, userId) => services.accounts.access(workspaceId, userId));
    try {
      for (let rows = services.events.feed(lastSeq); rows.length > 0; rows = services.events.feed(lastSeq)) {
        for (const row of rows) {
          lastSeq = row.seq;
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
        const text = `id: ${lastSeq}\nevent: change\ndata: ${JSON.stringify({ changes: audience.changes, more: audience.more })}\n\n`;
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
    open(req: Request, res: Response, member: { workspaceId: string; userId: string }): void {
      const own = [...streams].filter((s) => s.userId === member.userId && s.workspaceId === member.workspaceId).length;
      if (closed || own >= deps.perMember || streams.size >= deps.total) {
        const why = closed
          ? 'The server is stopping.'
          : own >= deps.perMember
            ? `You have ${own} pages open with live updates, the most this server allows (APP_STREAMS_PER_MEMBER). Close one and reload.`
            : 'The server has as many live pages open as it allows (APP_STREAMS_TOTAL). Reload later.';
        res
          .status(closed ? 503 : 429)
          .type('text/plain')
          .setHeader('Retry-After', '30')
          .end(why);
        return;
      }
      res.status(200);
      res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Accel-Buffering', 'no');
      res.flushHeaders();
      const stream: Stream = { res, ...member };
      streams.add(stream);
      const last = Number(req.headers['last-event-id']);
      res.write(`retry: 2000\nid: ${lastSeq}\nevent: ${Number.isSafeInteger(last) && last < lastSeq ? 'resync' : 'hello'}\ndata: {}\n\n`);
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
