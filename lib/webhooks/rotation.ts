/**
 * The overlap of a secret rotation (docs/webhooks.md, "Rotating the secret"): after
 * POST …/webhook/secret/rotate the previous secret keeps signing beside the new one until
 * `previous_secret_expires_at` (unix seconds), so receivers that still hold it keep verifying
 * while they are redeployed. Only one previous secret is kept: rotating again during an overlap
 * replaces it with the secret that was current until then.
 */
export const DEFAULT_OVERLAP_SECONDS = 86_400;
export const MAX_OVERLAP_SECONDS = 86_400;

export interface RotatableSecrets {
  previous_webhook_secret?: string | null;
  previous_secret_expires_at?: number | null;
}

/** The secrets to sign with now: the current one first, then the previous one while its overlap lasts. */
export function signingSecrets(current: string, agent: RotatableSecrets, now: Date = new Date()): string[] {
  const previous = agent.previous_webhook_secret;
  const live =
    typeof previous === 'string' &&
    typeof agent.previous_secret_expires_at === 'number' &&
    agent.previous_secret_expires_at > now.getTime() / 1000;
  return live && previous !== current ? [current, previous] : [current];
}

/** When a rotation made at `now` stops signing with the previous secret; null when it stops at once. */
export function overlapEnd(seconds: number, now: Date = new Date()): number | null {
  return seconds > 0 ? Math.floor(now.getTime() / 1000) + seconds : null;
}
