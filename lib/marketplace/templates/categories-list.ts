import { CATEGORIES } from './categories.ts';
import { readCategoryCounts } from './store.ts';

/** GET /categories: every category of the fixed list, with its number of public templates. */
export async function listCategories() {
  const counts = await readCategoryCounts();
  return { data: CATEGORIES.map((name) => ({ name, count: counts[name] })) };
}
