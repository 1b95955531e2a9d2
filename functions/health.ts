import { staticRoute } from '../lib/http/static-route.ts';

/** GET /health: no key, no store. */
export const handler = staticRoute(() => ({ status: 'ok' }));
