import type { Caller } from '../../core/caller.ts';
import { forbidden } from '../../core/errors.ts';

/**
 * Operators are the keys made with `npm run admin -- create-key --operator` (the flag is copied into
 * the key item, so the authorizer's one GetItem tells): docs/decisions.md, "Who is an operator".
 */
export function requireOperator(caller: Caller): void {
  if (!caller.operator) throw forbidden('Only operators may do this.');
}
