/**
 * A search indexer that is killed (SIGKILL: no finally, no cleanup) partway through writing a
 * template's postings: `tsx index-then-die.ts <template id> <writes before the kill>`. The crash
 * test runs it as a child process against its own table (TABLE_NAME, DYNAMODB_ENDPOINT).
 */
import { syncSearchIndex } from '../../lib/marketplace/search/search-index.ts';
import { batchWrite } from '../../lib/store/batch.ts';

const [templateId, before] = process.argv.slice(2);
await syncSearchIndex(templateId!, {
  write: async (requests) => {
    await batchWrite(requests.slice(0, Number(before)), 1);
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => undefined); // never returns: the process is gone
  },
});
process.exit(0); // reached only if nothing needed writing
