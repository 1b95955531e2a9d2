/** The service's clock as stored and answered: ISO 8601 UTC with milliseconds, as docs/api.md writes timestamps. */
export const nowIso = (): string => new Date().toISOString();
