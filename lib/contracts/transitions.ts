import type { EventType } from '../events/types.ts';

/**
 * The minimal contract life of API.md. Every move not in this table is a 409 invalid_transition.
 */
export type ContractStatus = 'CREATED' | 'FUNDED' | 'VERIFIED' | 'VERIFICATION_FAILED' | 'RELEASED' | 'REFUNDED';

export type ContractAction = 'fund' | 'verification' | 'release' | 'refund';

export interface Transition {
  from: readonly ContractStatus[];
  event: EventType;
}

export const TRANSITIONS: Record<ContractAction, Transition> = {
  fund: { from: ['CREATED'], event: 'contract.funded' },
  verification: { from: ['FUNDED'], event: 'contract.verification.completed' },
  release: { from: ['FUNDED', 'VERIFIED'], event: 'contract.released' },
  refund: { from: ['FUNDED', 'VERIFICATION_FAILED'], event: 'contract.refunded' },
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

export const canMove = (action: ContractAction, from: ContractStatus): boolean => TRANSITIONS[action].from.includes(from);
