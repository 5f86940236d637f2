import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';
import type { ImportJob } from './import-job.js';

/** Runs kept for the page to show: an hour after they started (their files too, where a finished check waits for Import). */
export const KEEP_MS = 60 * 60_000;

/**
 * An upload in progress: a run's place taken and the bytes it may write reserved before its body
 * is read (then counted as what it wrote); released when it is refused or becomes a run.
 */
export interface UploadSlot {
  path: string;
  /** The most its file may hold: the file limit, or what the member's or the server's share leaves. */
  maxBytes: number;
  /** Which limit set maxBytes (the refusal of a larger file names it). */
  limitedBy: 'file' | 'member' | 'server';
  /** Refused: the file is deleted and the place freed. */
  release(): void;
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/**
 * The Import page's files on disk and what they may take (issue 33, M2): each upload reserves
 * its room before its body is read, within the file limit, the member's share and the server's;
 * a refused upload's file is deleted at once; a run's file goes when the run ends, except a
 * finished check with rows to import, which keeps it for Import (for an hour at most, and only
 * until the member's next upload needs the room).
 */
export function createUploadStore(options: {
  dir: string;
  jobs: Map<string, ImportJob>;
  limits: { fileBytes: number; memberBytes: number; totalBytes: number };
  clock: Clock;
}) {
  const { jobs } = options;
  /** Every file in the directory: whose, how large (an upload in progress: the room reserved for it). */
  const files = new Map<string, { userId: string; bytes: number; uploading: boolean; since: number }>();

  const removeFile = (path: string): void => {
    files.delete(path);
    if (path !== '') rmSync(path, { force: true });
  };
  /** Whether a run still needs its file: one running, or a finished check that Import may still start. */
  const needed = (path: string): boolean =>
    [...jobs.values()].some(
      (j) => j.request.path === path && (j.state === 'running' || (j.kind === 'preview' && j.state === 'done' && !j.fileGone)),
    );
  const storedBy = (userId: string | null): number =>
    [...files.values()].filter((f) => userId === null || f.userId === userId).reduce((sum, f) => sum + f.bytes, 0);

  /**
   * Room for a member's new upload within their share: their oldest finished checks that no run
   * uses are dropped (a newer check replaces an older one); Import on a dropped one asks for a
   * new check.
   */
  function makeRoom(userId: string, wanted: number): void {
    const old = [...jobs.values()]
      .filter((j) => j.userId === userId && j.kind === 'preview' && j.state === 'done' && !j.fileGone)
      .sort((a, b) => a.startedAt - b.startedAt);
    for (const job of old) {
      if (storedBy(userId) + wanted <= options.limits.memberBytes) return;
      job.fileGone = true;
      if (!needed(job.request.path)) removeFile(job.request.path);
    }
  }

  return {
    storedBy,
    /** Uploads whose bodies are being read (each holds a run's place). */
    uploading: (): number => [...files.values()].filter((f) => f.uploading).length,

    /** Runs finished an hour ago are forgotten, and their files deleted (and an upload that never became a run). */
    forget(): void {
      const now = options.clock.now();
      for (const [path, file] of files) if (file.uploading && now - file.since > KEEP_MS) removeFile(path);
      for (const [id, job] of jobs) {
        if (job.state !== 'running' && now - job.startedAt > KEEP_MS) {
          jobs.delete(id);
          if (!needed(job.request.path)) removeFile(job.request.path);
        }
      }
    },

    /** Room for a member's upload, or a refusal (429) naming the share that has none left. */
    reserve(userId: string): UploadSlot {
      const { fileBytes, memberBytes, totalBytes } = options.limits;
      makeRoom(userId, Math.min(fileBytes, memberBytes));
      const memberRoom = memberBytes - storedBy(userId);
      const serverRoom = totalBytes - storedBy(null);
      if (memberRoom <= 0) {
        throw new DomainError(
          'rate_limited',
          `Your files on the server take ${mb(storedBy(userId))}, all a member may keep (IMPORT_UPLOADS_MEMBER_MB): wait for your imports to finish (a file goes when its run ends), then try again.`,
        );
      }
      if (serverRoom <= 0) {
        throw new DomainError(
          'rate_limited',
          `The server keeps ${mb(storedBy(null))} of uploaded files, all it may (IMPORT_UPLOADS_TOTAL_MB): try again later (a checked file goes an hour after its check at the latest).`,
        );
      }
      const maxBytes = Math.min(fileBytes, memberRoom, serverRoom);
      const limitedBy = maxBytes === fileBytes ? 'file' : maxBytes === memberRoom ? 'member' : 'server';
      mkdirSync(options.dir, { recursive: true });
      const path = join(options.dir, `${newId('upl')}.csv`);
      files.set(path, { userId, bytes: maxBytes, uploading: true, since: options.clock.now() });
      return { path, maxBytes, limitedBy, release: () => removeFile(path) };
    },

    /** An upload received in full: counted at its size, and no longer holding a place of its own (its run does). */
    uploaded(path: string, bytes: number): void {
      const file = files.get(path);
      if (file) Object.assign(file, { bytes, uploading: false });
    },

    /** A run has ended: its file goes, unless a finished check keeps it for Import (one with anything to import: issue 54 I3). */
    ended(job: ImportJob): void {
      if (job.kind === 'preview' && job.state === 'done' && job.outcome?.writes === true && !job.fileGone) return;
      if (job.kind === 'preview') job.fileGone = true;
      if (job.request.path !== '' && !needed(job.request.path)) removeFile(job.request.path);
    },
  };
}

/** A place taken for an upload whose body is being read: given back when its request is done. */
export interface UploadPlace {
  release(): void;
}

/**
 * Places for uploads held in memory while they are read (issue 57: the Expenses page's receipts,
 * at most 10 MB each, stored whole in the database in one write): at most `perMember` at once per
 * member and `total` in all, so that receipts read together never hold more than total × 10 MB.
 * `take` gives a place, or null when none is free (the page says so and keeps what was typed).
 */
export function createUploadPlaces(limits: { perMember: number; total: number }) {
  const taken = new Map<string, number>();
  let all = 0;
  return {
    limits,
    take(userId: string): UploadPlace | null {
      const mine = taken.get(userId) ?? 0;
      if (mine >= limits.perMember || all >= limits.total) return null;
      taken.set(userId, mine + 1);
      all += 1;
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          all -= 1;
          const left = (taken.get(userId) ?? 1) - 1;
          if (left > 0) taken.set(userId, left);
          else taken.delete(userId);
        },
      };
    },
    /** Places taken now (in all, or by one member). */
    inUse: (userId?: string): number => (userId === undefined ? all : (taken.get(userId) ?? 0)),
  };
}
