import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { type InvokeResult, invoke, type TestUser } from '../support/lambda.ts';

/** A valid publish body with a fresh slug; `overrides` replace top-level fields. */
export function templateBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'HTTP uptime check',
    slug: `uptime-${randomUUID().slice(0, 8)}`,
    // No description: a template's search index grows with its words (this text would make its
    // ~100 index writes ~370), and DynamoDB Local spends milliseconds on each. Tests of the
    // description's words publish their own.
    description: '',
    category: 'http',
    version: '1.0.0',
    schema: {
      variables: [
        { name: 'url', type: 'url', description: 'Endpoint' },
        { name: 'expected_status', type: 'integer', required: false, default: 200 },
      ],
      checks: [
        { id: 'status', type: 'http_status', config: { url: '{{url}}', expect: { status: '{{ expected_status }}' } } },
      ],
    },
    ...overrides,
  };
}

/** Publishes and insists on 201; returns the template. */
export async function publish(user: TestUser, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await invoke('publishTemplate', { caller: user, body: templateBody(overrides) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export function expectError(res: InvokeResult, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({
    error: {
      code,
      message: expect.any(String),
      ...(code === 'validation_error' ? { details: expect.any(Array) } : {}),
    },
  });
}

/** The `details` paths of a 400. */
export const detailPaths = (res: InvokeResult): string[] =>
  (res.body?.error?.details ?? []).map((d: { path: string }) => d.path);
