/** The demo template by another author, so the demo user has one to review (the createReview example). */
export const COMMUNITY_TEMPLATE_SLUG = 'ai-summary-quality';

const uptimeSchema = {
  variables: [
    { name: 'url', type: 'url', description: 'Endpoint to probe' },
    { name: 'expected_status', type: 'integer', required: false, default: 200 },
  ],
  checks: [
    {
      id: 'status',
      type: 'http_status',
      description: 'Endpoint answers',
      config: { url: '{{url}}', status: '{{expected_status}}' },
    },
  ],
} as const;

/**
 * Demo catalog for `npm start`: a few templates across categories, published by the demo user
 * (the community one by a second user). `sample-uptime-check` is the one the update and new-version
 * samples change.
 */
export const demoTemplates = [
  {
    name: 'HTTP uptime check',
    slug: 'http-uptime-check',
    description: 'Pays out when an HTTP endpoint answers with the expected status before the deadline.',
    category: 'http',
    version: '1.0.0',
    visibility: 'public',
    schema: uptimeSchema,
  },
  {
    name: 'Code review delivered',
    slug: 'code-review-delivered',
    description: 'Releases payment once a pull request review with at least one approval is submitted.',
    category: 'code',
    version: '1.2.0',
    visibility: 'public',
    schema: {
      variables: [
        { name: 'repository', type: 'string' },
        { name: 'pull_request', type: 'integer' },
      ],
      checks: [
        {
          id: 'approved',
          type: 'github_review',
          config: { repo: '{{repository}}', pr: '{{pull_request}}', min_approvals: 1 },
        },
      ],
    },
  },
  {
    name: 'Artifact checksum',
    slug: 'artifact-checksum',
    description: 'Verifies that a delivered build artifact matches the agreed SHA-256 checksum.',
    category: 'artifact',
    version: '0.3.1',
    visibility: 'public',
    schema: {
      variables: [
        { name: 'artifact_url', type: 'url' },
        { name: 'sha256', type: 'string' },
      ],
      checks: [{ id: 'checksum', type: 'sha256', config: { url: '{{artifact_url}}', expected: '{{sha256}}' } }],
    },
  },
  {
    name: 'Dataset row count',
    slug: 'dataset-row-count',
    description: 'Checks that a delivered CSV dataset has at least the agreed number of rows.',
    category: 'data',
    version: '1.0.0',
    visibility: 'public',
    schema: {
      variables: [
        { name: 'dataset_url', type: 'url' },
        { name: 'min_rows', type: 'integer', default: 1000, required: false },
        { name: 'format', type: 'string', enum: ['csv', 'parquet'], required: false, default: 'csv' },
      ],
      checks: [
        {
          id: 'rows',
          type: 'row_count',
          config: { url: '{{dataset_url}}', min: '{{min_rows}}', format: '{{format}}' },
        },
      ],
    },
  },
  {
    name: 'AI summary quality',
    slug: 'ai-summary-quality',
    description: 'Scores a generated summary against a reference with an agreed minimum score.',
    category: 'ai',
    version: '2.0.0',
    visibility: 'public',
    schema: {
      variables: [
        { name: 'document_url', type: 'url' },
        { name: 'min_score', type: 'number', required: false, default: 0.8 },
      ],
      checks: [{ id: 'score', type: 'llm_judge', config: { source: '{{document_url}}', threshold: '{{min_score}}' } }],
    },
  },
  {
    name: 'Sample uptime check',
    slug: 'sample-uptime-check',
    description: 'Pays out when an endpoint answers 200.',
    category: 'http',
    version: '1.0.0',
    visibility: 'public',
    schema: uptimeSchema,
  },
] as const;

/**
 * A second version of one demo template (an optional variable more: not breaking), and the demo
 * workspace's install of it pinned to the first, so the compare and upgrade samples have two
 * versions and a drift to show (docs/marketplace.md, "Pinned installs and upgrades").
 */
export const demoSecondVersion = {
  slug: 'dataset-row-count',
  installed: { version: '1.0.0', policy: 'pinned' },
  body: {
    version: '1.1.0',
    changelog: 'Adds `delimiter` for CSV files that are not comma-separated.',
    schema: {
      variables: [
        ...demoTemplates[3].schema.variables,
        { name: 'delimiter', type: 'string', required: false, default: ',' },
      ],
      checks: [
        {
          id: 'rows',
          type: 'row_count',
          config: { url: '{{dataset_url}}', min: '{{min_rows}}', format: '{{format}}', delimiter: '{{delimiter}}' },
        },
      ],
    },
  },
} as const;
