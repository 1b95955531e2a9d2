/**
 * `node:http`, loaded on first use. Importing it at module load cost a Node 24 cold start about
 * 20 ms of CPU (the verify and delivery functions imported at 1.5–1.65× the floor; the SDK loads
 * it lazily too), and only development mode's http:// webhooks need it: deployed ones are https.
 */
import type http from 'node:http';

let loaded: Promise<typeof http> | undefined;

export const httpModule = (): Promise<typeof http> => (loaded ??= import('node:http').then((m) => m.default));
