/**
 * Is the local store there? The admin and invoke commands ask once, before any real call: the
 * store client tries an emulator twelve times (lib/aws-endpoint.ts), which took 16 s to report a
 * wrong port. First a plain HTTP request with a deadline (DynamoDB Local answers any request, so
 * an answer of any status means something serves there; the SDK's first call in a fresh process
 * can take longer than the deadline just loading), then one DescribeTable for the table.
 */
import { DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { endpointOverride } from '../lib/aws-endpoint.ts';

/** Nothing answering (refused, or a listener that accepts and stays silent) is said by then. */
export const PROBE_TIMEOUT_MS = 1500;

async function answers(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(endpoint, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/** One sentence when the local store is not there to work against; undefined when it is. */
export async function localStoreProblem(endpoint: string, tableName: string): Promise<string | undefined> {
  const missing = `No DynamoDB answers at ${endpoint}: start the local runtime first (npm start); with DATA_DIR set as npm start had it, this command finds its ports itself.`;
  if (!(await answers(endpoint))) return missing;
  const client = new DynamoDBClient(endpointOverride(endpoint, 1));
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return undefined;
  } catch (err) {
    if (err instanceof ResourceNotFoundException)
      return `The DynamoDB at ${endpoint} has no table ${tableName}: npm start creates it (or set TABLE_NAME to the one you use).`;
    return missing;
  } finally {
    client.destroy();
  }
}
