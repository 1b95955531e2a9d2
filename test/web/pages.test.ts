import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventPipeline, startEventPipeline } from '../../local/emulators/event-pipeline.ts';
import { templateInput } from '../client/support/template-input.ts';
import { startWebhookReceiver } from '../events/support.ts';
import { expiredPortalToken } from '../portal/expired-link.ts';
import { apiCall } from '../support/api-call.ts';
import { createTestUser, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { fitsWidth, launchChromium, pageReady, screenshot } from './browser.ts';

/**
 * The catalog and portal pages in a real browser (issue 25), against the in-process local runtime
 * `npm start` is made of: the same gateway serves the pages and the API, and the event pipeline
 * (stream → relay → fauxqs → delivery worker, and the search indexer) runs beside it. One
 * Chromium for the file; each journey opens its own page.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,1,1';

const api = useLocalApi();
let pipeline: EventPipeline;
let browser: Browser;

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([
    startEventPipeline({ tableName: process.env['TABLE_NAME']!, dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']! }),
    launchChromium(),
  ]);
});
/**
 * The catalog's templates, published as the file starts so the search indexer works through them
 * while the portal journeys run.
 */
let catalog: Promise<{ author: TestUser; reader: TestUser; probe: { id: string; slug: string } }>;
beforeAll(() => {
  catalog = (async () => {
    const author = await createTestUser({ name: 'Catalog author', verified: true });
    const reader = await createTestUser({ name: 'Catalog reader' });
    const publish = (name: string, category: 'http' | 'data', description: string) =>
      call(author.apiKey, 'POST', '/v1/marketplace/templates', templateInput({ name, category, description }));
    const probe = await publish(
      'Latency probe',
      'http',
      'Measures how long an endpoint takes to answer: its `p95` in **milliseconds**.\n\n- one request a minute\n- <b>no</b> [setup](javascript:alert(1))',
    );
    const uptime = await publish('Uptime watch', 'http', 'Checks that an endpoint answers 200, every minute.');
    await publish('Dataset freshness', 'data', 'Checks that a dataset was updated today.');
    await call(reader.apiKey, 'POST', `/v1/marketplace/templates/${uptime.id}/install`);
    return { author, reader, probe };
  })();
  // Awaited by the catalog journey; a failure here fails it there.
  catalog.catch(() => undefined);
});

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
});

const call = (key: string, method: string, path: string, body?: unknown) => apiCall(api.url, key, method, path, body);

