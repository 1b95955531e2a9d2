/**
 * The pages' one way to the API: the generated client (client/), with the API's address from the
 * web stack's `/web-config.json` (deployed) or the page's own origin (the local runtime serves
 * both). Error answers become one sentence for the page's status line.
 */
import { ApiError } from '../../client/errors.ts';
import { MarketplaceClient } from '../../client/marketplace-client.ts';

export async function apiBase(): Promise<string> {
  try {
    const answer = await fetch('/web-config.json', { cache: 'no-store' });
    if (answer.ok) {
      const config = (await answer.json()) as { api?: unknown };
      if (typeof config.api === 'string' && config.api !== '') return config.api;
    }
  } catch {
    // No config: the page and the API share an origin.
  }
  return window.location.origin;
}

export async function clientFor(credential: string): Promise<MarketplaceClient> {
  return new MarketplaceClient({ apiKey: credential, baseUrl: await apiBase(), maxRetries: 1 });
}

export function problem(error: unknown): string {
  if (error instanceof ApiError) {
    // A validation error's reason is in its details (an ARN's "The account must be 12 digits.").
    const why = (error.details ?? []).map((d) => ` ${d.path}: ${d.message}`).join(';');
    return `${error.message}${why} (${error.status} ${error.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Reads `name` from the page's fragment, keeps it for the tab's session, and takes it out of the address bar. */
export function fromFragment(names: readonly string[], storageKey: string): Record<string, string> | undefined {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  if (names.every((n) => fragment.get(n))) {
    const found = Object.fromEntries(names.map((n) => [n, fragment.get(n) as string]));
    sessionStorage.setItem(storageKey, JSON.stringify(found));
    history.replaceState(null, '', window.location.pathname + window.location.search);
    return found;
  }
  const kept = sessionStorage.getItem(storageKey);
  return kept ? (JSON.parse(kept) as Record<string, string>) : undefined;
}
