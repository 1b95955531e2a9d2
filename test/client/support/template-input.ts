import { randomUUID } from 'node:crypto';
import type { PublishTemplateInput } from '../../../client/index.ts';

/** A valid template to publish, with a slug no other test uses. */
export function templateInput(overrides: Partial<PublishTemplateInput> = {}): PublishTemplateInput {
  return {
    name: 'Uptime check',
    slug: `uptime-${randomUUID().slice(0, 8)}`,
    description: 'Checks that an endpoint answers 200.',
    category: 'http',
    version: '1.0.0',
    schema: {
      variables: [
        { name: 'url', type: 'url', required: true },
        { name: 'attempts', type: 'integer', required: false, default: 3 },
      ],
      checks: [{ id: 'status', type: 'http_status', config: { url: '{{url}}', expect: 200 } }],
    },
    ...overrides,
  };
}
