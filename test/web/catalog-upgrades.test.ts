import { describe, expect, it } from 'vitest';
import { templateInput } from '../client/support/template-input.ts';
import { createTestUser } from '../support/lambda.ts';
import { pageReady } from './browser.ts';
import { useBrowserOnLocalApi } from './browser-on-local-api.ts';

/**
 * The catalog's upgrade sections (web/catalog/upgrades.ts) in a real browser against the local
 * runtime: the drift of the reader's install, an upgrade from it, and the diff between two versions
 * with their changelogs.
 */
const { api, browser, call } = useBrowserOnLocalApi();

describe('the catalog page: changelog, diff and drift', () => {
  it('shows the install behind, upgrades it, and compares two versions', async () => {
    const author = await createTestUser({ name: 'Upgrade author' });
    const reader = await createTestUser({ name: 'Upgrade reader' });
    const t = await call(author.apiKey, 'POST', '/v1/marketplace/templates', templateInput({ name: 'Ping watch' }));
    await call(reader.apiKey, 'POST', `/v1/marketplace/templates/${t.id}/install`, { policy: 'pinned' });
    const schema = structuredClone(t.schema);
    schema.variables.push({ name: 'region', type: 'string', required: false });
    await call(author.apiKey, 'POST', `/v1/marketplace/templates/${t.id}/versions`, {
      version: '1.1.0',
      schema,
      changelog: 'Adds an optional **region**.',
    });

    const page = await browser().newPage({ viewport: { width: 1100, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${api.url}/catalog/#key=${reader.apiKey}`);
    await pageReady(page);
    await page.goto(`${api.url}/catalog/#/t/${t.slug}`);
    // Pinned to 1.0.0: its policy allows nothing newer, so no upgrade is offered; the drift shows 1.1.0.
    await page.waitForSelector('#drift-summary >> text=newest: v1.1.0');
    expect(await page.locator('#drift-summary').textContent()).toContain('v1.0.0 (pinned)');
    expect(await page.locator('#upgrade').count()).toBe(0);

    await page.selectOption('#compare-from', '1.0.0');
    await page.selectOption('#compare-to', '1.1.0');
    await page.click('#compare-form button[type=submit]');
    await page.waitForSelector('#diff-summary >> text=variables +1 -0 ~0, checks +0 -0 ~0');
    // The changelog is shown as text: its Markdown is not turned into markup.
    expect(await page.locator('#changelog dd').textContent()).toBe('Adds an optional **region**.');

    await call(reader.apiKey, 'POST', `/v1/marketplace/installed/${t.id}/upgrade`, {
      policy: 'minor',
      version: '1.0.0',
    });
    await page.reload();
    await page.click('#upgrade >> text=Upgrade to v1.1.0');
    await page.waitForSelector('#status >> text=Upgraded to v1.1.0.');
    await page.waitForSelector('#drift-summary >> text=up to date');
    const installed = await call(reader.apiKey, 'GET', '/v1/marketplace/installed');
    expect(installed.data.find((x: { id: string }) => x.id === t.id).installation.version).toBe('1.1.0');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
