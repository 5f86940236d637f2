import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { LobbyView, SessionView } from '../../modules/sessions/service.js';
import type { WebPaths } from '../paths.js';
import { signInHref } from '../paths.js';

/** What the session middleware found: the person signed in, or nobody. */
export interface Signed {
  session: SessionView | null;
  secret: string | null;
}

/** A request of a signed-in person (the guard let it through). */
export type SignedIn = Signed & { session: SessionView; secret: string };

export const signedOf = (res: Response): Signed => res.locals.signed as Signed;

/** A session of an account that belongs to no workspace (issue 44): it sees and accepts its invitations only. */
export interface Lobby {
  view: LobbyView;
  secret: string;
}

/** The lobby of the request's cookie, when it holds one instead of a session. */
export const lobbyOf = (res: Response): Lobby | null => (res.locals.lobby as Lobby | null | undefined) ?? null;

/**
 * The one signed-in check of every area that needs it: anyone else goes to the sign-in page,
 * which brings them back here afterwards (a GET's own address; a form's page for a POST); the
 * live stream answers 401 (a browser's EventSource reads no redirect).
 */
export function requireSignIn(paths: WebPaths): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const signed = signedOf(res);
    if (signed.session && signed.secret !== null) return next();
    res.redirect(303, signInHref(paths, req.method === 'GET' ? req.originalUrl : null));
  };
}

export type SignedHandler = (req: Request, res: Response, signed: SignedIn) => void | Promise<void>;

/** A page for a signed-in person: anyone else goes to the sign-in page (and back here after it); its errors go to the error page. */
export function signedIn(deps: { paths: WebPaths }, handler: SignedHandler): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const signed = signedOf(res);
    if (!signed.session || signed.secret === null)
      return void res.redirect(303, signInHref(deps.paths, req.method === 'GET' ? req.originalUrl : null));
    try {
      await handler(req, res, signed as SignedIn);
    } catch (error) {
      next(error);
    }
  };
}
