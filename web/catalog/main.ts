/**
 * The catalog page: featured, trending, new and top-rated lists, search with the API's sorts and
 * categories with their counts, and a template's page (./template/: what a chooser decides from,
 * with install and review in place). Every marketplace route needs a key, so the page asks
 * for one first and keeps it for the tab's session only. The address's fragment holds where the
 * reader is (`#/?search=…`, `#/t/<slug>`), so back, forward and links work.
 */
import type { MarketplaceClient } from '../../client/marketplace-client.ts';
import type { CategoryCount, TemplateSort } from '../../client/types/index.ts';
import { clientFor, fromFragment, problem } from '../shared/api.ts';
import { announce, byId, h, show } from '../shared/dom.ts';
import { cards } from './cards.ts';
import { templatePage } from './template/index.ts';

const KEY_STORAGE = 'catalog.key';
const PAGE_SIZE = 12;
const SORTS: Record<TemplateSort, string> = { popular: 'Most installed', recent: 'Newest', rating: 'Best rated' };

let client: MarketplaceClient | undefined;
const main = byId('main');

function busy(on: boolean): void {
  main.setAttribute('aria-busy', String(on));
}

async function start(): Promise<void> {
  const kept = fromFragment(['key'], KEY_STORAGE);
  if (kept?.['key']) client = await clientFor(kept['key']);
  window.addEventListener('hashchange', () => void route());
  await route();
}

async function route(): Promise<void> {
  showAccount();
  // A message belongs to the view it was said on: a new view starts without the last one's.
  show(byId('status'));
  if (!client) return signIn();
  const hash = window.location.hash;
  busy(true);
  try {
    if (hash.startsWith('#/t/')) await templatePage(main, client, decodeURIComponent(hash.slice(4)));
    else await home(new URLSearchParams(hash.split('?')[1] ?? ''));
    window.scrollTo(0, 0);
  } catch (error) {
    // The view says it could not be drawn (never the previous view's content, never "Loading…").
    show(main, h('h2', {}, 'This page could not be loaded'), h('p', {}, h('a', { href: '#/' }, 'Back to the catalog')));
    announce(problem(error), 'error');
  } finally {
    busy(false);
  }
}

function showAccount(): void {
  show(
    byId('account'),
    client
      ? h(
          'button',
          {
            type: 'button',
            onclick: () => {
              sessionStorage.removeItem(KEY_STORAGE);
              client = undefined;
              void route();
            },
          },
          'Sign out',
        )
      : null,
  );
}

function signIn(): void {
  const input = h('input', { id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off', required: true });
  const form = h(
    'form',
    {
      class: 'row',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const candidate = await clientFor(input.value.trim());
        try {
          await candidate.categories.list();
          sessionStorage.setItem(KEY_STORAGE, JSON.stringify({ key: input.value.trim() }));
          client = candidate;
          announce('Signed in.');
          await route();
        } catch (error) {
          announce(problem(error), 'error');
        }
      },
    },
    h('label', { for: 'api-key' }, 'API key', input),
    h('button', { type: 'submit' }, 'Sign in'),
  );
  show(
    main,
    h('h2', {}, 'Sign in'),
    h('p', {}, 'The catalog is read with an API key; it stays in this tab only.'),
    form,
  );
  busy(false);
}

async function home(params: URLSearchParams): Promise<void> {
  const c = client as MarketplaceClient;
  const search = params.get('search') ?? '';
  const sort = (params.get('sort') as TemplateSort | null) ?? 'popular';
  const category = params.get('category') ?? '';
  const offset = Number(params.get('offset') ?? '0') || 0;
  const [categories, page, featured] = await Promise.all([
    c.categories.list(),
    c.templates.list({
      ...(search ? { search } : {}),
      ...(category ? { category: category as CategoryCount['name'] } : {}),
      sort,
      limit: PAGE_SIZE,
      offset,
    }),
    search || category || offset ? undefined : c.templates.featured(),
  ]);
  const go = (next: Record<string, string | number>) => {
    const merged = new URLSearchParams({ search, sort, category, offset: '0', ...next } as Record<string, string>);
    for (const [k, v] of [...merged]) if (v === '' || v === '0') merged.delete(k);
    window.location.hash = `#/?${merged}`;
  };
  const searchInput = h('input', { id: 'search', name: 'search', type: 'search', value: search });
  const sortSelect = h(
    'select',
    { id: 'sort', name: 'sort' },
    Object.entries(SORTS).map(([value, label]) => h('option', { value, selected: value === sort }, label)),
  );
  const categorySelect = h(
    'select',
    { id: 'category', name: 'category' },
    h('option', { value: '' }, 'All categories'),
    categories.data.map((cat) =>
      h('option', { value: cat.name, selected: cat.name === category }, `${cat.name} (${cat.count})`),
    ),
  );
  const form = h(
    'form',
    {
      class: 'row',
      role: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        go({ search: searchInput.value.trim(), sort: sortSelect.value, category: categorySelect.value });
      },
    },
    h('label', { for: 'search' }, 'Search', searchInput),
    h('label', { for: 'sort' }, 'Sort', sortSelect),
    h('label', { for: 'category' }, 'Category', categorySelect),
    h('button', { type: 'submit' }, 'Search'),
  );
  const { total, has_more } = page.pagination;
  show(
    main,
    h('h2', {}, 'Browse'),
    form,
    h(
      'p',
      { id: 'result-count', class: 'muted' },
      `${total}${page.pagination.total_exact === false ? ' or fewer' : ''} template${total === 1 ? '' : 's'}`,
      search ? ` matching “${search}”` : '',
      category ? ` in ${category}` : '',
      `, ${SORTS[sort].toLowerCase()} first.`,
    ),
    cards(page.data, 'results'),
    h(
      'nav',
      { class: 'row', 'aria-label': 'Pages' },
      offset > 0
        ? h('button', { type: 'button', onclick: () => go({ offset: Math.max(0, offset - PAGE_SIZE) }) }, '← Previous')
        : null,
      has_more ? h('button', { type: 'button', onclick: () => go({ offset: offset + PAGE_SIZE }) }, 'Next →') : null,
    ),
    featured
      ? [
          h('h2', {}, 'Featured'),
          cards(featured.featured, 'featured', 'Nothing featured yet: operators feature templates.'),
          h('h2', {}, 'Trending this week'),
          cards(featured.trending, 'trending', 'No installs this week yet.'),
          h('h2', {}, 'New'),
          cards(featured.new, 'new'),
          h('h2', {}, 'Top rated'),
          cards(featured.top_rated, 'top-rated', 'No reviews yet.'),
        ]
      : null,
  );
}

void start();
