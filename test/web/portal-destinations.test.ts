import { SQSClient } from '@aws-sdk/client-sqs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/index.ts';
import { type LocalEventBridge, startLocalEventBridge } from '../../fixtures/eventbridge-endpoint.ts';
import { endpointOverride } from '../../lib/aws-endpoint.ts';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import { createCustomerQueue, nextCustomerMessage } from '../destinations/customer-queue.ts';
import { startFilePipeline } from '../events/support.ts';
import { apiCall } from '../support/api-call.ts';
import { createTestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { fitsWidth, launchChromium, pageReady, screenshot } from './browser.ts';

/**
 * The portal's AWS destinations in a real browser (issue 25), against the in-process local runtime
 * with its event pipeline: the customer's queue is a queue of the SQS emulator, into which the
 * destinations' worker sends the verification message, and the customer's bus the local EventBridge
 * endpoint (fixtures/eventbridge-endpoint.ts), which refuses a bus whose policy was not applied.
 * The page has only the link's token: every call it makes goes through the destination routes'
 * portal rows.
 */
const api = useLocalApi();
let pipeline: EventPipeline;
let browser: Browser;
let bus: LocalEventBridge;
let customer: SQSClient;

beforeAll(async () => {
  [pipeline, browser, bus] = await Promise.all([startFilePipeline(), launchChromium(), startLocalEventBridge()]);
  process.env['EVENTBRIDGE_ENDPOINT'] = bus.endpoint;
  customer = new SQSClient(endpointOverride(pipeline.sqsEndpoint));
});

afterAll(async () => {
  customer?.destroy();
  await browser?.close();
  await bus?.close();
  await pipeline?.stop();
});

const call = (key: string, method: string, path: string, body?: unknown) => apiCall(api.url, key, method, path, body);

const row = (page: Page, arn: string) => page.locator('#destination-list > li', { hasText: arn });

describe('the portal’s AWS destinations', () => {
  it('adds a queue by keyboard, verifies it with the code the queue received, shows a bus without its policy, removes them', async () => {
    const [owner, queue, context] = await Promise.all([
      createTestUser({ name: 'Destinations owner' }),
      createCustomerQueue(customer, 'portal-orders'),
      browser.newContext({
        viewport: { width: 1100, height: 900 },
        permissions: ['clipboard-read', 'clipboard-write'],
      }),
    ]);
    const queueArn = queue.arn;
    const agentId = (await call(owner.apiKey, 'POST', '/api/v1/agents', { name: 'Queue bot' })).id;
    const link = await call(owner.apiKey, 'POST', `/api/v1/agents/${agentId}/portal-links`);

    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(link.url);
    await pageReady(page);
    expect(await page.textContent('#destination-list')).toBe('No destinations.');

    // Keyboard only: Tab from the ARN to the first kind, Space ticks it, Enter in the ARN field submits.
    await page.fill('#destination-arn', queueArn);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.value')).toBe('contract.funded');
    await page.keyboard.press('Space');
    await page.focus('#destination-arn');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#status >> text=Added');

    const listed = (await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}/destinations`)).data;
    expect(listed).toHaveLength(1);
    const destination = listed[0];
    expect(destination).toMatchObject({ arn: queueArn, kind: 'sqs', events: ['contract.funded'] });
    const queueRow = row(page, queueArn);
    expect(await queueRow.getAttribute('data-status')).toBe('PENDING_VERIFICATION');
    // Readable without colour: the status is a word and a symbol.
    expect(await queueRow.locator('.destination-status').textContent()).toBe('… PENDING_VERIFICATION');
    expect(await queueRow.locator('h3').textContent()).toContain('Amazon SQS queue');
    // Focus goes to where the next step is typed: the new destination's code.
    expect(await page.evaluate('document.activeElement?.id')).toBe(`code-${destination.id}`);

    // The policy is the API's, shown and copied as JSON.
    const policyText = JSON.stringify(destination.policy, null, 2);
    expect(await queueRow.locator('pre.policy').textContent()).toBe(policyText);
    await queueRow.locator('button.copy-policy').click();
    await page.waitForSelector('#status >> text=Policy copied.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(policyText);

    // The signing secret is shown once, and it is the one the verification message is signed with.
    const secret = (await page.locator('#destination-secret code').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const message = await nextCustomerMessage(customer, queue.url);
    await verifyWebhook({ rawBody: message.body, headers: message.headers, secret });
    const { code } = JSON.parse(message.body) as { code: string };

    // A wrong code is refused with the tries left; the destination stays pending.
    await page.fill(`#code-${destination.id}`, 'AAAAA-AAAAA');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#status >> text=verification_code_mismatch');
    expect(await page.textContent('#status')).toContain('4 tries left');
    expect(await queueRow.getAttribute('data-status')).toBe('PENDING_VERIFICATION');

    await page.fill(`#code-${destination.id}`, code);
    await page.press(`#code-${destination.id}`, 'Enter');
    await page.waitForSelector('#status >> text=Verified');
    expect(await queueRow.getAttribute('data-status')).toBe('ENABLED');
    expect(await queueRow.locator('.destination-status').textContent()).toBe('✔ ENABLED');
    expect(await queueRow.locator('form.verify-destination').count(), 'nothing left to verify').toBe(0);
    expect((await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}/destinations/${destination.id}`)).status).toBe(
      'ENABLED',
    );
    expect(await page.locator('#destination-secret').count(), 'the secret is shown only once').toBe(0);

    // A bus whose owner has not applied the policy: the page says the message could not be sent.
    const busArn = `arn:aws:events:eu-west-1:123456789012:event-bus/portal-${Date.now()}`;
    bus.addBus(busArn, {});
    await page.fill('#destination-arn', busArn);
    await page.check('#destination-form input[value="contract.released"]');
    await page.click('#destination-form button[type=submit]');
    await page.waitForSelector('#status >> text=Added');
    const busRow = row(page, busArn);
    await expect
      .poll(
        async () => {
          await page.click('#refresh-destinations');
          await page.waitForSelector('#status >> text=Destinations refreshed.');
          return busRow.locator('.destination-state').textContent();
        },
        { timeout: 15_000, interval: 300 },
      )
      .toContain('could not be sent');
    expect(await busRow.locator('.destination-state').textContent()).toContain('not authorized');
    expect(await busRow.locator('h3').textContent()).toContain('Amazon EventBridge event bus');
    await screenshot(page, 'portal-destinations', '#destinations');

    // Phone width: ARNs, policies and forms wrap inside the page.
    await page.setViewportSize({ width: 375, height: 740 });
    expect(await fitsWidth(page)).toBe(true);
    await page.setViewportSize({ width: 1100, height: 900 });

    // Removing asks first; declined, nothing happens; accepted, the bus is gone from the page and the API.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await busRow.locator('button.remove-destination').click();
    await page.click('#refresh-destinations');
    await page.waitForSelector('#status >> text=Destinations refreshed.');
    expect(await busRow.count()).toBe(1);
    page.once('dialog', (dialog) => void dialog.accept());
    await busRow.locator('button.remove-destination').click();
    await page.waitForSelector(`#status >> text=Removed ${busArn}.`);
    expect(await busRow.count()).toBe(0);
    const left = (await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}/destinations`)).data;
    expect(left.map((d: { arn: string }) => d.arn)).toEqual([queueArn]);

    // Removed meanwhile elsewhere (the owner's key): the page's 404 for it says so and keeps the session.
    await call(owner.apiKey, 'DELETE', `/api/v1/agents/${agentId}/destinations/${destination.id}`);
    page.once('dialog', (dialog) => void dialog.accept());
    await queueRow.locator('button.remove-destination').click();
    await page.waitForSelector('#status >> text=That destination is no longer there');
    expect(await page.textContent('#destination-list')).toBe('No destinations.');
    expect(await page.locator('#refused').count()).toBe(0);

    expect(errors, 'script errors on the page').toEqual([]);
    await context.close();
  }, 30_000);
});
