/**
 * The retry schedule of webhook deliveries (`DELIVERY`, lib/core/settings.ts): entry i of
 * `retryDelays()` is the wait before attempt i + 1. DELIVERY_RETRY_DELAYS_SECONDS ("0,1,1")
 * replaces it, read on every call so tests can run the whole schedule in seconds.
 */
import { setting } from '../../core/environment.ts';

export const retryDelays = (): readonly number[] => setting('DELIVERY_RETRY_DELAYS_SECONDS');

/** How many attempts an automatic delivery gets. */
export const scheduledAttempts = (): number => retryDelays().length;

/** Seconds to wait after `attemptsMade` failed attempts, or undefined when the schedule is spent. */
export function delayAfter(attemptsMade: number): number | undefined {
  return retryDelays()[attemptsMade];
}
