import type { Socket } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import smtp from 'smtp-server';

/** A message as the test relay received it: the envelope, the raw bytes, and mailparser's reading of them. */
export interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  parsed: ParsedMail;
}

/** What the relay answers a message's DATA with: accept, a reply code with its text, a dropped connection mid-DATA, or no answer at all. */
export type Answer = 'accept' | { code: number; text: string } | 'drop' | 'hold';

export interface TestRelay {
  port: number;
  /** Messages accepted, in order. */
  received: Received[];
  /** Attempts seen at DATA, accepted or not. */
  attempts: number;
  /** Errors of client connections (a client killed in the middle of a message resets its connection). */
  errors: Error[];
  /** Sets the answer of the next DATA (by attempt number, from 1); accepted otherwise. */
  answer(fn: (attempt: number) => Answer): void;
  /** Waits for `n` accepted messages. */
  until(n: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/**
 * A real SMTP server (nodemailer's smtp-server) on 127.0.0.1 and a free port, for the tests:
 * plain (clients connect with `?starttls=never`), or with a certificate for STARTTLS. It
 * answers DATA as the test says; the messages it accepts are parsed with mailparser.
 */
export async function startRelay(options: { tls?: { key: string; cert: string } } = {}): Promise<TestRelay> {
  const received: Received[] = [];
  let attempts = 0;
  let answerOf: (attempt: number) => Answer = () => 'accept';
  const sockets = new Map<number, Socket>();
  const server = new smtp.SMTPServer({
    authOptional: true,
    logger: false,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : { disabledCommands: ['STARTTLS'] }),
    onConnect(session, callback) {
      callback();
      void session;
    },
    onData(stream, session, callback) {
      attempts += 1;
      const answer = answerOf(attempts);
      const chunks: Buffer[] = [];
      if (answer === 'drop') {
        stream.once('data', () => {
          // Mid-DATA: part of the message arrived, then the connection is gone without a reply.
          sockets.get(session.remotePort)?.destroy();
        });
        stream.resume();
        return;
      }
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        // Hold: the whole message arrived, and the relay never answers (the client waits for its reply).
        if (answer === 'hold') return;
        if (answer !== 'accept') {
          callback(Object.assign(new Error(answer.text), { responseCode: answer.code }));
          return;
        }
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              raw,
              parsed,
            });
            callback(null, 'Queued as test');
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  // smtp-server ignores a reset outside a transaction but raises one inside it (a client killed at
  // DATA, as the crash tests do) as the server's 'error': unheard, it would be thrown at whatever
  // test runs next (a SIGKILL closes with a FIN or a reset depending on what was still unread).
  const errors: Error[] = [];
  server.on('error', (error: Error) => errors.push(error));
  server.server.on('connection', (socket: Socket) => {
    if (socket.remotePort !== undefined) sockets.set(socket.remotePort, socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    received,
    errors,
    get attempts() {
      return attempts;
    },
    answer(fn) {
      answerOf = fn;
    },
    async until(n, ms = 15_000) {
      const end = Date.now() + ms;
      while (received.length < n) {
        if (Date.now() > end) throw new Error(`the relay got ${received.length} of ${n} messages (attempts: ${attempts})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets.values()) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The SMTP_URL of a plain test relay. */
export const plainUrl = (relay: { port: number }) => `smtp://127.0.0.1:${relay.port}?starttls=never`;

/** The links a message carries (its plain text), by their page. */
export const linkIn = (message: Received, page: string): string => {
  const match = new RegExp(`https?://[^\\s]+/${page}/[A-Za-z0-9_-]+`).exec(message.parsed.text ?? '');
  if (!match) throw new Error(`no /${page}/ link in: ${message.parsed.text}`);
  return match[0];
};
