/**
 * Waits a random time that grows with the attempt number (full jitter, capped at `capMs`): writers
 * that collided on one item spread out instead of colliding again in step.
 */
export function backoff(attempt: number, capMs = 500): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(capMs, 10 * 2 ** attempt)));
}
