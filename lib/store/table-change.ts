/**
 * One change to the table as its stream reports it: the fields the stream consumers read, so the
 * relay and the search indexer take Lambda's stream records and the local poller's alike without
 * knowing either runtime.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

export interface TableChange {
  eventName?: string;
  dynamodb?: { NewImage?: unknown; OldImage?: unknown; SequenceNumber?: string };
}

/** A stream image (DynamoDB JSON) as a plain item; undefined when the record carries none. */
export const itemOfImage = (raw: unknown): Record<string, unknown> | undefined =>
  raw ? unmarshall(raw as Record<string, AttributeValue>) : undefined;

/** The position to report for a failed change: the stream hands the batch over again from there. */
export const sequenceOf = (change: TableChange): string => change.dynamodb?.SequenceNumber ?? '';
