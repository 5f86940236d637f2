import { once } from 'node:events';
import { Writable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';

/**
 * Where an export's bytes go (a reader thread's port to the socket, a file of the command
 * line): `write` resolves when there is room for more, so a slow receiver slows the read, and
 * `cancelled` turns true when the receiver has gone (the export then stops reading).
 */
export interface ExportSink {
  write(chunk: Uint8Array): Promise<void>;
  readonly cancelled: boolean;
}

/** The export stopped because its receiver went away (a browser that disconnected). */
export class ExportCancelled extends Error {
  override name = 'ExportCancelled';
  constructor() {
    super('the receiver of the export went away');
  }
}

/** Chunks handed to the sink: small writes (a row of a zip entry) are gathered to this size first. */
const CHUNK = 64 * 1024;

/**
 * The sink as a Node stream for the format libraries (csv text, exceljs's zip, pdfkit), with
 * their small writes gathered into chunks. `room()` is what a writer awaits between batches of
 * rows: the stream has drained and the event loop has turned (the zip and deflate run there).
 */
export function sinkStream(sink: ExportSink) {
  let pending: Buffer[] = [];
  let size = 0;
  let bytes = 0;
  const flush = async () => {
    if (size === 0) return;
    const chunk = Buffer.concat(pending, size);
    pending = [];
    size = 0;
    bytes += chunk.byteLength;
    await sink.write(chunk);
  };
  const stream = new Writable({
    highWaterMark: CHUNK,
    write(chunk: Buffer, _encoding, done) {
      pending.push(chunk);
      size += chunk.byteLength;
      if (size < CHUNK) return done();
      flush().then(() => done(), done);
    },
    final(done) {
      flush().then(() => done(), done);
    },
  });
  return {
    stream,
    bytes: () => bytes,
    async room(): Promise<void> {
      if (sink.cancelled) throw new ExportCancelled();
      if (stream.writableNeedDrain) await once(stream, 'drain');
      await turn();
      if (sink.cancelled) throw new ExportCancelled();
    },
    /** Ends the stream and waits until its last chunk is with the sink. */
    async end(): Promise<void> {
      // exceljs ends the stream itself when its zip is done.
      if (stream.writableFinished) return;
      const finished = once(stream, 'finish');
      if (!stream.writableEnded) stream.end();
      await finished;
    },
  };
}

export type SinkStream = ReturnType<typeof sinkStream>;
