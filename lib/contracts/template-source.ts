/**
 * The template a contract is made from, read from the stored template item (CONTRIBUTING.md
 * layout; lib/marketplace writes it). A private template is visible to its author only; for
 * everyone else it does not exist.
 */
import type { Caller } from '../core/caller.ts';
import { notFound } from '../core/errors.ts';
import { refuseYanked } from '../marketplace/lifecycle/yanked.ts';
import { canSee, findTemplate } from '../marketplace/templates/find-template.ts';
import type { DeclaredVariable, TemplateCheck } from '../marketplace/templates/variables.ts';

export interface TemplateForContract {
  id: string;
  version: string;
  /** The seller of every contract made from it: publishing a template is consent to contracts on it. */
  authorId: string;
  variables: DeclaredVariable[];
  checks: TemplateCheck[];
}

export async function templateForContract(
  caller: Caller,
  templateIdOrSlug: string,
  consistent = false,
): Promise<TemplateForContract> {
  const item = await findTemplate(templateIdOrSlug, consistent);
  if (!item || !canSee(item, caller)) throw notFound('Template');
  refuseYanked(item);
  const schema = item.schema as { variables?: DeclaredVariable[]; checks?: TemplateCheck[] };
  return {
    id: item.id,
    version: item.version,
    authorId: item.author.id,
    variables: schema.variables ?? [],
    checks: schema.checks ?? [],
  };
}
