import { describe, expect, it } from 'vitest';
import { createTestUser } from '../support/lambda.ts';
import { fitsWidth, pageReady, screenshot } from './browser.ts';
import { useBrowserOnLocalApi } from './browser-on-local-api.ts';

/**
 * The portal's filter editor in a real browser (issue 42), against the in-process local runtime.
 * The page has only the link's token: saving and testing go through the filter routes' portal rows.
 */
const { browser, call } = useBrowserOnLocalApi();

describe('the portal’s filters', () => {
  it('sets a filter, shows it, tests it against the newest event with the failing clause, flags one that never matches, shows a refusal', async () => {
    const owner = await createTestUser({ name: 'Filter owner' });
    const agentId = (await call(owner.apiKey, 'POST', '/api/v1/agents', { name: 'Filter bot' })).id;
    await call(owner.apiKey, 'PATCH', `/api/v1/agents/${agentId}/webhook`, {
      webhook_url: 'https://hooks.example.com/orders',
      events: ['contract.funded'],
    });
    const destination = await call(owner.apiKey, 'POST', `/api/v1/agents/${agentId}/destinations`, {
      arn: 'arn:aws:sqs:eu-west-1:123456789012:portal-filters',
      events: ['contract.funded'],
    });
    const link = await call(owner.apiKey, 'POST', `/api/v1/agents/${agentId}/portal-links`);

    const page = await browser().newPage({ viewport: { width: 1100, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(link.url);
    await pageReady(page);
    expect(await page.inputValue('#filter-json'), 'no filter yet').toBe('');

    // Set one: the API has it, and the redrawn editor shows it.
    const big = { op: 'gte', path: 'data.amount_cents', value: 10_000 };
    await page.fill('#filter-json', JSON.stringify(big));
    await page.click('#filter-save');
    await page.waitForSelector('#status >> text=Filter saved');
    expect((await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}`)).filter).toEqual(big);
    expect(JSON.parse(await page.inputValue('#filter-json'))).toEqual(big);
    expect(await page.locator('#filter-warning').count()).toBe(0);

    // Test the saved filter (empty editor) against the newest event: the change just recorded, which has no amount.
    await page.fill('#filter-json', '');
    await page.click('#filter-test');
    await page.waitForSelector('#status >> text=does not match the newest event');
    const result = page.locator('#filter-result [data-matched]');
    expect(await result.getAttribute('data-matched')).toBe('false');
    expect(await result.textContent()).toMatch(/Event evt_\w+ fails the clause at \(root\)/);
    expect(JSON.parse((await page.textContent('#filter-result .failed-clause'))!)).toEqual(big);
    expect(await page.textContent('#filter-result .failed-reason')).toMatch(/^data.amount_cents is absent/);

    // A nested filter typed in the editor: the failing clause's place is shown.
    const nested = {
      op: 'and',
      clauses: [
        { op: 'eq', path: 'type', value: 'agent.filter.changed' },
        { op: 'exists', path: 'data.nothing' },
      ],
    };
    await page.fill('#filter-json', JSON.stringify(nested));
    await page.click('#filter-test');
    await page.waitForSelector('#filter-result code.failed-at >> text=clauses.1');
    expect(await page.textContent('#filter-result .failed-reason')).toBe('data.nothing is absent.');
    await page.fill('#filter-json', JSON.stringify({ op: 'eq', path: 'type', value: 'agent.filter.changed' }));
    await page.click('#filter-test');
    await page.waitForSelector('#status >> text=The filter matches the newest event.');
    expect(await result.getAttribute('data-matched')).toBe('true');

    // One that can never match (a kind the webhook does not take) is saved and flagged.
    await page.fill('#filter-json', JSON.stringify({ op: 'eq', path: 'type', value: 'contract.released' }));
    await page.click('#filter-save');
    await page.waitForSelector('#filter-warning');
    expect(await page.textContent('#filter-warning')).toContain('filter_never_matches');

    // A refused filter: the grammar's message names the path; the editor keeps what was typed; nothing changes.
    const bad = JSON.stringify({ op: 'and', clauses: [big, { op: 'in', path: 'data.status', values: [] }] });
    await page.fill('#filter-json', bad);
    await page.click('#filter-save');
    await page.waitForSelector('#filter-message:not([hidden])');
    expect(await page.textContent('#filter-message')).toContain('filter.clauses.1.values');
    expect(await page.inputValue('#filter-json')).toBe(bad);
    expect((await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}`)).filter).toEqual({
      op: 'eq',
      path: 'type',
      value: 'contract.released',
    });
    await page.fill('#filter-json', '{"op": ');
    await page.click('#filter-save');
    await page.waitForSelector('#filter-message >> text=Not JSON');

    // Emptied and saved: removed.
    await page.fill('#filter-json', '');
    await page.click('#filter-save');
    await page.waitForSelector('#status >> text=Filter removed');
    expect((await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}`)).filter).toBeNull();

    // A destination's filter: picked, saved through its own route, and tested as the destination would judge it.
    await page.selectOption('#filter-target', destination.id);
    await page.waitForSelector('#status >> text=Editing the filter of arn:aws:sqs');
    await page.fill('#filter-json', JSON.stringify(big));
    await page.click('#filter-save');
    await page.waitForSelector('#status >> text=Filter saved');
    const saved = await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}/destinations/${destination.id}`);
    expect(saved.filter).toEqual(big);
    expect(await page.inputValue('#filter-target'), 'the choice survives the redraw').toBe(destination.id);
    expect(
      (await call(owner.apiKey, 'GET', `/api/v1/agents/${agentId}`)).filter,
      'the webhook is untouched',
    ).toBeNull();
    // Phone width: the editor and the test's answer wrap inside the page.
    await page.setViewportSize({ width: 375, height: 740 });
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'portal-filters-375', '#filters');
    expect(await page.locator('#refused').count()).toBe(0);
    expect(errors, 'script errors on the page').toEqual([]);
    await page.close();
  }, 30_000);
});
