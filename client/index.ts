/** The template marketplace client: zero runtime dependencies, global fetch. */
export { MarketplaceClient, DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type MarketplaceClientOptions } from './marketplace-client.ts';
export { ApiError, ConnectionError, MarketplaceClientError } from './errors.ts';
export type { CallOptions } from './resources/call-options.ts';
export type * from './types/index.ts';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookInput, type WebhookChallenge, type WebhookHeaders, type WebhookPayload, type WebhookVerificationErrorCode } from './webhooks.ts';
