/**
 * A route's answer committed with its change (lib/http/idempotency.ts, CommitAlong) where the
 * change is no transaction of its own: one write, or none in this table. In a file of their own,
 * so what only reads or runs transactions does not carry the single-write commands.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { InvariantError } from '../core/errors.ts';
import { db } from './client.ts';
import { alongLost, alongRefused, type TransactItem, transactWrite } from './transact.ts';

/**
 * A change that is one write (a Put, Update or Delete), with the items a CommitAlong made for it:
 * without any, the plain call it always was; with them, one transaction, so the change commits
 * only with them. false when the write's own condition failed (nothing written).
 */
export async function writeWithAlong(write: TransactItem, along: TransactItem[] = []): Promise<boolean> {
  if (along.length > 0) {
    const result = await transactWrite([write, ...along]);
    if (result.ok) return true;
    if (alongRefused(result.reasons, along.length)) throw alongLost();
    if (result.reasons[0] === 'ConditionalCheckFailed') return false;
    throw new InvariantError(`write cancelled: ${result.reasons.join(', ')}`);
  }
  try {
    if (write.Put) await db().send(new PutCommand(write.Put));
    else if (write.Update) await db().send(new UpdateCommand(write.Update));
    else if (write.Delete) await db().send(new DeleteCommand(write.Delete));
    else throw new InvariantError('writeWithAlong takes a Put, an Update or a Delete');
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/**
 * The items along alone, for an answer whose change is not a write of this table (a queue message
 * sent) or is none (nothing to replay): the answer still commits before it is given, so a retry
 * after a lost reply gets it rather than acting again.
 */
export async function commitAlongAlone(along: TransactItem[] = []): Promise<void> {
  if (along.length === 0) return;
  const result = await transactWrite(along);
  if (!result.ok) throw alongLost();
}
