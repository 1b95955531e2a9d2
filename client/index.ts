/** The template marketplace client: zero runtime dependencies, global fetch. */

export { ApiError, ConnectionError, MarketplaceClientError } from './errors.ts';
export {
  DEFAULT_BASE_URL,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  MarketplaceClient,
  type MarketplaceClientOptions,
} from './marketplace-client.ts';
export type { CallOptions } from './resources/call-options.ts';
export type * from './types/index.ts';
export {
  type Ed25519PublicJwk,
  type VerifyWebhookInput,
  verifyWebhook,
  type WebhookChallenge,
  type WebhookHeaders,
  type WebhookPayload,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from './webhooks.ts';
