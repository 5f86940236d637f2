import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { SessionView } from '../../modules/sessions/service.js';
import { html } from '../html.js';
import { redirect, send, type SettingsDeps, type Signed } from '../kit.js';

export type SignedHandler = (
  req: Request,
  res: Response,
  signed: Signed & { session: SessionView; secret: string },
) => void | Promise<void>;

/** Pages for a signed-in person: anyone else goes to the sign-in page. */
export function signedIn(deps: SettingsDeps, handler: SignedHandler): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const signed = res.locals.signed as Signed;
    if (!signed.session || signed.secret === null) {
      redirect(res, `${deps.base}/sign-in`);
      return;
    }
    try {
      await handler(req, res, signed as Signed & { session: SessionView; secret: string });
    } catch (error) {
      next(error);
    }
  };
}

/** Pages for the workspace's owners (the role is re-read on every request). */
export function ownerOnly(deps: SettingsDeps, handler: SignedHandler): RequestHandler {
  return signedIn(deps, (req, res, signed) => {
    if (!signed.session.isOwner) {
      send(res, 403, {
        base: deps.base,
        title: 'Owners only',
        session: signed.session,
        notice: { kind: 'error', body: "Only the workspace's owners can change this. Ask one of them." },
        body: html`<p><a href="${deps.base}/tokens">Back to your API tokens</a></p>`,
      });
      return undefined;
    }
    return handler(req, res, signed);
  });
}
