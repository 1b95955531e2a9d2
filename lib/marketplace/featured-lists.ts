import { isListed, templateIdOf, templateLists } from '../store/keys.ts';
import { INDEXES } from '../store/table.ts';
import { templateListPage, templatesInOrder } from './templates/store.ts';
import { type TemplateItem, toSummary, UNRATED_RATING_KEY } from './templates/template-item.ts';
import { trendingTemplates } from './trending/trending.ts';

const SIZE = 10;

/**
 * GET /templates/featured: four short lists, each the head of its own sparse index, so the cost
 * is about 40 index keys and 40 item reads whatever the catalog holds. top_rated leaves out
 * templates nobody has rated yet.
 */
export async function featuredLists(now = Date.now()) {
  const [featured, recent, rated, trending] = await Promise.all([
    templateListPage(INDEXES.featured, templateLists.featured, { skip: 0, limit: SIZE }),
    templateListPage(INDEXES.allByRecent, templateLists.all, { skip: 0, limit: SIZE }),
    templateListPage(INDEXES.allByRating, templateLists.all, {
      skip: 0,
      limit: SIZE,
      sortKeyAbove: UNRATED_RATING_KEY,
    }),
    trendingTemplates(now, SIZE),
  ]);
  const ids = (page: { keys: { PK: string; SK: string }[] }) => page.keys.map(templateIdOf);
  const items = await templatesInOrder([...ids(featured), ...ids(recent), ...ids(rated)], isListed);
  const byId = new Map(items.map((t) => [t.id, t]));
  const pick = (list: string[]) =>
    list
      .map((id) => byId.get(id))
      .filter((t): t is TemplateItem => t !== undefined)
      .map(toSummary);
  return {
    featured: pick(ids(featured)),
    trending: trending.map(toSummary),
    new: pick(ids(recent)),
    top_rated: pick(ids(rated)),
  };
}
