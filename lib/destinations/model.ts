/**
 * The stored destination item (keys: destinationKeys in lib/store/keys.ts): an agent's Amazon SQS
 * queue or EventBridge bus, delivered to with the service's sender role (docs/webhooks.md, "AWS
 * destinations"). Only a hash of the verification code is kept.
 */

import type { EventType } from '../core/event-types.ts';
import type { SchemaPins } from '../core/event-versions.ts';
import { ID_PATTERN } from '../core/ids.ts';
import type { Filter } from '../filters/filter.ts';
import type { DestinationKind } from './arn.ts';

export type DestinationStatus = 'PENDING_VERIFICATION' | 'ENABLED' | 'DISABLED';

export interface DestinationRecord {
  id: string;
  agent_id: string;
  /** The account (user id) that registered it: the session tag every send to it carries. */
  owner_id: string;
  kind: DestinationKind;
  arn: string;
  events: EventType[];
  /** The schema version its deliveries are shaped to, per kind (lib/core/event-versions.ts); absent: none pinned. */
  schema_versions?: SchemaPins;
  /** Deliveries a second the owner allows (lib/agents/rate-limit.ts); absent or null: no limit. */
  rate_limit?: number | null;
  /** Its content filter (lib/filters), judged by the relay at its pins; absent or null: every subscribed event. */
  filter?: Filter | null;
  /** The filter before the last change and when it changed (ISO): events made before `filter_since` are judged by `previous_filter`. */
  previous_filter?: Filter | null;
  filter_since?: string;
  status: DestinationStatus;
  /** Why it is DISABLED (auto-disable), else null. */
  status_reason: string | null;
  /** Signs its deliveries, as a webhook secret signs a webhook's (`whsec_…`). */
  signing_secret: string;
  /** SHA-256 (hex) of the code of the latest verification message, and until when (ms) it may be posted back. */
  code_hash?: string;
  code_expires_at?: number;
  /** Wrong codes posted against the current code. */
  wrong_codes?: number;
  verification_sent_at: string | null;
  /**
   * The latest ask for a verification message (ms, the asking instance's clock): moved only by a
   * conditional write, at most once per DESTINATIONS.verificationIntervalMs (store.ts,
   * askForVerification). Absent on destinations made before it and on the demo seed's.
   */
  verification_requested_at?: number;
  /** The ask whose message the worker made (it makes one per ask, for the latest ask only). */
  verification_sent_for?: number;
  /** Why the latest verification message could not be sent (the policy not applied yet, a missing queue). */
  verification_error: string | null;
  verified_at: string | null;
  /** Health for auto-disable (ms of the first failure since the last success), as a webhook's. */
  failing_since?: number;
  created_at: string;
  updated_at: string;
}

export const isDestinationId = (id: string): boolean => ID_PATTERN.dst.test(id);
