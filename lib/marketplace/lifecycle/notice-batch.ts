/**
 * The relay's share of the lifecycle room: of a stream batch, the version notice pages. Each page
 * runs on its own; a failed one is reported by its sequence number, so the stream hands it over again.
 */
import { log } from '../../observability/log.ts';
import { ENTITY } from '../../store/keys.ts';
import { itemOfImage, sequenceOf, type TableChange } from '../../store/table-change.ts';
import { noticePageOf } from './notice-page.ts';
import { runNoticePage } from './notices.ts';

/** Read from the raw image, so an image that cannot be read is left to the relay, which fails that record alone. */
export const isNoticePage = (record: TableChange): boolean =>
  (record.dynamodb?.NewImage as { entity?: { S?: unknown } } | undefined)?.entity?.S === ENTITY.versionNotice;

export async function noticeBatch(records: readonly TableChange[]): Promise<string[]> {
  const failed: string[] = [];
  for (const record of records) {
    try {
      await runNoticePage(noticePageOf(itemOfImage(record.dynamodb?.NewImage)!));
    } catch (err) {
      log.error('relay: notice page failed', {
        sequence: sequenceOf(record),
        error: err instanceof Error ? err.message : String(err),
      });
      failed.push(sequenceOf(record));
    }
  }
  return failed;
}
