/**
 * Where portal links point: PORTAL_URL, configuration only (a deployed stage: the web stack's
 * CloudFront address, set by infra; `npm start`: its own `/portal/`). Never the request's Host or
 * X-Forwarded-* headers: those are the caller's words, and a link built from them would send the
 * owner's token to whatever host the request named. Unset, the local runtime's default address.
 */
import { setting } from '../core/environment.ts';

export function portalPageUrl(): string {
  return setting('PORTAL_URL') ?? `http://localhost:${setting('PORT')}/portal/`;
}
