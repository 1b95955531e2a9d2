import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Caller } from '../http/caller.ts';
import { notFound } from '../http/errors.ts';
import { db, tableName } from '../store/client.ts';
import { keys } from '../store/keys.ts';
import type { DeclaredVariable } from './variables.ts';

/**
 * The template a contract is made from, read from the stored template item (CONTRIBUTING.md
 * layout; lib/marketplace writes it). A private template is visible to its author only; for
 * everyone else it does not exist.
 */
export interface TemplateForContract {
  id: string;
  version: string;
  variables: DeclaredVariable[];
  checks: TemplateCheck[];
}

export interface TemplateCheck {
  id: string;
  type: string;
  description?: string;
  config: Record<string, unknown>;
}

export async function templateForContract(caller: Caller, templateId: string): Promise<TemplateForContract> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.template(templateId) }));
  const author = Item?.['author'] as { id?: string } | undefined;
  if (!Item || (Item['visibility'] === 'private' && author?.id !== caller.userId)) throw notFound('Template');
  const schema = (Item['schema'] ?? {}) as { variables?: DeclaredVariable[]; checks?: TemplateCheck[] };
  return { id: templateId, version: String(Item['version']), variables: schema.variables ?? [], checks: schema.checks ?? [] };
}
