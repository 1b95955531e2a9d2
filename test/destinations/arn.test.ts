import { describe, expect, it } from 'vitest';
import { parseDestinationArn, queueUrlOf } from '../../lib/destinations/arn.ts';
import { resourcePolicy } from '../../lib/destinations/policy.ts';
import { localSessionAccount, sessionFor } from '../../lib/destinations/session.ts';
import { codeHash, codeMatches, newVerificationCode } from '../../lib/destinations/verification-code.ts';
import { parseDestinationMessage } from '../../lib/events/delivery/destination-queue.ts';

/** The pure parts of AWS destinations (docs/webhooks.md, section 12): no emulator. */
const SERVICE = '123456789012';

describe('destination ARNs', () => {
  it.each([
    ['arn:aws:sqs:eu-west-1:111122223333:orders', 'sqs', 'orders'],
    ['arn:aws:sqs:us-east-1:111122223333:orders.fifo', 'sqs', 'orders.fifo'],
    ['arn:aws:sqs:us-west-2:111122223333:q_1', 'sqs', 'q_1'],
    ['arn:aws:events:ap-southeast-2:111122223333:event-bus/my.bus-1', 'eventbridge', 'my.bus-1'],
    // Opt-in regions (disabled in an account until its owner enables them) are regions all the same.
    ['arn:aws:sqs:af-south-1:111122223333:opt-in', 'sqs', 'opt-in'],
    ['arn:aws:events:me-central-1:111122223333:event-bus/default', 'eventbridge', 'default'],
    ['arn:aws:sqs:ap-southeast-5:111122223333:newer', 'sqs', 'newer'],
  ])('takes %s', (arn, kind, name) => {
    expect(parseDestinationArn(arn, SERVICE)).toMatchObject({
      ok: true,
      value: { kind, name, account: '111122223333' },
    });
  });

  it.each([
    ['arn:aws:sqs:us-east-1:123456789012:deliveries', "this service's own"],
    ['arn:aws:events:us-east-1:123456789012:event-bus/default', "this service's own"],
    ['arn:aws:sns:us-east-1:111122223333:topic', 'not supported'],
    ['arn:aws:sqs:moon-1:111122223333:q', 'not an AWS region'],
    // Shaped like a commercial region, and matched by the partition's region pattern: not a region.
    ['arn:aws:sqs:us-fake-9:111122223333:q', '"us-fake-9" is not an AWS region'],
    ['arn:aws:sqs:eu-west-99:111122223333:q', 'not an AWS region'],
    // Listed in the SDK's data, but not regions: the partitions' global pseudo-regions.
    ['arn:aws:sqs:aws-global:111122223333:q', 'not an AWS region'],
    // Real regions of other partitions, under the commercial prefix or their own.
    ['arn:aws:sqs:cn-north-1:111122223333:q', 'not an AWS region'],
    ['arn:aws:sqs:us-gov-west-1:111122223333:q', 'not an AWS region'],
    ['arn:aws-cn:sqs:cn-north-1:111122223333:q', 'partition "aws-cn" cannot be reached'],
    ['arn:aws-cn:events:cn-northwest-1:111122223333:event-bus/default', 'partition "aws-cn" cannot be reached'],
    ['arn:aws-us-gov:sqs:us-gov-west-1:111122223333:q', 'partition "aws-us-gov" cannot be reached'],
    ['arn:aws-iso:sqs:us-iso-east-1:111122223333:q', 'partition "aws-iso" cannot be reached'],
    ['arn:AWS:sqs:us-east-1:111122223333:q', 'partition "AWS" cannot be reached'],
    ['arn:aws:sqs:US-EAST-1:111122223333:q', 'not an AWS region'],
    ['arn:aws:sqs:us-east-1:1111:q', '12 digits'],
    ['arn:aws:sqs:us-east-1:111122223333:bad/name', 'queue name'],
    ['arn:aws:sqs:us-east-1:111122223333:', 'queue name'],
    ['arn:aws:events:us-east-1:111122223333:rule/r', 'event bus'],
    ['arn:aws:events:us-east-1:111122223333:event-bus/aws.partner/x', 'Partner'],
    ['arn:aws:sqs:us-east-1:111122223333:q:extra', 'Expected arn:'],
    ['https://sqs.us-east-1.amazonaws.com/111122223333/q', 'Expected arn:'],
  ])('refuses %s', (arn, reason) => {
    const check = parseDestinationArn(arn, SERVICE);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(reason);
  });

  it("names the queue's URL in its region, or at the local emulator", () => {
    const arn = (a: string) => {
      const c = parseDestinationArn(a, undefined);
      if (!c.ok) throw new Error(c.reason);
      return c.value;
    };
    expect(queueUrlOf(arn('arn:aws:sqs:eu-west-1:111122223333:orders'))).toBe(
      'https://sqs.eu-west-1.amazonaws.com/111122223333/orders',
    );
    expect(queueUrlOf(arn('arn:aws:sqs:us-east-1:000000000000:q'), 'http://127.0.0.1:9324/')).toBe(
      'http://127.0.0.1:9324/000000000000/q',
    );
  });
});

