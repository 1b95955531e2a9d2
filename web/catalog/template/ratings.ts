import { h } from '../../shared/dom.ts';
import { plural, stars } from '../stars.ts';
import type { TemplateSection } from './context.ts';

/** The average, then how many reviews gave each rating: a bar (a `meter`, no inline style for the CSP) and the number. */
export const ratings: TemplateSection = ({ template: t, reviews, allReviews }) => {
  const counted = reviews.filter((r) => !r.hidden);
  const byRating = [5, 4, 3, 2, 1].map((n) => ({ n, count: counted.filter((r) => r.rating === n).length }));
  const most = Math.max(1, ...byRating.map((b) => b.count));
  return h(
    'section',
    { id: 'ratings', 'aria-labelledby': 'ratings-title' },
    h('h3', { id: 'ratings-title' }, 'Ratings'),
    h('p', {}, stars(t.stats.rating_avg, t.stats.rating_count)),
    t.stats.rating_count === 0
      ? null
      : h(
          'table',
          { id: 'distribution', class: 'distribution' },
          h(
            'caption',
            { class: 'muted' },
            allReviews ? 'Reviews by rating' : `Reviews by rating, of the newest ${plural(counted.length, 'review')}`,
          ),
          h(
            'tbody',
            {},
            byRating.map(({ n, count }) =>
              h(
                'tr',
                {},
                h('th', { scope: 'row' }, `${n} ★`),
                h(
                  'td',
                  { class: 'bar-cell' },
                  h('meter', { min: 0, max: most, value: count, 'aria-label': `${plural(count, 'review')} of ${n}` }),
                ),
                h('td', {}, String(count)),
              ),
            ),
          ),
        ),
  );
};
