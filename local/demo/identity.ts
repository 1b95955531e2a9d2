/**
 * The demo account and the ids of what `npm start` seeds for it (local/demo/seed.ts). The sample
 * events name these ids (a route's example in lib/routes.ts, the other functions' files in events/;
 * local/demo/sample-event.ts), so every sample runs against a fresh local runtime.
 *
 * The demo key is fixed and public, like a fixture: it exists only in the local runtime's store
 * (the seed never runs against AWS), and `npm run invoke -- authorizer` and the samples can name it.
 */

import { usageIdentifierFor } from '../../lib/accounts/api-keys.ts';
import type { Caller } from '../../lib/core/caller.ts';
import { deliveryIdFor } from '../../lib/events/delivery/record.ts';
import { eventIdAt } from '../../lib/events/feed/position.ts';

export const DEMO_API_KEY = 'mk_demo-key-of-the-local-runtime-only-never-valid-in-aws';

/** The demo key's caller, as the authorizer makes it (`usageKey` included: a portal link it makes lives while the key does). */
export const DEMO_CALLER: Caller = {
  userId: '3f9c2a4e-8b1d-4c6f-9e2a-7d5b1c0a9e11',
  workspaceId: '8d2e6f1a-4b3c-4d5e-8f9a-0b1c2d3e4f50',
  name: 'Demo Publisher',
  verified: true,
  operator: true,
  usageKey: usageIdentifierFor(DEMO_API_KEY),
};

/**
 * A second demo account, as fixed and public as the first: the author of the community template, and
 * the other party the docs' examples need (docs/client.md reviews the demo account's template with it:
 * nobody reviews their own).
 */
export const DEMO_SECOND_API_KEY = 'mk_demo-second-key-of-the-local-runtime-only-never-valid-in-aws';

export const DEMO_IDS = {
  /** http-uptime-check, which the demo contracts use. */
  uptimeTemplate: '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
  /** The agent whose webhook (the demo sink) the samples read, rotate and verify. */
  webhookAgent: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K',
  /** The agent whose webhook the samples configure and disable. */
  configAgent: 'agt_01KAKQ8E1B2C3D4E5F6G7H8J9K',
  /** The agent the deleteAgent sample deletes (the others stay for the other samples). */
  agentToDelete: 'agt_01KAKQ8D1B2C3D4E5F6G7H8J9K',
  /** The buyer agent of the demo contracts, its webhook verified at the demo sink: its feed and deliveries have their events. */
  buyerAgent: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC',
  /** A portal link of the webhook agent, for the revokePortalLink sample (its token is random and never shown). */
  portalLink: 'pl_00000000000000d0',
  /** The webhook agent's AWS destination the samples read and verify (with DEMO_DESTINATION.code). */
  destination: 'dst_01KAKQ8F1B2C3D4E5F6G7H8J9K',
  /** The destination the deleteDestination sample deletes. */
  destinationToDelete: 'dst_01KAKQ8G1B2C3D4E5F6G7H8J9K',
  /** One contract per step a sample takes, each in the state that step starts from. */
  contracts: {
    created: 'ctr_01KAKQ8A1B2C3D4E5F6G7H8J9K',
    fundedForVerification: 'ctr_01KAKQ8B1B2C3D4E5F6G7H8J9K',
    fundedForRelease: 'ctr_01KAKQ8C1B2C3D4E5F6G7H8J9K',
    fundedForRefund: 'ctr_01KAKQ8D1B2C3D4E5F6G7H8J9K',
  },
} as const;

/**
 * The demo destinations' queue (nothing creates it: their verification messages fail, as a queue
 * without the policy would) and the demo destination's verification code, as public as the demo keys.
 */
export const DEMO_DESTINATION = {
  arn: 'arn:aws:sqs:us-east-1:000000000000:template-marketplace-demo-destination',
  code: 'DEMO0-C0DE0',
} as const;

/** The delivery of the buyer agent's first event (event ids are their feed slots: lib/events/feed/position.ts). */
export const DEMO_DELIVERY = {
  agentId: DEMO_IDS.buyerAgent,
  eventId: eventIdAt(DEMO_IDS.buyerAgent, 1),
  deliveryId: deliveryIdFor(eventIdAt(DEMO_IDS.buyerAgent, 1)),
};

/** The webhook the seed gives the config agent, as the configureWebhook example does (nothing listens there). */
export const DEMO_WEBHOOK = {
  webhook_url: 'http://localhost:8080/webhook',
  events: ['contract.funded', 'contract.released'],
} as const;
