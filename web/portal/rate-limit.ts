/** The owner's `rate_limit` of a webhook or a destination, as the portal shows it (set through the API). */
export const rateLimitText = (limit: number | null): string =>
  limit === null ? 'Rate limit: none' : `Rate limit: ${limit} deliveries a second (the rest wait their turn)`;
