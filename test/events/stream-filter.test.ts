import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { matchesFilter } from '../../lib/events/stream-filter.ts';

const sample = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../events/relay.json'), 'utf8'),
) as DynamoDBStreamEvent;
const record = sample.Records[0]!;

describe('the relay’s stream filter', () => {
  it('passes a new event row due for delivery (the sample stream event)', () => {
    expect(matchesFilter(record)).toBe(true);
  });

  it('drops updates, removals (TTL expiry included) and rows of other kinds', () => {
    expect(matchesFilter({ ...record, eventName: 'MODIFY' })).toBe(false);
    expect(matchesFilter({ ...record, eventName: 'REMOVE' })).toBe(false);
    const delivery = {
      ...record,
      dynamodb: { ...record.dynamodb, NewImage: { ...record.dynamodb!.NewImage, entity: { S: 'delivery' } } },
    };
    expect(matchesFilter(delivery)).toBe(false);
    // The agent's webhook was not ENABLED and subscribed when the event happened.
    const notDue = {
      ...record,
      dynamodb: { ...record.dynamodb, NewImage: { ...record.dynamodb!.NewImage, deliver: { BOOL: false } } },
    };
    expect(matchesFilter(notDue)).toBe(false);
    expect(matchesFilter({ ...record, dynamodb: { ...record.dynamodb, NewImage: undefined } })).toBe(false);
    expect(matchesFilter(undefined)).toBe(false);
  });
});
