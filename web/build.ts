/**
 * The two pages' files, bundled by the esbuild the functions use: `/catalog/` and `/portal/`, each
 * an index.html (no inline script or style: the Content-Security-Policy forbids them), an app.js
 * (the page's TypeScript, the shared view helpers and the generated client) and the shared
 * style.css. The local runtime serves them from memory; infra writes them to a folder for S3.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

export const WEB_PAGES = ['catalog', 'portal'] as const;
export type WebPage = (typeof WEB_PAGES)[number];

export interface WebAsset {
  contentType: string;
  body: Buffer;
}

const here = dirname(fileURLToPath(import.meta.url));

/** Every file of both pages by its path under the site's root (`/catalog/app.js`, …). */
export function buildWebAssets(): Map<string, WebAsset> {
  const assets = new Map<string, WebAsset>();
  const style = readFileSync(join(here, 'shared/style.css'));
  for (const page of WEB_PAGES) {
    const bundle = buildSync({
      entryPoints: [join(here, page, 'main.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
    });
    assets.set(`/${page}/index.html`, {
      contentType: 'text/html; charset=utf-8',
      body: readFileSync(join(here, page, 'index.html')),
    });
    assets.set(`/${page}/app.js`, {
      contentType: 'text/javascript; charset=utf-8',
      body: Buffer.from(bundle.outputFiles[0]!.contents),
    });
    assets.set(`/${page}/style.css`, { contentType: 'text/css; charset=utf-8', body: style });
  }
  return assets;
}

/**
 * The pages' Content-Security-Policy: scripts and styles only from the site's own files (no
 * inline script, no eval), calls only to the site and the API, nothing else loaded. Any page may
 * frame the portal (platforms embed it); the token in its fragment is the only key to it.
 */
export function webContentSecurityPolicy(apiOrigin?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${apiOrigin ? ` ${apiOrigin}` : ''}`,
    "base-uri 'none'",
    "form-action 'none'",
    'frame-ancestors *',
  ].join('; ');
}
