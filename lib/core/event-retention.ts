/** Events and delivery records expire after this (TTL on `expires_at`); docs/api.md promises at least 30 days. */
export const EVENT_RETENTION_DAYS = 30;

/** The TTL (unix seconds) of something made at `createdAtIso` that lives as long as an event. */
export function expiresAt(createdAtIso: string): number {
  return Math.floor(Date.parse(createdAtIso) / 1000) + EVENT_RETENTION_DAYS * 24 * 3600;
}
