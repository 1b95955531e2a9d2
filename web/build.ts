/**
 * The two pages' files, bundled by the esbuild the functions use: `/catalog/` and `/portal/`, each
 * an index.html (no inline script or style: the Content-Security-Policy forbids them), an app.js
 * (the page's TypeScript, the shared view helpers and the generated client) and the shared
 * style.css; and the site's root: the landing page (`/`: web/home/), its app.js and style.css, and
 * the favicon every page links. The local runtime serves them from memory; infra writes them to a
 * folder for S3.
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

/** The files of the site's root: the landing page's, and the favicon. */
export const ROOT_FILES = ['/', '/index.html', '/app.js', '/style.css', '/favicon.svg'] as const;

function bundle(folder: string): Buffer {
  const built = buildSync({
    entryPoints: [join(here, folder, 'main.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
  });
  return Buffer.from(built.outputFiles[0]!.contents);
}

/** Every file of the site by its path under its root (`/catalog/app.js`, `/favicon.svg`, …). */
export function buildWebAssets(): Map<string, WebAsset> {
  const assets = new Map<string, WebAsset>();
  const style = readFileSync(join(here, 'shared/style.css'));
  const html = (folder: string) => ({
    contentType: 'text/html; charset=utf-8',
    body: readFileSync(join(here, folder, 'index.html')),
  });
  const script = (folder: string) => ({ contentType: 'text/javascript; charset=utf-8', body: bundle(folder) });
  for (const page of WEB_PAGES) {
    assets.set(`/${page}/index.html`, html(page));
    assets.set(`/${page}/app.js`, script(page));
    assets.set(`/${page}/style.css`, { contentType: 'text/css; charset=utf-8', body: style });
  }
  assets.set('/index.html', html('home'));
  assets.set('/app.js', script('home'));
  assets.set('/style.css', { contentType: 'text/css; charset=utf-8', body: style });
  assets.set('/favicon.svg', { contentType: 'image/svg+xml', body: readFileSync(join(here, 'shared/favicon.svg')) });
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
