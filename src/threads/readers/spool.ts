import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { type FileHandle, open, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/*
 * Where the Reports page's downloads are spooled (issue 54, N2): a download is written to a file
 * here by its reader thread as fast as the disk takes it, so the thread is free again after the
 * seconds of its reading, however slowly the browser then drains the file.
 *
 * Each file is created private (0600, in a 0700 directory) and unlinked at once: it has no name
 * while it is used, only the server's open handle, so nothing is ever left behind: closing the
 * handle (the download ended, was cancelled or broken off, the server stopped) frees it, and a
 * crash (kill -9, a power cut) frees it with the process. The directory is emptied at start all
 * the same (a crash between a file's creation and its unlinking, microseconds) and removed at stop.
 */

/** The spool directory's name, beside the database (the disk the operator sized for data, not a /tmp that may be memory). */
export const SPOOL_DIR_NAME = 'timetrack-exports';

/** One download's spooled bytes: written at the end, read back from anywhere before it. */
export interface SpoolFile {
  /** Writes `bytes` at `position`. */
  write(bytes: Uint8Array, position: number): Promise<void>;
  /** Reads up to `buffer.byteLength` bytes at `position`; the number read. */
  read(buffer: Uint8Array, position: number): Promise<number>;
  /** Frees the file (its handle; it has no name). Once; later calls do nothing. */
  close(): Promise<void>;
}

export interface ExportSpool {
  /** The directory (tests look into it, and at the process's open files under it). */
  readonly dir: string;
  /** A new private file with no name. */
  open(): Promise<SpoolFile>;
  /** Files open now (downloads being written or sent). */
  openFiles(): number;
  /** Closes every file still open and removes the directory (the server's stop). */
  close(): Promise<void>;
}

/**
 * The spool of a server on `databasePath`: `timetrack-exports` beside the database, emptied and
 * made private at start (one server runs on a database: the start holds its lock); a throwaway
 * database's in a directory of its own in the system's temp directory.
 */
export function createExportSpool(databasePath: string): ExportSpool {
  let dir: string;
  if (databasePath === ':memory:') dir = mkdtempSync(join(tmpdir(), `${SPOOL_DIR_NAME}-`));
  else {
    dir = join(dirname(databasePath), SPOOL_DIR_NAME);
    // Whatever a crash left here (a file between its creation and its unlinking) goes now.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { mode: 0o700 });
  }
  // The mode given to mkdir is masked by the umask; this one is not.
  chmodSync(dir, 0o700);
  const files = new Set<SpoolFile>();
  return {
    dir,
    async open(): Promise<SpoolFile> {
      const path = join(dir, `${randomUUID()}.part`);
      const handle: FileHandle = await open(path, 'wx+', 0o600);
      try {
        await unlink(path);
      } catch (error) {
        await handle.close();
        throw error;
      }
      let closed: Promise<void> | null = null;
      const file: SpoolFile = {
        async write(bytes, position) {
          let done = 0;
          while (done < bytes.byteLength) {
            const { bytesWritten } = await handle.write(bytes, done, bytes.byteLength - done, position + done);
            done += bytesWritten;
          }
        },
        async read(buffer, position) {
          const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, position);
          return bytesRead;
        },
        close() {
          closed ??= (async () => {
            files.delete(file);
            await handle.close();
          })();
          return closed;
        },
      };
      files.add(file);
      return file;
    },
    openFiles: () => files.size,
    async close() {
      await Promise.allSettled([...files].map((file) => file.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
