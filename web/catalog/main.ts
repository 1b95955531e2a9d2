/**
 * The catalog page: featured, trending, new and top-rated lists, search with the API's sorts and
 * categories with their counts, a template's details with its versions and reviews, and install
 * and review for the signed-in key holder. Every marketplace route needs a key, so the page asks
 * for one first and keeps it for the tab's session only. The address's fragment holds where the
 * reader is (`#/?search=…`, `#/t/<slug>`), so back, forward and links work.
 */
import type { MarketplaceClient } from '../../client/marketplace-client.ts';
import type { CategoryCount, TemplateDetails, TemplateSort, TemplateSummary } from '../../client/types/index.ts';
import { clientFor, fromFragment, problem } from '../shared/api.ts';
import { announce, byId, h, show, when } from '../shared/dom.ts';
import { upgradeSections } from './upgrades.ts';

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
  if (!client) return signIn();
  const hash = window.location.hash;
  busy(true);
  try {
    if (hash.startsWith('#/t/')) await details(decodeURIComponent(hash.slice(4)));
    else await home(new URLSearchParams(hash.split('?')[1] ?? ''));
  } catch (error) {
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
          cards(featured.featured, 'featured'),
          h('h2', {}, 'Trending this week'),
          cards(featured.trending, 'trending'),
          h('h2', {}, 'New'),
          cards(featured.new, 'new'),
          h('h2', {}, 'Top rated'),
          cards(featured.top_rated, 'top-rated'),
        ]
      : null,
  );
}

function cards(templates: readonly TemplateSummary[], id: string): HTMLElement {
  if (templates.length === 0) return h('p', { id, class: 'muted' }, 'None yet.');
  return h(
    'ul',
    { id, class: 'cards' },
    templates.map((t) =>
      h(
        'li',
        {},
        h('a', { href: `#/t/${encodeURIComponent(t.slug)}` }, t.name),
        h(
          'div',
          { class: 'muted' },
          `${t.category} · v${t.version} · by ${t.author.name}${t.author.verified ? ' (verified)' : ''}`,
        ),
        h('div', {}, t.description),
        h(
          'div',
          { class: 'muted' },
          `${t.stats.installs} installs · ${stars(t.stats.rating_avg, t.stats.rating_count)}`,
        ),
      ),
    ),
  );
}

const stars = (avg: number, count: number): string =>
  count === 0 ? 'no reviews' : `rated ${avg.toFixed(1)} of 5 (${count} review${count === 1 ? '' : 's'})`;

async function details(idOrSlug: string): Promise<void> {
  const c = client as MarketplaceClient;
  const t: TemplateDetails = await c.templates.get(idOrSlug);
  const rating = h(
    'select',
    { id: 'review-rating', name: 'rating' },
    [5, 4, 3, 2, 1].map((n) => h('option', { value: n }, `${n} of 5`)),
  );
  const title = h('input', { id: 'review-title', name: 'title', required: true, maxlength: 100 });
  const comment = h('textarea', { id: 'review-comment', name: 'comment', rows: 3, maxlength: 2000 });
  const upgrades = h('section', { id: 'upgrades' });
  show(
    main,
    h('p', {}, h('a', { href: '#/' }, '← All templates')),
    h('h2', { id: 'template-name' }, t.name),
    h('p', {}, t.description),
    h(
      'p',
      { class: 'muted' },
      `${t.category} · v${t.version} · by ${t.author.name}${t.author.verified ? ' (verified)' : ''} · ${t.stats.installs} installs · ${stars(t.stats.rating_avg, t.stats.rating_count)}`,
    ),
    t.deprecated ? h('p', { class: 'notice' }, `Deprecated: ${t.deprecated}`) : null,
    h(
      'div',
      { class: 'row' },
      h(
        'button',
        {
          type: 'button',
          id: 'install',
          onclick: async () => {
            try {
              const installed = await c.templates.install(t.id);
              announce(`Installed ${t.name} v${installed.version} in your workspace.`);
            } catch (error) {
              announce(problem(error), 'error');
            }
          },
        },
        'Install',
      ),
    ),
    h('h3', {}, 'Versions'),
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { id: 'versions' },
        h(
          'thead',
          {},
          h('tr', {}, h('th', {}, 'Version'), h('th', {}, 'Published'), h('th', {}, 'Changes'), h('th', {}, 'State')),
        ),
        h(
          'tbody',
          {},
          t.versions.map((v) =>
            h(
              'tr',
              {},
              h('td', {}, v.version),
              h('td', {}, when(v.created_at)),
              h('td', {}, v.changelog || '—'),
              h(
                'td',
                {},
                v.yanked_at ? 'yanked' : v.deprecated ? `deprecated: ${v.deprecated.message}` : 'current or kept',
              ),
            ),
          ),
        ),
      ),
    ),
    upgrades,
    h('h3', {}, 'Reviews'),
    t.reviews.length === 0
      ? h('p', { id: 'reviews', class: 'muted' }, 'No reviews yet.')
      : h(
          'ul',
          { id: 'reviews' },
          t.reviews.map((r) =>
            h(
              'li',
              {},
              h('strong', {}, `${r.rating} of 5 — ${r.title}`),
              ` by ${r.user.name}, ${when(r.created_at)}`,
              r.comment ? h('div', {}, r.comment) : null,
            ),
          ),
        ),
    h('h3', {}, 'Write a review'),
    h(
      'form',
      {
        class: 'row',
        id: 'review-form',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          try {
            await c.reviews.create(t.id, { rating: Number(rating.value), title: title.value, comment: comment.value });
            announce('Thank you: your review is saved.');
            await details(idOrSlug);
          } catch (error) {
            announce(problem(error), 'error');
          }
        },
      },
      h('label', { for: 'review-rating' }, 'Rating', rating),
      h('label', { for: 'review-title' }, 'Title', title),
      h('label', { for: 'review-comment' }, 'Comment', comment),
      h('button', { type: 'submit' }, 'Post review'),
    ),
  );
  document.title = `${t.name} — Template catalog`;
  await upgradeSections(c, t, upgrades);
}

void start();
