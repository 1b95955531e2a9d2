/**
 * PUT / DELETE /templates/:id/featured (operators only). Idempotent: featuring a featured template
 * keeps its original date. A featured template appears in the featured list only while public;
 * the flag itself survives a detour through private.
 */
import type { Caller } from '../../core/caller.ts';
import { forbidden } from '../../core/errors.ts';
import { nowIso } from '../../core/time.ts';
import { listPartitions } from '../../store/keys.ts';
import { optimistic, RETRY } from '../../store/optimistic.ts';
import { alongLost, alongRefused, type CommitAlong } from '../../store/transact.ts';
import { buildUpdate } from '../../store/update-expression.ts';
import { visibleTemplate } from './find-template.ts';
import { commitTemplateUpdate, updateTemplateIf } from './store.ts';
import type { TemplateItem } from './template-item.ts';

/** `along`: items committed with the change (the request's Idempotency-Key answer); nothing to commit when the flag is already so. */
export async function setFeatured(
  idOrSlug: string,
  featured: boolean,
  caller: Caller,
  along?: CommitAlong<void>,
): Promise<void> {
  if (!caller.operator) throw forbidden('Only operators may feature templates.');
  await optimistic(async () => {
    const before = await visibleTemplate(idOrSlug, caller, true);
    if (Boolean(before.featured) === featured) return undefined;
    const after: TemplateItem = {
      ...before,
      featured,
      ...(featured ? { featured_at: nowIso() } : { featured_at: undefined }),
    };
    const partitions = listPartitions(after);
    const update = buildUpdate(
      {
        set: { featured, featured_at: after.featured_at, ...partitions.set },
        add: { rev: 1 },
        remove: [...partitions.remove, ...(featured ? [] : ['featured_at'])],
      },
      { condition: '#rev = :rev', names: { '#rev': 'rev' }, values: { ':rev': before.rev } },
    );
    if (!along) return (await updateTemplateIf(before.id, update)) ? undefined : RETRY;
    const alongItems = along();
    const result = await commitTemplateUpdate(before.id, update, alongItems);
    if (result.ok) return undefined;
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    return RETRY;
  });
}
