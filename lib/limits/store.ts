/**
 * The limiters' DynamoDB calls: each a conditional write on one limiter item, whose failed
 * condition is an answer (the item as it was), never an error. The clock values come from the
 * caller (its instance's clock); the skew bounds are in the expressions.
 */
import { FUTURE_TOLERANCE_MS, STREAM_LEASE, VERIFY_LIMITS } from '../core/settings.ts';
import { type ConditionalResult, conditionalDelete, conditionalUpdate } from '../store/conditional.ts';
import * as keys from '../store/key-builders.ts';
import { ENTITY, type Key } from '../store/keys.ts';

/** A window of `perWindow` actions over `windowMs` on the item at `key`. */
export interface WindowItem {
  key: Key;
  entity: string;
  perWindow: number;
  windowMs: number;
}

const windowValues = (item: WindowItem, t: number) => ({
  ':windowFloor': t - item.windowMs,
  ':skewCeiling': t + FUTURE_TOLERANCE_MS,
  ':one': 1,
  ':entity': item.entity,
  ':expires': Math.ceil((t + item.windowMs) / 1000) + 3600,
});

/**
 * Counts one more action in the current window, if it is current (written by an in-bound clock)
 * and has room. With a `member`, the window also records the action's id (`admitted`), so the
 * same action taken again (a retried stream record) is recognised instead of counted twice.
 */
export const addToWindow = (item: WindowItem, t: number, member?: string): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: item.key,
    UpdateExpression: `SET entity = :entity, expires_at = :expires ADD window_count :one${member ? ', admitted :member' : ''}`,
    ConditionExpression: `window_start > :windowFloor AND window_start <= :skewCeiling AND window_count < :max${member ? ' AND NOT contains(admitted, :id)' : ''}`,
    ExpressionAttributeValues: {
      ...windowValues(item, t),
      ':max': item.perWindow,
      ...(member ? { ':member': new Set([member]), ':id': member } : {}),
    },
  });

/** Opens a window at `t` with this action in it, if there is none, or the last is over or stale. */
export const openWindow = (item: WindowItem, t: number, member?: string): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: item.key,
    UpdateExpression: `SET entity = :entity, expires_at = :expires, window_start = :now, window_count = :one${member ? ', admitted = :member' : ''}`,
    ConditionExpression:
      'attribute_not_exists(window_start) OR window_start <= :windowFloor OR window_start > :skewCeiling',
    ExpressionAttributeValues: {
      ...windowValues(item, t),
      ':now': t,
      ...(member ? { ':member': new Set([member]) } : {}),
    },
  });

const verifyValues = (t: number, token: string) => ({
  ':now': t,
  ':leaseCeiling': t + VERIFY_LIMITS.leaseMs + FUTURE_TOLERANCE_MS,
  ':leaseEnd': t + VERIFY_LIMITS.leaseMs,
  ':token': token,
  ':windowFloor': t - VERIFY_LIMITS.windowMs,
  ':skewCeiling': t + FUTURE_TOLERANCE_MS,
  ':one': 1,
  ':entity': ENTITY.verifyLimit,
  ':expires': Math.ceil((t + VERIFY_LIMITS.windowMs + VERIFY_LIMITS.leaseMs) / 1000) + 3600,
});
const LEASE_FREE = 'attribute_not_exists(lease_until) OR lease_until <= :now OR lease_until > :leaseCeiling';
const TAKE_LEASE = 'lease_until = :leaseEnd, lease_token = :token, entity = :entity, expires_at = :expires';

/** The verify lease and a place in the agent's current window, in one write (the common case). */
export const takeVerifyLeaseInWindow = (agentId: string, t: number, token: string): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.verifyLimit(agentId),
    UpdateExpression: `SET ${TAKE_LEASE} ADD window_count :one`,
    ConditionExpression: `(${LEASE_FREE}) AND window_start > :windowFloor AND window_start <= :skewCeiling AND window_count < :max`,
    ExpressionAttributeValues: { ...verifyValues(t, token), ':max': VERIFY_LIMITS.perWindow },
  });

/** The verify lease and a new window (none yet, or the last one is over or was written by a clock beyond the bound). */
export const takeVerifyLeaseNewWindow = (agentId: string, t: number, token: string): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.verifyLimit(agentId),
    UpdateExpression: `SET ${TAKE_LEASE}, window_start = :now, window_count = :one`,
    ConditionExpression: `(${LEASE_FREE}) AND (attribute_not_exists(window_start) OR window_start <= :windowFloor OR window_start > :skewCeiling)`,
    ExpressionAttributeValues: verifyValues(t, token),
  });

/** Frees the verify lease if `token` still holds it. */
export const releaseVerifyLease = (agentId: string, token: string): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.verifyLimit(agentId),
    UpdateExpression: 'REMOVE lease_until, lease_token',
    ConditionExpression: 'lease_token = :token',
    ExpressionAttributeValues: { ':token': token },
  });

/** TTL (epoch seconds) well after the lease: the slot item of a vanished agent does not stay forever. */
const streamExpiresAt = (t: number) => Math.ceil((t + STREAM_LEASE.leaseMs) / 1000) + 3600;

/** Takes a stream slot that is free, lapsed, or leased by a clock beyond the bound. */
export const takeStreamSlot = (agentId: string, slot: number, token: string, t: number): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.streamLease(agentId, slot),
    UpdateExpression: 'SET lease_until = :until, lease_token = :token, entity = :entity, expires_at = :expires',
    ConditionExpression: 'attribute_not_exists(lease_until) OR lease_until <= :now OR lease_until > :ceiling',
    ExpressionAttributeValues: {
      ':until': t + STREAM_LEASE.leaseMs,
      ':token': token,
      ':entity': ENTITY.streamLease,
      ':expires': streamExpiresAt(t),
      ':now': t,
      ':ceiling': t + STREAM_LEASE.leaseMs + FUTURE_TOLERANCE_MS,
    },
  });

/** Extends the slot's lease from `t`, if `token` still holds it. */
export const renewStreamSlot = (agentId: string, slot: number, token: string, t: number): Promise<ConditionalResult> =>
  conditionalUpdate({
    Key: keys.streamLease(agentId, slot),
    UpdateExpression: 'SET lease_until = :until, expires_at = :expires',
    ConditionExpression: 'lease_token = :token',
    ExpressionAttributeValues: { ':until': t + STREAM_LEASE.leaseMs, ':expires': streamExpiresAt(t), ':token': token },
  });

/** Deletes the slot item, if `token` still holds it. */
export const freeStreamSlot = (agentId: string, slot: number, token: string): Promise<ConditionalResult> =>
  conditionalDelete({
    Key: keys.streamLease(agentId, slot),
    ConditionExpression: 'lease_token = :token',
    ExpressionAttributeValues: { ':token': token },
  });
