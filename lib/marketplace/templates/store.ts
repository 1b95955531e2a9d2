/**
 * Reads of template items shared by the rooms that list templates (lists, trending, featured,
 * installs, search): the items behind a page of index keys, in the page's order.
 */
import { batchGet, keyString } from '../../store/batch.ts';
import { keys } from '../../store/keys.ts';
import type { TemplateItem } from './template-item.ts';

/** Template items for `ids` in the same order, leaving out the missing and those `keep` rejects. */
export async function templatesInOrder(ids: readonly string[], keep: (t: TemplateItem) => boolean = () => true): Promise<TemplateItem[]> {
  const found = await batchGet(ids.map(keys.template));
  return ids.map((id) => found.get(keyString(keys.template(id))) as TemplateItem | undefined).filter((t): t is TemplateItem => t !== undefined && keep(t));
}
