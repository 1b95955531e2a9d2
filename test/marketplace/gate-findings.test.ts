import { describe, expect, it } from 'vitest';
import {
  editDistance,
  type GateInput,
  gateFindings,
  type ProtectedName,
  skeleton,
} from '../../lib/marketplace/templates/gate-findings.ts';
import { demoSecondVersion, demoTemplates } from '../../local/demo/templates.ts';
import { SIMPLE_SCHEMA } from '../events/support.ts';
import { templateBody } from './helpers.ts';

const withConfig = (config: Record<string, unknown>, extra: Partial<GateInput> = {}): GateInput => ({
  schema: { variables: [], checks: [{ id: 'c', config }] },
  ...extra,
});
const kinds = (input: GateInput, protectedNames: ProtectedName[] = []) =>
  gateFindings(input, 'author-b', protectedNames).map((f) => `${f.kind} ${f.path}`);

describe('publish gate: secrets', () => {
  // Built from parts so no credential-shaped string sits in the repository's text (scanners flag them too).
  const fake = {
    aws: ['AKIA', 'Z7QX4K2M9PLW3RTB'].join(''),
    github: ['ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'].join(''),
    slack: ['xoxb-', '1234567890-abcdefghij'].join(''),
    slackHook: ['https://hooks.slack.com/services/', 'T0AB12CD/B0CD34EF/', 'x7Yq2LmN9pQ4rS1tU6vW'].join(''),
    stripe: ['sk_live_', '4eC39HqLyjWDarjtT1zdp7dc'].join(''),
    pem: ['-----BEGIN ', 'RSA PRIVATE KEY-----\nMIIEow…'].join(''),
  };
  it.each([
    ['an AWS access key id', { aws_key: fake.aws }],
    ['a GitHub token', { nested: { list: ['ok', fake.github] } }],
    ['a Slack token', { note: `token is ${fake.slack}` }],
    ['a Slack webhook URL', { url: fake.slackHook }],
    ['a Stripe key', { stripe: fake.stripe }],
    ['a private key', { key: fake.pem }],
    [
      'an Authorization header',
      {
        headers: [
          { name: 'X-Trace', value: 'x' },
          { name: 'Authorization', value: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc' },
        ],
      },
    ],
    ['a password in a URL', { url: 'https://deploy:hunter2hunter2@example.com/hook' }],
    ['a random value under a secret-looking name', { api_key: 'q8Vz3LkP0wXr7TnB2mYc' }],
  ])('finds %s, with its path', (_what, config) => {
    const found = gateFindings(withConfig(config), 'a', []);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ kind: 'secret', path: expect.stringMatching(/^schema\.checks\.0\.config\./) });
    // The reason never repeats the value.
    expect(JSON.stringify(found)).not.toContain(Object.values(config).flat().join('').slice(4, 20));
  });

  it('finds them in descriptions and defaults too, and leaves placeholders and plain words alone', () => {
    expect(kinds({ ...withConfig({}), description: `Use ${fake.stripe}` })).toEqual(['secret description']);
    expect(kinds({ schema: { variables: [{ name: 'token', default: 'q8Vz3LkP0wXr7TnB2mYc' }], checks: [] } })).toEqual([
      'secret schema.variables.0.default',
    ]);
    expect(kinds(withConfig({ token: '{{api_token}}', password: '{{ password }}', auth: 'Bearer {{token}}' }))).toEqual(
      [],
    );
    expect(
      kinds(withConfig({ token_header: 'Authorization', secret_name: 'deploy-key', auth_mode: 'oauth2' })),
    ).toEqual([]);
  });
});

describe('publish gate: references', () => {
  it('finds URLs to loopback, private, link-local and metadata addresses, and $ref outside the config', () => {
    expect(kinds(withConfig({ url: 'http://169.254.169.254/latest/meta-data/' }))).toEqual([
      'reference schema.checks.0.config.url',
    ]);
    expect(kinds(withConfig({ url: 'http://10.0.0.8:8080/health' }))).toEqual(['reference schema.checks.0.config.url']);
    expect(kinds(withConfig({ url: 'http://localhost/x' }))).toEqual(['reference schema.checks.0.config.url']);
    expect(kinds(withConfig({ schema: { $ref: 'https://evil.example/schema.json' } }))).toEqual([
      'reference schema.checks.0.config.schema.$ref',
    ]);
    expect(kinds(withConfig({ url: 'https://example.com/health', local: { $ref: '#/defs/a' }, x: '{{url}}' }))).toEqual(
      [],
    );
  });
});

