/**
 * Which stream records reach the search indexer: template items, written or changed. The CDK event
 * source uses this pattern as its filter criteria and the local stream poller applies it with
 * `matchesFilter` (lib/events/stream-filter.ts). Templates are never deleted (no route does), so
 * REMOVE records are not asked for.
 */
import { errorFields, log } from '../../observability/log.ts';
import { ENTITY } from '../../store/keys.ts';
import { itemOfImage, sequenceOf, type TableChange } from '../../store/table-change.ts';
import { popularityBucket } from './popularity-bucket.ts';
import { syncSearchIndex } from './search-index.ts';

export const SEARCH_INDEX_FILTER_PATTERN = {
  eventName: ['INSERT', 'MODIFY'],
  dynamodb: { NewImage: { entity: { S: [ENTITY.template] } } },
} as const;

type Image = Record<string, unknown>;

/** What the index is built from: a change to anything else (most installs) needs no sync. */
const indexedView = (t: Image | undefined) =>
  t &&
  JSON.stringify([
    t['visibility'],
    t['hidden'],
    t['all_yanked'],
    t['category'],
    t['name'],
    t['slug'],
    t['description'],
    popularityBucket(Number(t['installs'] ?? 0)),
    t['ratingKey'],
  ]);

export function touchesSearch(record: TableChange): boolean {
  return (
    record.eventName === 'INSERT' ||
    indexedView(itemOfImage(record.dynamodb?.OldImage)) !== indexedView(itemOfImage(record.dynamodb?.NewImage))
  );
}

/** Templates synced at once within a batch (each template once, in the order of its records). */
const PARALLEL = 4;

/**
 * A batch of stream records → one sync per template that changed in a way search sees. A sync reads
 * the template as it is now, so several records of one template need one sync, and a record that
 * arrives again or late is harmless. On failure the earliest record of a failed template is
 * reported: the stream hands the batch over again from there.
 */
export async function indexSearchBatch(records: readonly TableChange[]): Promise<string[]> {
  const firstRecord = new Map<string, TableChange>();
  for (const record of records) {
    if (!touchesSearch(record)) continue;
    const id = itemOfImage(record.dynamodb?.NewImage)?.['id'];
    if (typeof id === 'string' && !firstRecord.has(id)) firstRecord.set(id, record);
  }
  const queue = [...firstRecord.entries()];
  const failed: string[] = [];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [id, record] = next;
      try {
        await syncSearchIndex(id);
      } catch (err) {
        log.error('search indexer: sync failed', {
          template_id: id,
          ...errorFields(err),
        });
        failed.push(sequenceOf(record));
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return failed.sort(bySequence).slice(0, 1);
}

// Sequence numbers are decimal strings of varying length.
const bySequence = (a: string, b: string): number => a.length - b.length || a.localeCompare(b);
