/**
 * The minimal contract life, and who may take each step. Every move not in this table is a 409
 * invalid_transition; a party whose role the table does not list for the step gets 403.
 *
 * Roles follow the money (docs/events.md): the buyer funds, and only the buyer releases
 * (money to the seller); the seller reports the verification of its work and may refund a funded
 * contract (money back to the buyer); after a failed verification, which only the seller can
 * record, either party may refund. No party moves money towards itself without the other.
 */
import type { EventType } from '../core/event-types.ts';

export type ContractStatus = 'CREATED' | 'FUNDED' | 'VERIFIED' | 'VERIFICATION_FAILED' | 'RELEASED' | 'REFUNDED';

export type ContractAction = 'fund' | 'verification' | 'release' | 'refund';

/** The buyer owns `agent_id` and pays; the seller is the template's author, paid on release. */
export type Role = 'buyer' | 'seller';

export interface Transition {
  /** The statuses the step starts from, each with the roles that may take it from there. */
  from: Partial<Record<ContractStatus, readonly Role[]>>;
  event: EventType;
}

export const TRANSITIONS: Record<ContractAction, Transition> = {
  fund: { from: { CREATED: ['buyer'] }, event: 'contract.funded' },
  verification: { from: { FUNDED: ['seller'] }, event: 'contract.verification.completed' },
  release: { from: { FUNDED: ['buyer'], VERIFIED: ['buyer'] }, event: 'contract.released' },
  refund: { from: { FUNDED: ['seller'], VERIFICATION_FAILED: ['buyer', 'seller'] }, event: 'contract.refunded' },
};

export function targetStatus(action: ContractAction, passed?: boolean): ContractStatus {
  switch (action) {
    case 'fund':
      return 'FUNDED';
    case 'verification':
      return passed ? 'VERIFIED' : 'VERIFICATION_FAILED';
    case 'release':
      return 'RELEASED';
    case 'refund':
      return 'REFUNDED';
  }
}

export const startStatuses = (action: ContractAction): ContractStatus[] =>
  Object.keys(TRANSITIONS[action].from) as ContractStatus[];

export const canMove = (action: ContractAction, from: ContractStatus): boolean =>
  TRANSITIONS[action].from[from] !== undefined;

export const mayTake = (action: ContractAction, from: ContractStatus, roles: readonly Role[]): boolean =>
  (TRANSITIONS[action].from[from] ?? []).some((role) => roles.includes(role));
