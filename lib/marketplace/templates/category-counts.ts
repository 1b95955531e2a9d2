/**
 * Listed templates (public, not hidden, not every version yanked) per category, one counter item each, changed inside the same transaction as
 * every change that moves a template into or out of "public in category X". The all-public total
 * is their sum: 7 small reads, whatever the catalog size (`readCategoryCounts`, store.ts).
 */
import { tableName } from '../../store/client.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY, isListed } from '../../store/keys.ts';
import type { TransactItem } from '../../store/transact.ts';
import type { Category } from './categories.ts';

export function categoryCountChange(category: Category, delta: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.categoryCount(category),
      UpdateExpression: 'ADD #count :delta SET entity = :entity, #name = :name',
      ExpressionAttributeNames: { '#count': 'count', '#name': 'name' },
      ExpressionAttributeValues: { ':delta': delta, ':entity': ENTITY.categoryCount, ':name': category },
    },
  };
}

type ListedState = { visibility: string; hidden?: boolean; all_yanked?: boolean; category: Category };

/** The counter moves a change needs: -1 where the template stops counting, +1 where it starts. */
export function categoryCountChanges(before: ListedState | undefined, after: ListedState): TransactItem[] {
  const was = before && isListed(before) ? before.category : undefined;
  const is = isListed(after) ? after.category : undefined;
  if (was === is) return [];
  return [...(was ? [categoryCountChange(was, -1)] : []), ...(is ? [categoryCountChange(is, +1)] : [])];
}