describe('publish gate: impersonation', () => {
  const verified: ProtectedName[] = [
    { author_id: 'author-a', skeleton: skeleton('stripe-checks'), of: 'slug' },
    { author_id: 'author-a', skeleton: skeleton('Acme Payments'), of: 'publisher' },
  ];
  it.each([
    'strípe-checks',
    'str1pe-checks',
    'ѕtrіpe-checks',
    'stripe-check',
    'stripe_checks',
    'acme-payrnents',
    'ACME PAYMENT',
  ])('%s is confusable with a verified publisher', (slug) => {
    expect(kinds({ ...withConfig({}), slug }, verified)).toEqual(['impersonation slug']);
  });
  it('leaves other names alone, and the publisher their own', () => {
    for (const slug of ['stripe-webhooks-monitor', 'http-uptime-check', 'acme-rockets', 'apex'])
      expect(kinds({ ...withConfig({}), slug }, verified)).toEqual([]);
    expect(gateFindings({ ...withConfig({}), slug: 'stripe-checks-v2' }, 'author-a', verified)).toEqual([]);
    // A template's name is held against publishers' names, not their slugs.
    expect(kinds({ ...withConfig({}), name: 'Stripe checks' }, verified)).toEqual([]);
    expect(kinds({ ...withConfig({}), name: 'Acme Paymentz' }, verified)).toEqual(['impersonation name']);
    // A template's name is held against publishers' names, not their slugs.
    expect(kinds({ ...withConfig({}), name: 'Stripe checks' }, verified)).toEqual([]);
    expect(kinds({ ...withConfig({}), name: 'Acme Paymentz' }, verified)).toEqual(['impersonation name']);
    expect(editDistance('kitten', 'sitting', 5)).toBe(3);
    expect(editDistance('abc', 'abcdef', 1)).toBe(2);
  });
});

/**
 * The gate's false positives, measured: every demo template and the test templates, each gated as
 * if every other one's slug and both demo publishers ("Demo Publisher", "Demo Community Author")
 * were verified, and another author published it (they are all legitimate, so every finding is a
 * false positive). docs/marketplace.md quotes these counts. The stricter reading (every other
 * template's name taken as a publisher's name) finds the one name two of them share.
 */
describe('publish gate: false positives on the demo and test templates', () => {
  type Named = GateInput & { name: string; slug: string };
  const corpus: Named[] = [
    ...demoTemplates.map((t) => structuredClone(t) as unknown as Named),
    {
      ...(structuredClone(demoTemplates[3]) as unknown as Named),
      schema: structuredClone(demoSecondVersion.body.schema) as unknown as GateInput['schema'],
    },
    templateBody({ slug: 'uptime-test' }) as unknown as Named,
    { name: 'Simple', slug: 'simple-ping', schema: SIMPLE_SCHEMA },
  ];
  const publishers = ['Demo Publisher', 'Demo Community Author'].map((n) => ({
    author_id: n,
    skeleton: skeleton(n),
    of: 'publisher' as const,
  }));
  const findingsWith = (names: (other: Named, j: number) => ProtectedName[]) =>
    corpus.flatMap((t, i) => {
      const others = corpus.filter((o, j) => j !== i && o.slug !== t.slug).flatMap(names);
      return gateFindings(t, `self-${i}`, [...publishers, ...others]).map((f) => `${t.slug}: ${f.kind} ${f.path}`);
    });

  it(`flags none of the ${corpus.length} templates`, () => {
    expect(findingsWith((o, j) => [{ author_id: `other-${j}`, skeleton: skeleton(o.slug), of: 'slug' }])).toEqual([]);
  });

  it('read strictly (template names as publisher names), flags only the name the test template copies from the demo', () => {
    const strict = findingsWith((o, j) => [
      { author_id: `other-${j}`, skeleton: skeleton(o.slug), of: 'slug' },
      { author_id: `other-${j}`, skeleton: skeleton(o.name), of: 'publisher' },
    ]);
    // "HTTP uptime check" is both the demo template's name and the test helper's: each is flagged against the other.
    expect(strict).toEqual([
      'http-uptime-check: impersonation name',
      'http-uptime-check: impersonation slug',
      'uptime-test: impersonation name',
    ]);
  });
});
