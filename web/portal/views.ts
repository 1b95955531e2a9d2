/**
 * The portal's two views: the overview (health first, then deliveries and the settings) and the
 * reference (the event kinds with their schemas and examples), one shown at a time, switched by
 * two buttons that say which is pressed.
 */
import { byId } from '../shared/dom.ts';

const VIEWS = ['overview', 'reference'] as const;
export type View = (typeof VIEWS)[number];

export function showView(view: View): void {
  for (const v of VIEWS) {
    byId(v).hidden = v !== view;
    byId(`view-${v}`).setAttribute('aria-pressed', String(v === view));
  }
}

export function setUpViews(): void {
  for (const v of VIEWS) byId(`view-${v}`).addEventListener('click', () => showView(v));
}
