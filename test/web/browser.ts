/**
 * One headless Chromium (Debian's, /usr/bin/chromium; `.ci/run` installs it) for a test file,
 * driven by playwright-core. The flags keep it off the network beyond 127.0.0.1: without the
 * background-networking ones Chromium's own connections are refused on a closed machine and slow
 * every page. Playwright gives it a fresh profile (--user-data-dir) per launch.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Screenshots go into docs/screenshots/ when UPDATE_SCREENSHOTS=1 (that is how the committed ones
 * are made), else into the temp folder, so a test run leaves the tree as it was. The whole page, or
 * only the element of `selector` (one section of a long page).
 */
export async function screenshot(page: Page, name: string, selector?: string): Promise<string> {
  const folder =
    process.env['UPDATE_SCREENSHOTS'] === '1' ? join('docs', 'screenshots') : join(tmpdir(), 'screenshots');
  await mkdir(folder, { recursive: true });
  const path = join(folder, `${name}.png`);
  if (selector) await page.locator(selector).screenshot({ path });
  else await page.screenshot({ path, fullPage: true });
  return path;
}

/** The page reports it has drawn what it loaded (`main[aria-busy=false]`). */
export const pageReady = (page: Page) => page.waitForSelector('main[aria-busy="false"]');

/** Whether the page fits its viewport's width (no sideways scrolling at phone width). */
export const fitsWidth = (page: Page): Promise<boolean> =>
  page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');
