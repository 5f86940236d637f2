import type { ReadinessCheck } from '../health.js';
import { type Handler, ok } from './types.js';

export function healthHandlers({ readiness }: { readiness: ReadinessCheck }) {
  const getLiveness: Handler<'getLiveness'> = () => ok({ status: 'ok' });

  const getReadiness: Handler<'getReadiness'> = () => {
    const { ready, stopping, checks } = readiness();
    if (ready)
      return ok({
        status: 'ok',
        checks: {
          database: 'ok',
          migrations: 'ok',
          webhookSender: 'ok',
          ...(checks.replication ? { replication: 'ok' } : {}),
          ...(checks.mail ? { mail: checks.mail } : {}),
        },
      });
    return { status: 503, body: { status: stopping ? 'stopping' : 'unavailable', checks } };
  };

  return { getLiveness, getReadiness };
}
