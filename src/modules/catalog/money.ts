import type { Actor } from '../../principal.js';
import { catalogErrors } from './errors.js';

/**
 * A rate or a budget is money: who may not see colleagues' money (their views carry null there)
 * may not set, change or clear it either, or a form filled from those nulls would erase it.
 */
export function requireMoneyVisible(actor: Actor, input: object, fields: readonly string[]): void {
  if (actor.canViewOthersMoney) return;
  const given = fields.filter((name) => (input as Record<string, unknown>)[name] !== undefined);
  if (given.length > 0) throw catalogErrors.moneyHidden(given);
}