async function openPage(url: string, viewport = { width: 1100, height: 900 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('close', () => expect(errors, 'script errors on the page').toEqual([]));
  await page.goto(url);
  return page;
}

/** Clicks Refresh until a delivery row of `kind` reaches `status` (the page reads, the test only waits). */
async function waitForDelivery(page: Page, status: string, kind: string): Promise<void> {
  await expect
    .poll(
      async () => {
        await page.click('#refresh');
        await page.waitForSelector('#delivery-table');
        return page.locator(`#delivery-table tr[data-status="${status}"]`, { hasText: kind }).count();
      },
      { timeout: 15_000, interval: 300 },
    )
    .toBe(1);
}

describe('the portal page', () => {
  let owner: TestUser;
  let agentId: string;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  /** The page the first journey opens and the second goes on with. */
  let page: Page;
  let contractId: string;

  beforeAll(async () => {
    owner = await createTestUser({ name: 'Portal owner' });
    agentId = (await call(owner.apiKey, 'POST', '/api/v1/agents', { name: 'Shipping bot' })).id;
  });

  it('opens from a link; a test delivery fails, then succeeds after a retry, and the live feed shows it', async () => {
    receiver = await startWebhookReceiver();
    await call(owner.apiKey, 'PATCH', `/api/v1/agents/${agentId}/webhook`, {
      webhook_url: receiver.url,
      events: ['contract.funded', 'contract.released'],
    });
    await call(owner.apiKey, 'POST', `/api/v1/agents/${agentId}/webhook/verify`);
    // A contract event in the agent's feed, for the replay below.
    const template = await call(
      owner.apiKey,
      'POST',
      '/v1/marketplace/templates',
      templateInput({ name: 'Portal journey source', category: 'other', description: 'The contract of the journey.' }),
    );
    const contract = await call(owner.apiKey, 'POST', '/api/v1/contracts', {
      template_id: template.id,
      variables: { url: 'https://shop.example.com' },
      amount_cents: 1_000,
      agent_id: agentId,
    });
    await call(owner.apiKey, 'POST', `/api/v1/contracts/${contract.id}/fund`);
    contractId = contract.id;
    await expect.poll(() => receiver.deliveries.length, { timeout: 15_000 }).toBe(1);
    const link = await call(owner.apiKey, 'POST', `/api/v1/agents/${agentId}/portal-links`);

    const opened = Date.now();
    page = await openPage(link.url, { width: 1280, height: 900 });
    await pageReady(page);
    await page.waitForSelector('#verify:enabled');
    const usableMs = Date.now() - opened;
    console.info(`portal: ${usableMs} ms from opening the link to a usable page`);
    expect(page.url(), 'the token leaves the address bar').toBe(`${api.url}/portal/`);
    expect(await page.textContent('#webhook-status')).toContain('ENABLED');
    expect(await page.textContent('#webhook-rate-limit')).toBe('Rate limit: none');

    // Keyboard only: Tab reaches "Send test event", Enter presses it; the endpoint refuses it for now.
    receiver.answer = () => 500;
    await page.focus('#verify');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.id')).toBe('send-test');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#status >> text=Test event');
    await waitForDelivery(page, 'failed', 'service.webhook.test');
    const failedRow = page.locator('#delivery-table tr[data-status="failed"]', { hasText: 'service.webhook.test' });
    expect(await failedRow.textContent(), 'status in words, not only colour').toContain('failed');
    expect(await failedRow.textContent()).toContain('HTTP 500');
    // Health first: the last 24 hours' success rate, the last failure with its reason, the circuit.
    expect(await page.evaluate("document.querySelector('main section')?.id")).toBe('health');
    await page.waitForSelector('#health-last-failure >> text=HTTP 500');
    expect(await page.textContent('#health-rate')).toMatch(/^50 % of 2 finished \(1 succeeded, 1 failed\)/);
    expect(await page.textContent('#health-circuit')).toMatch(/closed/);

    receiver.answer = () => 200;
    await failedRow.locator('button.retry').click();
    await waitForDelivery(page, 'succeeded', 'service.webhook.test');
    const testRow = page.locator('#delivery-table tr[data-status="succeeded"]', { hasText: 'service.webhook.test' });
    await testRow.locator('button', { hasText: 'Attempts' }).click();
    const attempts = page.locator('table.attempts');
    await attempts.waitFor();
    expect(await attempts.textContent()).toMatch(/HTTP 500[\s\S]*HTTP 200/);
    expect(receiver.deliveries.at(-1)?.json.type).toBe('service.webhook.test');
    // The payload as POSTed, beside the attempts.
    expect(await page.textContent('pre.payload-json')).toContain('"type": "service.webhook.test"');
    await page.waitForSelector('#health-rate >> text=100 % of 2 finished');
    // Each row names its event and contract.
    const fundedRow = page.locator('#delivery-table tr[data-delivery]', { hasText: 'contract.funded' });
    expect(await fundedRow.textContent()).toContain(contractId);

    // The live feed got the test event over SSE.
    await page.waitForSelector('#feed-list li >> text=service.webhook.test');
  }, 60_000);

  it('filters the deliveries, rotates the secret with its overlap, shows the kinds and replays the last hour', async () => {
    // The support module closes receivers after each test: the endpoint listens again on its port.
    receiver = await startWebhookReceiver(Number(new URL(receiver.url).port));
    // Filters: by status the page shows what the API lists for it; by kind only that kind.
    const listed = async (query: string) =>
      (await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}/deliveries?${query}`)).data.map(
        (d: { id: string }) => d.id,
      );
    const shown = () =>
      page
        .locator('#delivery-table tr[data-delivery]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-delivery')));
    await page.selectOption('#filter-status', 'succeeded');
    await page.click('#delivery-filters button[type=submit]');
    await page.waitForSelector('#status >> text=Deliveries shown: succeeded, any kind.');
    expect(await shown()).toEqual(await listed('status=succeeded'));
    await page.selectOption('#filter-status', '');
    await page.selectOption('#filter-kind', 'contract.funded');
    await page.click('#delivery-filters button[type=submit]');
    await page.waitForSelector('#status >> text=Deliveries shown: any status, contract.funded.');
    expect(await page.locator('#delivery-table tr[data-delivery]', { hasText: 'service.webhook.test' }).count()).toBe(
      0,
    );
    expect(await page.locator('#delivery-table tr[data-delivery]', { hasText: 'contract.funded' }).count()).toBe(1);
    await page.selectOption('#filter-kind', '');
    await page.click('#delivery-filters button[type=submit]');

    // Rotate with a one-hour overlap: the new secret is shown with the end of the overlap.
    const before = (await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}/webhook/secret`)).webhook_secret;
    // Show, then Hide.
    await page.click('#show-secret');
    await page.waitForSelector('#show-secret >> text=Hide secret');
    expect(await page.textContent('#secret-value')).toBe(before);
    await page.click('#show-secret');
    await page.waitForSelector('#show-secret >> text=Show secret');
    expect(await page.textContent('#secret-value')).toBe('••••••••');
    // Rotation asks first: Cancel changes nothing, Rotate now rotates.
    await page.selectOption('#overlap', '3600');
    await page.click('#rotate-form button[type=submit]');
    await page.click('#cancel-rotate');
    expect((await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}/webhook/secret`)).webhook_secret).toBe(before);
    await page.click('#rotate-form button[type=submit]');
    await page.click('#confirm-rotate');
    await page.waitForSelector('#overlap-note >> text=Overlap');
    const after = (await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}/webhook/secret`)).webhook_secret;
    expect(after).not.toBe(before);
    expect(await page.textContent('#secret-value')).toBe(after);

    // The event kinds on a view of their own: Markdown rendered, examples as the real events read.
    expect(await page.isVisible('#kind-list')).toBe(false);
    await page.click('#view-reference');
    await page.waitForSelector('#kind-list', { state: 'visible' });
    expect(await page.isVisible('#deliveries')).toBe(false);
    expect(await page.locator('#kind-list > li').count()).toBeGreaterThanOrEqual(4);
    expect((await page.locator('#kind-list .markdown').allTextContents()).join('')).not.toContain('`');
    expect(await page.locator('#kind-list .markdown code').count()).toBeGreaterThan(0);
    const funded = JSON.parse((await page.textContent('[data-kind="contract.funded"] pre.example'))!);
    expect(funded).toMatchObject({
      type: 'contract.funded',
      schema_version: 1,
      data: { status: 'FUNDED', amount_cents: 5000 },
    });
    await screenshot(page, 'portal-reference-1280');
    await page.click('#view-overview');

    // Replay the last hour: the contract event (a subscribed kind) goes again, as a new delivery.
    const delivered = receiver.deliveries.length;
    await page.click('#replay-form button[type=submit]');
    await page.waitForSelector('#status >> text=Replay started: 1 event will be sent again.');
    await expect.poll(() => receiver.deliveries.length, { timeout: 15_000 }).toBe(delivered + 1);
    expect(receiver.deliveries.at(-1)?.json).toMatchObject({
      type: 'contract.funded',
      data: { contract_id: contractId },
    });
    // The replay's delivery is marked, and the list is newest first.
    await expect
      .poll(
        async () => {
          await page.click('#refresh');
          await page.waitForSelector('#delivery-table');
          return page.locator('#delivery-table tr[data-replay="true"]', { hasText: '↻ replay' }).count();
        },
        { timeout: 15_000, interval: 300 },
      )
      .toBe(1);
    const created = await page
      .locator('#delivery-table tr[data-delivery]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-created') ?? ''));
    expect(created).toEqual([...created].sort().reverse());
    await screenshot(page, 'portal-1280');
    await page.close();
  }, 60_000);

  it('refuses an expired link, a revoked one and another agent’s id', async () => {
    const stranger = await createTestUser();
    const strangersAgent = (await call(stranger.apiKey, 'POST', '/api/v1/agents', { name: 'Not yours' })).id;

    const expiredToken = await expiredPortalToken(owner, agentId);
    const page = await openPage(`${api.url}/portal/#agent=${agentId}&token=${expiredToken}`);
    await page.waitForSelector('#refused');

    const link = await call(owner.apiKey, 'POST', `/api/v1/agents/${agentId}/portal-links`);
    await page.goto(link.url.replace(agentId, strangersAgent));
    await page.reload();
    await page.waitForSelector('#refused');

    await page.goto(link.url);
    await page.reload();
    await pageReady(page);
    await page.waitForSelector('#verify');
    await call(owner.apiKey, 'DELETE', `/api/v1/agents/${agentId}/portal-links/${link.id}`);
    await page.click('#refresh');
    await page.waitForSelector('#refused');
    await page.close();
  });

  it('fits a phone’s width, and its Content-Security-Policy refuses inline script', async () => {
    const link = await call(owner.apiKey, 'POST', `/api/v1/agents/${agentId}/portal-links`);
    const page = await openPage(link.url, { width: 375, height: 740 });
    await pageReady(page);
    await page.waitForSelector('#verify');
    await page.waitForSelector('#delivery-table tr[data-delivery]');
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'portal-375');
    await page.click('#view-reference');
    await page.waitForSelector('#kind-list', { state: 'visible' });
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'portal-reference-375');
    const answer = await fetch(`${api.url}/portal/`);
    expect(answer.headers.get('content-security-policy')).toContain("script-src 'self'");
    await page.addScriptTag({ content: 'window.inlineRan = true' }).catch(() => undefined);
    expect(await page.evaluate('window.inlineRan')).toBeUndefined();
    await page.close();
  });
});

