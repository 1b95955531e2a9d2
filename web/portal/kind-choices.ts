/** A fieldset of event kinds to tick (the webhook's and a new destination's), and the kinds ticked. */
import { h } from '../shared/dom.ts';

export function kindChoices(
  legend: string,
  kinds: readonly string[],
  ticked: readonly string[] = [],
): { fieldset: HTMLFieldSetElement; chosen: () => string[] } {
  const boxes = kinds.map((kind) =>
    h('input', { type: 'checkbox', name: 'events', value: kind, checked: ticked.includes(kind) }),
  );
  return {
    fieldset: h(
      'fieldset',
      {},
      h('legend', {}, legend),
      boxes.map((box) => h('label', { class: 'inline' }, box, box.value)),
    ),
    chosen: () => boxes.filter((b) => b.checked).map((b) => b.value),
  };
}
