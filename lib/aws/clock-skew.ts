/**
 * Clock-skew correction for the calls made without an SDK client (signed-request.ts), as the SDK's
 * SigV4 signer does it (`@aws-sdk/core`, AwsSdkSigV4Signer): every answer's `Date` header samples
 * the offset between AWS's clock and this machine's, and the next signature is dated by AWS's clock.
 * A signature dated more than 5 minutes off is refused (InvalidSignatureException, "Signature
 * expired"); once the offset is known, the refused attempt is retried. One offset per process:
 * there is one clock to correct.
 */

/** The SDK's threshold: an offset this large, newly learned, makes the refused attempt worth retrying. */
const SKEW_CORRECTED_MS = 240_000;
/** An answer that took longer than this dates nothing (the SDK's bound). */
const STALE_ANSWER_MS = 900_000;

let offsetMs = 0;

/** Now, by AWS's clock as last sampled: the date to sign with. */
export const skewCorrectedNow = (): Date => new Date(Date.now() + offsetMs);

/**
 * Samples AWS's clock from an answer (`sentAt`: when the attempt was sent). True when this sample
 * corrected a skew past the threshold: the attempt's refusal may have been the skew's.
 */
export function sampleServerClock(
  dateHeader: string | undefined,
  ageHeader: string | undefined,
  sentAt: number,
  now = Date.now(),
): boolean {
  // An answer from a cache (Age) or a slow one says nothing exact about the server's clock now.
  if (!dateHeader || ageHeader !== undefined || now - sentAt > STALE_ANSWER_MS) return false;
  const serverTime = Date.parse(dateHeader);
  if (Number.isNaN(serverTime)) return false;
  const before = offsetMs;
  offsetMs = serverTime - now;
  return Math.abs(offsetMs) >= SKEW_CORRECTED_MS && offsetMs !== before;
}
