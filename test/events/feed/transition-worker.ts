/**
 * One "handler instance" for the feed-integrity test: a separate process with its own DynamoDB
 * client, its own id generator and a clock skewed by SKEW_MS, running contract transitions through
 * the real route handlers. It says "ready" once warm; then each line on stdin is one wave's jobs,
 * which it runs all at once, answering with one JSON line (status, and the body of any non-200).
 * It serves every wave of a test, as a warm Lambda instance serves many requests, and ends with stdin.
 * Its warnings and errors go to the test's stderr, so a 500 shows its cause.
 *
 * Input (argv[2]): {"skewMs", "caller"}; a wave (a stdin line): [{"route", "contractId", "body"?}].
 */
import { createInterface } from 'node:readline';

const input = JSON.parse(process.argv[2]!) as { skewMs: number; caller: Record<string, unknown> };
process.env['LOG_LEVEL'] = 'warn';
const realNow = Date.now.bind(Date);
Date.now = () => realNow() + input.skewMs;

const { invoke } = await import('../../support/lambda.ts');
const { db, tableName } = await import('../../../lib/store/client.ts');
const { DescribeTableCommand } = await import('@aws-sdk/client-dynamodb');
await db().send(new DescribeTableCommand({ TableName: tableName() })); // warm the client before the race
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const jobs = JSON.parse(line) as Array<{ route: string; contractId: string; body?: unknown }>;
  const results = await Promise.all(
    jobs.map(async (job) => {
      const { status, body } = await invoke(job.route, {
        caller: input.caller as never,
        params: { id: job.contractId },
        ...(job.body ? { body: job.body } : {}),
      });
      return status === 200 ? { status } : { status, body };
    }),
  );
  process.stdout.write(`${JSON.stringify(results)}\n`);
}
process.exit(0);
