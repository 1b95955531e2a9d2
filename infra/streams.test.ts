/**
 * The table's stream, as the synthesized templates read it (every stack, nested ones included): at
 * most two readers per stream, which is what DynamoDB Streams advises per shard (a third risks
 * throttled GetRecords, delaying every reader), and every reader with a failure path, so a batch
 * that keeps failing is kept in a queue (whose alarm infra/queues.test.ts holds) instead of being
 * dropped. The push worker is no third reader: the relay hands it new feed slots
 * (lib/events/push-hand-off.ts), and its own failure path is its asynchronous invoke config's.
 */
import { Duration } from 'aws-cdk-lib';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { describe, expect, it } from 'vitest';
import { functionIdOf } from './lambda-function.ts';
import { type Synthesized, synthApp } from './test-synth.ts';

/** At most this many event source mappings per stream. */
const MAX_READERS = 2;

/** Which stream a mapping reads: the table's StreamArn, through an export or a nested stack's parameter. */
function streamOf(arn: unknown): string | undefined {
  const text = JSON.stringify(arn);
  return /StreamArn/.test(text)
    ? text.replace(/^.*?([A-Za-z0-9]*Table[A-Za-z0-9]*?)(StreamArn|").*$/, '$1')
    : undefined;
}

/** What is wrong with the stream readers: a stream with too many, a reader without an on-failure destination. */
function streamReaderProblems(synth: Synthesized): string[] {
  const queueExports = new Set(
    synth.outputs
      .filter((o) => o.Export && JSON.stringify(o.Value).includes('"Arn"'))
      .flatMap((o) => {
        const [id] = (o.Value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'] ?? [];
        const queue = synth.resources.find((r) => r.stack === o.stack && r.id === id && r.Type === 'AWS::SQS::Queue');
        return queue ? [o.Export!.Name] : [];
      }),
  );
  const problems: string[] = [];
  const readers = new Map<string, string[]>();
  for (const mapping of synth.resources.filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping')) {
    const stream = streamOf(mapping.Properties['EventSourceArn']);
    if (!stream) continue;
    const name = `${mapping.stack}/${mapping.id}`;
    readers.set(stream, [...(readers.get(stream) ?? []), name]);
    const destination = (mapping.Properties['DestinationConfig'] as { OnFailure?: { Destination?: unknown } })
      ?.OnFailure?.Destination as { 'Fn::ImportValue'?: string } | undefined;
    if (!destination) problems.push(`${name}: no on-failure destination`);
    else if (!queueExports.has(destination['Fn::ImportValue'] ?? ''))
      problems.push(`${name}: its on-failure destination is not one of the app's queues`);
  }
  for (const [stream, names] of readers)
    if (names.length > MAX_READERS) problems.push(`${stream}: ${names.length} readers (${names.join(', ')})`);
  return problems;
}

describe('the table stream’s readers', () => {
  it(`has at most ${MAX_READERS} readers of the table's stream, the relay and the search indexer, each with a failure queue`, () => {
    const synth = synthApp({ stage: 'dev' });
    expect(streamReaderProblems(synth)).toEqual([]);
    const readers = synth.resources
      .filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping' && streamOf(r.Properties['EventSourceArn']))
      .map((r) => JSON.stringify(r.Properties['FunctionName']));
    expect(readers).toHaveLength(2);
    expect(readers.some((f) => f.includes(functionIdOf('relay')))).toBe(true);
    expect(readers.some((f) => f.includes(functionIdOf('searchIndexer')))).toBe(true);
  }, 120_000);

  it('finds a third reader, and a reader without a failure path', () => {
    const synth = synthApp({
      stage: 'dev',
      extend: ({ state, workers }) => {
        const trendRollover = workers.functions.find((f) => f.name === 'trendRollover')!.fn;
        trendRollover.addEventSource(
          new DynamoEventSource(state.table, {
            startingPosition: StartingPosition.LATEST,
            retryAttempts: 1,
            maxRecordAge: Duration.minutes(1),
          }),
        );
      },
    });
    const problems = streamReaderProblems(synth);
    expect(problems).toHaveLength(2);
    expect(problems).toContainEqual(expect.stringMatching(/TrendRollover.*: no on-failure destination/));
    expect(problems).toContainEqual(expect.stringMatching(/: 3 readers \(/));
  }, 120_000);
});
