/**
 * The portal's AWS destinations (docs/webhooks.md, "AWS destinations"): the agent's SQS queues and
 * EventBridge buses with their status, the resource policy each needs (shown, and copied with a
 * button), a form to add one, and, for one not yet ENABLED, a form for the code of the
 * verification message the service sent into it. Removing one is here too: an agent has at most
 * five, so a page that can add them must be able to take a wrong one away.
 */
import { ApiError } from '../../client/errors.ts';
import type { MarketplaceClient } from '../../client/marketplace-client.ts';
import type { CreateDestinationInput, CreatedDestination, Destination } from '../../client/types/index.ts';
import { copyText } from '../shared/copy.ts';
import { badge, byId, h, show, when } from '../shared/dom.ts';
import { act } from './actions.ts';
import { kindChoices } from './kind-choices.ts';
import { rateLimitText } from './rate-limit.ts';

type DestinationEvent = CreateDestinationInput['events'][number];

const KIND_NAMES: Record<Destination['kind'], string> = {
  sqs: 'Amazon SQS queue',
  eventbridge: 'Amazon EventBridge event bus',
};
const RESOURCE: Record<Destination['kind'], string> = { sqs: 'queue', eventbridge: 'event bus' };

/**
 * The section's redraw for the agent; `eventKinds` are the kinds a destination may subscribe to
 * (the catalog's configurable ones).
 */
export function destinationsSection(
  client: MarketplaceClient,
  agentId: string,
  eventKinds: readonly string[],
): () => Promise<void> {
  /** The answer of the add just made: its signing secret is shown once, on the redraw that follows. */
  let added: CreatedDestination | undefined;

  async function render(): Promise<void> {
    const { data } = await client.agents.listDestinations(agentId);
    const fresh = added;
    added = undefined;
    show(
      byId('destinations-body'),
      h(
        'p',
        { class: 'muted' },
        'Events can also go into an Amazon SQS queue or EventBridge event bus of your AWS account: add its ARN, put the policy shown on it, then enter the code of the verification message the service sends into it.',
      ),
      fresh ? secretNotice(fresh) : null,
      data.length === 0
        ? h('p', { class: 'muted', id: 'destination-list' }, 'No destinations.')
        : h('ul', { id: 'destination-list', class: 'destinations' }, data.map(item)),
      // Whether a verification message went out is decided by a worker after the add: read it again.
      h(
        'div',
        { class: 'row' },
        h(
          'button',
          {
            type: 'button',
            id: 'refresh-destinations',
            onclick: () => act(async () => 'Destinations refreshed.', render),
          },
          'Refresh destinations',
        ),
      ),
      addForm(),
    );
    if (fresh) document.getElementById(`code-${fresh.id}`)?.focus();
  }

  /**
   * A destination's 404 is not the link's end (another tab may have removed it): the redraw that
   * follows reads the list again, and that read ends the session itself if the link is what is gone.
   */
  const destinationAct = (what: () => Promise<string>) =>
    act(async () => {
      try {
        return await what();
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 404)) throw error;
        return 'That destination is no longer there: it was removed meanwhile.';
      }
    }, render);

  function item(d: Destination): HTMLElement {
    return h(
      'li',
      { 'data-destination': d.id, 'data-status': d.status },
      h('h3', {}, `${KIND_NAMES[d.kind]} `, h('span', { class: 'destination-status' }, badge(d.status))),
      h('p', { class: 'arn' }, 'ARN: ', h('code', {}, d.arn)),
      h('p', {}, `Event kinds: ${d.events.join(', ')}`),
      h('p', { class: 'destination-rate-limit' }, rateLimitText(d.rate_limit)),
      h('p', { class: 'destination-state' }, stateOf(d)),
      policyBlock(d),
      d.status === 'ENABLED' ? null : verifyForm(d),
      h(
        'div',
        { class: 'row' },
        h(
          'button',
          {
            type: 'button',
            class: 'remove-destination',
            onclick: () => {
              if (!window.confirm(`Remove ${d.arn}? Nothing more is sent to it.`)) return;
              void destinationAct(async () => {
                await client.agents.deleteDestination(agentId, d.id);
                return `Removed ${d.arn}.`;
              });
            },
          },
          'Remove',
        ),
      ),
    );
  }

  function verifyForm(d: Destination): HTMLElement {
    const code = h('input', {
      id: `code-${d.id}`,
      name: 'code',
      autocomplete: 'off',
      spellcheck: 'false',
      required: true,
      maxlength: 64,
      placeholder: 'ABCDE-FGHJK',
    });
    return h(
      'form',
      {
        class: 'row verify-destination',
        onsubmit: (event: Event) => {
          event.preventDefault();
          void destinationAct(async () => {
            const verified = await client.agents.verifyDestination(agentId, d.id, code.value.trim());
            return `Verified: ${verified.arn} is ${verified.status}; events go into it from now on.`;
          });
        },
      },
      h('label', { for: code.id }, 'Code of the verification message', code),
      h('button', { type: 'submit' }, 'Verify'),
    );
  }

  function addForm(): HTMLElement {
    const arn = h('input', {
      id: 'destination-arn',
      name: 'arn',
      required: true,
      maxlength: 400,
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'arn:aws:sqs:eu-west-1:123456789012:orders',
    });
    const choices = kindChoices('Event kinds to send', eventKinds);
    return h(
      'form',
      {
        id: 'destination-form',
        onsubmit: (event: Event) => {
          event.preventDefault();
          const events = choices.chosen() as DestinationEvent[];
          void destinationAct(async () => {
            added = await client.agents.createDestination(agentId, { arn: arn.value.trim(), events });
            return `Added ${added.arn}: put its policy on the ${RESOURCE[added.kind]}, then enter the code of the verification message.`;
          });
        },
      },
      h('h3', {}, 'Add a destination'),
      h('label', { for: 'destination-arn' }, 'ARN of the queue or event bus', arn),
      choices.fieldset,
      h('button', { type: 'submit' }, 'Add destination'),
    );
  }

  return render;
}

/** Where the destination stands, in words. */
function stateOf(d: Destination): string {
  if (d.status === 'ENABLED') return `Verified ${when(d.verified_at)}: events go into it.`;
  const disabled = d.status === 'DISABLED' ? `Disabled: ${d.status_reason ?? 'its sends kept failing'}. ` : '';
  const { sent_at, expires_at, last_error } = d.verification;
  if (last_error)
    return `${disabled}The verification message could not be sent (${last_error}). Put the policy below on the ${RESOURCE[d.kind]}; posting a code then asks for a new message.`;
  if (sent_at)
    return `${disabled}Verification message sent ${when(sent_at)}; its code counts until ${when(expires_at)}.`;
  return `${disabled}The verification message is on its way.`;
}

/** The policy as JSON, open while the destination is not verified, with a button that copies it. */
function policyBlock(d: Destination): HTMLElement {
  const text = JSON.stringify(d.policy, null, 2);
  const shown = h('pre', { class: 'policy' }, text);
  return h(
    'details',
    { open: d.status !== 'ENABLED' },
    h('summary', {}, `Policy to put on the ${RESOURCE[d.kind]}`),
    shown,
    h(
      'button',
      { type: 'button', class: 'copy-policy', onclick: () => void copyText(shown, text, 'Policy') },
      'Copy policy',
    ),
  );
}

function secretNotice(d: CreatedDestination): HTMLElement {
  return h(
    'p',
    { class: 'notice', id: 'destination-secret' },
    `Signing secret of ${d.arn}: `,
    h('code', {}, d.signing_secret),
    '. Shown only now: keep it to check the signatures of its messages, as with the webhook secret.',
  );
}
