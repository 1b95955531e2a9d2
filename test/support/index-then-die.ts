/**
 * A search indexer that is killed (SIGKILL: no finally, no cleanup) partway through writing a
 * template's index: `node index-then-die.ts <template id> <writes before the kill>`, counted over the
 * sync's write calls (word pairs first, then postings). The crash test runs it as a child process
 * against its own table (TABLE_NAME, DYNAMODB_ENDPOINT).
 */
import { syncSearchIndex } from '../../lib/marketplace/search/search-index.ts';
import { batchWrite } from '../../lib/store/batch.ts';

const [templateId, before] = process.argv.slice(2);
let left = Number(before);
await syncSearchIndex(templateId!, {
  write: async (requests) => {
    await batchWrite(requests.slice(0, left), 1);
    left -= Math.min(left, requests.length);
    if (left > 0) return;
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => undefined); // never returns: the process is gone
  },
});
process.exit(0); // reached only if the sync wrote fewer than that
