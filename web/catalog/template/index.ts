/**
 * A template's page, as a chooser decides from it: the counts and dates first, install, what it is
 * (rendered description), what a contract needs (inputs), how to use it (a copyable snippet), how
 * users rate it, its versions and its reviews. Each part is a section of its own file, drawn from
 * one context; a new part is one more entry in SECTIONS.
 */
import { ApiError } from '../../../client/errors.ts';
import type { MarketplaceClient } from '../../../client/marketplace-client.ts';
import type { Review } from '../../../client/types/index.ts';
import { apiBase } from '../../shared/api.ts';
import { h, show } from '../../shared/dom.ts';
import type { TemplatePageContext, TemplateSection } from './context.ts';
import { description } from './description.ts';
import { header } from './header.ts';
import { inputs } from './inputs.ts';
import { install } from './install.ts';
import { ratings } from './ratings.ts';
import { reviews } from './reviews.ts';
import { snippet } from './snippet.ts';
import { upgrades } from './upgrades.ts';
import { versions } from './versions.ts';

/** In page order. */
export const SECTIONS: TemplateSection[] = [
  header,
  install,
  description,
  inputs,
  snippet,
  ratings,
  versions,
  upgrades,
  reviews,
];

/** The reviews read for the distribution (the list's largest page). */
const REVIEWS_READ = 100;

async function read(client: MarketplaceClient, idOrSlug: string) {
  const template = await client.templates.get(idOrSlug);
  let list: readonly Review[] = template.reviews;
  let allReviews = template.reviews.length >= template.stats.rating_count;
  if (!allReviews) {
    const page = await client.reviews.list(template.id, { limit: REVIEWS_READ });
    list = page.data;
    allReviews = !page.pagination.has_more;
  }
  return { template, reviews: list, allReviews };
}

/** Draws the page of `idOrSlug` into `main`; a template that is not there (or not visible to the key) gets a not-found view. */
export async function templatePage(main: HTMLElement, client: MarketplaceClient, idOrSlug: string): Promise<void> {
  let data: Awaited<ReturnType<typeof read>>;
  try {
    data = await read(client, idOrSlug);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return notFound(main, idOrSlug);
    throw error;
  }
  const base = await apiBase();
  const draw = (fresh: Awaited<ReturnType<typeof read>>) => {
    const context: TemplatePageContext = {
      client,
      ...fresh,
      apiBase: base,
      redraw: async () => draw(await read(client, idOrSlug)),
    };
    show(
      main,
      SECTIONS.map((section) => section(context)),
    );
    document.title = `${fresh.template.name} — Template catalog`;
  };
  draw(data);
}

function notFound(main: HTMLElement, idOrSlug: string): void {
  show(
    main,
    h('h2', { id: 'not-found' }, 'No such template'),
    h(
      'p',
      {},
      `Nothing in the catalog is called “${idOrSlug}”, or it is private to its author. Check the link, or `,
      h('a', { href: '#/' }, 'browse the catalog'),
      '.',
    ),
  );
  document.title = 'No such template — Template catalog';
}
