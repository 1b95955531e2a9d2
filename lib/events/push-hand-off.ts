/**
 * The relay's hand-off to the push worker: the new feed slots of a stream batch (an event, whatever
 * its agent's webhook, or a gap marker), grouped by agent, sent to the push worker by one
 * asynchronous Lambda Invoke. So the table's stream has two readers, the relay and the search
 * indexer, where the push worker's own mapping made three (docs/events.md, "Push": the fan-out and
 * its cost).
 *
 * The Invoke is a signed request (lib/aws/signed-request.ts: the SDK's retries, clock-skew correction,
 * the grant guard), as `@aws-sdk/client-lambda` would send it byte for byte
 * (test/aws/hand-made-calls.test.ts), without the client's bytes in the relay's bundle. Lambda
 * answers 202 once the event is queued; it then runs the worker, retries a failed run
 * (`PUSH.handOffRetryAttempts`) and keeps what still fails in the push failure queue (infra).
 *
 * The slots' stream images travel with the agent ids while the payload stays under
 * `PUSH.handOffMaxBytes`: with them a caught-up connection needs no read of the feed
 * (feed/reader.ts, readFilled). Past it only the ids travel, and the worker reads the feed from each
 * connection's cursor, which sends the same events.
 */
import { emulatorCredentials } from '../aws/emulator-credentials.ts';
import { errorCodeOf, signedRequest } from '../aws/signed-request.ts';
import { setting } from '../core/environment.ts';
import { PUSH } from '../core/settings.ts';
import { errorFields, log } from '../observability/log.ts';
import { itemOfImage, sequenceOf, type TableChange } from '../store/table-change.ts';
import { PUSH_FILTER_PATTERN, type PushHandOff } from './push/slots.ts';
import { matchesFilter } from './stream-filter.ts';

/** The hand-off of these records and the earliest of them, or undefined when none is a new feed slot. */
export function handOffOf(records: readonly TableChange[]): { handOff: PushHandOff; first: TableChange } | undefined {
  const imagesOf = new Map<string, unknown[]>();
  let first: TableChange | undefined;
  for (const record of records) {
    if (!matchesFilter(record, PUSH_FILTER_PATTERN)) continue;
    const image = record.dynamodb?.NewImage;
    const agentId = itemOfImage(image)?.['agent_id'];
    if (typeof agentId !== 'string') continue;
    first ??= record;
    imagesOf.set(agentId, [...(imagesOf.get(agentId) ?? []), image]);
  }
  if (!first) return undefined;
  const withImages: PushHandOff = { agents: [...imagesOf].map(([agent_id, images]) => ({ agent_id, images })) };
  if (Buffer.byteLength(JSON.stringify(withImages)) <= PUSH.handOffMaxBytes) return { handOff: withImages, first };
  return { handOff: { agents: [...imagesOf.keys()].map((agent_id) => ({ agent_id })) }, first };
}

/**
 * Invokes the push worker with the batch's new feed slots. Answers the sequence number to report as
 * failed (the batch's earliest slot: the stream hands the batch over again from there) when Lambda
 * did not take the invocation after the transport's retries; none when it did, when the batch holds
 * no slot, or when no push worker is named (PUSH_FUNCTION_NAME: a runtime without the channel).
 */
export async function handOffToPush(records: readonly TableChange[]): Promise<string[]> {
  const functionName = setting('PUSH_FUNCTION_NAME');
  const made = functionName ? handOffOf(records) : undefined;
  if (!functionName || !made) return [];
  const region = setting('AWS_REGION') ?? 'us-east-1';
  const endpoint = setting('LAMBDA_ENDPOINT') ?? `https://lambda.${region}.amazonaws.com`;
  try {
    const answer = await signedRequest({
      service: 'lambda',
      operation: 'Invoke',
      region,
      method: 'POST',
      url: new URL(
        `${endpoint.replace(/\/$/, '')}/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`,
      ),
      headers: { 'x-amz-invocation-type': 'Event', 'content-type': 'application/octet-stream' },
      body: JSON.stringify(made.handOff),
      credentials: emulatorCredentials(),
    });
    if (answer.status === 202) return [];
    throw new Error(`Lambda Invoke: ${answer.status} ${errorCodeOf(answer)}`);
  } catch (err) {
    // Retried with the batch; meanwhile a client's sync (at connect and every PUSH.keepAliveSeconds) sends the events.
    log.error('relay: the hand-off to the push worker failed', {
      sequence: sequenceOf(made.first),
      ...errorFields(err),
    });
    return [sequenceOf(made.first)];
  }
}
