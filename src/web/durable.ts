import type { RequestHandler, Response } from 'express';
import { errorFields, type Logger } from '../logger.js';
import type { Services } from '../services.js';

/**
 * A form's answer leaves once what it wrote is on disk (group commit, src/db/durability.ts): the
 * page's `end` is held until the barrier covering the commits made while the form ran; if that
 * sync fails the answer becomes a plain 500 instead (nothing written is acknowledged).
 */
export function durableAnswers(services: Services, logger: Logger): RequestHandler {
  const { durability } = services;
  return (req, res, next) => {
    if (req.method !== 'POST') {
      next();
      return;
    }
    const before = durability.writes();
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      if (durability.writes() === before) return end(...args);
      durability.durable(durability.commits()).then(
        () => end(...args),
        (error: unknown) => {
          logger.error('a form could not be made durable; answered 500', { path: req.path, ...errorFields(error) });
          for (const name of ['Location', 'Set-Cookie', 'Content-Length', 'Content-Type']) res.removeHeader(name);
          res.statusCode = 500;
          res.setHeader('Content-Type', 'text/plain; charset=utf-8');
          end('The server could not complete this request.');
        },
      );
      return res;
    }) as typeof res.end;
    next();
  };
}
