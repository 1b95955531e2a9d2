import { httpRoute } from '../lib/http/stack.ts';
import { ok } from '../lib/http/responses.ts';

export const handler = httpRoute({ auth: false }, async () => ok({ status: 'ok' }));
