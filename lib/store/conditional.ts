/**
 * One conditional write whose failed condition is an answer, not an error: `ok`, or the item as
 * it was when the condition failed (asked for with ReturnValuesOnConditionCheckFailure, so no
 * second read). Any other error is thrown.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DeleteCommandInput, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, tableName } from './client.ts';

export type ConditionalResult =
  | { ok: true; attributes?: Record<string, unknown> }
  | { ok: false; current: Record<string, unknown> | undefined };

type Input<T> = Omit<T, 'TableName' | 'ReturnValuesOnConditionCheckFailure'>;

export const conditionalUpdate = (input: Input<UpdateCommandInput>): Promise<ConditionalResult> =>
  conditional(new UpdateCommand({ ...input, TableName: tableName(), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));

export const conditionalDelete = (input: Input<DeleteCommandInput>): Promise<ConditionalResult> =>
  conditional(new DeleteCommand({ ...input, TableName: tableName(), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));

async function conditional(command: UpdateCommand | DeleteCommand): Promise<ConditionalResult> {
  try {
    const { Attributes } = await db().send(command as UpdateCommand);
    return Attributes ? { ok: true, attributes: Attributes } : { ok: true };
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    return { ok: false, current: err.Item ? unmarshall(err.Item) : undefined };
  }
}
