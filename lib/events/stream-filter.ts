import { PUSH_FILTER_PATTERN } from './push/slots.ts';

export { PUSH_FILTER_PATTERN };

/**
 * Which stream records reach the relay: new event rows (the outbox) whose agent's webhook was
 * ENABLED and subscribed when the event happened (`deliver`, see outbox.ts), replay pages and version notice pages; nothing else. The CDK event
 * source uses this pattern as its filter criteria, and the local stream poller applies the same
 * pattern with `matchesFilter`, so both runtimes invoke the relay with the same records.
 */
export const RELAY_FILTER_PATTERN = {
  eventName: ['INSERT'],
  // A replay page (lib/events/replay/replay-job.ts) carries `deliver = true` too: the relay runs the replay job;
  // so does a version notice page (lib/marketplace/lifecycle/notice-page.ts): the relay tells the installers.
  // And a destination's verification request (lib/destinations/store.ts): the relay queues its message.
  dynamodb: {
    NewImage: {
      entity: { S: ['event', 'replayPage', 'versionNotice', 'destinationVerifyRequest'] },
      deliver: { BOOL: [true] },
    },
  },
} as const;

/**
 * The relay's event source filters, in the order the CDK event source lists them: its own rows, and
 * the new feed slots it hands the push worker (lib/events/push-hand-off.ts). Lambda passes a record
 * that matches either, so the table's stream has two readers, the relay and the search indexer.
 */
export const RELAY_STREAM_FILTERS = [RELAY_FILTER_PATTERN, PUSH_FILTER_PATTERN] as const;

type Pattern = { readonly [key: string]: Pattern | readonly (string | number | boolean)[] };

/** The subset of Lambda's event filtering the pattern above uses: nested keys, lists of exact values. */
export function matchesFilter(record: unknown, pattern: Pattern = RELAY_FILTER_PATTERN): boolean {
  return Object.entries(pattern).every(([name, expected]) => {
    const value = (record as Record<string, unknown> | null | undefined)?.[name];
    if (Array.isArray(expected)) return expected.includes(value as string | number | boolean);
    return matchesFilter(value, expected as Pattern);
  });
}

/** Lambda's rule for several filters on one event source: a record passes if any matches. */
export const matchesAnyFilter = (record: unknown, patterns: readonly Pattern[] = RELAY_STREAM_FILTERS): boolean =>
  patterns.some((pattern) => matchesFilter(record, pattern));
