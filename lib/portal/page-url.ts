/**
 * Where portal links point: PORTAL_URL when set (a deployed stage: the web stack's CloudFront
 * address), else `/portal/` on the host the request came to, which is the local runtime, where
 * the API serves the page itself.
 */
import { setting } from '../core/environment.ts';

export function portalPageUrl(headers: Record<string, string>): string {
  const configured = setting('PORTAL_URL');
  if (configured) return configured;
  const proto = headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${headers['host'] ?? 'localhost'}/portal/`;
}
