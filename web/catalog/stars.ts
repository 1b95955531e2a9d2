import { h } from '../shared/dom.ts';

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** "★★★★☆" for an average (rounded to the nearest half, a half drawn as ★ with the rest ☆), read out in words. */
export function stars(avg: number, count: number): HTMLElement {
  if (count === 0) return h('span', { class: 'stars muted' }, 'No reviews yet');
  const full = Math.round(avg);
  return h(
    'span',
    { class: 'stars', 'aria-label': `Rated ${avg.toFixed(1)} out of 5 from ${plural(count, 'review')}` },
    h('span', { 'aria-hidden': 'true', class: 'stars-glyphs' }, '★'.repeat(full) + '☆'.repeat(5 - full)),
    ` ${avg.toFixed(1)} (${plural(count, 'review')})`,
  );
}

/** "1,234 installs" / "1 install". */
export const installs = (n: number): string => `${n.toLocaleString('en')} install${n === 1 ? '' : 's'}`;
