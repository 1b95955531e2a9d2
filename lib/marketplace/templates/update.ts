/**
 * PATCH /templates/:id (author only). The template's list partitions and the category counters
 * change in one transaction, conditional on the revision read, so lists and counts stay exact
 * even when a feature toggle or another PATCH races this one (the loser reads again and redoes).
 * A change of visibility moves the template's whole search index, so a template takes
 * VISIBILITY_CHANGE_LIMITS of them per window (429 beyond); other fields are not limited here.
 */
import type { Caller } from '../../core/caller.ts';
import { validationError } from '../../core/errors.ts';
import { nowIso } from '../../core/time.ts';
import { takeVisibilityChangeSlot } from '../../limits/template-change-limits.ts';
import { listPartitions } from '../../store/keys.ts';
import { optimistic, RETRY } from '../../store/optimistic.ts';
import { alongLost, alongRefused, type CommitAlong } from '../../store/transact.ts';
import { buildUpdate } from '../../store/update-expression.ts';
import type { UpdateInput } from '../request-schemas.ts';
import { categoryCountChanges } from './category-counts.ts';
import { authoredTemplate } from './find-template.ts';
import { gateCheck } from './gate.ts';
import { commitTemplateUpdate } from './store.ts';
import { type TemplateItem, toTemplate } from './template-item.ts';
import { newestVersions } from './versions.ts';

export async function updateTemplate(
  idOrSlug: string,
  input: UpdateInput,
  caller: Caller,
  along?: CommitAlong<ReturnType<typeof toTemplate>>,
) {
  let counted = false;
  await refuseGateFindings(input, caller);
  return optimistic(async () => {
    const before = await authoredTemplate(idOrSlug, caller);
    if (!counted && input.visibility !== undefined && input.visibility !== before.visibility) {
      await takeVisibilityChangeSlot(before.id);
      counted = true;
    }
    const changes = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<
      Pick<TemplateItem, keyof UpdateInput>
    >;
    const after: TemplateItem = { ...before, ...changes, updated_at: nowIso(), rev: before.rev + 1 };
    const partitions = listPartitions(after);
    const update = buildUpdate(
      {
        set: { ...changes, updated_at: after.updated_at, ...partitions.set },
        add: { rev: 1 },
        remove: partitions.remove,
      },
      { condition: '#rev = :rev', names: { '#rev': 'rev' }, values: { ':rev': before.rev } },
    );
    // The answer is made before the commit, to commit with it (an update leaves the versions as they are).
    const answer = toTemplate(after, await newestVersions(after.id));
    const alongItems = along?.(answer) ?? [];
    const result = await commitTemplateUpdate(before.id, update, [
      ...categoryCountChanges(before, after),
      ...alongItems,
    ]);
    if (result.ok) return answer;
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    return RETRY;
  });
}

/**
 * New words of a template already listed pass the publish gate (gate.ts) too. They change the item in
 * place, so there is no copy to hold in quarantine: a finding refuses the change (400, with the
 * finding's path and reason, never the value) and the template stays as it was.
 */
async function refuseGateFindings(input: UpdateInput, caller: Caller): Promise<void> {
  if (input.name === undefined && input.description === undefined) return;
  const findings = await gateCheck(
    { name: input.name, description: input.description, schema: { variables: [], checks: [] } },
    caller,
  );
  if (findings.length > 0) {
    throw validationError(findings.map((f) => ({ path: f.path, message: `The publish gate: ${f.reason}` })));
  }
}