describe('the catalog page', () => {
  it('searches, sorts, filters by category, opens a template, installs it and reviews it', async () => {
    const { reader, probe } = await catalog;
    await expect
      .poll(
        async () => (await call(reader.apiKey, 'GET', '/v1/marketplace/templates?search=checks')).pagination.total,
        {
          timeout: 30_000,
        },
      )
      .toBe(2);

    const page = await openPage(`${api.url}/catalog/#key=${reader.apiKey}`, { width: 1280, height: 900 });
    await pageReady(page);
    expect(page.url(), 'the key leaves the address bar').toBe(`${api.url}/catalog/`);
    expect(await page.locator('#new li a').allTextContents()).toEqual(
      expect.arrayContaining(['Latency probe', 'Uptime watch', 'Dataset freshness']),
    );
    expect(await page.locator('#category option', { hasText: 'http (2)' }).count()).toBe(1);
    expect(await page.locator('#category option', { hasText: 'data (1)' }).count()).toBe(1);
    await screenshot(page, 'catalog-1280');
    await page.setViewportSize({ width: 375, height: 740 });
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'catalog-375');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Search "checks", most installed first: the installed Uptime watch leads; newest first: the dataset.
    await page.fill('#search', 'checks');
    await page.press('#search', 'Enter');
    await page.waitForSelector('#result-count >> text=2 templates matching');
    expect(await page.locator('#results li a').allTextContents()).toEqual(['Uptime watch', 'Dataset freshness']);
    await page.selectOption('#sort', 'recent');
    await page.click('form[role=search] button[type=submit]');
    await page.waitForSelector('#result-count >> text=newest first');
    expect(await page.locator('#results li a').allTextContents()).toEqual(['Dataset freshness', 'Uptime watch']);
    await page.fill('#search', '');
    await page.selectOption('#category', 'http');
    await page.click('form[role=search] button[type=submit]');
    await page.waitForSelector('#result-count >> text=in http');
    expect(await page.locator('#results li a').allTextContents()).toEqual(['Uptime watch', 'Latency probe']);

    // Open one: what a chooser decides from, then install and review it in place.
    await page.click('#results li a >> text=Latency probe');
    await page.waitForSelector('#template-name >> text=Latency probe');
    // The description's Markdown rendered, its HTML and a javascript: link left as text.
    expect(await page.textContent('#description code')).toBe('p95');
    expect(await page.textContent('#description strong')).toBe('milliseconds');
    expect(await page.locator('#description li').count()).toBe(2);
    expect(await page.locator('#description b, #description a').count()).toBe(0);
    expect(await page.textContent('#description')).toContain('<b>no</b> [setup](javascript:alert(1))');
    // Inputs: the variables with type, required and default; the checks.
    expect(await page.locator('#variables tbody tr').allTextContents()).toEqual([
      expect.stringMatching(/^url\s*url\s*required/),
      expect.stringMatching(/^attempts\s*integer\s*optional\s*3/),
    ]);
    expect(await page.textContent('#checks')).toContain('status (http_status)');
    expect(await page.textContent('#versions tbody tr')).toContain('Current: what an install gets');
    expect(await page.textContent('#updated')).toMatch(/^Updated /);
    expect(await page.textContent('#snippet')).toContain(`client.templates.instantiate('${probe.id}'`);
    expect(await page.textContent('#install-count')).toBe('0 installs');
    expect(await page.textContent('#ratings')).toContain('No reviews yet');

    await page.click('#install');
    await page.waitForSelector('#install-state >> text=Installed');
    await page.waitForSelector('#status >> text=Installed Latency probe');
    expect(await page.textContent('#install-count')).toBe('1 install');
    expect(await page.locator('#install').count()).toBe(0);
    await page.selectOption('#review-rating', '4');
    await page.fill('#review-title', 'Does what it says');
    await page.fill('#review-comment', 'Caught a slow endpoint on day one.');
    await page.click('#review-form button[type=submit]');
    await page.waitForSelector('#reviews >> text=4 of 5 — Does what it says');
    expect(await page.textContent('#review-why-not')).toContain('You have reviewed this template');
    expect(await page.getAttribute('#ratings .stars', 'aria-label')).toBe('Rated 4.0 out of 5 from 1 review');
    expect(
      await page.locator('#distribution meter').evaluateAll((m) => m.map((e) => Number(e.getAttribute('value')))),
    ).toEqual([0, 1, 0, 0, 0]);
    const installed = await call(reader.apiKey, 'GET', '/v1/marketplace/installed');
    expect(installed.data.map((t: { id: string }) => t.id)).toContain(probe.id);
    await page.reload();
    await pageReady(page);
    await page.goto(`${api.url}/catalog/#/t/${probe.slug}`);
    await page.waitForSelector('#install-state >> text=Installed');
    await screenshot(page, 'catalog-template-1280');
    await page.setViewportSize({ width: 375, height: 740 });
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'catalog-template-375');

    // A bad link: a clean not-found view, nothing of the template before it; after a reload too.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${api.url}/catalog/#/t/no-such-template`);
    await page.waitForSelector('#not-found');
    expect(await page.locator('#template-name').count()).toBe(0);
    await page.reload();
    await page.waitForSelector('#not-found');
    // An error is said on its view and gone from the next one.
    await page.goto(`${api.url}/catalog/#/?search=${'x'.repeat(201)}`);
    await page.waitForSelector('#status >> text=Error');
    await page.click('main a >> text=Back to the catalog');
    await page.waitForSelector('#result-count');
    expect((await page.textContent('#status'))?.trim()).toBe('');
    await page.close();
  }, 60_000);

  it("explains to a template's author why they cannot review it", async () => {
    const { author, probe } = await catalog;
    const page = await openPage(`${api.url}/catalog/#key=${author.apiKey}`);
    await pageReady(page);
    await page.goto(`${api.url}/catalog/#/t/${probe.slug}`);
    await page.waitForSelector('#template-name >> text=Latency probe');
    expect(await page.textContent('#review-why-not')).toContain('You published this template, so you cannot review it');
    expect(await page.locator('#review-form').count()).toBe(0);
    await page.close();
  });

  it('serves a landing page at / linking the pages, the API reference and health, and a favicon every page links', async () => {
    const page = await openPage(`${api.url}/`, { width: 1280, height: 900 });
    const missing: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 404) missing.push(r.url());
    });
    await page.waitForSelector('#operation-table tbody tr');
    expect(await page.locator('#entries a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([
      '/catalog/',
      '/portal/',
      `${api.url}/openapi.json`,
      `${api.url}/health`,
    ]);
    expect(await page.textContent('#health')).toContain('healthy');
    expect(await page.locator('#operation-table tbody tr').count()).toBeGreaterThan(40);
    await screenshot(page, 'landing-1280');
    await page.setViewportSize({ width: 375, height: 740 });
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'landing-375');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.click('#entries a >> text=Catalog');
    await page.waitForSelector('#api-key');
    expect(missing).toEqual([]);
    const favicon = await fetch(`${api.url}/favicon.svg`);
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get('content-type')).toBe('image/svg+xml');
    await page.close();
  });

  it('asks for a key first, and refuses a wrong one', async () => {
    const page = await openPage(`${api.url}/catalog/`);
    await page.fill('#api-key', 'mk_not-a-key');
    await page.press('#api-key', 'Enter');
    await page.waitForSelector('#status >> text=Error');
    expect(await page.locator('#api-key').count()).toBe(1);
    await page.close();
  });
});
