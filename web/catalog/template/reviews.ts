import { problem } from '../../shared/api.ts';
import { announce, h, when } from '../../shared/dom.ts';
import type { TemplatePageContext, TemplateSection } from './context.ts';

function reviewForm({ client, template: t, redraw }: TemplatePageContext): HTMLElement {
  const rating = h(
    'select',
    { id: 'review-rating', name: 'rating' },
    [5, 4, 3, 2, 1].map((n) => h('option', { value: n }, `${'★'.repeat(n)} ${n} of 5`)),
  );
  const title = h('input', { id: 'review-title', name: 'title', required: true, maxlength: 100 });
  const comment = h('textarea', { id: 'review-comment', name: 'comment', rows: 3, maxlength: 2000 });
  return h(
    'form',
    {
      class: 'row',
      id: 'review-form',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          await client.reviews.create(t.id, {
            rating: Number(rating.value),
            title: title.value,
            comment: comment.value,
          });
          await redraw();
          announce('Thank you: your review is saved.');
        } catch (error) {
          announce(problem(error), 'error');
        }
      },
    },
    h('label', { for: 'review-rating' }, 'Rating', rating),
    h('label', { for: 'review-title' }, 'Title', title),
    h('label', { for: 'review-comment' }, 'Comment', comment),
    h('button', { type: 'submit' }, 'Post review'),
  );
}

/** Why there is no form, when there is none: one review per user, and none of your own template. */
function noForm(context: TemplatePageContext): HTMLElement | null {
  const { viewer } = context.template;
  if (viewer.author)
    return h(
      'p',
      { class: 'notice', id: 'review-why-not' },
      'You published this template, so you cannot review it: reviews come from the accounts that use it.',
    );
  if (viewer.reviewed)
    return h(
      'p',
      { class: 'notice', id: 'review-why-not' },
      'You have reviewed this template (one review per account).',
    );
  return null;
}

export const reviews: TemplateSection = (context) => {
  const t = context.template;
  return h(
    'section',
    { id: 'reviews-section', 'aria-labelledby': 'reviews-title' },
    h('h3', { id: 'reviews-title' }, 'Reviews'),
    t.reviews.length === 0
      ? h('p', { id: 'reviews', class: 'muted' }, 'No reviews yet.')
      : h(
          'ul',
          { id: 'reviews', class: 'reviews' },
          t.reviews.map((r) =>
            h(
              'li',
              {},
              h('strong', {}, `${'★'.repeat(r.rating)}${'☆'.repeat(5 - r.rating)} ${r.rating} of 5 — ${r.title}`),
              h('div', { class: 'muted' }, `by ${r.user.name}, ${when(r.created_at)}`),
              r.comment ? h('div', {}, r.comment) : null,
            ),
          ),
        ),
    noForm(context) ?? [h('h4', {}, 'Write a review'), reviewForm(context)],
  );
};
