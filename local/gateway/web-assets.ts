/**
 * `npm start` serves the catalog and portal pages itself, as the web stack's S3 bucket and
 * CloudFront do when deployed: `/catalog/`, `/portal/`, the landing page at `/` and the favicon, with the same Content-Security-Policy,
 * and `/web-config.json` naming no other API (the pages then call their own origin).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildWebAssets, ROOT_FILES, WEB_PAGES, type WebAsset, webContentSecurityPolicy } from '../../web/build.ts';

let built: Map<string, WebAsset> | undefined;

/** Whether `path` is one of the pages' (then this module answers it). */
export const isWebPath = (path: string): boolean =>
  path === '/web-config.json' ||
  (ROOT_FILES as readonly string[]).includes(path) ||
  WEB_PAGES.some((page) => path === `/${page}` || path.startsWith(`/${page}/`));

export function serveWebAsset(req: IncomingMessage, res: ServerResponse, path: string): void {
  const headers = {
    'content-security-policy': webContentSecurityPolicy(),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...headers, allow: 'GET, HEAD' }).end();
    return;
  }
  if (path === '/web-config.json') {
    res.writeHead(200, { ...headers, 'content-type': 'application/json; charset=utf-8' }).end('{"api":""}');
    return;
  }
  if (WEB_PAGES.some((page) => path === `/${page}`)) {
    res.writeHead(301, { ...headers, location: `${path}/` }).end();
    return;
  }
  built ??= buildWebAssets();
  const asset = built.get(path.endsWith('/') ? `${path}index.html` : path);
  if (!asset) {
    res.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' }).end('Not found.');
    return;
  }
  res.writeHead(200, { ...headers, 'content-type': asset.contentType, 'content-length': asset.body.length });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}
