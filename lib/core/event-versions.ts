/**
 * Schema versions an agent may pin (docs/webhooks.md, "Schema versions and pins"): each kind's steps
 * down from version n to n-1, as a function of the event's data. A step answers undefined when
 * version n-1 cannot say what the event says (a value it did not know): such an event is sent at the
 * oldest version that can say it, and its `schema_version` tells the receiver which. The versions a
 * pin may name are a kind's current one (EVENT_SCHEMA_VERSIONS) and each older one the steps reach;
 * a kind without steps has its current version only.
 */
import { type AnyEventType, EVENT_SCHEMA_VERSIONS } from './event-types.ts';

export type EventData = Record<string, unknown>;
type Step = (data: EventData) => EventData | undefined;
/** By kind, by the version stepped down from. */
export type VersionSteps = Partial<Record<AnyEventType, Readonly<Record<number, Step>>>>;
/** What an agent's webhook or a destination pins: a version per kind. */
export type SchemaPins = Partial<Record<AnyEventType, number>>;

export const VERSION_STEPS: VersionSteps = {
  // 2 → 1: version 1 knew the reason `consecutive_failures` only, and always carried `failing_since`.
  'service.webhook.disabled': {
    2: (data) =>
      data['reason'] === 'consecutive_failures' && typeof data['failing_since'] === 'string' ? data : undefined,
  },
};

/** The versions of `type` a pin may name, newest first. */
export function pinnableVersions(
  type: AnyEventType,
  current = EVENT_SCHEMA_VERSIONS[type],
  steps: VersionSteps = VERSION_STEPS,
): number[] {
  const versions = [current];
  for (let version = current; version > 1 && steps[type]?.[version]; version--) versions.push(version - 1);
  return versions;
}

export interface VersionedEvent {
  type: AnyEventType;
  schema_version: number;
  data: unknown;
}

/**
 * The event as `pins` ask for its kind: stepped down from its own version while the pin is lower and
 * each step can say it. Unpinned kinds, and events already at or below the pin, are sent as made.
 */
export function atPinnedVersion<E extends VersionedEvent>(
  event: E,
  pins: SchemaPins | undefined,
  steps: VersionSteps = VERSION_STEPS,
): E {
  const pin = pins?.[event.type];
  let version = event.schema_version;
  let data = event.data as EventData;
  while (pin !== undefined && version > pin) {
    const older = steps[event.type]?.[version]?.(data);
    if (older === undefined) break;
    data = older;
    version -= 1;
  }
  return version === event.schema_version ? event : { ...event, schema_version: version, data };
}
