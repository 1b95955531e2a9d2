/**
 * `:id` in a path is a template UUID or its slug. Whatever is neither, or names a template the
 * caller may not see (someone else's private one), is the same 404: no existence leaks.
 */
import type { Caller } from '../../core/caller.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import { isTemplateIdOrSlug, UUID_PATTERN } from '../../core/ids.ts';
import { readTemplate, templateIdOfSlug } from './store.ts';
import type { TemplateItem } from './template-item.ts';

export async function findTemplate(idOrSlug: string, consistent = false): Promise<TemplateItem | undefined> {
  let id: string | undefined;
  if (UUID_PATTERN.test(idOrSlug)) id = idOrSlug.toLowerCase();
  else if (isTemplateIdOrSlug(idOrSlug)) {
    id = await templateIdOfSlug(idOrSlug, consistent);
  }
  return id ? readTemplate(id, consistent) : undefined;
}

export const isAuthor = (item: TemplateItem, caller: Caller): boolean => item.author.id === caller.userId;

/**
 * Private templates exist for their author only; public and unlisted ones for anyone with the id,
 * unless an operator hid them: then for their author and operators only.
 */
export const canSee = (item: TemplateItem, caller: Caller): boolean =>
  isAuthor(item, caller) || (item.visibility !== 'private' && (item.hidden !== true || caller.operator));

export async function visibleTemplate(idOrSlug: string, caller: Caller, consistent = false): Promise<TemplateItem> {
  const item = await findTemplate(idOrSlug, consistent);
  if (!item || !canSee(item, caller)) throw notFound('Template');
  return item;
}

/** For author-only changes: 404 when the caller cannot see it, 403 when they can but did not write it. */
export async function authoredTemplate(idOrSlug: string, caller: Caller): Promise<TemplateItem> {
  const item = await visibleTemplate(idOrSlug, caller, true);
  if (!isAuthor(item, caller)) throw forbidden('Only the author of this template may change it.');
  return item;
}
