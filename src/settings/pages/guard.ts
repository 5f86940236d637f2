import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { SessionView } from '../../modules/sessions/service.js';
import { redirect, type SettingsDeps, type Signed } from '../kit.js';

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