describe('the resource policy and the sessions', () => {
  it("allows the sender role only while its session is tagged with the registrant's account", () => {
    const policy = resourcePolicy('eventbridge', 'arn:aws:events:us-east-1:111122223333:event-bus/b', 'acct-1');
    expect(policy).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'TemplateMarketplaceDeliveries',
          Effect: 'Allow',
          Principal: { AWS: 'arn:aws:iam::000000000000:role/local-destination-sender' },
          Action: 'events:PutEvents',
          Resource: 'arn:aws:events:us-east-1:111122223333:event-bus/b',
          Condition: { StringEquals: { 'aws:PrincipalTag/marketplace-account': 'acct-1' } },
        },
      ],
    });
  });

  it('gives each account a session of its own (locally, the tag rides in the token)', async () => {
    const a = await sessionFor('acct-a');
    const b = await sessionFor('acct-b');
    expect(localSessionAccount(a.sessionToken)).toBe('acct-a');
    expect(localSessionAccount(b.sessionToken)).toBe('acct-b');
    expect(localSessionAccount('something else')).toBeUndefined();
  });
});

describe('verification codes', () => {
  it('are 10 Crockford characters in two groups, matched whatever the case, spaces and hyphen', () => {
    const code = newVerificationCode();
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);
    const hash = codeHash(code);
    expect(codeMatches(code.toLowerCase().replace('-', ' '), hash)).toBe(true);
    expect(
      codeMatches(
        code.replace(/^./, (c) => (c === '0' ? '1' : '0')),
        hash,
      ),
    ).toBe(false);
    expect(new Set(Array.from({ length: 200 }, newVerificationCode)).size).toBe(200);
  });
});

describe("the destinations' queue messages", () => {
  const ids = {
    agent_id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K',
    destination_id: 'dst_01KAKQ8F1B2C3D4E5F6G7H8J9K',
  };
  const delivery = { delivery_id: 'dlv_0000000001FHNDNP00AKF8NB3J', event_id: 'evt_0000000001FHNDNP00AKF8NB3J' };
  it('reads verification and delivery messages strictly', () => {
    expect(parseDestinationMessage(JSON.stringify({ ...ids, verify: true, requested_at: 1796331346702 }))).toEqual({
      ...ids,
      verify: true,
      requested_at: 1796331346702,
    });
    // Queued before asks were stamped: read (the worker drops it; the owner's next call asks again).
    expect(parseDestinationMessage(JSON.stringify({ ...ids, verify: true }))).toEqual({ ...ids, verify: true });
    expect(parseDestinationMessage(JSON.stringify({ ...ids, ...delivery, manual: true }))).toEqual({
      ...ids,
      ...delivery,
      manual: true,
    });
    for (const bad of [
      { ...ids, verify: false },
      { ...ids, verify: true, extra: 1 },
      { ...ids, verify: true, requested_at: -1 },
      { ...ids, verify: true, requested_at: 1.5 },
      { ...ids, verify: true, requested_at: '1796331346702' },
      { ...ids, ...delivery, requested_at: 1796331346702 },
      { ...ids, ...delivery, force: true },
      { ...ids, ...delivery, admin: true },
      { ...ids, delivery_id: 'dlv_x', event_id: delivery.event_id },
      { agent_id: ids.agent_id, ...delivery },
    ])
      expect(parseDestinationMessage(JSON.stringify(bad)), JSON.stringify(bad)).toBeUndefined();
    expect(parseDestinationMessage('not json')).toBeUndefined();
  });
});
