import type { Caller } from '../../core/caller.ts';
import { AppError, InvariantError } from '../../core/errors.ts';
import { newUuid } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import { alongLost, alongRefused, type CommitAlong } from '../../store/transact.ts';
import type { PublishInput } from '../request-schemas.ts';
import { categoryCountChanges } from './category-counts.ts';
import { gateCheck, protectSlug, quarantineOf } from './gate.ts';
import { insertTemplate } from './store.ts';
import { authorOf, newTemplateItem, toTemplate, versionEntryOf } from './template-item.ts';
import { versionItem } from './versions.ts';

/** Slugs a path segment already means: `/templates/featured` is the featured lists. */
const RESERVED_SLUGS = new Set(['featured']);

const slugTaken = () => new AppError('slug_taken', 'Another template already uses this slug.');

/**
 * Template, slug claim, first version and category counter in one transaction: the slug claim's
 * condition makes the slug unique under concurrent publishes, and a retried publish (same body
 * after a timeout) meets its own claim and gets 409 instead of a second template; a retry under
 * the same Idempotency-Key gets the template, whose answer `along` committed with it. The publish
 * gate looks first (gate.ts): a finding stores the template hidden, in quarantine.
 */
export async function publishTemplate(
  input: PublishInput,
  caller: Caller,
  along?: CommitAlong<ReturnType<typeof toTemplate>>,
) {
  if (RESERVED_SLUGS.has(input.slug)) throw slugTaken();
  const now = nowIso();
  const held = quarantineOf(await gateCheck(input, caller), now);
  const item = newTemplateItem(input, authorOf(caller), newUuid(), now, held);
  const version = {
    ...versionItem(item.id, input.version, '', input.schema, now),
    ...(held ? { quarantine: held } : {}),
  };
  const template = toTemplate(item, [versionEntryOf(version)]);
  const alongItems = along?.(template) ?? [];
  const result = await insertTemplate(item, version, caller.userId, [
    ...categoryCountChanges(undefined, item),
    ...(caller.verified && !held ? [protectSlug(caller.userId, item.slug)] : []),
    ...alongItems,
  ]);
  if (!result.ok) {
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    if (result.reasons[0] === 'ConditionalCheckFailed') throw slugTaken();
    throw new InvariantError(`publish transaction cancelled: ${result.reasons.join(',')}`);
  }
  return template;
}
