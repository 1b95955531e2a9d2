/** Per-call options, accepted as the last argument of every method. */
export interface CallOptions {
  /** Cancels the call (and any retry wait). */
  signal?: AbortSignal;
}
