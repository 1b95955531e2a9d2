/**
 * The signing secret: hidden until asked for, and hidden again on request; rotation only after a
 * second, explicit confirmation that says what it changes (the receiver needs the new secret).
 */
import type { MarketplaceClient } from '../../client/marketplace-client.ts';
import { byId, h, show, when } from '../shared/dom.ts';
import { act } from './actions.ts';

const OVERLAPS: Array<[number, string]> = [
  [86_400, '24 hours (default)'],
  [3_600, '1 hour'],
  [0, 'none: the previous secret stops now'],
];
const MASK = '••••••••';

export function renderSecret(client: MarketplaceClient, agentId: string): void {
  const shown = h('code', { id: 'secret-value' }, MASK);
  let visible = false;
  const toggle = h(
    'button',
    {
      type: 'button',
      id: 'show-secret',
      'aria-controls': 'secret-value',
      onclick: () =>
        act(async () => {
          visible = !visible;
          show(shown, visible ? (await client.agents.getWebhookSecret(agentId)).webhook_secret : MASK);
          show(toggle, visible ? 'Hide secret' : 'Show secret');
          return visible ? 'Secret shown.' : 'Secret hidden.';
        }),
    },
    'Show secret',
  );
  const overlap = h(
    'select',
    { id: 'overlap', name: 'overlap' },
    OVERLAPS.map(([seconds, label]) => h('option', { value: seconds }, label)),
  );
  const overlapNote = h('p', { id: 'overlap-note', class: 'muted' });
  const confirmation = h('div', { id: 'rotate-confirmation' });
  const rotate = (seconds: number) =>
    act(async () => {
      const at = Date.now();
      const { webhook_secret } = await client.agents.rotateWebhookSecret(agentId, {
        expire_previous_in_seconds: seconds,
      });
      visible = true;
      show(shown, webhook_secret);
      show(toggle, 'Hide secret');
      show(confirmation);
      show(
        overlapNote,
        seconds === 0
          ? 'The previous secret no longer signs.'
          : `Overlap: deliveries carry signatures by both secrets until ${when(new Date(at + seconds * 1000).toISOString())}; after that only the new one.`,
      );
      return 'Secret rotated.';
    });
  show(
    byId('secret-body'),
    h('p', {}, 'Current secret: ', shown),
    h('div', { class: 'row' }, toggle),
    h(
      'form',
      {
        class: 'row',
        id: 'rotate-form',
        onsubmit: (event: Event) => {
          event.preventDefault();
          const seconds = Number(overlap.value);
          const label = OVERLAPS.find(([s]) => s === seconds)?.[1] ?? `${seconds} s`;
          show(
            confirmation,
            h(
              'div',
              { class: 'notice', role: 'alertdialog', 'aria-labelledby': 'rotate-question' },
              h(
                'p',
                { id: 'rotate-question' },
                `Rotate the secret now? Every later delivery is signed with a new secret; the previous one keeps signing for ${label}. Your receiver needs the new secret before then.`,
              ),
              h(
                'div',
                { class: 'row' },
                h(
                  'button',
                  { type: 'button', id: 'confirm-rotate', onclick: () => void rotate(seconds) },
                  'Rotate now',
                ),
                h('button', { type: 'button', id: 'cancel-rotate', onclick: () => show(confirmation) }, 'Cancel'),
              ),
            ),
          );
          byId('confirm-rotate').focus();
        },
      },
      h('label', { for: 'overlap' }, 'Previous secret keeps signing for', overlap),
      h('button', { type: 'submit' }, 'Rotate secret…'),
    ),
    confirmation,
    overlapNote,
  );
}
